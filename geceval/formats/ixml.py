"""The I-measure gold-standard XML (Felice & Briscoe 2015, mfelice/imeasure).

Layout (the tool's DTD)::

    <scripts><script id="1">
      <sentence id="1" numann="2">
        <text>This machines is designed for help people .</text>
        <error-list>
          <error id="1" req="yes" type="SVA">
            <alt ann="0"><c start="0" end="1">These</c><c start="2" end="3">are</c></alt>
            <alt ann="1"><c start="1" end="2">machine</c></alt>
          </error>
        </error-list>
      </sentence>
    </script></scripts>

``<text>`` is the tokenised source (tokens split on whitespace). An
``<error>`` groups the overlapping corrections of all annotators; each
``<alt>`` is one annotator's way of correcting it (one or more ``<c>``
token spans of the source, replaced by the element's text; an empty ``<c/>``
deletes). ``req="yes"`` when every annotator corrected the error, ``"no"``
when some left it alone (then leaving it uncorrected is also a valid
reading, which the mix mode of the scorer uses).

``m2_to_ixml`` writes the layout of the tool's ``m2_to_ixml.py`` (our own
code): errors are the connected groups of overlapping edits (two spans
overlap when they share a token; an insertion overlaps a span strictly
around its point; insertions at the same point overlap), ordered by first
token then end; alternatives by annotator; ``req="yes"`` when every
annotator of the block has an alternative; ``type`` joins the distinct M2
types with ``/`` in order of appearance. On the JFLEG test M2 this gives the
reference converter's errors for 745 of 747 sentences (743 before correction strings were
re-tokenised, see below); in the other 2 the
reference leaves two overlapping groups apart (its grouping is
order-dependent, not transitive), which only changes mix-mode candidates.
The reference converter also re-tokenises each correction string with
``nltk.word_tokenize``; so do we (:func:`treebank_tokens`, NLTK's Treebank
rules): "known,the" becomes "known , the" and a final "dilemma." becomes
"dilemma ." (CoNLL-14 sentences 332, 333, 338, 593, 637, 766, 893, 900 and
1079, which alone gave POST I -5.72 for the tool's -5.66), "U.S.A." becomes
"U.S.A ." and ``''`` after a space a double backquote (JFLEG). Its XML also differs where Python 2 set order leaked into the
text (order of ``<c>`` in an ``<alt>``, of joined types), which does not
affect scoring.

Parsing uses lxml with entity resolution, DTD loading and network access
off, and refuses documents that declare entities, so a gold file cannot
read other files or the network.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field

from lxml import etree as LET

from geceval.errors import GecInputError
from geceval.formats.inputs import Source, read_input
from geceval.formats.m2 import M2Sentence
from geceval.formats.once import once


@dataclass(frozen=True)
class ICorrection:
    """Replace source tokens ``start:end`` by ``text`` (tokens joined by spaces; "" deletes)."""

    start: int
    end: int
    text: str

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(self.text.split())


@dataclass(frozen=True)
class IAlternative:
    """One annotator's correction of an error: one or more spans."""

    annotator: str
    corrections: tuple[ICorrection, ...]

    @property
    def start(self) -> int:
        return min(c.start for c in self.corrections)

    @property
    def end(self) -> int:
        return max(c.end for c in self.corrections)


@dataclass(frozen=True)
class IError:
    alternatives: tuple[IAlternative, ...]
    required: bool = True
    type: str = ""
    id: str = ""


@dataclass
class IGoldSentence:
    tokens: list[str]
    errors: list[IError] = field(default_factory=list)
    num_annotators: int = 1
    id: str = ""
    script_id: str = "1"
    line: int | None = None

    @property
    def source(self) -> str:
        return " ".join(self.tokens)

    def annotators(self) -> list[str]:
        """Annotator ids: ``0 .. numann-1`` plus any other id an ``alt`` names, in order."""
        out = [str(i) for i in range(self.num_annotators)]
        for err in self.errors:
            for alt in err.alternatives:
                if alt.annotator not in out:
                    out.append(alt.annotator)
        return out


# ----------------------------------------------------------------------------- reading


def _int_attr(elem, name: str, *, path: str, line: int | None) -> int:
    value = elem.get(name)
    if value is None:
        raise GecInputError(f"<{elem.tag}> has no {name!r} attribute", path=path, line=line)
    try:
        return int(value)
    except ValueError:
        raise GecInputError(
            f"<{elem.tag}> attribute {name}={value!r} is not an integer", path=path, line=line
        ) from None


def parse_ixml(data: bytes | str, *, path: str = "<ixml>") -> list[IGoldSentence]:
    """Parse I-measure gold XML text; raises GecInputError naming ``path`` and line."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if b"<!ENTITY" in data:
        raise GecInputError("entity declarations are not allowed in a gold file", path=path)
    parser = LET.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)
    try:
        root = LET.fromstring(data, parser)
    except LET.XMLSyntaxError as exc:
        line = exc.lineno if getattr(exc, "lineno", None) else None
        raise GecInputError(f"malformed XML: {exc.msg}", path=path, line=line) from None

    def where(elem) -> int | None:  # type: ignore[no-untyped-def]
        return elem.sourceline

    if root.tag == "scripts":
        scripts = [e for e in root if isinstance(e.tag, str)]
    elif root.tag == "script":
        scripts = [root]
    else:
        raise GecInputError(f"root element is <{root.tag}>, expected <scripts>", path=path, line=where(root))
    out: list[IGoldSentence] = []
    for script in scripts:
        if script.tag != "script":
            raise GecInputError(f"unexpected <{script.tag}> in <scripts>", path=path, line=where(script))
        for sent in script:
            if not isinstance(sent.tag, str):
                continue
            if sent.tag != "sentence":
                raise GecInputError(f"unexpected <{sent.tag}> in <script>", path=path, line=where(sent))
            out.append(_parse_sentence(sent, script.get("id", ""), path=path, where=where))
    if not out:
        raise GecInputError("no <sentence> elements", path=path)
    return out


def _parse_sentence(sent: ET.Element, script_id: str, *, path: str, where) -> IGoldSentence:  # type: ignore[no-untyped-def]
    line = where(sent)
    text = sent.find("text")
    if text is None:
        raise GecInputError("<sentence> has no <text>", path=path, line=line)
    tokens = (text.text or "").split()
    numann = 1
    if sent.get("numann") is not None:
        numann = _int_attr(sent, "numann", path=path, line=line)
    errors: list[IError] = []
    elist = sent.find("error-list")
    for err in elist if elist is not None else []:
        if err.tag != "error":
            raise GecInputError(f"unexpected <{err.tag}> in <error-list>", path=path, line=where(err))
        alts: list[IAlternative] = []
        for alt in err:
            if alt.tag != "alt":
                raise GecInputError(f"unexpected <{alt.tag}> in <error>", path=path, line=where(alt))
            corrections: list[ICorrection] = []
            for c in alt:
                if c.tag != "c":
                    raise GecInputError(f"unexpected <{c.tag}> in <alt>", path=path, line=where(c))
                start = _int_attr(c, "start", path=path, line=where(c))
                end = _int_attr(c, "end", path=path, line=where(c))
                if not 0 <= start <= end <= len(tokens):
                    raise GecInputError(
                        f"span {start}-{end} is outside the sentence's {len(tokens)} tokens",
                        path=path,
                        line=where(c),
                    )
                corrections.append(ICorrection(start, end, " ".join((c.text or "").split())))
            if not corrections:
                raise GecInputError("<alt> has no <c>", path=path, line=where(alt))
            alts.append(IAlternative(alt.get("ann", "0"), tuple(corrections)))
        if not alts:
            raise GecInputError("<error> has no <alt>", path=path, line=where(err))
        req = (err.get("req") or "yes").strip().lower()
        errors.append(IError(tuple(alts), req != "no", err.get("type", ""), err.get("id", "")))
    return IGoldSentence(tokens, errors, numann, sent.get("id", ""), script_id, line)


def read_ixml(source: Source, *, limit: int | None = None) -> list[IGoldSentence]:
    """Read an I-measure gold XML file (path, bytes or binary file, gzip or not)."""

    def read() -> list[IGoldSentence]:
        opened = read_input(source, limit=limit)
        return parse_ixml(opened.data, path=opened.name)

    return once("ixml", source, (limit,), read)


# ----------------------------------------------------------------------------- from M2


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    (s1, e1), (s2, e2) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return s1 < e2 and s2 < e1


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


# NLTK's TreebankWordTokenizer (nltk.tokenize.treebank, as of 3.10; parity test: tests/core/test_treebank_tokens_parity.py), which ``m2_to_ixml.py`` applies to every
# correction through ``nltk.word_tokenize``. Not ported: word_tokenize's Punkt sentence split first, which
# only matters for a correction holding a sentence end followed by more text ("a. B").
_TB_STARTING_QUOTES = (
    (re.compile(r'^"'), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ (\[{<])(\"|\'{2})"), r"\1 `` "),
)
_TB_PUNCTUATION = (
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.\.\."), r" ... "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile(r"([^\.])(\.)([\]\)}>\"\']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> "),
    (re.compile(r"--"), r" -- "),
)
_TB_ENDING_QUOTES = (
    (re.compile(r'"'), " '' "),
    (re.compile(r"(\S)('')"), r"\1 \2 "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
)
_TB_CONTRACTIONS = tuple(
    re.compile(p)
    for p in (
        r"(?i)\b(can)(not)\b",
        r"(?i)\b(d)('ye)\b",
        r"(?i)\b(gim)(me)\b",
        r"(?i)\b(gon)(na)\b",
        r"(?i)\b(got)(ta)\b",
        r"(?i)\b(lem)(me)\b",
        r"(?i)\b(more)('n)\b",
        r"(?i)\b(wan)(na)(?=\s)",
        r"(?i) ('t)(is)\b",
        r"(?i) ('t)(was)\b",
    )
)


def treebank_tokens(text: str) -> list[str]:
    """``text`` split as NLTK's Treebank word tokenizer does (what ``m2_to_ixml.py`` does to corrections)."""
    for regexp, sub in (*_TB_STARTING_QUOTES, *_TB_PUNCTUATION):
        text = regexp.sub(sub, text)
    text = " " + text + " "
    for regexp, sub in _TB_ENDING_QUOTES:
        text = regexp.sub(sub, text)
    for regexp in _TB_CONTRACTIONS:
        text = regexp.sub(r" \1 \2 ", text)
    return text.split()


def gold_from_m2(sentences: Iterable[M2Sentence]) -> list[IGoldSentence]:
    """I-measure gold from M2 blocks, grouping edits as the reference converter does.

    Annotators are the ids in the block (noop lines count); ``numann`` is
    their number and they are renumbered ``0 .. numann-1`` in id order (the
    XML can only say "numann annotators", so a block with annotators 0 and 2
    becomes 0 and 1 rather than gaining a phantom annotator 1). An M2 edit with ``a||b`` alternatives gives one ``alt`` per
    alternative, all with that annotator.
    """
    out: list[IGoldSentence] = []
    for n, sent in enumerate(sentences, start=1):
        ann_ids = sent.annotators()
        edits = [e for e in sent.edits if not e.is_noop]
        # union-find over overlapping spans
        parent = list(range(len(edits)))
        for i in range(len(edits)):
            for j in range(i):
                if _overlap((edits[i].start, edits[i].end), (edits[j].start, edits[j].end)):
                    parent[_find(parent, i)] = _find(parent, j)
        groups: dict[int, list[int]] = {}
        for i in range(len(edits)):
            groups.setdefault(_find(parent, i), []).append(i)
        ordered = sorted(
            groups.values(),
            key=lambda g: (min(edits[i].start for i in g), min(edits[i].end for i in g), min(g)),
        )
        errors: list[IError] = []
        for k, group in enumerate(ordered, start=1):
            alts: list[IAlternative] = []
            types: list[str] = []
            anns_here: set[int] = set()
            for ann in ann_ids:
                mine = sorted((edits[i] for i in group if edits[i].annotator == ann), key=lambda e: e.start)
                if not mine:
                    continue
                anns_here.add(ann)
                # alternatives inside one edit (a||b) multiply
                options: list[tuple[ICorrection, ...]] = [()]
                for e in mine:
                    corrs = e.corrections or ("",)
                    options = [
                        (*o, ICorrection(e.start, e.end, " ".join(treebank_tokens(c))))
                        for o in options
                        for c in corrs
                    ]
                    if e.type not in types:
                        types.append(e.type)
                label = str(ann_ids.index(ann))  # annotators renumbered 0..numann-1
                alts.extend(IAlternative(label, o) for o in options)
            errors.append(IError(tuple(alts), len(anns_here) == len(ann_ids), "/".join(types), str(k)))
        out.append(IGoldSentence(sent.tokens, errors, len(ann_ids), str(n), "1", sent.line))
    return out


# ----------------------------------------------------------------------------- writing


def format_ixml(gold: Iterable[IGoldSentence]) -> str:
    """XML text in the layout of the reference converter (one element per line-ish)."""
    root = ET.Element("scripts")
    scripts: dict[str, ET.Element] = {}
    for n, sent in enumerate(gold, start=1):
        script = scripts.get(sent.script_id or "1")
        if script is None:
            script = ET.SubElement(root, "script", {"id": sent.script_id or "1"})
            scripts[sent.script_id or "1"] = script
        s = ET.SubElement(script, "sentence", {"id": sent.id or str(n), "numann": str(sent.num_annotators)})
        text = ET.SubElement(s, "text")
        text.text = " ".join(sent.tokens)
        text.tail = "\n"
        elist = ET.SubElement(s, "error-list")
        elist.tail = "\n"
        for k, err in enumerate(sent.errors, start=1):
            e = ET.SubElement(
                elist,
                "error",
                {"id": err.id or str(k), "req": "yes" if err.required else "no", "type": err.type},
            )
            e.tail = "\n"
            for alt in err.alternatives:
                a = ET.SubElement(e, "alt", {"ann": alt.annotator})
                a.tail = "\n"
                for c in alt.corrections:
                    ce = ET.SubElement(a, "c", {"end": str(c.end), "start": str(c.start)})
                    ce.text = c.text or None
                    ce.tail = "\n"
        s.tail = "\n"
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def m2_to_ixml(sentences: list[M2Sentence]) -> str:
    """The I-measure gold XML of M2 blocks (as the tool's ``m2_to_ixml.py`` would write)."""
    return format_ixml(gold_from_m2(sentences))


def write_ixml(path: str | os.PathLike[str], sentences: list[M2Sentence] | list[IGoldSentence]) -> None:
    """Write gold XML from M2 blocks or from already converted gold sentences."""
    items = list(sentences)
    gold = items if items and isinstance(items[0], IGoldSentence) else gold_from_m2(items)  # type: ignore[arg-type]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(format_ixml(gold))  # type: ignore[arg-type]
