"""Exports: run tables (CSV, JSON, LaTeX) and a campaign's judgments (WMT CSV, Appraise XML, PRWS CSV,
GMEG segment scores). Judgment exports are generators of text chunks, so a view can stream them and a
command can write them without holding a million rows.

Worker ids are pseudonymised: ``w`` + the first 12 hex digits of HMAC-SHA256(SECRET_KEY, user id), so
exports can be shared without revealing accounts and the same worker has the same pseudonym in every
export of this installation.

Formats (each read back by ``geceval``/crowd importers):

- ``wmt-csv``: one row per judgment, ``srcIndex,segmentId,judgeId,system1Id,system1rank,...`` with as
  many system columns as the largest judgment (a candidate standing for several systems gives one
  column pair per system, same rank); readable by ``python -m geceval rank FILE --format wmt-csv``.
  Rows are in judgment order and systems in display order, so ranking the file gives exactly the
  numbers of an analysis run on the same campaign and seed. PRWS screens become rankings by score
  (equal scores tied).
- ``appraise-xml``: ``<ranking-item id user>`` with one ``<translation system rank>`` per system shown, in display order.
- ``prws-csv``: ``item,worker,system,score,meaning_changed`` (geceval.prws.read_prws_csv).
- ``gmeg-segment-csv``: GMEG ``*-segment-scores.csv``: a header of systems, one row per corpus
  sentence, the cell = mean score of that system's output (empty = not rated).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from xml.sax.saxutils import quoteattr

from django.conf import settings

from annotate.http import csv_cell
from annotate.models import Sentence
from ranking.models import Campaign
from ranking.protocols import protocol_get
from ranking.rankings import iter_screen_rankings
from ranking.selectors import valid_ratings

JUDGMENT_FORMATS = ("wmt-csv", "appraise-xml", "prws-csv", "gmeg-segment-csv")


def pseudonym(user_id: int | str) -> str:
    digest = hmac.new(settings.SECRET_KEY.encode(), str(user_id).encode(), hashlib.sha256).hexdigest()
    return "w" + digest[:12]


def _csv_line(row: Iterable) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([csv_cell(v) for v in row])
    return buf.getvalue()


# --------------------------------------------------------------------------- judgments


def iter_judgments(campaign: Campaign, fmt: str) -> Iterator[str]:
    if fmt == "wmt-csv":
        return iter_wmt_csv(campaign)
    if fmt == "appraise-xml":
        return iter_appraise_xml(campaign)
    if fmt == "prws-csv":
        return iter_prws_csv(campaign)
    if fmt == "gmeg-segment-csv":
        return iter_gmeg_segment_csv(campaign)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(JUDGMENT_FORMATS)}")


def _max_entries(campaign: Campaign) -> int:
    from django.db.models import Count

    row = (
        valid_ratings(campaign)
        .values("judgment_id")
        .annotate(n=Count("candidate__outputs"))
        .order_by("-n")
        .values_list("n", flat=True)
        .first()
    )
    return max(int(row or 0), 2)


def iter_wmt_csv(campaign: Campaign) -> Iterator[str]:
    width = _max_entries(campaign)
    header = ["srcIndex", "segmentId", "judgeId"]
    for i in range(1, width + 1):
        header += [f"system{i}Id", f"system{i}rank"]
    yield _csv_line(header)
    for sr in iter_screen_rankings(campaign):
        if len(sr.entries) < 2:
            continue
        row = [sr.position + 1, sr.position + 1, pseudonym(sr.judge_id)]
        for system, rank, _score, _mc in sr.entries:
            row += [system, rank]
        row += ["", ""] * (width - len(sr.entries))
        yield _csv_line(row)


def iter_appraise_xml(campaign: Campaign) -> Iterator[str]:
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield f"<ranking-results campaign={quoteattr(campaign.name)}>\n"
    for sr in iter_screen_rankings(campaign):
        if len(sr.entries) < 2:
            continue
        yield f'  <ranking-item id="{sr.position + 1}" user="{pseudonym(sr.judge_id)}">\n'
        # one <translation> per system in display order (a collapsed candidate's systems share its rank),
        # so the pairwise expansion of the file is the run's, pair for pair
        for system, rank, _score, _mc in sr.entries:
            yield f'    <translation system={quoteattr(system)} rank="{rank}"/>\n'
        yield "  </ranking-item>\n"
    yield "</ranking-results>\n"


def iter_prws_csv(campaign: Campaign) -> Iterator[str]:
    yield _csv_line(["item", "worker", "system", "score", "meaning_changed"])
    for sr in iter_screen_rankings(campaign):
        for system, _rank, score, mc in sr.entries:
            if score is not None:
                yield _csv_line([sr.position, pseudonym(sr.judge_id), system, score, int(mc)])


def iter_gmeg_segment_csv(campaign: Campaign) -> Iterator[str]:
    """Per-sentence mean score of each system (PRWS); rows = corpus sentences in order (GMEG item = 0-based line)."""

    systems = sorted(campaign.systems.values_list("name", flat=True))
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0])
    if protocol_get(campaign.protocol).prws_ratings:
        for sr in iter_screen_rankings(campaign):
            for system, _rank, score, _mc in sr.entries:
                if score is not None:
                    acc = sums[(sr.position, system)]
                    acc[0] += score
                    acc[1] += 1
    yield _csv_line(systems)
    positions = (
        Sentence.objects.filter(corpus=campaign.corpus)
        .order_by("position")
        .values_list("position", flat=True)
    )
    if campaign.domain:
        positions = positions.filter(domain=campaign.domain)
    for pos in positions.iterator():
        cells = []
        for s in systems:
            total, n = sums.get((pos, s), (0.0, 0))
            cells.append(repr(total / n) if n else "")
        yield _csv_line(cells)


# --------------------------------------------------------------------------- run tables


def rankings_csv(rows) -> str:
    out = [_csv_line(["position", "system", "mu", "rank_lo", "rank_hi", "cluster", "pairs"])]
    out += [_csv_line([r.position, r.name, r.mu, r.rank_lo, r.rank_hi, r.cluster, r.pairs]) for r in rows]
    return "".join(out)


def rankings_json(run, rows) -> str:
    data = {
        "run": run.pk,
        "kind": run.kind,
        "seed": run.seed,
        "parameters": run.parameters,
        "judgments": run.judgments_used,
        "pairs": run.pairs_used,
        "excluded_workers": run.excluded_workers,
        "versions": run.versions,
        "systems": [
            {
                "name": r.name,
                "mu": r.mu,
                "rank_range": [r.rank_lo, r.rank_hi],
                "cluster": r.cluster,
                "pairs": r.pairs,
            }
            for r in rows
        ],
    }
    return json.dumps(data, indent=2)


def latex_escape(text: str) -> str:
    table = {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
    return "".join(table.get(c, c) for c in text)


def rankings_latex(rows) -> str:
    """The papers' table: # | score | range | system, ``\\midrule`` between clusters."""
    lines = [r"\begin{tabular}{rrrl}", r"\toprule", r"\# & Score & Range & System \\", r"\midrule"]
    prev = None
    for r in rows:
        if prev is not None and r.cluster != prev:
            lines.append(r"\midrule")
        prev = r.cluster
        span = f"{r.rank_lo}" if r.rank_lo == r.rank_hi else f"{r.rank_lo}--{r.rank_hi}"
        lines.append(f"{r.cluster} & {r.mu:.3f} & {span} & {latex_escape(r.name)} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)


def metric_csv(rows) -> str:
    out = [_csv_line(["metric", "reference_set", "system", "score"])]
    out += [_csv_line([r.metric, r.reference_set, r.name, r.score]) for r in rows]
    return "".join(out)


def metric_latex(rows) -> str:
    """Systems as rows, one column per metric/reference set."""
    cols = sorted({(r.metric, r.reference_set) for r in rows})
    systems = sorted({r.name for r in rows})
    value = {(r.name, r.metric, r.reference_set): r.score for r in rows}
    head = " & ".join(latex_escape(f"{m} ({s})") for m, s in cols)
    lines = [r"\begin{tabular}{l" + "r" * len(cols) + "}", r"\toprule", f"System & {head} \\\\", r"\midrule"]
    for name in systems:
        cells = " & ".join(f"{value[(name, m, s)]:.4f}" if (name, m, s) in value else "--" for m, s in cols)
        lines.append(f"{latex_escape(name)} & {cells} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)
