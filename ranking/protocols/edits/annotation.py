"""A correction's ERRANT edits against its sentence, computed the first time a screen shows the text and
stored (``EditedText``/``Edit``): every later screen, submission and export reads the stored rows.

ERRANT takes text as whitespace tokens (``geceval.metrics.errant.annotation``), as the corpora's M2 files do;
on an untokenised corpus a word and the punctuation after it are one token, so an edit covers both.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from annotate.models import Sentence
from geceval.metrics.errant.annotation import errant_annotate
from ranking.protocols.edits.models import Edit, EditedText


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class EditSpan:
    """One edit, as the protocol reads and the page shows it."""

    pk: int
    index: int
    o_start: int
    o_end: int
    o_text: str
    c_start: int
    c_end: int
    c_text: str
    error_type: str

    @property
    def key(self) -> tuple:
        """What identifies the edit across corrections of one sentence: a trap's edits that are not its
        base's are the errors it added."""
        return (self.o_start, self.o_end, self.c_text)


def compute_edits(source: str, text: str) -> list[dict]:
    """ERRANT's edits of ``text`` against ``source`` as field dicts of ``Edit`` (no database)."""
    [m2] = errant_annotate([source], [text])
    o_toks = source.split()
    edits = sorted((e for e in m2.edits if e.type != "noop"), key=lambda e: (e.start, e.end))
    rows, shift = [], 0
    for index, e in enumerate(edits):
        c_text = e.corrections[0] if e.corrections else ""
        c_len = len(c_text.split())
        c_start = e.start + shift
        rows.append(
            {
                "index": index,
                "o_start": e.start,
                "o_end": e.end,
                "o_text": " ".join(o_toks[e.start : e.end]),
                "c_start": c_start,
                "c_end": c_start + c_len,
                "c_text": c_text,
                "error_type": e.type,
            }
        )
        shift += c_len - (e.end - e.start)
    return rows


def _spans(edited: EditedText) -> list[EditSpan]:
    return [
        EditSpan(e.pk, e.index, e.o_start, e.o_end, e.o_text, e.c_start, e.c_end, e.c_text, e.error_type)
        for e in edited.edits.all()
    ]


def edits_for_texts(sentence: Sentence, texts: Iterable[str]) -> dict[str, list[EditSpan]]:
    """text -> its stored edits against ``sentence`` (computed and stored for a text seen first)."""
    wanted = {text_digest(t): t for t in texts}
    found = {
        e.digest: e
        for e in EditedText.objects.filter(sentence=sentence, digest__in=list(wanted)).prefetch_related(
            "edits"
        )
    }
    for digest, text in wanted.items():
        if digest in found:
            continue
        rows = compute_edits(sentence.text, text)
        try:
            with transaction.atomic():
                edited = EditedText.objects.create(sentence=sentence, digest=digest, text=text)
                Edit.objects.bulk_create([Edit(edited=edited, **row) for row in rows])
        except IntegrityError:  # another request stored the same text first: read theirs
            pass
        found[digest] = EditedText.objects.prefetch_related("edits").get(sentence=sentence, digest=digest)
    return {text: _spans(found[digest]) for digest, text in wanted.items()}
