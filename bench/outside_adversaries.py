"""Outside adversaries: cheating workers written from the product's public code, not tuned with the bench.

Each reads only the screen the workers' API returns (never ``gmeg``): no references, no system names.
"""

from __future__ import annotations

import difflib
import random
from functools import lru_cache

from wordfreq import zipf_frequency

from geceval.traps.rules import RULES, parse_token
from geceval.traps.words import COMMA_AFTER, FINAL_PUNCT

GAP = 14.0  # points between the two texts of a near pair whose order the rules decide
SAMPLES = 48  # draws of a rule's builder when asking whether it can make a given text


def _regions(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in m.get_opcodes() if tag != "equal"]


@lru_cache(maxsize=4096)
def _cands(text: str) -> tuple:
    toks = [parse_token(t) for t in text.split()]
    return tuple(c for name, rule in RULES.items() if name != "SPELL" for c in rule(toks))


def _zipf(word: str) -> float:
    core = "".join(ch for ch in word.lower() if ch.isalpha() or ch == "'")
    return zipf_frequency(core, "en") if len(core) >= 3 else 5.0


def _one_char_apart(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:k] + long_[k + 1 :] == short for k in range(len(long_)))


@lru_cache(maxsize=65536)
def _error_of(y: str, x: str, region: tuple[int, int, int, int]) -> bool:
    """Could the inserter's rules (geceval.traps.rules) turn ``y`` into ``x`` at ``region``?"""
    yt, xt = y.split(), x.split()
    i1, i2, j1, j2 = region
    if i2 - i1 == 1 and j2 - j1 == 1 and _one_char_apart(yt[i1], xt[j1]):
        zx, zy = _zipf(xt[j1]), _zipf(yt[i1])
        if min(zx, zy) < 3.0 and abs(zx - zy) > 1.0:
            return zx < zy  # a typo: the rarer spelling is the error (two real words: the rules say)
    local = yt[:i1] + xt[j1:j2] + yt[i2:]
    for cand in _cands(y):
        if not (cand.start <= i1 and i2 <= cand.end) or cand.end - cand.start > 3:
            continue
        for s in range(SAMPLES):
            if yt[: cand.start] + cand.build(random.Random(s)) + yt[cand.end :] == local:
                return True
    return False


def _distance(a: str, b: str) -> int:
    return sum(max(i2 - i1, j2 - j1) for i1, i2, j1, j2 in _regions(a.split(), b.split()))


def _edit_keys(source: list[str], text: list[str]) -> set:
    return {(i1, i2, tuple(text[j1:j2])) for i1, i2, j1, j2 in _regions(source, text)}


def _plain_error(a: list[str], b: list[str], r: tuple[int, int, int, int]) -> int:
    """For a diff both ways reachable by a rule: +1 when ``b`` is plainly the broken one, -1 ``a``."""
    i1, i2, j1, j2 = r
    for sign, (x, y, k1, k2) in ((1, (b, a, j1, j2)), (-1, (a, b, i1, i2))):
        piece = x[k1:k2]
        if piece == [","] and k1 > 0 and x[k1 - 1].lower() in COMMA_AFTER:
            return sign  # a comma after a function word ("in , the")
        if x and y and x[-1][-1] not in FINAL_PUNCT and y[-1][-1] in FINAL_PUNCT and k2 >= len(x) - 1:
            return sign  # the sentence lost its full stop
    return 0


class OutsideJudge:
    """Consensus of the screen + the trap inserter's own rules run backwards + per-account noise.

    Exploits: (1) every hidden trap sits BESIDE its base on the same screen (ranking/quality/controls.py
    module docstring), so a trap is always one half of a near pair (1-2 small word diffs); (2) the
    inserter's rules are public (geceval/traps/rules.py) and directional: when the rules can turn text
    Y into X at the differing spot but not X into Y, X is Y plus an inserted error; a typo is the rarer
    word by wordfreq; (3) when no rule explains the diff, the pair is an undone correction or an added
    correction, and in both the text with the extra edit against the source is the better one; (4) the
    edit-level and ranking verdicts only compare trap with base, and an added correction passes on a
    tie. Everything else is ranked by minimum-Bayes-risk consensus (edits the other candidates share are
    good, needless lone edits and new non-words bad), which tracks the careful crowd well enough for the
    agreement rule and for the crowd to vouch (VOUCH_MARGIN). One-candidate trap looks (PRWS) are a
    near copy of a screen of the same HIT, so the judge remembers its texts per source and applies the
    same rules across screens. Each account draws its own weights, noise and coin for the undecidable
    diffs (preposition swaps, word order), all hashed from the texts, so repeats are answered alike and
    accounts are not copies of one another. Expected: ~80% of traps passed, agreement near a careful
    worker's, no position or flatness signal, and it takes milliseconds per screen.
    """

    def __init__(self) -> None:
        self.salt: int | None = None
        self.memory: dict[str, dict[str, float]] = {}
        self.verdicts: dict[int, dict[int, int]] = {}  # position -> position -> +1 better / -1 worse
        self.nearest: dict[int, tuple[int, int]] = {}

    def fresh(self) -> OutsideJudge:
        return type(self)()

    def _setup(self, rng: random.Random) -> None:
        self.salt = rng.getrandbits(48)
        self.sigma, self.tau = rng.uniform(3.0, 7.0), rng.uniform(0.25, 0.4)
        self.p_error, self.lone_good = rng.uniform(0.25, 0.45), rng.uniform(0.1, 0.35)
        self.oov_weight, self.miss_weight = rng.uniform(8.0, 14.0), rng.uniform(0.3, 0.7)

    def _hash(self, *parts: str) -> random.Random:
        return random.Random(f"{self.salt}|" + "|".join(parts))

    def pair(self, source: list[str], a: str, b: str) -> int:
        """+1 when ``a`` is better, -1 when ``b`` is, 0 when the two are not a near pair."""
        at, bt = a.split(), b.split()
        regions = _regions(at, bt)
        if not regions or len(regions) > 2 or any(max(i2 - i1, j2 - j1) > 3 for i1, i2, j1, j2 in regions):
            return 0
        vote = 0
        for r in regions:
            b_err, a_err = _error_of(a, b, r), _error_of(b, a, (r[2], r[3], r[0], r[1]))
            if b_err != a_err:
                vote += 1 if b_err else -1
            elif b_err:
                plain = _plain_error(at, bt, r)
                coin = self._hash(*sorted((a, b))).random() < self.p_error
                extra_b = bool(_edit_keys(source, bt) - _edit_keys(source, at))
                vote += plain or ((1 if extra_b else -1) * (1 if coin else -1))
            else:  # no rule explains it: a correction undone or added, the extra edit wins
                extra_a = len(_edit_keys(source, at) - _edit_keys(source, bt))
                extra_b = len(_edit_keys(source, bt) - _edit_keys(source, at))
                vote += (extra_a > extra_b) - (extra_b > extra_a)
        return (vote > 0) - (vote < 0)

    def __call__(self, screen: dict, gmeg: object, rng: random.Random) -> dict[int, float]:
        if self.salt is None:
            self._setup(rng)
        source = screen["source"].split()
        cands = {c["position"]: " ".join(c["text"].split()) for c in screen["candidates"]}
        keys = {p: _edit_keys(source, t.split()) for p, t in cands.items()}
        src_words = {w.lower() for w in source}
        values: dict[int, float] = {}
        for p, t in cands.items():
            others = [keys[q] for q in cands if q != p] or [set()]
            support = {e: sum(e in k for k in others) / len(others) for k in others for e in k}
            score = sum(support.get(e, 0.0) - self.tau for e in keys[p])
            score -= self.miss_weight * sum(
                s - self.tau for e, s in support.items() if s >= 0.5 and e not in keys[p]
            )
            new_oov = sum(_zipf(w) == 0.0 for w in t.split() if w.lower() not in src_words)
            old_oov = sum(_zipf(w) == 0.0 for w in t.split() if w.lower() in src_words)
            noise = self._hash(t, screen["source"]).gauss(0.0, self.sigma)
            values[p] = 55 + 18 * score - self.oov_weight * new_oov - 3 * old_oov + noise
        self.verdicts = {p: {} for p in cands}
        self.nearest: dict[int, tuple[int, int]] = {}  # position -> (its closest near partner, verdict)
        order = sorted(cands, key=lambda p: cands[p])  # by text: a repeat, shuffled, is answered alike
        for k, p in enumerate(order):
            for q in order[k + 1 :]:
                if v := self.pair(source, cands[p], cands[q]):
                    self.verdicts[p][q], self.verdicts[q][p] = v, -v
        for p, row in self.verdicts.items():
            close = sorted(row, key=lambda q: (_distance(cands[p], cands[q]), q))
            if close:
                self.nearest[p] = (close[0], row[close[0]])
        seen = self.memory.setdefault(screen["source"], {})
        for _ in range(3):  # settle chains of near pairs: the worse of each at least GAP below
            for p in order:
                for q, v in sorted(self.verdicts[p].items(), key=lambda qv: cands[qv[0]]):
                    if v < 0 and values[p] > values[q] - GAP:
                        values[p] = values[q] - GAP
            for p, t in cands.items() if len(cands) == 1 else ():  # a one-candidate look's near copy
                for old, value in seen.items():
                    if old not in cands.values() and (v := self.pair(source, t, old)):
                        values[p] = max(values[p], value + GAP) if v > 0 else min(values[p], value - GAP)
        low = min(values.values())
        if low < 2:  # shift up rather than clip: clipping would tie a trap with its base at 0
            values = {p: v + 2 - low for p, v in values.items()}
        values = {p: min(100.0, v) for p, v in values.items()}
        seen.update({cands[p]: v for p, v in values.items()})
        return values

    def labels(self, screen: dict, gmeg: object, rng: random.Random, values: dict[int, float]) -> dict:
        """Per edit: bad when it is what a near pair's worse half adds, good when the better half's
        extra edit or shared by half the others, bad for a new non-word, else mostly neutral."""
        if self.salt is None:
            self._setup(rng)
        api = {c["position"]: c.get("edits", []) for c in screen["candidates"]}
        keyset = {p: {(tuple(e["span"]), e["correction"]) for e in edits} for p, edits in api.items()}
        out: dict[int, list[str]] = {}
        for p, edits in api.items():
            others = [keyset[q] for q in api if q != p] or [set()]
            marks = []
            for e in edits:
                key = (tuple(e["span"]), e["correction"])
                q, v = self.nearest.get(p, (-1, 0))
                verdicts = [v] if v and key not in keyset.get(q, ()) else []
                share = sum(key in k for k in others) / len(others)
                coin = self._hash(screen["source"], str(key)).random()
                if verdicts and min(verdicts) < 0:
                    marks.append("bad")
                elif verdicts or share >= 0.5:
                    marks.append("good")
                elif any(_zipf(w) == 0.0 for w in e["correction"].split()):
                    marks.append("bad")
                else:
                    marks.append("good" if coin < self.lone_good + share else "neutral")
            out[p] = marks
        return out


OUTSIDE: dict[str, object] = {"outside-rules-backwards": OutsideJudge()}
