"""Statistics of collected rewrites and of a corpus's references (core scorers underneath).

Per rewrite campaign and per annotator group (Sakaguchi et al. 2016, Table 4;
Napoles et al. 2019, Figure 1), from :mod:`geceval.metaeval.edit_stats`:

- % of rewrites that change the sentence and mean character LD, word LD,
  sTER (edits per sentence, as Sakaguchi et al. define it) and TER x 100
  (edits per 100 source tokens) against the source (``edit_stats``: stripped
  lines, the SOURCE as the reference);
- between annotators: every unordered pair of rewrites of the same sentence
  within the group (the earlier-submitted one as ``a``), pooled:
  % identical and mean sTER and TER x 100 of ``b`` against ``a`` (``pair_stats``); with two
  rewrites per sentence and group this is exactly Table 4's pair;
- difficulty (1-5, JFLEG): mean, sample standard deviation (n-1) and
  Pearson's r (``scipy.stats.pearsonr``) between a rewrite's difficulty and
  its character LD against the source; None when fewer than two rated
  rewrites or either variable is constant;
- ERRANT error types with the operation prefix removed (GMEG Figure 1), over
  every rewrite (``rewrite_type_distribution(main=True)``), drawn by
  :func:`bar_chart_svg`.

Which rewrites: every one with text that is not rejected (submitted,
accepted, edited), taking the expert's text when edited; flagged rewrites
(MERGE, FRAGMENT, NOT ANNOTATABLE) have no text and are counted apart.

Corpus level (:func:`corpus_system_stats`): each system against the source,
per domain and overall, e.g. GMEG dev FCE ref0..3 unchanged 17.0/20.5/22.9/27.9%.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from itertools import combinations

from annotate.formats.campaign import pseudonym
from annotate.formats.services import corpus_data
from annotate.models import Rewrite
from geceval.metaeval.edit_stats import EditStats, char_ld, edit_stats, pair_stats, rewrite_type_distribution


@dataclass(frozen=True)
class RewriteRow:
    """One rewrite for statistics; ``order`` breaks ties (submission order)."""

    position: int
    source: str
    annotator: str
    group: str
    text: str
    difficulty: int | None = None
    order: int = 0


@dataclass(frozen=True)
class RewriteStats:
    group: str  # "" for every group together
    n_rewrites: int
    n_sentences: int
    n_annotators: int
    pct_changed: float
    mean_char_ld: float
    mean_word_ld: float
    mean_ster: float | None  # edits per sentence
    n_pairs: int
    pct_identical: float | None  # between two annotators of the same sentence
    mean_pair_ster: float | None  # edits per sentence
    mean_ter_x100: float | None  # edits per 100 source tokens
    mean_pair_ter_x100: float | None  # edits per 100 tokens of the earlier rewrite
    difficulty_n: int
    difficulty_mean: float | None
    difficulty_sd: float | None
    difficulty_ld_r: float | None
    difficulty_ld_p: float | None
    types: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CampaignStats:
    overall: RewriteStats
    groups: list[RewriteStats]
    flags: dict[str, int]


def _difficulty(
    rows: Sequence[RewriteRow],
) -> tuple[int, float | None, float | None, float | None, float | None]:
    rated = [r for r in rows if r.difficulty is not None]
    if not rated:
        return 0, None, None, None, None
    levels = [float(r.difficulty) for r in rated]  # type: ignore[arg-type]
    mean = statistics.fmean(levels)
    sd = statistics.stdev(levels) if len(levels) > 1 else None
    lds = [float(char_ld(r.source.strip(), r.text.strip())) for r in rated]
    r_val = p_val = None
    if len(rated) > 1 and len(set(levels)) > 1 and len(set(lds)) > 1:
        from scipy.stats import pearsonr

        res = pearsonr(levels, lds)
        r_val, p_val = float(res.statistic), float(res.pvalue)
    return len(rated), mean, sd, r_val, p_val


def rewrite_stats(
    rows: Sequence[RewriteRow], *, group: str = "", with_ster: bool = True, with_types: bool = True
) -> RewriteStats:
    """Statistics of one set of rewrites (a group, or a whole campaign)."""
    rows = sorted(rows, key=lambda r: (r.position, r.order))
    e = edit_stats([r.source for r in rows], [r.text for r in rows], with_ster=with_ster)
    by_sentence: dict[int, list[RewriteRow]] = {}
    for r in rows:
        by_sentence.setdefault(r.position, []).append(r)
    a_texts: list[str] = []
    b_texts: list[str] = []
    for same in by_sentence.values():
        for a, b in combinations(same, 2):
            a_texts.append(a.text)
            b_texts.append(b.text)
    pair = pair_stats(a_texts, b_texts) if a_texts else None
    dn, dmean, dsd, dr, dp = _difficulty(rows)
    types = (
        rewrite_type_distribution([r.source for r in rows], [r.text for r in rows], main=True)
        if with_types and rows
        else {}
    )
    return RewriteStats(
        group=group,
        n_rewrites=e.n,
        n_sentences=len(by_sentence),
        n_annotators=len({r.annotator for r in rows}),
        pct_changed=100.0 - e.pct_unchanged if e.n else 0.0,
        mean_char_ld=e.mean_char_ld,
        mean_word_ld=e.mean_word_ld,
        mean_ster=e.mean_ster,
        n_pairs=len(a_texts),
        pct_identical=pair.pct_identical if pair else None,
        mean_pair_ster=pair.mean_ster if pair else None,
        mean_ter_x100=e.mean_ter_x100,
        mean_pair_ter_x100=pair.mean_ter_x100 if pair else None,
        difficulty_n=dn,
        difficulty_mean=dmean,
        difficulty_sd=dsd,
        difficulty_ld_r=dr,
        difficulty_ld_p=dp,
        types=types,
    )


def campaign_stats(
    rows: Sequence[RewriteRow],
    *,
    flags: dict[str, int] | None = None,
    with_ster: bool = True,
    with_types: bool = True,
) -> CampaignStats:
    """Overall and per annotator group (groups in name order; none listed when there is only one)."""
    groups = sorted({r.group for r in rows})
    overall = rewrite_stats(rows, with_ster=with_ster, with_types=with_types)
    per_group = []
    if len(groups) > 1:
        per_group = [
            rewrite_stats(
                [r for r in rows if r.group == g], group=g, with_ster=with_ster, with_types=with_types
            )
            for g in groups
        ]
    return CampaignStats(overall, per_group, dict(flags or {}))


# -- corpus references --------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemStats:
    name: str
    kind: str
    domain: str  # "" for the whole corpus
    stats: EditStats


def corpus_system_stats(data, *, with_ster: bool = False, by_domain: bool = True) -> list[SystemStats]:
    """Each system of a :class:`~annotate.formats.data.CorpusData` against the source.

    Whole corpus first, then per domain when there are several (order of
    first appearance). sTER is off by default (it costs ms per changed line).
    """
    source = data.source
    domains: dict[str, list[int]] = {}
    for i, s in enumerate(data.sentences):
        domains.setdefault(s.domain, []).append(i)
    scopes = [("", list(range(len(source))))]
    if by_domain and len(domains) > 1:
        scopes += list(domains.items())
    elif len(domains) == 1:
        scopes = [(next(iter(domains)), scopes[0][1])]
    out = []
    for domain, rows in scopes:
        src = [source[i] for i in rows]
        for s in data.references() + data.others():
            out.append(
                SystemStats(
                    s.name, s.kind, domain, edit_stats(src, [s.lines[i] for i in rows], with_ster=with_ster)
                )
            )
    return out


# -- chart --------------------------------------------------------------------------------------


def bar_chart_svg(counts: dict[str, int], *, title: str, width: int = 380, top: int = 25) -> str:
    """A horizontal bar chart as inline SVG (no script, no external file); labels escaped.

    Bars are sorted by count as given (the ``top`` largest; the rest summed as
    "other types"), each labelled with its count and percentage of all edits.
    """
    items = list(counts.items())
    total = sum(counts.values())
    if len(items) > top:
        rest = sum(v for _, v in items[top:])
        items = [*items[:top], ("other types", rest)]
    row, label_w, pad = 20, 105, 6
    height = row * max(len(items), 1) + 30
    biggest = max((v for _, v in items), default=1) or 1
    bar_max = width - label_w - 90
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="{escape(title)}" class="chart">',
        f"<title>{escape(title)}</title>",
    ]
    if not items:
        parts.append('<text x="0" y="20" font-size="13">No edits.</text>')
    for k, (name, value) in enumerate(items):
        y = 10 + k * row
        w = max(1.0, bar_max * value / biggest) if value else 0.0
        pct = 100.0 * value / total if total else 0.0
        parts.append(
            f'<text x="{label_w - pad}" y="{y + 13}" font-size="13" text-anchor="end">{escape(name)}</text>'
            f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{row - 6}" fill="#2457c5"></rect>'
            f'<text x="{label_w + w + 4:.1f}" y="{y + 13}" font-size="13">{value} ({pct:.1f}%)</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def format_pm(mean: float | None, sd: float | None, digits: int = 2) -> str:
    """``mean ± sd`` for a page ("–" when undefined)."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "–"
    if sd is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


# -- database adapters --------------------------------------------------------------------------


def campaign_rows(campaign) -> tuple[list[RewriteRow], dict[str, int]]:
    """A campaign's rewrites with text (not rejected; the expert's text when edited) and its flag counts."""
    from django.conf import settings

    rows: list[RewriteRow] = []
    flags: Counter[str] = Counter()
    for pk, pos, src, ann, text, flag, status, reviewed, group, difficulty in (
        Rewrite.objects.filter(campaign=campaign)
        .exclude(status="rejected")
        .values_list(
            "pk",
            "sentence__position",
            "sentence__text",
            "annotator_id",
            "text",
            "flag",
            "status",
            "reviewed_text",
            "group",
            "difficulty",
        )
    ):
        if flag:
            flags[flag] += 1
            continue
        final = reviewed if status == "edited" and reviewed else text
        rows.append(RewriteRow(pos, src, pseudonym(ann, settings.SECRET_KEY), group, final, difficulty, pk))
    return rows, dict(sorted(flags.items()))


def campaign_statistics(campaign, *, with_ster: bool = True, with_types: bool = True) -> CampaignStats:
    rows, flags = campaign_rows(campaign)
    return campaign_stats(rows, flags=flags, with_ster=with_ster, with_types=with_types)


def corpus_statistics(corpus, *, with_ster: bool = False) -> list[SystemStats]:

    return corpus_system_stats(corpus_data(corpus), with_ster=with_ster)
