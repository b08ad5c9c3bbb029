"""File layouts -> :class:`CorpusData`. Every check runs before anything is saved.

``parse_*`` take :class:`~annotate.services.InputFile` objects (names and raw
bytes, from disk or an upload); ``load_*`` find the files of a layout on disk.
Text is kept exactly as in the files (tokenisation, trailing spaces, ``\\r``);
only the ``\\n`` line terminators are removed (see geceval.formats.text).
"""

from __future__ import annotations

import json
import os
import re
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
from annotate.services import (
    MAX_LINE_CHARS,
    InputFile,
    SentenceRecord,
    check_same_length,
    open_upload,
    text_lines,
)
from geceval.errors import GecInputError
from geceval.formats.inputs import display_name
from geceval.formats.m2 import M2Sentence, out_of_range_warning, parse_m2
from geceval.formats.text import decode_lines, jfleg_reference_paths, jfleg_source_path

FORMATS = ("jfleg", "gmeg", "m2", "text", "jsonl")
_GMEG_REF = re.compile(r"^ref\d+$")


def _read(path: Path | str) -> InputFile:
    return open_upload(os.fspath(path))


# -- text and JFLEG ---------------------------------------------------------------------------


def parse_text(source: InputFile, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """One sentence a line."""
    return CorpusData([SentenceRecord(text=t, domain=domain) for t in text_lines(source)], [], tokenized)


def parse_jfleg(
    source: InputFile,
    references: list[tuple[str, InputFile]],
    *,
    domain: str = "",
    tokenized: bool = False,
) -> CorpusData:
    """A source file and named, line-aligned reference files (each a System of kind reference)."""
    data = parse_text(source, domain=domain, tokenized=tokenized)
    for name, file in references:
        lines = text_lines(file, allow_empty_file=True)
        check_same_length(len(data.sentences), source.name, lines, file.name)
        data.systems.append(SystemData(name, REFERENCE, lines))
    return data


def load_jfleg(prefix: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """``prefix.src`` + ``prefix.ref0..N`` (references named ``ref0..N`` after their suffix)."""
    source = _read(jfleg_source_path(prefix))
    ref_paths = jfleg_reference_paths(prefix)
    if not ref_paths:
        raise GecInputError("no reference files PREFIX.ref0..N (JFLEG layout)", path=prefix + ".ref0")
    refs = [(display_name(p).rsplit(".", 1)[1], _read(p)) for p in ref_paths]
    return parse_jfleg(source, refs, domain=domain, tokenized=tokenized)


# -- GMEG ---------------------------------------------------------------------------------------


def gmeg_kind(name: str) -> str:
    if _GMEG_REF.match(name):
        return REFERENCE
    if name == SOURCE_ERROR:
        return SOURCE_ERROR
    return MODEL


def parse_gmeg(files: dict[str, InputFile], *, domain: str, tokenized: bool = False) -> CorpusData:
    """One GMEG domain folder: ``source``, ``ref0..N``, ``source+error`` and system outputs.

    ``files`` maps a file name to its content; every name but ``source`` is a
    system: ``refN`` of kind reference, ``source+error`` of kind source+error,
    any other of kind model.
    """
    if "source" not in files:
        raise GecInputError("no 'source' file (GMEG layout: source, ref0..N, system outputs)", path=domain)
    data = parse_text(files["source"], domain=domain, tokenized=tokenized)
    for name in sorted(files, key=natural_key):
        if name == "source":
            continue
        lines = text_lines(files[name], allow_empty_file=True)
        check_same_length(len(data.sentences), files["source"].name, lines, files[name].name)
        data.systems.append(SystemData(name, gmeg_kind(name), lines))
    return data


def _folder_files(folder: Path) -> dict[str, InputFile]:
    return {
        display_name(p.name): _read(p)
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


def _has_source(folder: Path) -> bool:
    return (folder / "source").is_file() or (folder / "source.gz").is_file()


def load_gmeg(path: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """A GMEG domain folder (``data/dev/fce``), or a folder of domain folders (``data/dev``).

    The domain is the folder's name unless ``domain`` is given. In a folder of
    domain folders (each with a ``source`` file) the domains are read in name
    order, must hold the same system files, and their lines are concatenated.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise GecInputError("not a folder (GMEG layout: a domain folder with source, ref0..N)", path=path)
    if _has_source(folder):
        return parse_gmeg(_folder_files(folder), domain=domain or folder.name, tokenized=tokenized)
    domains = sorted((d for d in folder.iterdir() if _has_source(d)), key=lambda d: d.name)
    if not domains:
        raise GecInputError("no 'source' file here nor in any sub-folder (GMEG layout)", path=path)
    if domain:
        raise GecInputError("--domain applies to one domain folder, not a folder of domains", path=path)
    parts = [parse_gmeg(_folder_files(d), domain=d.name, tokenized=tokenized) for d in domains]
    names = [s.name for s in parts[0].systems]
    for d, part in zip(domains, parts):
        if [s.name for s in part.systems] != names:
            raise GecInputError(
                f"holds systems {[s.name for s in part.systems]} but {domains[0].name} holds {names}",
                path=str(d),
            )
    merged = CorpusData([s for p in parts for s in p.sentences], [], tokenized)
    for k, name in enumerate(names):
        lines = [line for p in parts for line in p.systems[k].lines]
        merged.systems.append(SystemData(name, parts[0].systems[k].kind, lines))
    return merged


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


def parse_m2_file(file: InputFile, *, domain: str = "") -> CorpusData:
    """S lines as the (tokenised) source; each annotator's corrected text is system ``ref<id>``.

    Each sentence keeps its block's ``A`` lines verbatim in
    ``metadata["m2"]`` (``{"edits": [...], "annotators": [...]}``), so a typed
    M2 export reproduces the original edits and types. An annotator absent
    from a block gets the source unchanged there. An edit past the end of its
    sentence is ignored as m2scorer ignores it (its annotator stays present;
    the line is kept verbatim) and counted in one line of ``warnings``.
    """
    text = "\n".join(decode_lines(file.data, path=file.name))
    if "\x00" in text:
        raise GecInputError("contains a NUL character", path=file.name)
    parsed = parse_m2(text, path=file.name)
    raw: list[list[str]] = []
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.startswith("S ") or line == "S":
            raw.append([])
        elif line.startswith("A "):
            raw[-1].append(line)
    annotators = sorted({a for s in parsed for a in s.annotators()})
    sentences = []
    refs: dict[int, list[str]] = {a: [] for a in annotators}
    for block, lines in zip(parsed, raw):
        if len(block.source) > MAX_LINE_CHARS:
            raise GecInputError(
                f"line is longer than {MAX_LINE_CHARS} characters", path=file.name, line=block.line
            )
        present = block.annotators()
        sentences.append(
            SentenceRecord(
                text=block.source, domain=domain, metadata={"m2": {"edits": lines, "annotators": present}}
            )
        )
        for a in annotators:
            refs[a].append(" ".join(corrected_tokens(block, a)) if a in present else " ".join(block.tokens))
    warning = out_of_range_warning(parsed, file.name)
    return CorpusData(
        sentences,
        [SystemData(f"ref{a}", REFERENCE, refs[a]) for a in annotators],
        True,
        [warning] if warning else [],
    )


def load_m2(path: str, *, domain: str = "") -> CorpusData:
    return parse_m2_file(_read(path), domain=domain)


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


def parse_jsonl(file: InputFile, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """One JSON object a line (schema in :mod:`annotate.formats`); ``domain`` fills empty domains.

    Every line must name the same references and outputs (systems are
    line-aligned). ``rewrites`` (written by a campaign export) is accepted and
    not imported: the accepted rewrites are already the ``references``.
    """
    lines = text_lines(file)
    sentences: list[SentenceRecord] = []
    refs: dict[str, list[str]] = {}
    outs: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    for number, raw in enumerate(lines, start=1):
        where = {"path": file.name, "line": number}
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
        sentences.append(
            SentenceRecord(text=text, domain=dom, document_id=doc, paragraph_position=para, metadata=meta)
        )
        r = _jsonl_texts(obj.get("references"), "references", **where)
        o = _jsonl_texts(obj.get("outputs"), "outputs", **where)
        k = obj.get("output_kinds") or {}
        if not isinstance(k, dict) or any(v not in SYSTEM_KINDS or v == REFERENCE for v in k.values()):
            raise GecInputError("output_kinds must map output names to model|source|source+error", **where)
        if set(r) & set(o):
            raise GecInputError(f"{sorted(set(r) & set(o))} are both references and outputs", **where)
        if number == 1:
            refs = {name: [] for name in r}
            outs = {name: [] for name in o}
            kinds = {name: k.get(name, MODEL) for name in o}
        elif set(r) != set(refs) or set(o) != set(outs):
            raise GecInputError(
                f"names references {sorted(r)} and outputs {sorted(o)}, but line 1 names "
                f"{sorted(refs)} and {sorted(outs)}; every line must have the same systems",
                **where,
            )
        if set(k) - set(o) or any(k.get(name, MODEL) != kinds[name] for name in o):
            raise GecInputError("output_kinds differ from line 1's", **where)
        for name, value in r.items():
            refs[name].append(value)
        for name, value in o.items():
            outs[name].append(value)
    systems = [SystemData(n, REFERENCE, v) for n, v in refs.items()]
    systems += [SystemData(n, kinds[n], v) for n, v in outs.items()]
    return CorpusData(sentences, systems, tokenized)


def load_jsonl(path: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    return parse_jsonl(_read(path), domain=domain, tokenized=tokenized)


def load(path: str, fmt: str, *, domain: str = "", tokenized: bool = False) -> CorpusData:
    """Read PATH in one of :data:`FORMATS` (PATH is the prefix for jfleg, a folder for gmeg)."""
    if fmt == "jfleg":
        return load_jfleg(path, domain=domain, tokenized=tokenized)
    if fmt == "gmeg":
        return load_gmeg(path, domain=domain, tokenized=tokenized)
    if fmt == "m2":
        return load_m2(path, domain=domain)
    if fmt == "text":
        return parse_text(_read(path), domain=domain, tokenized=tokenized)
    if fmt == "jsonl":
        return load_jsonl(path, domain=domain, tokenized=tokenized)
    raise GecInputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
