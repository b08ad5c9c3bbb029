"""The M2 format (CoNLL shared tasks, m2scorer, ERRANT).

A block is an ``S`` line (tokenised source) followed by ``A`` lines::

    S This are a sentence .
    A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0

``start end`` are token offsets; ``-1 -1`` with type ``noop`` says the
annotator saw the sentence and made no edit. A correction of ``-NONE-`` or the
empty string is a deletion; ``a||b`` gives alternatives. The last field is the
annotator id. Blocks are separated by blank lines.

An edit whose span runs past the end of its sentence (``A 120 120`` on a
114-token ``S`` line; 5 of the 7 reference files of Sakaguchi et al. 2016's
grammaticality-metrics release have some) is read as m2scorer 3.2 reads it:
its ``load_annotation`` keeps only edits with ``0 <= start, end <= tokens``, so
the edit is ignored while its annotator stays present in the block (with its
other edits, or with none). We keep the line, flagged ``out_of_range`` (it is
written back verbatim and counts as a no-op: ``is_noop``), and count them:
:func:`out_of_range_count`; :func:`read_m2` prints one warning line with the
count to stderr. The ERRANT scorer alone keeps such an edit as a gold edit, as
``errant_compare`` does (it never looks at the tokens).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.formats.once import once
from geceval.formats.text import open_text


@dataclass(frozen=True)
class M2Edit:
    start: int
    end: int
    type: str
    corrections: tuple[str, ...]  # alternatives; "" is a deletion
    annotator: int = 0
    required: str = "REQUIRED"
    comment: str = "-NONE-"
    out_of_range: bool = False  # span past the end of the sentence: ignored, as m2scorer does

    @property
    def is_noop(self) -> bool:
        """No edit: a ``-1 -1`` line, or a span past the sentence's end (m2scorer drops it)."""
        return (self.start == -1 and self.end == -1) or self.out_of_range

    @property
    def correction(self) -> str:
        """The first alternative (what ERRANT-style tools use)."""
        return self.corrections[0] if self.corrections else ""


@dataclass
class M2Sentence:
    source: str  # the text of the S line, tokens separated by single spaces
    edits: list[M2Edit] = field(default_factory=list)
    line: int | None = None  # 1-based line of the S line in its file

    @property
    def tokens(self) -> list[str]:
        return self.source.split()

    def annotators(self) -> list[int]:
        """Annotator ids present in this block (noop lines count), sorted."""
        return sorted({e.annotator for e in self.edits})

    def edits_by_annotator(self) -> dict[int, list[M2Edit]]:
        """Real (non-noop) edits per annotator present in the block."""
        out: dict[int, list[M2Edit]] = {a: [] for a in self.annotators()}
        for e in self.edits:
            if not e.is_noop:
                out[e.annotator].append(e)
        return out


def _parse_edit(text: str, *, path: str, line: int, n_tokens: int) -> M2Edit:
    fields = text.split("|||")
    if len(fields) < 3:
        raise GecInputError("A line needs 'start end|||type|||correction|||...'", path=path, line=line)
    span = fields[0].split()
    if len(span) != 2:
        raise GecInputError(f"bad span {fields[0]!r}: expected 'start end'", path=path, line=line)
    try:
        start, end = int(span[0]), int(span[1])
    except ValueError:
        raise GecInputError(
            f"bad span {fields[0]!r}: offsets must be integers", path=path, line=line
        ) from None
    out_of_range = False
    if not (start == end == -1) and not (0 <= start <= end <= n_tokens):
        if not (0 <= start <= end):
            raise GecInputError(f"span {start} {end} is not a span of the sentence", path=path, line=line)
        out_of_range = True  # past the end: kept and ignored, see the module docstring
    correction = fields[2]
    alternatives = tuple("" if c.strip() == "-NONE-" else c for c in correction.split("||"))
    annotator = 0
    if len(fields) >= 6:
        try:
            annotator = int(fields[5])
        except ValueError:
            raise GecInputError(
                f"annotator id {fields[5]!r} is not an integer", path=path, line=line
            ) from None
    return M2Edit(
        start,
        end,
        fields[1],
        alternatives,
        annotator,
        fields[3] if len(fields) > 3 else "REQUIRED",
        fields[4] if len(fields) > 4 else "-NONE-",
        out_of_range,
    )


def parse_m2(text: str, *, path: str = "<m2>") -> list[M2Sentence]:
    return [sentence for sentence, _ in iter_m2(text.split("\n"), path=path)]


def iter_m2(
    lines: Iterable[str], *, path: str = "<m2>", max_edits: int | None = None
) -> Iterator[tuple[M2Sentence, list[str]]]:
    """Blocks as the lines stream, each with its ``A`` lines as written (``\r`` removed); one block is
    held at a time, and a block of more than ``max_edits`` ``A`` lines is refused when it gets there."""
    current: M2Sentence | None = None
    raw: list[str] = []
    any_sentence = False
    for lineno, text in enumerate(lines, start=1):
        line = text.rstrip("\r")
        if not line.strip():
            if current is not None:
                yield current, raw
            current, raw = None, []
            continue
        if line.startswith("S ") or line == "S":
            if current is not None:
                raise GecInputError("S line inside a block (missing blank line?)", path=path, line=lineno)
            current, raw = M2Sentence(line[2:], [], lineno), []
            any_sentence = True
        elif line.startswith("A "):
            if current is None:
                raise GecInputError("A line before any S line", path=path, line=lineno)
            if max_edits is not None and len(raw) >= max_edits:
                raise GecInputError(f"more than {max_edits} A lines in one block", path=path, line=lineno)
            current.edits.append(_parse_edit(line[2:], path=path, line=lineno, n_tokens=len(current.tokens)))
            raw.append(line)
        else:
            raise GecInputError(
                f"line starts with {line[:2]!r}; expected 'S ' or 'A '", path=path, line=lineno
            )
    if current is not None:
        yield current, raw
    if not any_sentence:
        raise GecInputError("no sentences (no S lines)", path=path)


def out_of_range_count(sentences: Iterable[M2Sentence]) -> int:
    """How many ``A`` lines have a span past the end of their sentence (read as no-ops)."""
    return sum(1 for s in sentences for e in s.edits if e.out_of_range)


def out_of_range_warning(sentences: Iterable[M2Sentence], path: str) -> str | None:
    """The one-line warning about edits past the end of their sentence, or None when there are none."""
    return out_of_range_message(out_of_range_count(sentences), path)


def out_of_range_message(n: int, path: str) -> str | None:
    """The warning for ``n`` edits past the end of their sentence (None for 0), for streamed readers."""
    if not n:
        return None
    return (
        f"warning: {path}: {n} edit(s) past the end of their sentence, ignored as m2scorer ignores "
        "them (their annotators stay present; ERRANT counts them, as errant_compare does)"
    )


def read_m2(source: Source, *, limit: int | None = None, warn: bool = True) -> list[M2Sentence]:
    """An M2 file from a path, bytes or binary file (gzip or not; see ``geceval.formats.inputs``).

    ``warn`` prints :func:`out_of_range_warning` to stderr (one line) when the file has such edits.
    """

    def read() -> list[M2Sentence]:
        name, text = open_text(source, limit=limit)
        sentences = parse_m2(text, path=name)
        message = out_of_range_warning(sentences, name) if warn else None
        if message:
            print(message, file=sys.stderr)
        return sentences

    return once("m2", source, (limit, warn), read)


def format_edit(edit: M2Edit) -> str:
    correction = "||".join(edit.corrections) if edit.corrections else ""
    if edit.start == edit.end == -1:
        correction = "-NONE-"
    return f"A {edit.start} {edit.end}|||{edit.type}|||{correction}|||{edit.required}|||{edit.comment}|||{edit.annotator}"


def format_m2(sentences: Iterable[M2Sentence]) -> str:
    blocks = []
    for s in sentences:
        lines = [f"S {s.source}"] + [format_edit(e) for e in s.edits]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + ("\n" if blocks else "")


def write_m2(path: str | os.PathLike[str], sentences: Iterable[M2Sentence]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(format_m2(sentences))
