"""Exports: run tables (CSV, JSON, LaTeX) and a campaign's judgments in the files its protocol offers
(``Protocol.judgment_formats``: WMT CSV and Appraise XML for any protocol, PRWS CSV and GMEG segment
scores for PRWS; each read back by the ``geceval``/crowd importers). Worker ids are pseudonymised
(``ranking.protocols.files.pseudonym``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from geceval.errors import GecInputError
from ranking.models import Campaign
from ranking.protocols import protocol_choices, protocol_get
from ranking.protocols.files import JudgmentFormat, csv_line

# --------------------------------------------------------------------------- judgments


def judgment_formats(campaign: Campaign) -> dict[str, JudgmentFormat]:
    """The files the campaign's protocol exports its judgments to, by name, in the order pages list them."""
    return {f.name: f for f in protocol_get(campaign.protocol).judgment_formats}


def all_judgment_formats() -> list[str]:
    """Every format some registered protocol offers (for the command line's choices)."""
    names: dict[str, None] = {}
    for name, _label in protocol_choices():
        names.update(dict.fromkeys(f.name for f in protocol_get(name).judgment_formats))
    return list(names)


def all_judgment_content_types() -> list[str]:
    """The content type of every format some registered protocol offers (for the API schema)."""
    types: dict[str, None] = {}
    for name, _label in protocol_choices():
        types.update(dict.fromkeys(f.content_type for f in protocol_get(name).judgment_formats))
    return list(types)


def iter_judgments(campaign: Campaign, fmt: str) -> Iterator[str]:
    """The campaign's valid judgments in ``fmt``; GecInputError when its protocol does not offer it."""
    offered = judgment_formats(campaign)
    if fmt not in offered:
        label = protocol_get(campaign.protocol).label
        raise GecInputError(f"a {label} campaign exports {', '.join(offered)}, not {fmt!r}")
    return offered[fmt].writer(campaign)


# --------------------------------------------------------------------------- run tables


def rankings_csv(rows) -> str:
    out = [csv_line(["position", "system", "mu", "rank_lo", "rank_hi", "cluster", "pairs"])]
    out += [csv_line([r.position, r.name, r.mu, r.rank_lo, r.rank_hi, r.cluster, r.pairs]) for r in rows]
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
    out = [csv_line(["metric", "reference_set", "system", "score"])]
    out += [csv_line([r.metric, r.reference_set, r.name, r.score]) for r in rows]
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
