"""How the items of an Appraise XML file name sentences: ``src-id`` (minus a base) or ``id``.

Appraise writes ``<ranking-item src-id="12" doc-id="..." id="1" ...>``: ``id`` numbers the item
(the HIT), ``src-id`` names the source sentence. ``appraise_item_key`` is the one rule every
reader follows (``geceval.formats.judgments.read_appraise_xml``); see docs/reproducing-papers.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from geceval.errors import GecInputError


@dataclass(frozen=True)
class ItemKey:
    """How the items of an Appraise file name sentences: the attribute read and, for ``src-id``,
    the base subtracted (``item = src-id - base``, a 0-based sentence index) and how it was found."""

    attribute: str
    """``"src-id"`` or ``"id"``."""
    base: int | None = None
    """0 or 1 for ``src-id``; ``None`` for ``id`` (taken as written)."""
    how: str = ""
    """Why this base: ``"given"`` or the evidence it was detected from."""

    def describe(self) -> str:
        if self.attribute == "id":
            return "sentences keyed by the items' id attribute, as written (no src-id in the file)"
        return (
            f"sentences keyed by src-id, base {self.base} ({self.how}); sentence index = src-id - {self.base}"
        )

    def as_dict(self) -> dict:
        return {"attribute": self.attribute, "base": self.base, "how": self.how}


SRC_ID_BASES = (0, 1)


def appraise_item_key(
    src_ids: Sequence[str],
    *,
    items: int,
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
    path: str = "<input>",
) -> ItemKey:
    """The one rule every reader of Appraise XML follows (Appraise's ``id`` numbers the item, the
    HIT; ``src-id`` names the source sentence, 1-based in the CoNLL-14 judgments of Grundkiewicz
    et al. 2015 and in SEEDA 2024).

    ``src_ids`` are the ``src-id`` values of the ``items`` ranking items of the file. Without any,
    items are keyed by ``id``. With them (every item must carry one), the base is ``src_id_base``
    when given, else 0 when some item has ``src-id="0"``, else 1 when some item has the corpus' line
    count (``corpus_lines``) as its src-id; otherwise it cannot be told (a judged subset often shows
    neither) and a ``GecInputError`` asks for ``--src-id-base``.
    """
    if not src_ids:
        if src_id_base is not None:
            raise GecInputError(
                f"--src-id-base {src_id_base} was given but no <ranking-item> carries src-id "
                "(items are keyed by id)",
                path=path,
            )
        return ItemKey("id")
    if len(src_ids) != items:
        raise GecInputError(
            f"{len(src_ids)} of {items} <ranking-item>s carry src-id: all or none must", path=path
        )
    values = set()
    for text in src_ids:
        try:
            values.add(int(text.strip()))
        except ValueError:
            raise GecInputError(f"src-id {text!r} is not an integer", path=path) from None
    if src_id_base is not None:
        if src_id_base not in SRC_ID_BASES:
            raise GecInputError(f"--src-id-base must be 0 or 1, not {src_id_base}")
        key = ItemKey("src-id", src_id_base, "given")
    elif 0 in values:
        key = ItemKey("src-id", 0, 'detected: an item has src-id="0"')
    elif corpus_lines is not None and corpus_lines in values:
        key = ItemKey("src-id", 1, f"detected: an item has the corpus' line count, {corpus_lines}, as src-id")
    else:
        known = f"the corpus has {corpus_lines} lines" if corpus_lines is not None else "no corpus to count"
        raise GecInputError(
            f"items carry src-id ({min(values)}..{max(values)}) but its base cannot be told: no item has "
            f'src-id="0" and none has the corpus\' line count ({known}); give --src-id-base 0 or 1 '
            '(the import page: "Appraise src-id base")',
            path=path,
        )
    low = min(values) - key.base  # type: ignore[operator]
    if low < 0:
        raise GecInputError(f"src-id {min(values)} is below base {key.base}", path=path)
    if corpus_lines is not None and max(values) - key.base >= corpus_lines:  # type: ignore[operator]
        raise GecInputError(
            f"src-id {max(values)} with base {key.base} is past the corpus' {corpus_lines} lines", path=path
        )
    return key
