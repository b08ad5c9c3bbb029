"""What a meta-evaluation run adds to the system-level correlations (Kobayashi et al. 2024):
sentence-level agreement of every metric with the human run's pairwise judgments, and the
scores of metrics run elsewhere (``ImportedScores``) beside ours.

Sentence level
    Needs a ranking human run (TrueSkill or Expected Wins): its frozen rankings, expanded to
    pairwise judgments of outputs of the same sentence (a compact imported campaign's pairs are
    read from the campaign, which one import made and nothing changes). Each metric of the metric
    run that has a sentence-level score (``geceval.metaeval.sentence_scores``: m2, errant, gleu, bleu, chrf)
    scores the judged sentences against each reference set of that run (M2 and ERRANT against the
    ERRANT annotation of the references, as at system level); char_gleu and ter have none here
    and are listed as skipped. The agreement is the WMT tau variant and pairwise accuracy
    (``geceval.metaeval.correlation.sentence_agreement``), stored split by pair of systems so the page sums it
    over any subset of systems by their current tags, as the system-level subsets are.

Imported scores
    Chosen by name when the run is made and copied into the run's frozen input, so deleting or
    replacing them later leaves the run's results as they were. A per-system file joins the
    system-level rows (reference set ``imported``); a per-sentence file (items named as the
    judgment files name sentences: ``imported_scores.sentence_items``) joins the sentence-level rows.
"""

from __future__ import annotations

from collections.abc import Callable

from geceval.formats.joins import min_share, pair_join, require_share
from geceval.formats.judgments import PairwiseJudgment
from geceval.metaeval import kobayashi2024 as m24
from geceval.metaeval.sentence_scores import NEEDS_GOLD, SENTENCE_METRICS, sentence_level_scores
from ranking.analysis import compute, frozen, metrics
from ranking.analysis.compute import RUN_HINT
from ranking.analysis.imported_scores import sentence_items
from ranking.analysis.models import AnalysisKind, AnalysisRun, ImportedScores, RunInput, ScoreLevel
from ranking.analysis.parameters import AnalysisError

IMPORTED = "imported"
"""The reference set imported scores are listed under (they come with their own references, if any)."""


def imported_freeze(run: AnalysisRun) -> list[dict]:
    """The imported score sets the run names, copied (sentences named as in the file turned into
    sentence ids)."""
    names = run.parameters.get("imported") or []
    found = {
        s.name: s for s in ImportedScores.objects.filter(corpus_id=run.campaign.corpus_id, name__in=names)
    }
    missing = [n for n in names if n not in found]
    if missing:
        raise AnalysisError(f"imported scores no longer there: {', '.join(missing)}")
    items = None
    out = []
    for name in names:
        s = found[name]
        scores = s.scores
        if s.level == ScoreLevel.SENTENCE:
            if items is None:
                items = {k: str(pk) for k, pk in sentence_items(run.campaign.corpus_id).items()}
            scores = {
                system: {items[k]: v for k, v in per.items() if k in items} for system, per in scores.items()
            }
        out.append({"name": name, "level": s.level, "scores": scores})
    return out


def imported_system_rows(imported: list[dict]) -> list[dict]:
    """Per-system imported scores as metric rows (``compute.correlations`` input)."""
    return [
        {"name": system, "reference_set": IMPORTED, "metric": s["name"], "score": float(score)}
        for s in imported
        if s["level"] == ScoreLevel.SYSTEM
        for system, score in s["scores"].items()
    ]


def human_pairs(human_run: AnalysisRun) -> list[PairwiseJudgment] | None:
    """The human run's pairwise judgments with their sentences (item = sentence id); None for a
    PRWS human run, whose ratings are not rankings, or a run that kept no input."""
    if human_run.kind not in (AnalysisKind.TRUESKILL, AnalysisKind.EXPECTED_WINS):
        return None
    data = RunInput.objects.filter(run=human_run).values_list("data", flat=True).first()
    if data is None:
        return None
    if "rankings" in data:
        return compute.pairs_from_json(data["rankings"])
    found = frozen.compact_pairs(human_run.campaign)
    return found.pairwise_judgments() if found is not None else []


def _joined(
    pairs: list[PairwiseJudgment], scores: dict, exclude: list[str], share: float, where: str
) -> None:
    """The run fails unless at least ``share`` of the judged pairs find their scores (``geceval.formats.joins``)."""
    found = pair_join(pairs, scores, exclude=exclude, judged_as="the human run's judgments")
    require_share(found, min_share=share, where=where, hint=RUN_HINT)


def sentence_level(
    run: AnalysisRun,
    imported: list[dict],
    *,
    store: metrics.CacheStore | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> tuple[list[dict], dict]:
    """(SentenceCorrelationResult rows, a summary for the page)."""
    human_run = AnalysisRun.objects.get(pk=run.parameters["human_run"])
    pairs = human_pairs(human_run)
    if pairs is None:
        return [], {
            "note": "sentence level needs a ranking human run (TrueSkill or Expected Wins) with its judgments"
        }
    metric_run = AnalysisRun.objects.get(pk=run.parameters["metric_run"])
    data = RunInput.objects.get(run=metric_run).data
    line = {str(pk): i for i, pk in enumerate(data.get("sentence_ids", []))}
    judged = sorted({line[p.item] for p in pairs if p.item in line})
    exclude = run.parameters.get("exclude", [])
    wanted = [m for m in metric_run.parameters["metrics"] if m in SENTENCE_METRICS]
    sets = metric_run.parameters["reference_sets"]
    sentence_imports = [s for s in imported if s["level"] == ScoreLevel.SENTENCE]
    total = len(wanted) * len(sets) + len(sentence_imports)
    share = min_share(bool(run.parameters.get("allow_missing")))

    rows = []
    for s in sentence_imports:
        _joined(pairs, s["scores"], exclude, share, f"{s['name']}/{IMPORTED} (sentence level)")
        rows.append(
            {
                "metric": s["name"],
                "reference_set": IMPORTED,
                "pair_counts": m24.sentence_pair_counts(pairs, s["scores"], exclude=exclude),
            }
        )
        progress(len(rows), total)
    if wanted and pairs and not judged and share > 0:
        raise AnalysisError(
            "sentence level: none of the human run's judged sentences is among the metric run's "
            f"{len(line)} sentences (another corpus?); {RUN_HINT}"
        )
    if judged:
        sentence_ids = data["sentence_ids"]
        for ref_name, members in sets.items():
            refs = [data["references"][m] for m in members]
            gold = None
            for metric in wanted:
                if metric in NEEDS_GOLD and gold is None:
                    gold = metrics.errant_references(data["source"], refs, store).m2
                per = sentence_level_scores(
                    metric, judged, data["outputs"], source=data["source"], references=refs, gold=gold
                )
                scores = {
                    system: {str(sentence_ids[int(i)]): v for i, v in cells.items()}
                    for system, cells in per.items()
                }
                _joined(pairs, scores, exclude, share, f"{metric}/{ref_name} (sentence level)")
                rows.append(
                    {
                        "metric": metric,
                        "reference_set": ref_name,
                        "pair_counts": m24.sentence_pair_counts(pairs, scores, exclude=exclude),
                    }
                )
                progress(len(rows), total)
    summary = {
        "pairs": len(pairs),
        "sentences": len({p.item for p in pairs}),
        "scored_sentences": len(judged),
        "skipped_metrics": [m for m in metric_run.parameters["metrics"] if m not in SENTENCE_METRICS],
    }
    if not judged and wanted:
        summary["note"] = "the metric run's sentences are not the ones the human run judged (another corpus?)"
    return rows, summary
