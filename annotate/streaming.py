"""Corpus and output imports that stream (issue 36): bounded memory whatever the file holds.

A file is read twice and held never. The first pass reads every line through ``upload_lines``
(``geceval.formats.stream``: bytes after decompression, lines and line length counted as they are
read, NUL refused) and checks every row, saving nothing, so a bad or over-limit file is refused as
soon as its first fault is read (a corpus past ``CORPUS_MAX_CELLS`` sentences x systems too). The
second pass reads the file again and saves its rows in batches of ``BATCH_CELLS`` sentences and
outputs together inside one transaction: all-or-nothing as before (a fault, or a worker that dies, rolls
the whole import back), at the cost of one more read of the file. A 1,000,000-line corpus is then
never more than one batch of rows in memory.

A :class:`CorpusStream` is one corpus in any layout: ``read(found)`` yields its :class:`Row` objects
from the start of its files and names each system it meets in ``found`` (name -> kind, in order).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import NamedTuple

from django.conf import settings
from django.db import IntegrityError, transaction

from annotate.models import Corpus, Output, Project, Sentence, System, SystemKind
from annotate.records import MAX_LINE_CHARS, MAX_SENTENCES, MAX_SYSTEMS, SentenceRecord
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.formats.stream import check_line_count, iter_lines, source_name

BATCH = 2000
BATCH_CELLS = 20_000
"""Objects (sentences and their outputs) one save batch builds, at most: rows per batch (``BATCH`` at
most) shrink as systems grow past 9 (200 systems: 99 rows), so a batch's memory does not grow with the
systems (issue 36 review)."""
SYSTEM_KINDS = ("model", "source", "reference", "source+error")

Progress = Callable[[int, int], None]
"""``progress(done, total)``: rows saved so far of the file's rows."""


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MEMORY_CHECK_LINES = 1 << 16


def resident_bytes() -> int | None:
    """This process's resident memory now (Linux ``/proc``), None where it cannot be read."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class MemoryGuard:
    """Refuses an import whose process grew more than ``UPLOAD_MEMORY_MAX_BYTES`` since the guard was
    made: a last line of defence (the streamed imports stay far below it), checked every
    ``MEMORY_CHECK_LINES`` lines so that it costs nothing. Growth of the resident size misses what a
    long-lived process's freed heap absorbs (tests measure it in a fresh process). What is held
    could be measured exactly with ``tracemalloc``, but tracing made ``parse_text`` of 400,000 lines
    4x slower, the bare line reader 29x, and tripped this very guard with its own bookkeeping; live
    blocks (``sys.getallocatedblocks``) times the largest small block (512 bytes) overstated that
    reading's 105 MB 7.5 times. The readers' own caps (rows, items, scores) are the bounds that do not
    depend on the process's history."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.base = resident_bytes()
        self.bound = settings.UPLOAD_MEMORY_MAX_BYTES

    def check(self, line: int) -> None:
        now = resident_bytes() if self.base is not None else None
        if now is not None and now - self.base > self.bound:
            raise GecInputError(
                f"reading this file took more than {self.bound // 2**20} MB of memory, the most an upload "
                "may take (UPLOAD_MEMORY_MAX_BYTES)",
                path=self.where,
                line=line,
            )


def upload_lines(
    file: Source, *, name: str | None = None, allow_empty: bool = False, what: str = "lines"
) -> Iterator[str]:
    """The lines of an uploaded or opened file as every import reads them: gzip undone, at most
    ``UPLOAD_MAX_BYTES`` after decompression, ``MAX_SENTENCES`` lines of ``MAX_LINE_CHARS`` characters,
    UTF-8 and no NUL; each limit refused when it is passed."""
    label = source_name(file, name)
    lines = iter_lines(
        file,
        name=label,
        limit=settings.UPLOAD_MAX_BYTES,
        max_lines=MAX_SENTENCES,
        max_line_chars=MAX_LINE_CHARS,
        allow_empty=allow_empty,
        what=what,
    )
    guard = MemoryGuard(label)
    for number, line in enumerate(lines, start=1):
        if "\x00" in line:
            raise GecInputError("contains a NUL character", path=label, line=number)
        if not number % MEMORY_CHECK_LINES:
            guard.check(number)
        yield line


def sentence_count_check(file: Source) -> None:
    """A file of one sentence a line with more than ``MAX_SENTENCES`` lines, refused at C speed."""
    check_line_count(file, max_lines=MAX_SENTENCES, limit=settings.UPLOAD_MAX_BYTES, what="sentences")


def count_lines(file: Source, **kwargs) -> int:
    return sum(1 for _ in upload_lines(file, **kwargs))


class Row(NamedTuple):
    """One sentence and its systems' texts; a system absent from ``texts`` gets ``default``."""

    sentence: SentenceRecord
    texts: dict[str, str]
    default: str | None = None


@dataclass
class CorpusStream:
    where: str
    read: Callable[[dict[str, str]], Iterator[Row]]
    tokenized: bool = False
    systems: dict[str, str] = field(default_factory=dict)
    count: int = 0
    precheck: Callable[[], None] | None = None
    """A quick look before the line-by-line check (the line count of a one-sentence-a-line file)."""
    warnings: list[str] = field(default_factory=list)
    """One line each, for the importer to show (an M2 file's edits past the end of their sentence)."""

    def scan(self, corpus: str | None = None) -> int:
        """The checking pass: every row read and checked, nothing kept but the count and systems.
        Errors about the sentences themselves name ``corpus`` (else the stream's file)."""
        where = corpus or self.where
        if self.precheck is not None:
            self.precheck()
        found: dict[str, str] = {}
        count = 0
        cells = settings.CORPUS_MAX_CELLS
        for row in self.read(found):
            count += 1
            if count > MAX_SENTENCES:
                raise GecInputError(f"more than {MAX_SENTENCES} sentences", path=where, line=count)
            if count * max(1, len(found)) > cells:
                raise cells_error(count, len(found), where)
            check_sentence(row.sentence, where, count)
            if row.default is None and len(row.texts) != len(found):
                missing = sorted(set(found) - set(row.texts))
                raise GecInputError(f"no text for system(s) {missing}", path=self.where, line=count)
        if not count:
            raise GecInputError("the corpus has no sentences", path=where)
        if count * len(found) > cells:  # a stream that names its systems only at its end
            raise cells_error(count, len(found), where)
        check_systems(found, self.where)
        self.systems, self.count = found, count
        return count

    def rows(self) -> Iterator[Row]:
        return self.read({})


def cells_error(sentences: int, systems: int, where: str, line: int | None = None) -> GecInputError:
    """Sentences x systems past ``CORPUS_MAX_CELLS`` (one saved output per cell)."""
    return GecInputError(
        f"{sentences} sentences x {systems} systems is more than {settings.CORPUS_MAX_CELLS} outputs, the most "
        "a corpus may hold (CORPUS_MAX_CELLS): import fewer systems or split the corpus",
        path=where,
        line=sentences if line is None else line,
    )


def batch_rows(systems: int) -> int:
    """Rows a save batch holds: at most ``BATCH``, and ``BATCH_CELLS`` sentences and outputs together,
    at least one row."""
    return max(1, min(BATCH, BATCH_CELLS // (1 + systems)))


def check_systems(systems: dict[str, str], where: str) -> None:
    if len(systems) > MAX_SYSTEMS:
        raise GecInputError(f"more than {MAX_SYSTEMS} systems (reference and output files)", path=where)
    for name, kind in systems.items():
        if not name.strip():
            raise GecInputError("a system has no name", path=where)
        if kind not in SYSTEM_KINDS:
            raise GecInputError(f"system {name!r} has unknown kind {kind!r}", path=where)


def check_sentence(s: SentenceRecord, where: str, line: int) -> None:
    """What the database would refuse, refused first with a message (PostgreSQL stores no NUL)."""
    if "\x00" in s.text:
        raise GecInputError("contains a NUL character", path=where, line=line)
    if len(s.text) > MAX_LINE_CHARS:
        raise GecInputError(f"sentence is longer than {MAX_LINE_CHARS} characters", path=where, line=line)
    if s.domain or s.document_id:
        for name in ("domain", "document_id"):
            limit = Sentence._meta.get_field(name).max_length
            value = getattr(s, name)
            if len(value) > limit or "\x00" in value:
                raise GecInputError(
                    f"{name} is longer than {limit} characters or has a NUL", path=where, line=line
                )


_END = object()


def aligned(files: list[tuple[str, Iterator[str]]]) -> Iterator[list[str]]:
    """Lines of line-aligned files read in step; files of different lengths are an error naming the
    first file whose count differs from the first file's (counted to their ends to say so)."""
    iters = [it for _, it in files]
    n = 0
    while True:
        values = [next(it, _END) for it in iters]
        ended = [v is _END for v in values]
        if all(ended):
            return
        if any(ended):
            counts = [n + (0 if end else 1 + sum(1 for _ in it)) for end, it in zip(ended, iters)]
            name, count = next((f[0], c) for f, c in zip(files, counts) if c != counts[0])
            raise GecInputError(
                f"has {count} lines but {files[0][0]} has {counts[0]}; files must be line-aligned", path=name
            )
        n += 1
        yield values


def text_stream(
    source: Source,
    systems: list[tuple[str, str, Source]],
    *,
    domain: str = "",
    tokenized: bool = False,
    where: str | None = None,
) -> CorpusStream:
    """A source file (one sentence a line) and line-aligned system files ``(name, kind, file)``."""
    label = source_name(source)

    def read(found: dict[str, str]) -> Iterator[Row]:
        for name, kind, _file in systems:
            if name in found:
                raise GecInputError(f"system name {name!r} repeats", path=where or label)
            found[name] = kind
        files = [(label, upload_lines(source, what="sentences"))]
        files += [(source_name(f), upload_lines(f, allow_empty=True)) for _, _, f in systems]
        names = [name for name, _, _ in systems]
        for text, *texts in aligned(files):
            yield Row(SentenceRecord(text=text, domain=domain), dict(zip(names, texts)))

    return CorpusStream(where or label, read, tokenized, precheck=lambda: sentence_count_check(source))


def chained(parts: list[CorpusStream], where: str) -> CorpusStream:
    """Several streams as one corpus (GMEG's domains): every part names the same systems."""

    def read(found: dict[str, str]) -> Iterator[Row]:
        first: list[str] | None = None
        for part in parts:
            mine = found if first is None else {}
            checked = first is None
            for row in part.read(mine):
                if not checked:  # a part names its systems before its first row
                    same(part, mine, first)
                    checked = True
                yield row
            if first is None:
                first = list(found)
            elif not checked:
                same(part, mine, first)

    def same(part: CorpusStream, mine: dict[str, str], first: list[str] | None) -> None:
        if list(mine) != first:
            raise GecInputError(
                f"holds systems {list(mine)} but {parts[0].where} holds {first}", path=part.where
            )

    return CorpusStream(where, read, parts[0].tokenized if parts else False)


def batched(rows: Iterable, size: int = BATCH) -> Iterator[list]:
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


@transaction.atomic
def corpus_save(
    *,
    project: Project,
    name: str,
    stream: CorpusStream,
    language: str = "en",
    description: str = "",
    tokenized: bool | None = None,
    progress: Progress | None = None,
) -> Corpus:
    """Check ``stream`` whole (first pass), then save it in batches (second pass), in one transaction."""
    name = name.strip()
    if not name:
        raise GecInputError("the corpus needs a name")
    total = stream.scan(name)
    if progress:
        progress(0, total)
    if Corpus.objects.filter(project=project, name=name).exists():
        raise GecInputError(f"a corpus named {name!r} already exists in project {project.name!r}")
    try:
        with transaction.atomic():
            corpus = Corpus.objects.create(
                project=project,
                name=name,
                language=language,
                description=description,
                tokenized=stream.tokenized if tokenized is None else tokenized,
            )
    except IntegrityError:  # a concurrent import of the same name won the race
        raise GecInputError(f"a corpus named {name!r} already exists in project {project.name!r}") from None
    systems = [System.objects.create(corpus=corpus, name=n, kind=k) for n, k in stream.systems.items()]
    done = 0
    for batch in batched(stream.rows(), batch_rows(len(systems))):
        sentences = Sentence.objects.bulk_create(
            [
                Sentence(
                    corpus=corpus,
                    position=done + i,
                    text=r.sentence.text,
                    domain=r.sentence.domain,
                    document_id=r.sentence.document_id,
                    paragraph_position=r.sentence.paragraph_position,
                    metadata=r.sentence.metadata,
                )
                for i, r in enumerate(batch)
            ]
        )
        Output.objects.bulk_create(
            [
                Output(system=system, sentence_id=sentence.pk, text=row.texts.get(system.name, row.default))
                for system in systems
                for sentence, row in zip(sentences, batch)
            ],
            batch_size=BATCH,
        )
        done += len(batch)
        if progress:
            progress(min(done, total), total)
    if done != total:  # the file changed between the two readings
        raise GecInputError(f"read {total} sentences, then {done}: the file changed", path=stream.where)
    return corpus


def system_new(*, corpus: Corpus, system_name: str, kind: str, filename: str) -> System:
    """A new system of ``corpus``, its name and kind checked (inside the caller's transaction)."""
    system_name = system_name.strip()
    if not system_name:
        raise GecInputError("the system needs a name", path=filename)
    if kind not in SystemKind.values:
        raise GecInputError(f"unknown system kind {kind!r}; one of {', '.join(SystemKind.values)}")
    if System.objects.filter(corpus=corpus, name=system_name).exists():
        raise GecInputError(f"a system named {system_name!r} already exists in corpus {corpus.name!r}")
    if System.objects.filter(corpus=corpus).count() >= MAX_SYSTEMS:
        raise GecInputError(f"corpus {corpus.name!r} already has {MAX_SYSTEMS} systems, the most it may have")
    try:
        with transaction.atomic():
            return System.objects.create(corpus=corpus, name=system_name, kind=kind)
    except IntegrityError:
        raise GecInputError(
            f"a system named {system_name!r} already exists in corpus {corpus.name!r}"
        ) from None


def outputs_save(
    system: System, lines: Iterable[str], progress: Progress | None = None, total: int = 0
) -> int:
    """Save ``lines`` as the outputs of ``system``, one per sentence in position order, in batches."""
    ids = (
        Sentence.objects.filter(corpus_id=system.corpus_id).order_by("position").values_list("id", flat=True)
    )
    done = 0
    for batch in batched(zip(ids.iterator(chunk_size=BATCH), lines)):
        Output.objects.bulk_create([Output(system=system, sentence_id=sid, text=text) for sid, text in batch])
        done += len(batch)
        if progress:
            progress(done, total)
    return done


@transaction.atomic
def outputs_import_streamed(
    *, corpus: Corpus, system_name: str, kind: str, file: Source, progress: Progress | None = None
) -> System:
    """One system's line-aligned outputs from a file, checked whole first, then saved in batches."""
    label = source_name(file)
    check_line_count(file, max_lines=MAX_SENTENCES, limit=settings.UPLOAD_MAX_BYTES)
    count = count_lines(file)
    expected = corpus.sentences.count()
    if count != expected:
        raise GecInputError(
            f"has {count} lines but corpus {corpus.name!r} has {expected}; files must be line-aligned",
            path=label,
        )
    systems = System.objects.filter(corpus=corpus).count() + 1
    if count * systems > settings.CORPUS_MAX_CELLS:
        raise cells_error(count, systems, label, line=1)
    system = system_new(corpus=corpus, system_name=system_name, kind=kind, filename=label)
    if outputs_save(system, upload_lines(file), progress, count) != count:
        raise GecInputError(f"read {count} lines, then fewer: the file changed", path=label)
    return system
