""":class:`CorpusData` -> files of a layout, as ``{relative path: bytes}`` (nothing written to disk).

Every line is written as stored followed by ``\\n``, so a corpus imported from
files that end with a newline is written back byte for byte.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from annotate.formats.data import MODEL, SOURCE, SOURCE_ERROR, CorpusData, reference_ids
from annotate.formats.readers import corrected_tokens
from geceval.errors import GecInputError
from geceval.formats.m2 import format_edit, parse_m2
from geceval.metrics.references import references_to_m2
from geceval.progress import ProgressFn, no_progress

EXPORT_FORMATS = ("jfleg", "gmeg", "m2", "jsonl")
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def safe_name(name: str) -> str:
    """A file or folder name from a corpus/domain name: odd characters become ``_``."""
    cleaned = _UNSAFE.sub("_", name.strip()).strip("._") or "corpus"
    return cleaned[:100]


def _lines(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def write_jfleg(data: CorpusData, name: str) -> dict[str, bytes]:
    """``NAME.src`` and ``NAME.ref0..N-1`` (references in natural name order, renumbered from 0)."""
    base = safe_name(name)
    files = {f"{base}.src": _lines(data.source)}
    for k, ref in enumerate(data.references()):
        files[f"{base}.ref{k}"] = _lines(ref.lines)
    return files


def _gmeg_others(data: CorpusData) -> list:
    return [s for s in data.others() if not (s.kind == SOURCE and s.lines == data.source)]


def gmeg_file_names(data: CorpusData) -> dict[str, str]:
    """The file name of every system that is not a reference, by role and then by name.

    ``source`` and ``ref0..N`` are the layout's own; a ``source+error``
    system is the file ``source+error``; any other system is the file named
    after it, unless its name is not a safe file name or is one of the
    layout's (``source``, ``refN``, ``source+error``), when it becomes
    ``system-<name>`` (odd characters replaced, a number added if two collide).
    A system of kind ``source`` whose lines are the sentences is the
    ``source`` file itself and gets no file of its own.
    """
    refs, others = data.references(), _gmeg_others(data)
    taken = {"source"} | {f"ref{k}" for k in range(len(refs))}
    names: dict[str, str] = {}
    for s in others:
        if s.kind == SOURCE_ERROR and SOURCE_ERROR not in taken:
            names[s.name] = SOURCE_ERROR
            taken.add(SOURCE_ERROR)
    for s in others:
        if s.name in names:
            continue
        wanted = s.name
        if (
            safe_name(wanted) != wanted
            or wanted in {"source", SOURCE_ERROR}
            or re.fullmatch(r"ref\d+", wanted)
        ):
            wanted = "system-" + safe_name(s.name)
        candidate, k = wanted, 2
        while candidate in taken:
            candidate, k = f"{wanted}-{k}", k + 1
        names[s.name] = candidate
        taken.add(candidate)
    return names


def write_gmeg(data: CorpusData, name: str) -> dict[str, bytes]:
    """``DOMAIN/source``, ``DOMAIN/ref0..N-1`` and one file per other system (see :func:`gmeg_file_names`).

    Files are named by role, whatever the systems are called. Sentences are
    grouped by domain (order of first appearance; a sentence without a domain
    goes to a folder named after the corpus).
    """
    refs, others = data.references(), _gmeg_others(data)
    file_names = gmeg_file_names(data)
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(data.sentences):
        groups.setdefault(safe_name(s.domain) if s.domain else safe_name(name), []).append(i)
    files: dict[str, bytes] = {}
    for domain, rows in groups.items():
        files[f"{domain}/source"] = _lines([data.sentences[i].text for i in rows])
        for k, ref in enumerate(refs):
            files[f"{domain}/ref{k}"] = _lines([ref.lines[i] for i in rows])
        for s in others:
            files[f"{domain}/{file_names[s.name]}"] = _lines([s.lines[i] for i in rows])
    return files


def _stored_m2(metadata: dict[str, Any]) -> tuple[list[str], list[int]] | None:
    m2 = metadata.get("m2") if isinstance(metadata, dict) else None
    if not isinstance(m2, dict) or not isinstance(m2.get("edits"), list):
        return None
    try:
        return [str(e) for e in m2["edits"]], [int(a) for a in m2.get("annotators", [])]
    except (TypeError, ValueError):
        return None


def _forward_only(progress: ProgressFn) -> ProgressFn:
    """``progress`` told only counts that do not go back."""
    last = [0]

    def forward(done: int, total: int) -> None:
        if done >= last[0]:
            last[0] = done
            progress(done, total)

    return forward


def m2_blocks(data: CorpusData, *, untyped: bool = False, progress: ProgressFn = no_progress) -> list[str]:
    """The M2 blocks (text, without the blank separator lines) of a corpus' references.

    A reference named ``ref<k>`` is annotator ``k`` (others get the next free
    ids). Typed export: where a sentence keeps the ``A`` lines of an imported
    M2 file and the reference still equals that annotator's corrected text
    (an annotator without lines in the block, as CoNLL files leave them,
    stands for the unchanged source), the stored lines are written as they
    were (original types, order and formatting); every other (sentence,
    reference) is annotated by ERRANT. ``untyped`` aligns every reference
    with the Levenshtein converter (type ``X``). ``progress(done, total)``: (sentence, reference)
    pairs annotated so far of those that need it (issue 40: the M2 export's progress, per row).
    """

    refs = data.references()
    ids = reference_ids(refs)
    stored_ok: list[list[bool]] = []  # [sentence][reference]
    stored_lines: list[dict[int, list[str]] | None] = []
    file_ids: set[int] = set()
    for i, sent in enumerate(data.sentences):
        stored = None if untyped else _stored_m2(sent.metadata)
        block = None
        if stored is not None:
            try:
                block = parse_m2(f"S {sent.text}\n" + "".join(line + "\n" for line in stored[0]))[0]
            except GecInputError:  # edited metadata that no longer fits the sentence: annotate afresh
                block = None
        if block is None:
            stored_lines.append(None)
            stored_ok.append([False] * len(refs))
            continue
        by_ann: dict[int, list[str]] = {}
        for line, edit in zip(stored[0], block.edits):  # type: ignore[index]
            by_ann.setdefault(edit.annotator, []).append(line)
        stored_lines.append(by_ann)
        file_ids.update(stored[1])  # type: ignore[index]
        stored_ok.append([" ".join(corrected_tokens(block, a)) == ref.lines[i] for a, ref in zip(ids, refs)])
    # An annotator absent from a block stands for "no correction" only if the imported file had them.
    for k, a in enumerate(ids):
        if a not in file_ids:
            for i, by_ann in enumerate(stored_lines):
                if by_ann is not None and a not in by_ann:
                    stored_ok[i][k] = False
    computed: dict[tuple[int, int], list[str]] = {}
    align = "levenshtein" if untyped else "errant"
    todo = [[i for i in range(len(data.sentences)) if not stored_ok[i][k]] for k in range(len(refs))]
    total, before = sum(len(rows) for rows in todo), 0
    progress = _forward_only(progress)  # ERRANT reports each of its phases (parses, then edits) from 0
    progress(0, total)
    for k, ref in enumerate(refs):
        rows = todo[k]
        if not rows:
            continue
        source = [" ".join(data.sentences[i].text.split()) for i in rows]

        def ref_progress(done: int, of: int, before: int = before, n: int = len(rows)) -> None:
            progress(before + (n * done // of if of else n), total)

        m2 = references_to_m2(source, [[ref.lines[i] for i in rows]], align=align, progress=ref_progress)
        before += len(rows)
        progress(before, total)
        for i, block in zip(rows, m2):
            computed[i, k] = [format_edit(replace(e, annotator=ids[k])) for e in block.edits]
    blocks = []
    for i, sent in enumerate(data.sentences):
        by_ann = stored_lines[i]
        s_text = sent.text if by_ann is not None else " ".join(sent.text.split())
        if by_ann is not None and all(stored_ok[i]) and set(by_ann) <= set(ids):
            # Every annotator as imported: keep the original lines and their order.
            lines = _stored_m2(sent.metadata)[0]  # type: ignore[index]
        else:
            per_ann = {
                a: (by_ann or {}).get(a, []) if stored_ok[i][k] else computed[i, k] for k, a in enumerate(ids)
            }
            lines = [line for a in sorted(per_ann) for line in per_ann[a]]
        blocks.append("\n".join([f"S {s_text}", *lines]))
    return blocks


def write_m2(
    data: CorpusData, name: str, *, untyped: bool = False, progress: ProgressFn = no_progress
) -> dict[str, bytes]:
    """``NAME.m2``: one block per sentence, one annotator per reference (see :func:`m2_blocks`)."""
    if not data.references():
        raise GecInputError("the corpus has no references to write as M2 edits")
    blocks = m2_blocks(data, untyped=untyped, progress=progress)
    return {f"{safe_name(name)}.m2": "".join(b + "\n\n" for b in blocks).encode("utf-8")}


def jsonl_objects(data: CorpusData, extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One object per sentence (schema in :mod:`annotate.formats`); ``extra[i]`` is merged into line i."""
    refs, others = data.references(), data.others()
    out = []
    for i, s in enumerate(data.sentences):
        obj: dict[str, Any] = {
            "text": s.text,
            "domain": s.domain,
            "document_id": s.document_id,
            "paragraph_position": s.paragraph_position,
            "metadata": s.metadata,
            "references": {r.name: r.lines[i] for r in refs if r.lines[i] is not None},
            "outputs": {o.name: o.lines[i] for o in others},
        }
        kinds = {o.name: o.kind for o in others if o.kind != MODEL}
        if kinds:
            obj["output_kinds"] = kinds
        if extra:
            obj.update(extra[i])
        out.append(obj)
    return out


def write_jsonl(data: CorpusData, name: str, extra: list[dict[str, Any]] | None = None) -> dict[str, bytes]:
    lines = [json.dumps(o, ensure_ascii=False, sort_keys=False) for o in jsonl_objects(data, extra)]
    return {f"{safe_name(name)}.jsonl": _lines(lines)}


def write(
    data: CorpusData, fmt: str, name: str, *, untyped: bool = False, progress: ProgressFn = no_progress
) -> dict[str, bytes]:
    """The files of a layout; ``progress``: the M2 edits' (the one layout that takes time to write)."""
    if fmt == "jfleg":
        return write_jfleg(data, name)
    if fmt == "gmeg":
        return write_gmeg(data, name)
    if fmt == "m2":
        return write_m2(data, name, untyped=untyped, progress=progress)
    if fmt == "jsonl":
        return write_jsonl(data, name)
    raise GecInputError(f"unknown export format {fmt!r}; one of {', '.join(EXPORT_FORMATS)}")


def save_files(files: dict[str, bytes], out_dir: str | Path) -> list[Path]:
    """Write the files under ``out_dir`` (folders created); returns the paths written."""
    root = Path(out_dir)
    written = []
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    return written


def zip_files(files: dict[str, bytes], folder: str) -> bytes:
    """A zip of the files under ``folder/`` (fixed timestamps: same corpus, same bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, content in sorted(files.items()):
            info = zipfile.ZipInfo(f"{safe_name(folder)}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, content)
    return buf.getvalue()
