"""Importing past crowd results as a closed ranking campaign of origin ``imported``.

Formats: ``mturk-csv`` (an MTurk batch results CSV), ``appraise-xml`` and
``wmt-csv`` (read by ``geceval.formats.judgments``), ``prws-csv`` (``geceval.human.prws``).
Everything lands in ranking's tables (Campaign, Hit, Screen, Candidate,
Assignment, ScreenJudgment, Rating), so analyses read imported and collected
judgments the same way. All or nothing: one transaction.

Items and sentences
    With ``corpus``, an item id names a sentence of that corpus: the sentence
    whose ``metadata["id"]`` equals the id when any sentence of the corpus
    carries such ids, else the sentence at that 0-based position (an integer
    id). Items with no such sentence are skipped ("item not in corpus").
    Without ``corpus``, a new corpus named like the campaign is made: one
    sentence per item (ordered numerically when every id is an integer, else
    by first appearance) with the source text from the file, or the item id
    itself as text when the file has none; ``metadata["id"]`` keeps the id.
    One rule (``annotate.selectors.corpus_item_names``) for this and for the
    judgment exports, which write a sentence's id or 0-based position the
    same way: an export imported onto its campaign's corpus lands on the same
    sentences.

Systems and outputs
    Systems are found by name in the corpus or created (kind ``source`` for
    src/source/orig/input, ``reference`` for ref*/turk, else ``model``); an
    output missing for a (system, sentence) is created with the text from the
    file, or empty. Identical outputs shown once (Appraise ``system="A,B"``,
    MTurk ``Input.system1 = "A B"``) become one candidate standing for every
    output it collapses, as in collected campaigns.

HITs, screens, workers
    One HIT per MTurk ``HITId`` (per item for the other formats), one screen
    per distinct (item, candidates shown) -- a judge who saw the same screen
    twice gets a second screen, so nothing is lost -- and one submitted
    assignment per (worker, HIT). MTurk workers are the same identities as
    live MTurk workers (platform ``mturk``, WorkerId); other formats' judges
    are identities of platform ``imported`` scoped to this campaign.

Skipped (each with a reason in the report): rejected MTurk assignments
(unless ``include_rejected``), empty slots, unanswered slots, ranks outside
1-5 (a Rating is rank 1-5 or score 0-100), judgments left with too few
answers, items not in the corpus.

MTurk mapping (``mapping``; detected when absent) is a JSON object::

    {"item": "Input.item_id",                  # required
     "source": "Input.source",                 # optional source text
     "systems": ["Input.system1", ...],        # system names, space- or comma-joined when collapsed
     "texts": ["Input.text1", ...],            # optional output texts, same length
     "answers": ["Answer.rank_1", ...],        # same length
     "answer_kind": "rank" | "score",
     "worker": "WorkerId", "assignment": "AssignmentId", "status": "AssignmentStatus",
     "seconds": "WorkTimeInSeconds", "hit": "HITId",
     "items": [ {item, source, systems, texts, answers}, ... ]}   # optional: several items per row

Detection and reading: ``geceval.formats.mturk`` (shared with ``python -m
geceval rank --format mturk-csv``): short rows without MTurk's empty trailing
``Approve``/``Reject``, the item id from ``Input.sentID`` and its kin, texts
from ``Input.sentence<k>``/``Input.text<k>``/``Input.output<k>``.
"""

from crowd.importing.readers import FORMATS, Parsed, judgments_parse
from crowd.importing.saving import ImportReport, judgments_import
from geceval.formats.mturk import Entry, ParsedJudgment, detect_mturk_mapping

__all__ = [
    "FORMATS",
    "Entry",
    "ImportReport",
    "Parsed",
    "ParsedJudgment",
    "detect_mturk_mapping",
    "judgments_import",
    "judgments_parse",
]
