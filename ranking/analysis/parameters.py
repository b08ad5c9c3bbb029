"""Run kinds, their parameters (validated before a run is made) and the versions a run records."""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import platform
import subprocess
from pathlib import Path

from annotate.models import System, SystemKind
from geceval.errors import GecInputError
from geceval.metrics.ensemble.model import DEFAULT_COMPONENTS
from ranking.analysis.metrics import METRICS
from ranking.analysis.models import AnalysisKind, AnalysisRun, ImportedScores, RunStatus
from ranking.models import Campaign
from ranking.protocols import human_score_choices, protocol_get

RANKING_KINDS = (AnalysisKind.TRUESKILL, AnalysisKind.EXPECTED_WINS)
SUPPORTED_KINDS = (
    *RANKING_KINDS,
    AnalysisKind.PRWS_SUMMARY,
    AnalysisKind.METRIC_SCORES,
    AnalysisKind.META_EVAL,
    AnalysisKind.GLEU_VS_REFS,
    AnalysisKind.ENSEMBLE,
)
DEFAULT_RUNS = 1000
DEFAULT_CHUNKS = 4
# With TrueSkill's compiled kernel 1000 runs are ~1 CPU-s: 4 chunks still feed 2-4 worker processes,
# and a chunked run stays within a few % of the command line's CPU (8 chunks cost ~10% more; docs/benchmarks.md).
MAX_RUNS = 100_000


class AnalysisError(ValueError):
    """A run cannot be made or computed with these parameters (shown to the researcher)."""


# --------------------------------------------------------------------------- versions


@functools.lru_cache(maxsize=1)
def code_versions() -> dict[str, str]:
    """The code commit (git, when the checkout has one) and the versions of the libraries results depend on."""
    out = {"python": platform.python_version()}
    try:
        out["code"] = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out["code"] = "unknown"
    for lib in ("numpy", "scipy", "sacrebleu", "errant", "django", "celery"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            out[lib] = importlib.metadata.version(lib)
    return out


# --------------------------------------------------------------------------- create / enqueue


MAX_CHUNKS = 1000
MAX_SAMPLES = 1000
MAX_SEED = 2**31 - 1  # AnalysisRun.seed is an IntegerField: 32 bits on PostgreSQL


def clean_parameters(kind: str, parameters: dict, campaign: Campaign) -> dict:
    """Validated, completed parameters of a run of ``kind``; AnalysisError says what is wrong."""
    if not isinstance(parameters, dict):
        raise AnalysisError("parameters must be an object")
    try:
        return _clean(kind, parameters, campaign)
    except AnalysisError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise AnalysisError(f"malformed parameters ({type(exc).__name__}: {exc})") from None


def _clean(kind: str, parameters: dict, campaign: Campaign) -> dict:
    p = dict(parameters)
    if kind in RANKING_KINDS:
        runs = int(p.get("runs", DEFAULT_RUNS))
        chunks = int(p.get("chunks", DEFAULT_CHUNKS))
        if not 1 <= runs <= MAX_RUNS:
            raise AnalysisError(f"Give a number of runs from 1 to {MAX_RUNS}.")
        if not 1 <= chunks <= min(runs, MAX_CHUNKS):
            raise AnalysisError(
                f"Give a number of chunks from 1 to the number of runs (at most {MAX_CHUNKS})."
            )
        p.update(runs=runs, chunks=chunks, estimate_needed=bool(p.get("estimate_needed", False)))
    elif kind == AnalysisKind.PRWS_SUMMARY:
        if not protocol_get(campaign.protocol).prws_ratings:
            raise AnalysisError("a PRWS summary needs a PRWS campaign")
        p["samples"] = int(p.get("samples", 100))
        if not 1 <= p["samples"] <= MAX_SAMPLES:
            raise AnalysisError(f"Give a number of samples from 1 to {MAX_SAMPLES}.")
        if "chunks" in p:  # split-half samples shared out when frozen in parts (parts.make_chunks)
            p["chunks"] = int(p["chunks"])
            if not 1 <= p["chunks"] <= min(p["samples"], MAX_CHUNKS):
                raise AnalysisError(
                    f"Give a number of chunks from 1 to the number of samples (at most {MAX_CHUNKS})."
                )
    elif kind == AnalysisKind.METRIC_SCORES:
        _clean_metric_scores(p, campaign)
    elif kind == AnalysisKind.META_EVAL:
        _clean_meta_eval(p, campaign)
    elif kind == AnalysisKind.GLEU_VS_REFS:
        pass
    elif kind == AnalysisKind.ENSEMBLE:
        _clean_ensemble(p, campaign)
    else:
        raise AnalysisError(f"analysis kind {kind!r} is not available")
    return p


def _clean_metric_scores(p: dict, campaign: Campaign) -> None:
    metrics = list(p.get("metrics") or ["gleu", "bleu", "chrf"])
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise AnalysisError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
    refs = set(
        System.objects.filter(corpus=campaign.corpus, kind=SystemKind.REFERENCE).values_list(
            "name", flat=True
        )
    )
    sets = p.get("reference_sets") or ({"all": sorted(refs)} if refs else {})
    if not sets:
        raise AnalysisError("the corpus has no reference systems to score against")
    for name, members in sets.items():
        if name == "imported":  # sentence_meta.IMPORTED: where a meta-evaluation lists imported scores
            raise AnalysisError("'imported' is kept for imported scores: name the reference set otherwise")
        missing = [m for m in members if m not in refs]
        if not members or missing:
            raise AnalysisError(f"reference set {name!r}: not references of the corpus: {missing or 'empty'}")
    p.update(metrics=metrics, reference_sets={str(k): list(v) for k, v in sets.items()})


def _clean_meta_eval(p: dict, campaign: Campaign) -> None:
    for key, what in (("human_run", "human judgments"), ("metric_run", "metric scores")):
        run = AnalysisRun.objects.filter(pk=p.get(key), status=RunStatus.DONE).first()
        if run is None:
            raise AnalysisError(f"Choose a finished run for the {what}.")
        p[key] = run.pk
    human = AnalysisRun.objects.get(pk=p["human_run"])
    if human.kind not in (*RANKING_KINDS, AnalysisKind.PRWS_SUMMARY):
        raise AnalysisError("The human judgments must come from a ranking or a PRWS summary run.")
    score = p.get("human_score") or ""
    if score:
        try:
            offered = protocol_get(human.campaign.protocol).human_scores_offered
        except GecInputError:
            offered = {}
        if score not in offered:
            raise AnalysisError(
                f"The human run's campaign gives no human score {score!r}"
                + (f" (it gives {', '.join(offered)})." if offered else ".")
            )
        p["human_score"] = score
    else:
        p.pop("human_score", None)
    if AnalysisRun.objects.get(pk=p["metric_run"]).kind != AnalysisKind.METRIC_SCORES:
        raise AnalysisError("The metric scores must come from a metric scores run.")
    p["exclude"] = [str(x) for x in p.get("exclude", [])]
    if p.get("allow_missing"):
        p["allow_missing"] = True
    else:
        p.pop("allow_missing", None)
    synthetic = p.get("synthetic") or None
    if synthetic:
        if human.kind != AnalysisKind.PRWS_SUMMARY:
            raise AnalysisError("synthetic systems need a PRWS summary as the human run (segment scores)")
        synthetic = synthetic if isinstance(synthetic, dict) else {}
        samples = int(synthetic.get("samples", 1))
        if not 1 <= samples <= 10:
            raise AnalysisError("Give a number of synthetic samples from 1 to 10.")
        synthetic = {"samples": samples}
    p["synthetic"] = synthetic
    imported = p.get("imported") or []
    if not isinstance(imported, list) or not all(isinstance(n, str) for n in imported):
        raise AnalysisError("imported: give a list of names of imported scores")
    known = set(
        ImportedScores.objects.filter(corpus_id=campaign.corpus_id, name__in=imported).values_list(
            "name", flat=True
        )
    )
    unknown = [n for n in imported if n not in known]
    if unknown:
        raise AnalysisError(f"no imported scores named {', '.join(unknown)} for this campaign's corpus")
    p["imported"] = list(dict.fromkeys(imported))


def _clean_ensemble(p: dict, campaign: Campaign) -> None:
    human = AnalysisRun.objects.filter(
        pk=p.get("human_run"), status=RunStatus.DONE, kind=AnalysisKind.PRWS_SUMMARY
    ).first()
    if human is None or human.campaign.corpus_id != campaign.corpus_id:
        raise AnalysisError(
            "The human judgments must come from a finished PRWS summary of a campaign on the same corpus."
        )
    components = list(p.get("components") or DEFAULT_COMPONENTS)
    unknown = [c for c in components if c not in DEFAULT_COMPONENTS]
    if unknown:
        raise AnalysisError(
            f"unknown component(s) {', '.join(unknown)}; known: {', '.join(DEFAULT_COMPONENTS)}"
        )
    if not System.objects.filter(corpus=campaign.corpus, kind=SystemKind.REFERENCE).exists():
        raise AnalysisError("the corpus has no reference systems")
    p.update(
        human_run=human.pk,
        components=components,
        synthetic=bool(p.get("synthetic", True)),
        samples=int(p.get("samples", 1)),
        folds=int(p.get("folds", 10)),
        alpha=float(p.get("alpha", 0.001)),
    )
    if not 1 <= p["samples"] <= 10 or not 2 <= p["folds"] <= 50 or p["alpha"] <= 0:
        raise AnalysisError("samples 1..10, folds 2..50, alpha > 0")


_PLAIN = {
    "runs": lambda v: f"{v} runs",
    "chunks": lambda v: f"in {v} chunks",
    "estimate_needed": lambda v: "estimates the judgments still needed" if v else "",
    "samples": lambda v: f"{v} bootstrap samples",
    "metrics": lambda v: "metrics " + ", ".join(v),
    "reference_sets": lambda v: "references " + "; ".join(f"{k}: {', '.join(m)}" for k, m in v.items()),
    "human_run": lambda v: f"human judgments from run #{v}",
    "metric_run": lambda v: f"metric scores from run #{v}",
    "exclude": lambda v: ("leaving out " + ", ".join(v)) if v else "",
    "allow_missing": lambda v: "accepting judged systems or pairs without scores" if v else "",
    "synthetic": lambda v: f"{v.get('samples', 1)} synthetic systems per system" if v else "",
    "components": lambda v: "combining " + ", ".join(v),
    "imported": lambda v: ("with imported scores " + ", ".join(v)) if v else "",
    "human_score": lambda v: f"human score: {dict(human_score_choices()).get(v, v)}" if v else "",
}


def parameters_in_words(parameters: dict) -> list[str]:
    """A run's parameters as the run page says them ("100 runs"), never as stored keys
    (``estimate_needed True``); an unknown key is shown with spaces for its underscores."""
    words = []
    for key, value in parameters.items():
        try:
            text = _PLAIN[key](value) if key in _PLAIN else f"{key.replace('_', ' ')} {value}"
        except (AttributeError, TypeError):
            text = f"{key.replace('_', ' ')} {value}"
        if text:
            words.append(text)
    return words
