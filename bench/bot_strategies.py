"""The simulated workers of bench/bots.py: a careful worker and the bots, each a function of the
screen the workers' API returns (source, candidates with position and text, and on an edit-level
screen each candidate's edits) and of public data only, never the database or which candidate is a
trap.

A strategy gives every candidate a value on a 0-100 scale, higher is better; ``answers`` turns the
values into the protocol's answer: PRWS scores are the values rounded and clipped, ranking ranks are
dense ranks of the values (1 = best), values within the strategy's tie tolerance sharing a rank. On
an edit-level screen the ranks come with a label per edit, from the strategy's labeller
(``LABELLERS``).
"""

from __future__ import annotations

import base64
import difflib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from bench.outside_adversaries import OUTSIDE
from geceval.metrics.gleu.plus import gleu_plus
from geceval.traps.hidden import SentenceScorer
from geceval.traps.inserter import insert_errors, line_seed

SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer")
REFERENCES = ("ref0", "ref1", "ref2", "ref3")
CAREFUL_SIGMA = 15.0
CAREFUL_TIE = 5.0
PUBLIC_SEEDS = range(10)
LABELS = ("good", "bad", "neutral")
CAREFUL_LABEL_ERROR = 0.05
"""Share of a careful worker's edit labels replaced by a label drawn uniformly from the three (so
about 3.3% end up different from what the worker read)."""


def same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


@dataclass
class Gmeg:
    """GMEG dev FCE (or its first ``n`` lines): sources, the six systems, the four references."""

    sources: list[str]
    systems: dict[str, list[str]]
    references: dict[str, list[str]]
    lines_of: dict[str, list[int]] = field(default_factory=dict)  # source text -> its 0-based lines
    _quality: dict[tuple[int, str], float] = field(default_factory=dict)
    _regenerated: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    _scorers: dict[int, SentenceScorer] = field(default_factory=dict)
    _gains: dict[tuple, float] = field(default_factory=dict)
    _errant: dict[tuple[str, str], frozenset] = field(default_factory=dict)

    @classmethod
    def load(cls, directory: Path, n: int | None = None) -> Gmeg:
        def read(name: str) -> list[str]:
            return (directory / name).read_text(encoding="utf-8").splitlines()[:n]

        gmeg = cls(read("source"), {s: read(s) for s in SYSTEMS}, {r: read(r) for r in REFERENCES})
        for i, text in enumerate(gmeg.sources):
            gmeg.lines_of.setdefault(" ".join(text.split()), []).append(i)
        return gmeg

    def lines(self, source: str) -> list[int]:
        """The lines of the public file whose source is ``source`` (a handful of sources repeat)."""
        found = self.lines_of.get(" ".join(source.split()))
        if not found:
            raise LookupError(f"the screen's source is not a GMEG dev FCE line: {source[:80]!r}")
        return found

    def quality(self, source: str, text: str) -> float:
        """Sentence-level GLEU+ of ``text`` against the line's four references (as
        annotate/rewrites/qualifications.py scores one sentence), cached per (line, text)."""
        i = self.lines(source)[0]
        key = (i, text)
        if key not in self._quality:
            refs = [self.references[r][i] for r in REFERENCES]
            result = gleu_plus([self.sources[i]], [[r] for r in refs], [text], sentence=True, iterations=1)
            self._quality[key] = float(result.sentence_scores[0])
        return self._quality[key]

    def edit_gain(self, source: str, span: tuple[int, int], correction: str) -> float:
        """How much applying only this edit (source tokens [start, end) replaced by ``correction``) to
        the source changes its sentence GLEU+ against the four references (``SentenceScorer``: the
        per-sentence score ``gleu_plus(..., sentence=True)`` gives, without its set-up per call)."""
        i = self.lines(source)[0]
        key = (i, *span, correction)
        if key in self._gains:
            return self._gains[key]
        if i not in self._scorers:
            refs = [self.references[r][i] for r in REFERENCES]
            self._scorers[i] = SentenceScorer(self.sources[i], refs)
        score, tokens = self._scorers[i], self.sources[i].split()
        start, end = span
        edited = " ".join([*tokens[:start], *correction.split(), *tokens[end:]])
        self._gains[key] = score(edited) - score(self.sources[i])
        return self._gains[key]

    def errant_edits(self, source: str, text: str) -> frozenset:
        """ERRANT's edits of ``text`` against ``source`` as (source start, end, correction), as the
        edit-level API names an edit (cached)."""
        key = (source, text)
        if key not in self._errant:
            from ranking.protocols.edits.annotation import compute_edits  # ERRANT, no database

            self._errant[key] = frozenset(
                (e["o_start"], e["o_end"], " ".join(e["c_text"].split())) for e in compute_edits(source, text)
            )
        return self._errant[key]

    def reference_edits(self, source: str) -> list[frozenset]:
        """Each reference's ERRANT edits against the line's source."""
        i = self.lines(source)[0]
        return [self.errant_edits(self.sources[i], self.references[r][i]) for r in REFERENCES]

    def reference_errors(self, source: str, edits: frozenset) -> int:
        """Against the closest reference: needless or wrong edits plus missed corrections."""
        return min(len(edits ^ ref) for ref in self.reference_edits(source))

    def regenerated(self, source: str, texts: list[str]) -> set[str]:
        """What the public inserter makes of ``texts`` with the public seeds 0-9 at this source's
        line(s): GMEG's ``source+error`` file and today's generated trap system are among them."""
        out: set[str] = set()
        for i in self.lines(source):
            for text in texts:
                key = (i, text)
                if key not in self._regenerated:
                    self._regenerated[key] = {
                        " ".join(insert_errors(text, seed=line_seed(s, i)).text.split()) for s in PUBLIC_SEEDS
                    }
                out |= self._regenerated[key]
        return out


Screen = dict  # the API's screen: {"source": str, "candidates": [{"position": int, "text": str}, ...]}
Strategy = Callable[[Screen, Gmeg, random.Random], dict[int, float]]


@dataclass(frozen=True)
class Person:
    """One careful person's own ways (issue 41). Distinct people who judge by one idea of quality still
    differ: how much their slider wanders (``sigma``), how close two texts must be to share a rank
    (``tie``), how often a label slips (``label_error``), a taste of their own for each text that they
    keep whenever they see it again (``taste``: a fixed offset per text, Gaussian with this sigma),
    how small a change they call neutral (``neutral_band``, in GLEU+ points x 100), and per model: the
    points a needless or wrong edit and a missed correction cost (``needless``, ``missed``), how
    readily they accept an edit only one reference makes (``minority``: the share of such edits they
    call good, the rest neutral; which ones is fixed per person and edit), and the weight of fluency
    against GLEU+ (``fluency``). ``DEFAULT`` is the one fixed procedure the benchmark used before
    (every account alike); ``drawn`` one person, from a generator seeded per worker."""

    sigma: float = CAREFUL_SIGMA
    tie: float = CAREFUL_TIE
    label_error: float = CAREFUL_LABEL_ERROR
    taste: float = 0.0
    neutral_band: float = 0.0
    needless: float = 10.0
    missed: float = 10.0
    minority: float = 1.0
    fluency: float = 0.5
    seed: str = ""

    @classmethod
    def drawn(cls, rng: random.Random, model: str) -> Person:
        """A person for ``model`` ("careful", "careful-references", "careful-fluency")."""
        common = {
            "label_error": rng.uniform(0.02, 0.08),
            "neutral_band": rng.uniform(0.0, 0.5),
            "seed": f"{rng.random():.12f}",
        }
        if model == "careful-references":
            return cls(
                sigma=rng.uniform(1.5, 5.0),
                tie=rng.uniform(1.0, 4.0),
                taste=rng.uniform(1.0, 3.0),
                needless=rng.uniform(7.0, 13.0),
                missed=rng.uniform(7.0, 13.0),
                minority=rng.uniform(0.6, 1.0),
                **common,
            )
        return cls(
            sigma=rng.uniform(10.0, 20.0) if model == "careful" else rng.uniform(7.0, 13.0),
            tie=rng.uniform(3.0, 7.0),
            taste=rng.uniform(2.0, 5.0),
            fluency=rng.uniform(0.35, 0.65) if model == "careful-fluency" else 0.5,
            **common,
        )

    def offset(self, text: str) -> float:
        """This person's own lasting taste for ``text`` (0 for ``DEFAULT``)."""
        if not self.taste:
            return 0.0
        return random.Random(f"{self.seed}|{' '.join(text.split())}").gauss(0, self.taste)

    def coin(self, *key: object) -> float:
        """A draw in [0, 1) fixed per person and ``key`` (the same edit judged alike each time)."""
        return random.Random(f"{self.seed}|{key!r}").random()

    def label(self, gain: float, rng: random.Random) -> str:
        """good / bad / neutral by a gain (x 100), ``label_error`` of them random."""
        read = (
            "good"
            if gain > self.neutral_band + 1e-7
            else "bad"
            if gain < -self.neutral_band - 1e-7
            else "neutral"
        )
        return rng.choice(LABELS) if rng.random() < self.label_error else read


DEFAULT = Person()


def careful(screen: Screen, gmeg: Gmeg, rng: random.Random, person: Person = DEFAULT) -> dict[int, float]:
    """Reads every candidate: its true quality (GLEU+ against the references) plus Gaussian noise
    (and the person's own taste for the text)."""
    return {
        c["position"]: 100 * gmeg.quality(screen["source"], c["text"])
        + person.offset(c["text"])
        + rng.gauss(0, person.sigma)
        for c in screen["candidates"]
    }


def candidate_edit_keys(screen: Screen, gmeg: Gmeg) -> dict[int, frozenset]:
    """position -> the candidate's ERRANT edits as (start, end, correction): the API's on an edit-level
    screen, else computed (what a careful person reading the references' edits sees)."""
    return {
        c["position"]: frozenset((*e["span"], " ".join(e["correction"].split())) for e in c["edits"])
        if "edits" in c
        else gmeg.errant_edits(screen["source"], c["text"])
        for c in screen["candidates"]
    }


REFERENCES_DEFAULT = Person(sigma=0.0, tie=2.5)
"""The fixed procedure of ``careful_references`` before per-person variation: 10 points per error,
values +-1 point (uniform), ties within 2.5 points."""


def careful_references(
    screen: Screen, gmeg: Gmeg, rng: random.Random, person: Person = REFERENCES_DEFAULT
) -> dict[int, float]:
    """Careful, judging by the references' ERRANT edits rather than GLEU+ (issue 41): points off per
    error against the closest reference (``person.needless`` per needless or wrong edit,
    ``person.missed`` per missed correction; 10 each by default), plus the person's taste and noise;
    by default corrections with as many errors tie (``TIE_TOLERANCE``), others never do."""
    refs = gmeg.reference_edits(screen["source"])

    def cost(edits: frozenset) -> float:
        return min(person.needless * len(edits - ref) + person.missed * len(ref - edits) for ref in refs)

    noise = (lambda: rng.gauss(0, person.sigma)) if person.sigma else (lambda: rng.uniform(-1, 1))
    texts = {c["position"]: c["text"] for c in screen["candidates"]}
    return {
        p: 100.0 - cost(edits) + person.offset(texts[p]) + noise()
        for p, edits in candidate_edit_keys(screen, gmeg).items()
    }


def careful_reference_labels(
    screen: Screen,
    gmeg: Gmeg,
    rng: random.Random,
    values: dict[int, float],
    person: Person = REFERENCES_DEFAULT,
):
    """An edit some reference makes is good, any other bad; ``person.label_error`` of them random. An
    edit only one reference makes is borderline: the person calls it good with probability
    ``person.minority`` (fixed per person and edit), else neutral."""
    refs = gmeg.reference_edits(screen["source"])

    def label(edit: dict) -> str:
        key = (*edit["span"], " ".join(edit["correction"].split()))
        makers = sum(key in ref for ref in refs)
        read = "bad" if not makers else "good"
        if makers == 1 and person.coin(screen["source"], key) >= person.minority:
            read = "neutral"
        return rng.choice(LABELS) if rng.random() < person.label_error else read

    return {c["position"]: [label(e) for e in c.get("edits", [])] for c in screen["candidates"]}


@cache
def word_fluency(text: str) -> float:
    """A cheap fluency: the mean Zipf frequency (0-8) of the text's words in English, by the ``wordfreq``
    package (the benchmark's own requirement, bench/requirements.txt; never the product's)."""
    from wordfreq import zipf_frequency

    words = [w for w in text.lower().split() if any(ch.isalpha() for ch in w)]
    return sum(zipf_frequency(w, "en") for w in words) / len(words) if words else 0.0


FLUENCY_DEFAULT = Person(sigma=10.0)


def careful_fluency(
    screen: Screen, gmeg: Gmeg, rng: random.Random, person: Person = FLUENCY_DEFAULT
) -> dict[int, float]:
    """Careful, half GLEU+ and half fluency (issue 41): the mix of 100 x GLEU+ and 100 x the word
    fluency over 8 (``person.fluency`` of the latter, half by default), plus the person's taste and
    Gaussian noise (sigma 10 by default)."""
    w = person.fluency
    return {
        c["position"]: 100 * (1 - w) * gmeg.quality(screen["source"], c["text"])
        + 100 * w * word_fluency(c["text"]) / 8
        + person.offset(c["text"])
        + rng.gauss(0, person.sigma)
        for c in screen["candidates"]
    }


def edit_applied(source: str, span: tuple[int, int], correction: str) -> str:
    tokens = source.split()
    return " ".join([*tokens[: span[0]], *correction.split(), *tokens[span[1] :]])


def careful_fluency_labels(
    screen: Screen,
    gmeg: Gmeg,
    rng: random.Random,
    values: dict[int, float],
    person: Person = FLUENCY_DEFAULT,
):
    """Each edit by what it alone does to the source, by GLEU+ (x 100) and word fluency (x 100 / 8,
    the scale of ``careful_fluency``) mixed as the person mixes them: good when the mix rises by more
    than the person's neutral band, bad when it falls by more, else neutral; ``person.label_error``
    of the labels random."""
    before = word_fluency(screen["source"])
    w = person.fluency

    def label(edit: dict) -> str:
        span = tuple(edit["span"])
        fluency = word_fluency(edit_applied(screen["source"], span, edit["correction"])) - before
        gain = (
            100 * (1 - w) * gmeg.edit_gain(screen["source"], span, edit["correction"]) + 100 * w * fluency / 8
        )
        return person.label(gain, rng)

    return {c["position"]: [label(e) for e in c.get("edits", [])] for c in screen["candidates"]}


def random_bot(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    return {c["position"]: rng.uniform(0, 100) for c in screen["candidates"]}


def constant(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    return {c["position"]: 50.0 for c in screen["candidates"]}


def source_first(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """The candidate equal to the displayed original gets 100, the others a random 0-99."""
    return {
        c["position"]: 100.0 if same(c["text"], screen["source"]) else float(rng.randint(0, 99))
        for c in screen["candidates"]
    }


def word_edit_keys(source: str, text: str) -> list[tuple]:
    """Word-level edits (difflib opcodes other than equal) from ``source`` to ``text``, each as
    (source span, correction) as the edit-level API names an edit."""
    s, t = source.split(), text.split()
    ops = difflib.SequenceMatcher(None, s, t, autojunk=False).get_opcodes()
    return [((i1, i2), " ".join(t[j1:j2])) for op, i1, i2, j1, j2 in ops if op != "equal"]


def word_edits(source: str, text: str) -> int:
    return len(word_edit_keys(source, text))


def edit_keys(screen: Screen) -> dict[int, list[tuple]]:
    """position -> the candidate's edits as (source span, correction): the API's edits on an
    edit-level screen, else word-level edits (difflib opcodes on whitespace tokens)."""
    return {
        c["position"]: [(tuple(e["span"]), " ".join(e["correction"].split())) for e in c["edits"]]
        if "edits" in c
        else word_edit_keys(screen["source"], c["text"])
        for c in screen["candidates"]
    }


def fewest_edits(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """Fewer edits against the source is better: 100 for none, 10 points off per edit (the edits the
    screen lists on an edit-level screen, else word-level edits)."""
    return {p: max(0.0, 100.0 - 10 * len(edits)) for p, edits in edit_keys(screen).items()}


def shared_edits(screen: Screen) -> dict[int, list[bool]]:
    """position -> for each of its edits, whether another candidate on the screen makes it too."""
    keys = edit_keys(screen)
    return {p: [any(k in keys[q] for q in keys if q != p) for k in mine] for p, mine in keys.items()}


def agreement(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """Trusts what the other candidates agree on: an edit another candidate also makes counts 5 points
    up, an edit no other candidate makes 10 points down (from 50). Made against the edit-level
    traps: an added error is an edit of the trap alone, and a correction a trap undoes is often one
    other candidates make too."""
    return {p: 50.0 + sum(5.0 if s else -10.0 for s in shared) for p, shared in shared_edits(screen).items()}


def longest(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """Longer is better: 100 for the longest text (in characters), the others in proportion."""
    top = max(len(c["text"]) for c in screen["candidates"]) or 1
    return {c["position"]: round(100 * len(c["text"]) / top) for c in screen["candidates"]}


def position(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """Scores follow the display position: 100, 80, 60, ... (ranks 1, 2, 3, ...)."""
    return {c["position"]: 100.0 - 20 * c["position"] for c in screen["candidates"]}


def regenerate(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """Runs the public inserter with seeds 0-9 on the source and on every candidate; a candidate it
    reproduces is taken for a trap (0, worst rank), the rest get 100 (rank 1). The copy of the source
    is never taken for a trap: inserting errors into a trap sometimes gives the source back."""
    texts = [screen["source"], *(c["text"] for c in screen["candidates"])]
    made = gmeg.regenerated(screen["source"], texts)
    return {
        c["position"]: 0.0
        if " ".join(c["text"].split()) in made and not same(c["text"], screen["source"])
        else 100.0
        for c in screen["candidates"]
    }


Labeller = Callable[[Screen, Gmeg, random.Random, dict[int, float]], dict[int, list[str]]]
"""(screen, data, rng, the strategy's values) -> position -> a label per edit, in the listed order."""


def careful_labels(
    screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float], person: Person = DEFAULT
):
    """Each edit by what it does alone to the source's GLEU+ against the four references: good when it
    raises it (x 100) by more than the person's neutral band, bad when it lowers it by more, else
    neutral; ``person.label_error`` of the labels random."""

    def label(edit: dict) -> str:
        return person.label(
            100 * gmeg.edit_gain(screen["source"], tuple(edit["span"]), edit["correction"]), rng
        )

    return {c["position"]: [label(e) for e in c.get("edits", [])] for c in screen["candidates"]}


def _every_edit(screen: Screen, label_of: Callable[[dict, int], str]) -> dict[int, list[str]]:
    """position -> ``label_of(candidate, edit index)`` for each of its edits."""
    return {
        c["position"]: [label_of(c, k) for k in range(len(c.get("edits", [])))] for c in screen["candidates"]
    }


def constant_label(label: str) -> Labeller:
    def labeller(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
        return _every_edit(screen, lambda c, k: label)

    return labeller


def random_labels(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
    return _every_edit(screen, lambda c, k: rng.choice(LABELS))


def position_labels(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
    """Good, bad, good, ... by the edit's place in its candidate."""
    return _every_edit(screen, lambda c, k: "good" if k % 2 == 0 else "bad")


def regenerate_labels(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
    """Every edit of a candidate taken for a trap (valued 0) bad, every other edit good."""
    return _every_edit(screen, lambda c, k: "bad" if values[c["position"]] == 0 else "good")


def agreement_labels(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
    """An edit another candidate also makes good, an edit of one candidate alone bad."""
    return {p: ["good" if s else "bad" for s in shared] for p, shared in shared_edits(screen).items()}


class IdReader:
    """Issue 35's finding: never reads. Control screens (traps, repeats) used to be saved after a
    campaign's judged screens, so their ids were the campaign's largest, and the API showed the id.
    In its first HIT this bot answers at random and notes each screen's id as it can order it (a
    number, else the bytes the text encodes: whatever ordering the API's ``id`` offers) and source;
    a sentence shown twice in a HIT is a control and its original, and the larger id of the two the
    control. From its second HIT on it rates low (0-10) every screen whose id is above the largest
    of the first HIT's other (ordinary) screens, and high (60-100) the rest: on a PRWS trap the copy
    with the trap is all low while the base, on the original, is high. Stateful: one per worker
    (``fresh()`` of the one in ``STRATEGIES``), told of each new HIT (``new_hit``)."""

    def __init__(self) -> None:
        self.hits = 0
        self.first: list[tuple[int, str]] = []
        self.threshold: int | None = None

    def fresh(self) -> IdReader:
        return type(self)()

    def new_hit(self) -> None:
        self.hits += 1
        if self.hits == 2 and self.first:
            seen: dict[str, list[int]] = {}
            for key, source in self.first:
                seen.setdefault(source, []).append(key)
            controls = {key for keys in seen.values() for key in sorted(keys)[1:]}
            ordinary = [key for key, _ in self.first if key not in controls]
            self.threshold = max(ordinary or [key for key, _ in self.first])

    @staticmethod
    def order_key(value: object) -> int:
        text = str(value)
        if text.isdigit():
            return int(text)
        try:
            return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")
        except ValueError:
            return int.from_bytes(text.encode(), "big")

    def __call__(self, screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
        key = self.order_key(screen.get("id", 0))
        if self.hits <= 1:
            self.first.append((key, screen["source"]))
            return random_bot(screen, gmeg, rng)
        low = self.threshold is not None and key > self.threshold
        return {
            c["position"]: rng.uniform(0, 10) if low else rng.uniform(60, 100) for c in screen["candidates"]
        }


def _screen_key(screen: Screen) -> tuple:
    return (
        " ".join(screen["source"].split()),
        tuple(sorted(" ".join(c["text"].split()) for c in screen["candidates"])),
    )


class Ring:
    """One careful person behind many accounts (issue 41): the first account to see a screen (by its
    source and candidate texts, which every account sees alike) answers carefully; every other account
    copies that answer, candidate by candidate, labels included. The memo is shared by all the ring's
    accounts (``fresh()`` keeps it). ``nudge``: each account moves each copied value by up to that many
    points, drawn afresh each time (the ring that hides from a check for identical answers: "ring-nudged").
    ``swap``: the first account answers as it read; every other account swaps the copied values of two
    candidates next to each other in value, drawn afresh each time, so that a copy's ranking has the
    order of one pair changed ("ring-swapped": a person who copies their answer to another account and
    changes one thing on it). "First" is per ``protocol`` (the harness sets it on each account): the
    memo is shared across protocols, and each protocol's campaign has a first account of its own."""

    def __init__(
        self, memo: dict | None = None, nudge: float = 0.0, swap: bool = False, answered: set | None = None
    ) -> None:
        self.memo: dict[tuple, tuple[dict[str, float], dict[str, list[str]] | None]] = (
            {} if memo is None else memo
        )
        self.nudge = nudge
        self.swap = swap
        self.answered: set = set() if answered is None else answered  # (protocol, screen) answered
        self.protocol = ""

    def fresh(self) -> Ring:
        return type(self)(self.memo, self.nudge, self.swap, self.answered)

    def __call__(self, screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
        key = _screen_key(screen)
        first = (self.protocol, key) not in self.answered
        self.answered.add((self.protocol, key))
        has_edits = any("edits" in c for c in screen["candidates"])
        # the memo is shared across protocols: a screen first met without edits (PRWS, ranking) gets
        # its labels the first time the ring meets it with edits
        if key not in self.memo or (has_edits and self.memo[key][1] is None):
            values = careful(screen, gmeg, rng)
            if key in self.memo:  # keep the first answer's values; only the labels are new
                first = self.memo[key][0]
                values = {c["position"]: first[" ".join(c["text"].split())] for c in screen["candidates"]}
            labels = careful_labels(screen, gmeg, rng, values) if has_edits else None
            by_text = {" ".join(c["text"].split()): values[c["position"]] for c in screen["candidates"]}
            labels_by_text = (
                {" ".join(c["text"].split()): labels[c["position"]] for c in screen["candidates"]}
                if labels
                else None
            )
            self.memo[key] = (by_text, labels_by_text)
        by_text, _ = self.memo[key]
        values = {  # no draw without a nudge: the plain ring's generator runs as it did before
            c["position"]: by_text[" ".join(c["text"].split())]
            + (rng.uniform(-self.nudge, self.nudge) if self.nudge else 0.0)
            for c in screen["candidates"]
        }
        if self.swap and not first and len(values) > 1:
            order = sorted(values, key=values.get)
            k = rng.randrange(len(order) - 1)
            a, b = order[k], order[k + 1]
            values[a], values[b] = values[b], values[a]
        return values

    def labels(self, screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
        _, labels = self.memo[_screen_key(screen)]
        return {
            c["position"]: (labels or {}).get(" ".join(c["text"].split()), []) for c in screen["candidates"]
        }


class Drifter:
    """Careful for its first ``careful_screens`` screens (50), then random (issue 41's third row)."""

    def __init__(self, careful_screens: int = 50) -> None:
        self.careful_screens = careful_screens
        self.seen = 0

    def fresh(self) -> Drifter:
        return type(self)(self.careful_screens)

    def __call__(self, screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
        self.seen += 1
        return (
            careful(screen, gmeg, rng) if self.seen <= self.careful_screens else random_bot(screen, gmeg, rng)
        )

    def labels(self, screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
        if self.seen <= self.careful_screens:
            return careful_labels(screen, gmeg, rng, values)
        return random_labels(screen, gmeg, rng, values)


def word_frequency(screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
    """A word-frequency "language model" (the cheap stand-in for an LLM judge): rarer words are worse;
    100 x the mean Zipf frequency over 8 (``word_fluency``)."""
    return {c["position"]: 100 * word_fluency(c["text"]) / 8 for c in screen["candidates"]}


def word_frequency_labels(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
    """An edit that makes the source's words more frequent is good, one that makes them rarer bad."""
    before = word_fluency(screen["source"])

    def label(edit: dict) -> str:
        gain = word_fluency(edit_applied(screen["source"], tuple(edit["span"]), edit["correction"])) - before
        return "good" if gain > 1e-9 else "bad" if gain < -1e-9 else "neutral"

    return {c["position"]: [label(e) for e in c.get("edits", [])] for c in screen["candidates"]}


class NearCopy:
    """Finds the pair of texts that differ by one small edit and answers the rest at random (issue 41):
    on a screen, two candidates one word-level edit apart; across the HIT, a screen whose source was
    shown before with one candidate changed ("compare the copies"). Of the two texts, the one whose
    changed words are rarer (``word_fluency``) and less supported by the other candidates (their
    edits against the source) is taken for the trap: rated 0, its edits bad; its twin 100, its edits
    good. Stateful per worker; ``new_hit`` forgets the HIT's screens."""

    def __init__(self) -> None:
        self.shown: dict[str, list[str]] = {}
        self.trap_texts: set[str] = set()
        self.base_texts: set[str] = set()

    def fresh(self) -> NearCopy:
        return type(self)()

    def new_hit(self) -> None:
        self.shown.clear()

    @staticmethod
    def _support(source: str, text: str, others: list[str]) -> float:
        mine = set(word_edit_keys(source, text))
        theirs = [set(word_edit_keys(source, o)) for o in others]
        return sum(len(mine & t) for t in theirs) - len(mine) + word_fluency(text)

    def _judge_pair(self, source: str, a: str, b: str, others: list[str]) -> None:
        trap, base = (a, b) if self._support(source, a, others) < self._support(source, b, others) else (b, a)
        self.trap_texts.add(trap)
        self.base_texts.add(base)

    def __call__(self, screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
        source = " ".join(screen["source"].split())
        texts = [" ".join(c["text"].split()) for c in screen["candidates"]]
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                if len(word_edit_keys(a, b)) == 1:
                    self._judge_pair(source, a, b, [t for t in texts if t not in (a, b)])
        earlier = self.shown.get(source)
        if earlier is not None and len(earlier) == len(texts):
            gone, new = [t for t in earlier if t not in texts], [t for t in texts if t not in earlier]
            if len(gone) == 1 and len(new) == 1:
                self._judge_pair(source, gone[0], new[0], [t for t in texts if t != new[0]])
        self.shown[source] = texts
        return {
            c["position"]: 0.0
            if t in self.trap_texts
            else 100.0
            if t in self.base_texts
            else rng.uniform(0, 100)
            for c, t in zip(screen["candidates"], texts, strict=True)
        }

    def labels(self, screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
        out = {}
        for c in screen["candidates"]:
            t = " ".join(c["text"].split())
            mark = "bad" if t in self.trap_texts else "good" if t in self.base_texts else None
            out[c["position"]] = [mark or rng.choice(LABELS) for _ in c.get("edits", [])]
        return out


def stateful_labels(screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
    """Placeholder for a stateful strategy's labeller: bots.py asks the worker's own strategy object
    (``labels``), which this never reaches."""
    raise RuntimeError("a stateful strategy labels with its own labels()")


class Careful:
    """A careful model (``values``, ``labeller``) as one person: ``person(rng)`` draws a person of
    their own for each worker (bench/bots.py seeds ``rng`` with the worker's name), so that accounts
    of distinct careful people are not copies of one procedure (issue 41); called without one, the
    model's fixed default person."""

    def __init__(self, model: str, values, labeller, person: Person) -> None:
        self.model, self.values, self.labeller, self.me = model, values, labeller, person

    def person(self, rng: random.Random) -> Careful:
        return type(self)(self.model, self.values, self.labeller, Person.drawn(rng, self.model))

    @property
    def tie(self) -> float:
        return self.me.tie

    def __call__(self, screen: Screen, gmeg: Gmeg, rng: random.Random) -> dict[int, float]:
        return self.values(screen, gmeg, rng, self.me)

    def labels(self, screen: Screen, gmeg: Gmeg, rng: random.Random, values: dict[int, float]):
        return self.labeller(screen, gmeg, rng, values, self.me)


STRATEGIES: dict[str, Strategy] = {
    "careful": Careful("careful", careful, careful_labels, DEFAULT),
    "random": random_bot,
    "constant": constant,
    "source-first": source_first,
    "fewest-edits": fewest_edits,
    "longest": longest,
    "position": position,
    "regenerate": regenerate,
    "agreement": agreement,
    "id-reader": IdReader(),
    "careful-references": Careful(
        "careful-references", careful_references, careful_reference_labels, REFERENCES_DEFAULT
    ),
    "careful-fluency": Careful("careful-fluency", careful_fluency, careful_fluency_labels, FLUENCY_DEFAULT),
    "ring": Ring(),
    "ring-nudged": Ring(nudge=2.0),
    "ring-swapped": Ring(swap=True),
    "drifter": Drifter(),
    "near-copy": NearCopy(),
    "word-frequency": word_frequency,
}
"""Each a function of the screen; a stateful one (the id reader) has ``fresh()``, a new one per worker."""
STRATEGIES |= OUTSIDE  # bench/outside_adversaries.py: written by an adversary from the product's code alone
LABELLERS: dict[str, Labeller] = {
    "careful": careful_labels,
    "random": random_labels,
    "constant": constant_label("neutral"),
    "source-first": constant_label("good"),
    "fewest-edits": constant_label("bad"),  # with fewest-edits ranks: "all bad + fewest edits"
    "longest": constant_label("good"),
    "position": position_labels,
    "regenerate": regenerate_labels,
    "agreement": agreement_labels,
    "id-reader": random_labels,
    "careful-references": careful_reference_labels,
    "careful-fluency": careful_fluency_labels,
    "ring": stateful_labels,
    "ring-nudged": stateful_labels,
    "ring-swapped": stateful_labels,
    "drifter": stateful_labels,
    "near-copy": stateful_labels,
    "word-frequency": word_frequency_labels,
} | dict.fromkeys(OUTSIDE, stateful_labels)  # each labels with its own labels()


def screen_words(screen: Screen) -> int:
    """Words shown: the source and every candidate (what the server's speed rule counts)."""
    return len(screen["source"].split()) + sum(len(c["text"].split()) for c in screen["candidates"])


def careful_seconds(screen: Screen, rng: random.Random) -> float:
    """A careful worker's time on a screen: 3 s to take it in, then reading at 240 words a minute
    (0.25 s a word), give or take 20%: about three times the speed rule's default minimum."""
    return (3.0 + 0.25 * screen_words(screen)) * rng.uniform(0.8, 1.2)


def bot_seconds(screen: Screen, rng: random.Random) -> float:
    """A bot's own time on a screen: a script answers as soon as the page is there (0.1-1 s)."""
    return rng.uniform(0.1, 1.0)


SECONDS: dict[str, Callable[[Screen, random.Random], float]] = {
    "careful": careful_seconds,
    "careful-references": careful_seconds,
    "careful-fluency": careful_seconds,
    "ring": careful_seconds,
    "ring-nudged": careful_seconds,
    "ring-swapped": careful_seconds,
    "drifter": careful_seconds,
    **dict.fromkeys(OUTSIDE, careful_seconds),  # a cheater who waits a reader's time costs nothing
}
"""Per strategy, the time on a screen the server sees with ``--speed-rule on`` (else ``bot_seconds``)."""

TIE_TOLERANCE = {"careful": CAREFUL_TIE, "careful-references": 2.5, "careful-fluency": CAREFUL_TIE}
"""Points within which two values share a rank (0 elsewhere: only equal values tie)."""


def dense_ranks(values: dict[int, float], tolerance: float = 0.0) -> dict[int, int]:
    """Dense ranks 1..k, 1 for the highest value; walking down from the best, a value within
    ``tolerance`` of the one before it shares that one's rank."""
    order = sorted(values, key=lambda p: -values[p])
    ranks, rank, previous = {}, 0, None
    for p in order:
        if previous is None or previous - values[p] > tolerance:
            rank += 1
        ranks[p] = rank
        previous = values[p]
    return ranks


def answers(
    protocol: str,
    values: dict[int, float],
    tolerance: float = 0.0,
    labels: dict[int, list[str]] | None = None,
) -> list[dict]:
    """The API's ``answers`` for the values: PRWS scores, ranking ranks, or edit-level ranks with
    ``labels`` (position -> a label per edit)."""
    if protocol == "edits":
        ranks = dense_ranks(values, tolerance)
        return [{"position": p, "rank": r, "labels": labels[p]} for p, r in sorted(ranks.items())]
    if protocol == "ranking":
        ranks = dense_ranks(values, tolerance)  # ties allowed, all tied included
        return [{"position": p, "rank": r} for p, r in sorted(ranks.items())]
    return [{"position": p, "score": int(min(100, max(0, round(v))))} for p, v in sorted(values.items())]
