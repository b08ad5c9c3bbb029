"""Judgment files any protocol whose screens give an order can write (WMT CSV, Appraise XML), and what
a protocol's export is: a name, a label, a file type and a writer. Each protocol lists its own
(``Protocol.judgment_formats``); ``ranking.analysis.exports`` streams the one asked for.

Worker ids are pseudonymised: ``w`` + the first 12 hex digits of HMAC-SHA256(SECRET_KEY, user id), so
exports can be shared without revealing accounts and the same worker has the same pseudonym in every
export of this installation.

A sentence is named as the judgment importer reads an item (``annotate.selectors.corpus_item_names``),
so a file imported back onto the campaign's corpus puts every judgment on the sentence it was made
on: by its 0-based corpus line (``Sentence.position``), as the reference data does (the CoNLL-14
Appraise judgments' ids are lines of the 1,312-line test set counted from 0) and ``python -m geceval
meta-eval --sentence-level --outputs`` reads it; or, in a corpus that names its sentences (every
corpus the importer made from a file, whose items it keeps in ``metadata["id"]``), by that name, so
an imported campaign exports its file's own item ids. A sentence with no name in such a corpus is
written by its line, which the importer cannot read back.

- ``wmt-csv``: one row per judgment, ``srcIndex,segmentId,judgeId,system1Id,system1rank,...`` (both
  ids the sentence's) with as many system columns as the largest judgment (a candidate standing
  for several systems gives one column pair per system, same rank); readable by ``python -m geceval
  rank FILE --format wmt-csv``. Rows are in judgment order and systems in display order, so ranking
  the file gives exactly the numbers of an analysis run on the same campaign and seed. PRWS screens
  become rankings by score (equal scores tied).
- ``appraise-xml``: ``<ranking-item id user>`` (``id`` the sentence's) with one ``<translation
  system rank>`` per system shown, in display order.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from django.conf import settings
from django.db.models import Count

from annotate.http import csv_cell
from annotate.selectors import corpus_item_names
from ranking.models import Campaign, ImportedEntry
from ranking.rankings import campaign_is_compact, iter_screen_rankings
from ranking.selectors import valid_ratings


@dataclass(frozen=True)
class JudgmentFormat:
    name: str
    label: str
    extension: str
    content_type: str
    writer: Callable[[Campaign], Iterator[str]]
    """Text chunks of the file, so a view can stream it and a command write it without holding a
    million rows."""


def pseudonym(user_id: int | str) -> str:
    digest = hmac.new(settings.SECRET_KEY.encode(), str(user_id).encode(), hashlib.sha256).hexdigest()
    return "w" + digest[:12]


def csv_line(row: Iterable) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([csv_cell(v) for v in row])
    return buf.getvalue()


def item_names(campaign: Campaign) -> Callable[[int, int], int | str]:
    """(sentence id, position) -> the item id the campaign's exports name that sentence by."""
    names = corpus_item_names(campaign.corpus_id)
    if not names:
        return lambda _sentence_id, position: position
    return lambda sentence_id, position: names.get(sentence_id, position)


def _max_entries(campaign: Campaign) -> int:
    """The most systems one judgment ranks, read where ``iter_screen_rankings`` reads the entries (a
    compact imported campaign has no ratings, only imported entries)."""
    if campaign_is_compact(campaign):
        per_judgment = (
            ImportedEntry.objects.filter(campaign=campaign).values("judgment").annotate(n=Count("pk"))
        )
    else:
        per_judgment = valid_ratings(campaign).values("judgment_id").annotate(n=Count("candidate__outputs"))
    row = per_judgment.order_by("-n").values_list("n", flat=True).first()
    return max(int(row or 0), 2)


def iter_wmt_csv(campaign: Campaign) -> Iterator[str]:
    width = _max_entries(campaign)
    header = ["srcIndex", "segmentId", "judgeId"]
    for i in range(1, width + 1):
        header += [f"system{i}Id", f"system{i}rank"]
    yield csv_line(header)
    item = item_names(campaign)
    for sr in iter_screen_rankings(campaign):
        if len(sr.entries) < 2:
            continue
        name = item(sr.sentence_id, sr.position)
        row = [name, name, pseudonym(sr.judge_id)]
        for system, rank, _score, _mc in sr.entries:
            row += [system, rank]
        row += ["", ""] * (width - len(sr.entries))
        yield csv_line(row)


def iter_appraise_xml(campaign: Campaign) -> Iterator[str]:
    yield '<?xml version="1.0" encoding="utf-8"?>\n'
    yield f"<ranking-results campaign={quoteattr(campaign.name)}>\n"
    item = item_names(campaign)
    for sr in iter_screen_rankings(campaign):
        if len(sr.entries) < 2:
            continue
        name = quoteattr(str(item(sr.sentence_id, sr.position)))
        yield f'  <ranking-item id={name} user="{pseudonym(sr.judge_id)}">\n'
        # one <translation> per system in display order (a collapsed candidate's systems share its rank),
        # so the pairwise expansion of the file is the run's, pair for pair
        for system, rank, _score, _mc in sr.entries:
            yield f'    <translation system={quoteattr(system)} rank="{rank}"/>\n'
        yield "  </ranking-item>\n"
    yield "</ranking-results>\n"


WMT_CSV = JudgmentFormat(
    "wmt-csv", "WMT CSV (rankings; PRWS screens ranked by score)", "csv", "text/csv", iter_wmt_csv
)
APPRAISE_XML = JudgmentFormat("appraise-xml", "Appraise XML", "xml", "application/xml", iter_appraise_xml)
