"""File layouts -> :class:`~annotate.streaming.CorpusStream` (and :class:`CorpusData`, for small data).

Each ``*_stream`` function reads its files (paths, uploads or opened files, gzip or not) line by line
with every limit counted as they stream (``annotate.streaming.upload_lines``): an import checks the
whole stream, then saves it in batches, holding neither (issue 36). ``parse_*`` give the same reading
as a :class:`CorpusData` held in memory (tests, small files); ``load_*`` find the files of a layout
on disk. Text is kept exactly as in the files (tokenisation, trailing spaces, ``\\r``); only the
``\\n`` line terminators are removed (see geceval.formats.text).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from annotate.formats.data import (
    MODEL,
    REFERENCE,
    SOURCE_ERROR,
    SYSTEM_KINDS,
    CorpusData,
    SystemData,
    natural_key,
)
from annotate.records import MAX_LINE_CHARS, MAX_SYSTEMS, SentenceRecord
from annotate.streaming import CorpusStream, Row, chained, sentence_count_check, text_stream, upload_lines
from geceval.errors import GecInputError
from geceval.formats.inputs import Source, display_name
from geceval.formats.m2 import M2Sentence, iter_m2, out_of_range_message
from geceval.formats.stream import source_name
from geceval.formats.text import jfleg_reference_paths, jfleg_source_path

FORMATS = ("jfleg", "gmeg", "m2", "text", "jsonl")
_GMEG_REF = re.compile(r"^ref\d+$")
MAX_M2_EDITS = 10_000
"""A block's A lines: far more than any annotators' edits of a 10,000-character sentence need."""


def materialize(stream: CorpusStream) -> CorpusData:
    """A stream checked and held whole (for tests and small data; imports save streams instead)."""
    stream.scan()
    sentences: list[SentenceRecord] = []
    lines: dict[str, list[str]] = {name: [] for name in stream.systems}
    for row in stream.rows():
        sentences.append(row.sentence)
        for name, out in lines.items():
            out.append(row.texts.get(name, row.default))
    systems = [SystemData(name, kind, lines[name]) for name, kind in stream.systems.items()]
    return CorpusData(sentences, systems, stream.tokenized, list(stream.warnings))


def data_stream(data: CorpusData, where: str = "<corpus>") -> CorpusStream:
    """A :class:`CorpusData` held in memory as a stream (one save path for every import)."""
    data.check(where=where)

    def read(found: dict[str, str]) -> Iterator[Row]:
        found.update({s.name: s.kind for s in data.systems})
        for i, sentence in enumerate(data.sentences):
            yield Row(sentence, {s.name: s.lines[i] for s in data.systems})

    return CorpusStream(where, read, data.tokenized)


# -- text and JFLEG ---------------------------------------------------------------------------


def text_corpus_stream(source: Source, *, domain: str = "", tokenized: bool = False) -> CorpusStream:
    """One sentence a line."""
    return text_stream(source, [], domain=domain, tokenized=tokenized)


def parse_text(source: Source, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    return materialize(text_corpus_stream(source, domain=domain, tokenized=tokenized))


def jfleg_stream(
    source: Source, references: list[tuple[str, Source]], *, domain: str = "", tokenized: bool = False
) -> CorpusStream:
    """A source file and named, line-aligned reference files (each a System of kind reference)."""
    return text_stream(source, [(n, REFERENCE, f) for n, f in references], domain=domain, tokenized=tokenized)


def parse_jfleg(
    source: Source, references: list[tuple[str, Source]], *, domain: str = "", tokenized: bool = False
) -> CorpusData:
    return materialize(jfleg_stream(source, references, domain=domain, tokenized=tokenized))


def _jfleg_files(prefix: str) -> tuple[str, list[tuple[str, str]]]:
    source = jfleg_source_path(prefix)
    if not os.path.isfile(source):
        raise GecInputError("no such file", path=source)
    ref_paths = jfleg_reference_paths(prefix)
    if not ref_paths:
        raise GecInputError("no reference files PREFIX.ref0..N (JFLEG layout)", path=prefix + ".ref0")
    return source, [(display_name(p).rsplit(".", 1)[1], p) for p in ref_paths]


def load_jfleg(prefix: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """``prefix.src`` + ``prefix.ref0..N`` (references named ``ref0..N`` after their suffix)."""
    source, refs = _jfleg_files(prefix)
    return parse_jfleg(source, refs, domain=domain, tokenized=tokenized)


# -- GMEG ---------------------------------------------------------------------------------------


def gmeg_kind(name: str) -> str:
    if _GMEG_REF.match(name):
        return REFERENCE
    if name == SOURCE_ERROR:
        return SOURCE_ERROR
    return MODEL


def gmeg_stream(files: dict[str, Source], *, domain: str, tokenized: bool = False) -> CorpusStream:
    """One GMEG domain folder: ``source``, ``ref0..N``, ``source+error`` and system outputs.

    ``files`` maps a file name to its content; every name but ``source`` is a
    system: ``refN`` of kind reference, ``source+error`` of kind source+error,
    any other of kind model.
    """
    if "source" not in files:
        raise GecInputError("no 'source' file (GMEG layout: source, ref0..N, system outputs)", path=domain)
    systems = [(n, gmeg_kind(n), files[n]) for n in sorted(files, key=natural_key) if n != "source"]
    return text_stream(files["source"], systems, domain=domain, tokenized=tokenized)


def parse_gmeg(files: dict[str, Source], *, domain: str, tokenized: bool = False) -> CorpusData:
    return materialize(gmeg_stream(files, domain=domain, tokenized=tokenized))


def _folder_files(folder: Path) -> dict[str, str]:
    return {
        display_name(p.name): str(p)
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


def _has_source(folder: Path) -> bool:
    return (folder / "source").is_file() or (folder / "source.gz").is_file()


def load_gmeg_stream(path: str, *, domain: str = "", tokenized: bool = False) -> CorpusStream:
    """A GMEG domain folder (``data/dev/fce``), or a folder of domain folders (``data/dev``).

    The domain is the folder's name unless ``domain`` is given. In a folder of
    domain folders (each with a ``source`` file) the domains are read in name
    order, must hold the same system files, and their lines are concatenated.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise GecInputError("not a folder (GMEG layout: a domain folder with source, ref0..N)", path=path)
    if _has_source(folder):
        return gmeg_stream(_folder_files(folder), domain=domain or folder.name, tokenized=tokenized)
    domains = sorted((d for d in folder.iterdir() if _has_source(d)), key=lambda d: d.name)
    if not domains:
        raise GecInputError("no 'source' file here nor in any sub-folder (GMEG layout)", path=path)
    if domain:
        raise GecInputError("--domain applies to one domain folder, not a folder of domains", path=path)
    parts = [gmeg_stream(_folder_files(d), domain=d.name, tokenized=tokenized) for d in domains]
    for d, part in zip(domains, parts):
        part.where = str(d)
    return chained(parts, path)


def load_gmeg(path: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    return materialize(load_gmeg_stream(path, domain=domain, tokenized=tokenized))


# -- M2 -----------------------------------------------------------------------------------------

SKIPPED_TYPES = {"noop", "UNK"}


def corrected_tokens(sentence: M2Sentence, annotator: int) -> list[str]:
    """The source tokens with one annotator's edits applied (first alternative).

    ``noop`` and ``UNK`` lines change nothing (UNK marks an error the annotator
    did not correct); an edit overlapping the previous one of the same
    annotator is skipped, as the usual M2-to-text scripts cannot apply both.
    """
    tokens = sentence.tokens
    edits = sorted(
        (
            e
            for e in sentence.edits
            if e.annotator == annotator and not e.is_noop and e.type not in SKIPPED_TYPES
        ),
        key=lambda e: (e.start, e.end),
    )
    out: list[str] = []
    pos = 0
    for e in edits:
        if e.start < pos:
            continue
        out.extend(tokens[pos : e.start])
        out.extend(e.correction.split())
        pos = e.end
    out.extend(tokens[pos:])
    return out


def m2_stream(file: Source, *, domain: str = "") -> CorpusStream:
    """S lines as the (tokenised) source; each annotator's corrected text is system ``ref<id>``.

    Each sentence keeps its block's ``A`` lines verbatim in
    ``metadata["m2"]`` (``{"edits": [...], "annotators": [...]}``), so a typed
    M2 export reproduces the original edits and types. An annotator absent
    from a block gets the source unchanged there. One block is held at a time; the systems (the
    annotators of every block) are known after the checking pass. An edit past the end of its
    sentence is ignored as m2scorer ignores it (its annotator stays present; the line is kept
    verbatim) and counted in one line of the stream's ``warnings`` (set by each full reading).
    """
    label = source_name(file)

    def read(found: dict[str, str]) -> Iterator[Row]:
        lines = upload_lines(file, what="lines")
        seen: set[int] = set()
        past_end = 0
        for block, raw in iter_m2(lines, path=label, max_edits=MAX_M2_EDITS):
            past_end += sum(1 for e in block.edits if e.out_of_range)
            if len(block.source) > MAX_LINE_CHARS:
                raise GecInputError(
                    f"line is longer than {MAX_LINE_CHARS} characters", path=label, line=block.line
                )
            present = block.annotators()
            seen.update(present)
            if len(seen) > MAX_SYSTEMS:
                raise GecInputError(f"more than {MAX_SYSTEMS} annotators", path=label, line=block.line)
            if len(seen) != len(found):  # named as they appear, so the reader bounds sentences x systems
                found.update({f"ref{a}": REFERENCE for a in present})
            texts = {f"ref{a}": " ".join(corrected_tokens(block, a)) for a in present}
            metadata = {"m2": {"edits": raw, "annotators": present}}
            yield Row(
                SentenceRecord(text=block.source, domain=domain, metadata=metadata),
                texts,
                " ".join(block.tokens),
            )
        found.clear()
        found.update({f"ref{a}": REFERENCE for a in sorted(seen)})
        warning = out_of_range_message(past_end, label)
        stream.warnings[:] = [warning] if warning else []

    stream = CorpusStream(label, read, True)
    return stream


def parse_m2_file(file: Source, *, domain: str = "") -> CorpusData:
    return materialize(m2_stream(file, domain=domain))


def load_m2(path: str, *, domain: str = "") -> CorpusData:
    return parse_m2_file(path, domain=domain)


# -- JSONL --------------------------------------------------------------------------------------

JSONL_KEYS = {"text", "domain", "document_id", "paragraph_position", "metadata", "references", "outputs"}
JSONL_OPTIONAL = {"output_kinds", "rewrites"}


def _jsonl_text(value: Any, what: str, *, path: str, line: int) -> str:
    if not isinstance(value, str):
        raise GecInputError(f"{what} must be a string", path=path, line=line)
    if "\n" in value or "\x00" in value:
        raise GecInputError(f"{what} contains a newline or NUL character", path=path, line=line)
    if len(value) > MAX_LINE_CHARS:
        raise GecInputError(f"{what} is longer than {MAX_LINE_CHARS} characters", path=path, line=line)
    return value


def _jsonl_texts(value: Any, what: str, *, path: str, line: int) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise GecInputError(f"{what} must be an object of name: text", path=path, line=line)
    out: dict[str, str] = {}
    for name, text in value.items():
        if not name.strip() or name != name.strip() or len(name) > 200:
            raise GecInputError(f"bad system name {name!r} in {what}", path=path, line=line)
        out[name] = _jsonl_text(text, f"{what}[{name!r}]", path=path, line=line)
    return out


def jsonl_stream(file: Source, *, domain: str = "", tokenized: bool = False) -> CorpusStream:
    """One JSON object a line (schema in :mod:`annotate.formats`); ``domain`` fills empty domains.

    Every line must name the same references and outputs (systems are
    line-aligned). ``rewrites`` (written by a campaign export) is accepted and
    not imported: the accepted rewrites are already the ``references``.
    """
    label = source_name(file)

    def read(found: dict[str, str]) -> Iterator[Row]:
        refs: set[str] = set()
        outs: dict[str, str] = {}
        for number, raw in enumerate(upload_lines(file, what="sentences"), start=1):
            record, r, o, k = _jsonl_row(raw, domain, path=label, line=number)
            where = {"path": label, "line": number}
            if number == 1:
                refs = set(r)
                outs = {name: k.get(name, MODEL) for name in o}
                found.update(dict.fromkeys(r, REFERENCE))
                found.update(outs)
            elif set(r) != refs or set(o) != set(outs):
                raise GecInputError(
                    f"names references {sorted(r)} and outputs {sorted(o)}, but line 1 names "
                    f"{sorted(refs)} and {sorted(outs)}; every line must have the same systems",
                    **where,
                )
            if set(k) - set(o) or any(k.get(name, MODEL) != outs[name] for name in o):
                raise GecInputError("output_kinds differ from line 1's", **where)
            yield Row(record, {**r, **o})

    return CorpusStream(label, read, tokenized, precheck=lambda: sentence_count_check(file))


def _jsonl_row(raw: str, domain: str, *, path: str, line: int) -> tuple[SentenceRecord, dict, dict, dict]:
    where = {"path": path, "line": line}
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise GecInputError(f"not valid JSON ({exc.msg}, column {exc.colno})", **where) from None
    if not isinstance(obj, dict):
        raise GecInputError("each line must be a JSON object", **where)
    unknown = set(obj) - JSONL_KEYS - JSONL_OPTIONAL
    if unknown:
        raise GecInputError(f"unknown field(s) {sorted(unknown)}", **where)
    if "text" not in obj:
        raise GecInputError("missing field 'text'", **where)
    text = _jsonl_text(obj["text"], "text", **where)
    dom = _jsonl_text(obj.get("domain", ""), "domain", **where) or domain
    if len(dom) > 100:
        raise GecInputError("domain is longer than 100 characters", **where)
    doc = _jsonl_text(obj.get("document_id", ""), "document_id", **where)
    if len(doc) > 200:
        raise GecInputError("document_id is longer than 200 characters", **where)
    para = obj.get("paragraph_position")
    if para is not None and (not isinstance(para, int) or isinstance(para, bool) or para < 0):
        raise GecInputError("paragraph_position must be a non-negative integer or null", **where)
    meta = obj.get("metadata", {})
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise GecInputError("metadata must be an object", **where)
    r = _jsonl_texts(obj.get("references"), "references", **where)
    o = _jsonl_texts(obj.get("outputs"), "outputs", **where)
    if len(r) + len(o) > MAX_SYSTEMS:
        raise GecInputError(f"more than {MAX_SYSTEMS} systems (references and outputs)", **where)
    k = obj.get("output_kinds") or {}
    if not isinstance(k, dict) or any(v not in SYSTEM_KINDS or v == REFERENCE for v in k.values()):
        raise GecInputError("output_kinds must map output names to model|source|source+error", **where)
    if set(r) & set(o):
        raise GecInputError(f"{sorted(set(r) & set(o))} are both references and outputs", **where)
    record = SentenceRecord(text=text, domain=dom, document_id=doc, paragraph_position=para, metadata=meta)
    return record, r, o, k


def parse_jsonl(file: Source, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    return materialize(jsonl_stream(file, domain=domain, tokenized=tokenized))


def load_jsonl(path: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    return parse_jsonl(path, domain=domain, tokenized=tokenized)


def load_stream(path: str, fmt: str, *, domain: str = "", tokenized: bool = False) -> CorpusStream:
    """PATH in one of :data:`FORMATS` as a stream (PATH is the prefix for jfleg, a folder for gmeg)."""
    if fmt == "jfleg":
        source, refs = _jfleg_files(path)
        return jfleg_stream(source, refs, domain=domain, tokenized=tokenized)
    if fmt == "gmeg":
        return load_gmeg_stream(path, domain=domain, tokenized=tokenized)
    if fmt == "m2":
        return m2_stream(path, domain=domain)
    if fmt == "text":
        return text_corpus_stream(path, domain=domain, tokenized=tokenized)
    if fmt == "jsonl":
        return jsonl_stream(path, domain=domain, tokenized=tokenized)
    raise GecInputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")


SNIFF_LINES = 20
"""Lines ``upload_format`` reads to tell a file's format."""
FORMAT_NAMES = {"m2": "M2 (an S line, then A lines with |||)", "jsonl": "JSON lines", "text": "plain text"}


def sniff_format(lines: list[str]) -> str:
    """What a file's first lines look like (issue 40): ``"m2"`` (an ``S`` line, then an ``A`` line
    with ``|||``), ``"jsonl"`` (the first line a JSON object) or ``"text"``."""
    shown = [line for line in lines if line.strip()]
    if not shown:
        return "text"
    first = shown[0].lstrip("\ufeff")
    if first.startswith("S ") and any(line.startswith("A ") and "|||" in line for line in shown[1:]):
        return "m2"
    if first.strip().startswith("{"):
        try:
            if isinstance(json.loads(first), dict):
                return "jsonl"
        except ValueError:
            pass
    return "text"


def upload_format(file: Source) -> str:
    """``sniff_format`` of an upload's first ``SNIFF_LINES`` lines (gzip undone); a file that cannot be
    read says "text" here, and the import names what is wrong with it."""
    lines: list[str] = []
    try:
        for line in upload_lines(file, allow_empty=True):
            lines.append(line)
            if len(lines) >= SNIFF_LINES:
                break
    except GecInputError:
        pass
    finally:
        if hasattr(file, "seek"):
            file.seek(0)
    return sniff_format(lines)


def format_mismatch(fmt: str, detected: str, name: str) -> str:
    """Why a file of format ``detected`` is refused as ``fmt`` ("" : it is not)."""
    plain = fmt in ("text", "jfleg", "gmeg")
    if (plain and detected == "text") or fmt == detected:
        return ""
    if plain:
        return (
            f"{name} looks like {FORMAT_NAMES[detected]}, not one sentence a line: choose the format "
            f"{'M2' if detected == 'm2' else 'JSON lines'} to import it as such. Nothing was saved."
        )
    wanted = FORMAT_NAMES[fmt]
    return f"{name} is not {wanted}: it looks like {FORMAT_NAMES[detected]}. Choose its format. Nothing was saved."


def upload_stream(
    fmt: str,
    source: Source,
    others: list[Source],
    *,
    names: list[str],
    domain: str = "",
    tokenized: bool = False,
) -> CorpusStream:
    """An upload in format ``fmt`` (m2, jsonl or gmeg) as a stream: one file, or a GMEG folder's files
    (``source`` and ``others``, named by ``names``: the file names the browser sent)."""
    if fmt == "m2":
        return m2_stream(source, domain=domain)
    if fmt == "jsonl":
        return jsonl_stream(source, domain=domain, tokenized=tokenized)
    if fmt == "gmeg":
        files = {"source": source, **{display_name(n): f for n, f in zip(names, others)}}
        if len(files) != len(others) + 1:
            raise GecInputError("two files of a GMEG folder have the same name (or one is named 'source')")
        return gmeg_stream(files, domain=domain, tokenized=tokenized)
    raise GecInputError(f"unknown upload format {fmt!r}")


def load(path: str, fmt: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """Read PATH in one of :data:`FORMATS`, held whole (see :func:`load_stream`)."""
    return materialize(load_stream(path, fmt, domain=domain, tokenized=tokenized))
