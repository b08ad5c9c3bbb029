"""References from a rewrite campaign: which rewrites count, MERGE joining, pseudonymised JSONL.

Plain-data core (:func:`build_campaign_corpus`) plus thin database adapters.

Reading chosen (documented because the papers leave it open):

- A rewrite counts when accepted: status ``accepted``, or ``edited`` (then the
  expert's ``reviewed_text`` is the reference). ``submitted`` (awaiting
  review) and ``rejected`` rewrites never become references.
- A sentence is exported when it has at least N counted rewrites (N = the
  campaign's rewrites per sentence unless given); the first N, ordered by
  annotator group then submission, become references ``<prefix>0..N-1``.
- A sentence any annotator marked MERGE (in any rewrite not rejected) is joined
  with the next one, as GMEG did: the source line, every reference and every
  corpus system are the pieces joined by one space (each piece stripped). A
  chain of MERGE marks joins three or more sentences. The joined line is
  exported only if every sentence in it has N counted rewrites.
- A flagged rewrite has no text: a MERGE or FRAGMENT flag contributes its
  sentence's source unchanged to its reference (the annotator asked for no
  rewording); a counted NOT ANNOTATABLE flag removes the sentence (and the
  joined line it belongs to) from the export.
- The corpus's own systems (e.g. JFLEG's ref0..3) come first, so a JFLEG
  export of a campaign over an imported JFLEG corpus extends its references:
  ``ref0..3`` as before, ``ref4..`` from the campaign.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from annotate.formats.data import REFERENCE, CorpusData, SystemData
from annotate.services import SentenceRecord
from geceval.errors import GecInputError

COUNTED = ("accepted", "edited")
MERGE, FRAGMENT, NOT_ANNOTATABLE = "merge", "fragment", "not_annotatable"


@dataclass(frozen=True)
class RewriteRecord:
    """One rewrite as exported: ``position`` is the sentence's corpus position."""

    position: int
    annotator: str  # pseudonym
    text: str
    flag: str = ""
    status: str = "accepted"
    reviewed_text: str = ""
    group: str = ""
    difficulty: int | None = None
    reviewer: str | None = None  # pseudonym
    seconds: float | None = None
    order: int = 0  # submission order (e.g. the row id)

    @property
    def counted(self) -> bool:
        return self.status in COUNTED

    def final_text(self, source: str) -> str:
        """The reference text: the reviewed text when edited; a flagged rewrite keeps the source."""
        if self.flag:
            return source
        return self.reviewed_text if self.status == "edited" and self.reviewed_text else self.text


def pseudonym(user_id: int | str, secret: str) -> str:
    """A stable, non-reversible annotator id: HMAC-SHA256 of the user id keyed by the deployment's secret."""
    digest = hmac.new(secret.encode(), f"annotator:{user_id}".encode(), hashlib.sha256).hexdigest()
    return "a" + digest[:15]


def _groups(positions: list[int], merges: set[int]) -> list[list[int]]:
    """Consecutive positions, each joined with the next while it is marked MERGE."""
    out: list[list[int]] = []
    present = set(positions)
    i = 0
    while i < len(positions):
        group = [positions[i]]
        while group[-1] in merges and group[-1] + 1 in present:
            group.append(group[-1] + 1)
            i += 1
        out.append(group)
        i += 1
    return out


def _join(pieces: list[str]) -> str:
    return " ".join(p.strip() for p in pieces if p.strip())


def build_campaign_corpus(
    base: CorpusData,
    rewrites: list[RewriteRecord],
    *,
    n: int,
    prefix: str = "ref",
    positions: list[int] | None = None,
    include_corpus_systems: bool = True,
    every_sentence: bool = False,
) -> tuple[CorpusData, list[dict[str, Any]]]:
    """The exported corpus and, per exported line, the JSONL extra ``{"rewrites": [...]}``.

    ``every_sentence`` (the JSONL export): every line of the campaign is
    written with all its rewrites, also one without N counted rewrites; its
    new references are then ``None`` (left out of the JSONL object).

    ``base`` is the whole corpus (sentence ``i`` at position ``i``);
    ``positions`` the campaign's sentences (default: all). New references are
    named ``<prefix><k>`` numbered after the corpus's own references when those
    are named ``<prefix><j>`` (so ``ref4..`` after JFLEG's ``ref0..3``).
    """
    if n < 1:
        raise GecInputError("the number of rewrites per sentence must be at least 1")
    positions = sorted(positions if positions is not None else range(len(base.sentences)))
    by_pos: dict[int, list[RewriteRecord]] = {}
    for r in sorted(rewrites, key=lambda r: (r.position, r.group, r.order)):
        by_pos.setdefault(r.position, []).append(r)
    merges = {p for p, rs in by_pos.items() if any(r.flag == MERGE and r.status != "rejected" for r in rs)}

    def chosen(p: int) -> list[RewriteRecord] | None:
        counted = [r for r in by_pos.get(p, []) if r.counted]
        if len(counted) < n or any(r.flag == NOT_ANNOTATABLE for r in counted[:n]):
            return None
        return counted[:n]

    systems = base.systems if include_corpus_systems else []
    new_names = _new_reference_names(systems, prefix, n)

    sentences: list[SentenceRecord] = []
    lines: dict[str, list[str]] = {s.name: [] for s in systems} | {name: [] for name in new_names}
    extra: list[dict[str, Any]] = []
    for group in _groups(positions, merges):
        picks = [chosen(p) for p in group]
        complete = all(p is not None for p in picks)
        if not complete and not every_sentence:
            continue
        sentences.append(_group_sentence(base, group))
        for s in systems:
            lines[s.name].append(s.lines[group[0]] if len(group) == 1 else _join([s.lines[p] for p in group]))
        for k, name in enumerate(new_names):
            if not complete:
                lines[name].append(None)  # type: ignore[arg-type]
                continue
            texts = [pick[k].final_text(base.sentences[p].text) for p, pick in zip(group, picks)]  # type: ignore[index]
            lines[name].append(texts[0] if len(group) == 1 else _join(texts))
        extra.append({"rewrites": [_rewrite_json(r) for p in group for r in by_pos.get(p, [])]})
    if not sentences:
        if every_sentence:
            raise GecInputError("the campaign has no sentences")
        raise GecInputError(f"no sentence has {n} accepted rewrites yet")
    out = [SystemData(s.name, s.kind, lines[s.name]) for s in systems]
    out += [SystemData(name, REFERENCE, lines[name]) for name in new_names]
    return CorpusData(sentences, out, base.tokenized), extra


def _new_reference_names(systems: list[SystemData], prefix: str, n: int) -> list[str]:
    """``<prefix><k>`` numbered after the corpus's own ``<prefix><j>`` references; a clash is refused."""
    names = {s.name for s in systems}
    start = 0
    for s in systems:
        if s.kind == REFERENCE and s.name.startswith(prefix) and s.name[len(prefix) :].isdigit():
            start = max(start, int(s.name[len(prefix) :]) + 1)
    new_names = [f"{prefix}{start + k}" for k in range(n)]
    clash = names & set(new_names)
    if clash:
        raise GecInputError(f"the corpus already has systems named {sorted(clash)}; choose another prefix")
    return new_names


def _group_sentence(base: CorpusData, group: list[int]) -> SentenceRecord:
    """The sentence of one exported line: the corpus's own, or sentences merged by the annotators."""
    src = [base.sentences[p] for p in group]
    if len(group) == 1:
        return src[0]
    return SentenceRecord(
        text=_join([s.text for s in src]),
        domain=src[0].domain,
        document_id=src[0].document_id,
        paragraph_position=src[0].paragraph_position,
        metadata={"merged_positions": group},
    )


def _rewrite_json(r: RewriteRecord) -> dict[str, Any]:
    return {
        "position": r.position,
        "annotator": r.annotator,
        "group": r.group,
        "text": r.text,
        "flag": r.flag,
        "status": r.status,
        "reviewed_text": r.reviewed_text,
        "reviewer": r.reviewer,
        "difficulty": r.difficulty,
        "seconds": r.seconds,
    }
