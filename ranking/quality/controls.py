"""Hidden traps and repeats: control screens planned into each HIT when a campaign is built.

A control screen is a copy of a judged screen, shuffled anew and placed anywhere in the HIT, so a
worker cannot tell a control by where it comes or by what it shows:

- a **trap** copy shows, in place of one candidate, an erroneous version of another candidate of the
  same copy, its base (``geceval.traps.hidden``: an added error or an undone correction; on the
  edit-level and ranking protocols also an added correction, a positive control that the worker must
  not call an error or rank below its base), so base and trap are judged side by side, in every
  protocol. The look comes first, the kinds second: each trap's look is dealt from a deck in the
  judged screens' proportions (``ControlPlanner._next_look``) and kept (owed to a later HIT when
  this one cannot give it), and of the kinds that give it, the one furthest below its share is
  made; added errors, which most looks allow, come out somewhat above their share (PRWS about 59%,
  ranking about 37%). The screen
  copied is one of **another HIT** (the next HIT of the same domain): no screen of the trap's HIT
  shares its text, so comparing the copies inside a HIT finds nothing (issue 41: a trap beside a
  near-copy of its screen gave itself away as the one candidate that differs). The control's ``original`` is then
  a screen of the trap's own HIT whose judgment the verdict waits for (issue 35), drawn at random.
  Only a campaign of a single HIT per domain copies from the same HIT. A look of one candidate has
  no room for base and trap: its trap replaces its base on a copy of a screen of its own HIT, where
  the worker judges the base (PRWS; ranking shows two candidates at least), and so remains a
  one-candidate near-copy of that screen (not fixed: issue 41). The copy keeps the copied
  screen's number of candidates and its source copy: the candidate it displaces is never the
  candidate equal to the source, unless the look drawn for the trap has none.
- the candidate equal to the source is the **better** text of a trap's pair (the base of a trap that
  makes it worse) no more often than it is the **worse** (the trap is the source, every correction
  of its base undone; or the source copy is the base of an added correction), and the worse at most
  ``SOURCE_ROLE_SLACK`` times more than the better: a bot that rates the source copy best (or
  worst) passes as many traps that way as it fails, so trusting (or distrusting) the source says
  nothing about a screen. A look with a source copy and one or two candidates needs one of the
  two roles, so both must be plentiful: the source is the trap of any base whose corrections it
  undoes by the drop (``geceval.traps.hidden.source_trap``), not only of a one-edit base as before,
  when such looks came out short of traps (issue 41: PRWS screens showing a source copy were traps
  14.6% of the time against 18.2%, ranking's 13.4% against 19.3%: the balance above capped the
  source copy as a base at the few one-edit bases). PRWS's one- and two-candidate looks stayed short
  after that (h46) because a look the kind wanted could not give was dropped for an easier one; now
  the look is kept and the kind gives way (above), and both protocols' looks pass.
- a **repeat** is an exact copy, for the consistency check.

What becomes of the controls while workers judge (the claim's skip, the verdicts) is
``ranking.quality.control_judging``.

A trap's copy and its donor screen sit in two HITs, as a gold copy and its gold screen do: a worker
handed both could compare them across HITs. The claim never hands a worker a HIT that shows a
sentence they were shown in another HIT beside such a copy (``hits_with_copies_seen``, and the
claim's plain-SQL twin ``ranking.work.reads._copies_seen_sql``): NoWork rather than a repeat.

Which screens, which bases and the traps' errors are drawn from ``Campaign.trap_secret``, a
per-campaign secret that never leaves the server.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from annotate.models import Sentence
from annotate.selectors import corpus_references
from geceval.traps.hidden import (
    BETTER_KINDS,
    UNDONE_CORRECTION,
    Trap,
    correction_room,
    make_trap,
    source_trap,
)
from ranking.models import Campaign, Candidate, Control, ControlKind, Screen, TrapDesign
from ranking.protocols import protocol_get
from ranking.work.judging import normalise


@dataclass
class Group:
    """Outputs sharing one text: shown once, the judgment counts for each."""

    text: str
    output_ids: list[int] = field(default_factory=list)
    systems: list[int] = field(default_factory=list)


@dataclass
class PlannedControl:
    """A control screen before it is saved: indices into the build's screen list and group lists."""

    screen: int
    original: int
    kind: str
    base: tuple[int, int] | None = None
    """(screen index, group index) of the base."""
    trap: int | None = None
    """Group index of the trap on the control screen."""
    base_quality: float | None = None
    trap_quality: float | None = None


def _rounded(x: float, rng: random.Random) -> int:
    """``x`` rounded up with probability its fraction: the expected count is exactly ``x``."""
    whole = int(x)
    return whole + (rng.random() < x - whole)


Cell = tuple[int, bool]
"""What a screen looks like from outside: (candidates shown, one of them reads as the source)."""


class ControlPlanner:
    """Plans the control screens of one campaign over the build's in-memory screens.

    Each trap first draws the look its screen must have, a ``Cell`` dealt in the proportions of the
    campaign's judged screens, then finds a screen of the HIT, a base and a trap that give exactly
    that look: so trap screens and the others show as many candidates, and a source copy as often
    (issue 17's chi-square). A copy keeps its original's number of candidates; whether it shows a
    source copy changes only when the trap replaces the source copy (an added error on the source,
    GMEG's trap) or is the source (every correction of its base undone). The trap kinds are kept in balance (the
    protocol's ``trap_kinds`` and their weights), and so are the source copy's two roles (module
    docstring).
    """

    def __init__(
        self,
        campaign: Campaign,
        sentences: dict[int, Sentence],
        references: dict[int, list[str]],
        screens: list[Screen],
        groups: list[list[Group]],
    ):
        self.campaign = campaign
        self.sentences = sentences
        self.references = references
        self.screens = screens
        self.groups = groups
        self.reference_edits = protocol_get(campaign.protocol).trap_reference_edits
        """The edit-level rule of ``geceval.traps`` (issue 41)."""
        self.kinds = protocol_get(campaign.protocol).trap_kinds
        """The trap kinds and their weights (the edit-level and ranking protocols add corrections too)."""
        self.cells = [self._cell(i, [g.text for g in groups[i]]) for i in range(len(screens))]
        self.made: Counter[str] = Counter()
        self.looks = Counter(self.cells)
        """How many judged screens have each look: the traps' looks are dealt in these proportions."""
        self.deck: list[Cell] = []
        self.drawn: Counter[Cell] = Counter()
        self.deck_rng = random.Random(f"{campaign.trap_secret}:looks")
        self.owed: Counter[Cell] = Counter()
        """Looks drawn for earlier traps that their HIT could not give."""
        self.tried: dict[tuple, Trap | None] = {}
        """Drafts by (screen, base, kind, the trap must be the source)."""
        self.room: dict[tuple[int, int], set[int]] = {}
        """``_correction_room`` by (screen, base)."""
        self.source_roles: Counter[str] = Counter()
        """Traps made in which the text that reads as the source is the "better" of the pair (the base
        of a trap that makes it worse) or the "worse" (a trap that is the source, or the base of an
        added correction)."""

    def _cell(self, index: int, texts: list[str]) -> Cell:
        source = normalise(self.sentences[self.screens[index].sentence_id].text)
        return len(texts), any(normalise(t) == source for t in texts)

    def plan_hit(
        self, hit_key: str, members: list[int], donor: list[int]
    ) -> tuple[list[tuple[Screen, list[Group]]], list[PlannedControl]]:
        """New (screen, groups) pairs for the HIT's controls and their plan; indices in the plan count
        from ``len(self.screens)`` for the new screens, in the order returned. Traps copy screens of
        ``donor`` (another HIT's judged screens), repeats screens of ``members``."""
        campaign = self.campaign
        rng = random.Random(f"{campaign.trap_secret}:hit:{hit_key}")
        n_traps = _rounded(campaign.trap_rate * len(members), rng)
        n_repeats = _rounded(campaign.repeat_rate * len(members), rng)
        order = list(members)
        rng.shuffle(order)
        # nor a donor screen of a sentence this HIT shows already (ranking: another screen of it),
        # unless the HIT is its own donor (its domain's one HIT)
        here = set() if set(donor) & set(members) else {self.screens[i].sentence_id for i in members}
        donors = [i for i in donor if self.screens[i].sentence_id not in here]
        rng.shuffle(donors)
        hit = self.screens[members[0]].hit
        new: list[tuple[Screen, list[Group]]] = []
        plans: list[PlannedControl] = []
        used: set[int] = set()
        for _ in range(n_traps):
            found = self._search(donors, order, used, rng)
            if not found:
                break  # nothing takes a trap of a look the campaign has
            copied, copy, plan = found
            used.add(copied)
            # no second trap from the same sentence (ranking: its other screen shows the trap's base
            # beside a one-edit copy of it in this HIT, which comparing copies finds)
            sentence = self.screens[copied].sentence_id
            donors[:] = [i for i in donors if self.screens[i].sentence_id != sentence or i == copied]
            self.made[plan.kind] += 1
            plan.screen = len(self.screens) + len(new)
            if plan.base[0] == -1:  # beside: the verdict waits for a screen of this HIT (issue 35)
                plan.original = order[rng.randrange(len(order))]
            new.append((self._copy_screen(copied, hit), copy))
            plans.append(plan)
        for original in [i for i in order if i not in used][:n_repeats]:
            copy = list(self.groups[original])
            rng.shuffle(copy)
            plans.append(PlannedControl(len(self.screens) + len(new), original, ControlKind.REPEAT))
            new.append((self._copy_screen(original, hit), copy))
        return new, plans

    def _copy_screen(self, original: int, hit) -> Screen:
        screen = self.screens[original]
        return Screen(campaign=self.campaign, sentence=screen.sentence, index=0, hit=hit)

    def _search(
        self, donors: list[int], own: list[int], used: set[int], rng: random.Random
    ) -> tuple[int, list[Group], PlannedControl] | None:
        """The HIT's next trap: for a look owed by an earlier HIT, or else newly drawn; of the kind made
        least often so far when that kind gives the look, else of any kind. Every look drawn that no
        kind gives in this HIT is owed to a later one: a look dropped for one that is easier to give
        leaves the traps' looks unlike the other screens' (issue 41: ranking's two-candidate screens
        with a source copy, the hardest look, were traps 13% of the time against 16%)."""
        shares = self.kinds
        # one kind at a time, the one furthest below its share first
        kinds = sorted(shares, key=lambda k: (self.made[k] / shares[k], rng.random()))
        for target, _n in self.owed.most_common():
            for kind in kinds:
                found = self._trap(target, donors, own, used, kind, rng)
                if found:
                    self.owed[target] -= 1
                    if not self.owed[target]:
                        del self.owed[target]
                    return found
        missed: list[Cell] = []
        for _draw in range(_CELL_DRAWS):
            target = self._next_look()
            for kind in kinds:
                found = self._trap(target, donors, own, used, kind, rng)
                if found:
                    self.owed.update(missed)
                    return found
            missed.append(target)
        return None

    def _next_look(self) -> Cell:
        """The next look a new trap must have, from a shuffled deck of ``_LOOK_DECK`` looks dealt in the
        judged screens' proportions (each card to the look furthest below its share of every look
        drawn so far, ties at random), so that the traps' looks keep to the screens' within a card or
        two, where drawing each at random strayed by chance (issue 41: the look test's four edit-level
        campaigns drew 23% of their traps' looks without a source copy, against 27% of the screens:
        p 0.006, after a change that only moved the draws)."""
        if not self.deck:
            total = sum(self.drawn.values()) + _LOOK_DECK
            dealt: Counter[Cell] = Counter()
            for _card in range(_LOOK_DECK):
                due = {
                    look: n * total / len(self.cells) - self.drawn[look] - dealt[look]
                    for look, n in self.looks.items()
                }
                most = max(due.values())
                dealt[self.deck_rng.choice([look for look, d in due.items() if d == most])] += 1
            self.deck = [look for look, n in dealt.items() for _ in range(n)]
            self.deck_rng.shuffle(self.deck)
        look = self.deck.pop()
        self.drawn[look] += 1
        return look

    def _trap(
        self,
        target: Cell,
        donors: list[int],
        own: list[int],
        used: set[int],
        kind: str,
        rng: random.Random,
    ) -> tuple[int, list[Group], PlannedControl] | None:
        """A screen (not used yet), a base and a trap of ``kind`` whose copy looks like ``target``: a
        screen of ``donors`` with base and trap side by side; a look of one candidate has no room for
        both, so its trap replaces its base on a copy of a screen of ``own``, the trap's HIT, where the
        worker judges the base (PRWS; the residual near-copy: module docstring)."""
        beside = target[0] > 1
        for index in donors if beside else own:
            if index in used or self.cells[index][0] != target[0]:
                continue
            for base, displaced in self._choices(index, target[1], beside, kind, rng):
                found = self._draft(index, base, displaced, target, kind, beside, rng)
                if found is not None:
                    return index, *found
        return None

    def _choices(
        self, index: int, copy_wanted: bool, beside: bool, kind: str, rng: random.Random
    ) -> list[tuple[int, int]]:
        """(base, displaced candidate) pairs worth trying on screen ``index``, shuffled."""
        shown = self.groups[index]
        source = normalise(self.sentences[self.screens[index].sentence_id].text)
        copies = [g for g, group in enumerate(shown) if normalise(group.text) == source]
        # The source copy as a base only while its role in a pair of this kind is free (module
        # docstring).
        copy_base = self._role_free(_copy_base_role(kind))
        pairs = []
        for b in range(len(shown)):
            if b in copies and not copy_base:
                continue
            # an added correction must be a lone edit among the texts the copy keeps: only the
            # candidates whose displacement leaves one are worth a draft
            room = self._correction_room(index, b) if beside and kind in BETTER_KINDS else None
            for d in range(len(shown)) if beside else (b,):
                if (beside and d == b) or (room is not None and d not in room):
                    continue
                # Displacing the source copy loses it; a trap may still be the source (see _draft).
                if copies and copy_wanted == (d in copies):
                    continue
                pairs.append((b, d))
        rng.shuffle(pairs)
        return pairs[:_CHOICES]

    def _correction_room(self, index: int, b: int) -> set[int]:
        """``geceval.traps.hidden.correction_room`` of base ``b`` on screen ``index``, computed once."""
        key = (index, b)
        if key not in self.room:
            sentence = self.sentences[self.screens[index].sentence_id]
            texts = [g.text for g in self.groups[index]]
            self.room[key] = correction_room(sentence.text, self.references.get(sentence.pk, []), texts, b)
        return self.room[key]

    def _role_free(self, role: str) -> bool:
        """The text that reads as the source may be the ``role`` ("better" or "worse") of the next
        trap's pair: the source-first bot's balance (module docstring)."""
        better, worse = self.source_roles["better"], self.source_roles["worse"]
        return better < worse if role == "better" else worse < better + SOURCE_ROLE_SLACK

    def _draft(
        self,
        index: int,
        b: int,
        d: int,
        target: Cell,
        kind: str,
        beside: bool,
        rng: random.Random,
    ) -> tuple[list[Group], PlannedControl] | None:
        sentence = self.sentences[self.screens[index].sentence_id]
        shown = self.groups[index]
        refs = self.references.get(sentence.pk, [])
        drop = self.campaign.trap_min_drop
        kept = [g.text for i, g in enumerate(shown) if i != d]
        to_source = target[1] and not any(normalise(t) == normalise(sentence.text) for t in kept)
        if to_source and not self._role_free("worse"):
            return None
        # A draft avoids every text of the screen: one per base, whatever d. An added correction is
        # drafted per d, and may be the displaced text itself: the screen then holds a natural added
        # correction, and the copy shows what its donor (in another HIT) shows.
        avoid = kept if kind in BETTER_KINDS else [g.text for g in shown]
        # an added correction must be a lone edit among the texts the copy keeps: it depends on d
        key = (index, b, kind, to_source, d if kind in BETTER_KINDS else None)
        if key not in self.tried:  # a screen is tried again for other looks and kinds: draft once
            found = None
            if not to_source:
                found = make_trap(
                    shown[b].text,
                    sentence.text,
                    refs,
                    seed=f"{self.campaign.trap_secret}:{sentence.pk}:{index}:{b}",
                    avoid=avoid,
                    kinds=(kind,),
                    min_drop=drop,
                    error_types=self.campaign.trap_types,
                    n_errors=self.campaign.trap_errors,
                    reference_edits=self.reference_edits,
                    shown=kept if kind in BETTER_KINDS else None,
                )
            elif kind == UNDONE_CORRECTION:
                found = source_trap(
                    shown[b].text, sentence.text, refs, min_drop=drop, reference_edits=self.reference_edits
                )
            self.tried[key] = found
        trap = self.tried[key]
        if trap is None:
            return None
        trap_group = Group(trap.text)
        copy = list(shown)
        copy[d] = trap_group
        if self._cell(index, [g.text for g in copy]) != target:
            return None
        if normalise(shown[b].text) == normalise(sentence.text):  # _choices let the source copy be it
            self.source_roles[_copy_base_role(kind)] += 1
        self.source_roles["worse"] += normalise(trap.text) == normalise(sentence.text)
        rng.shuffle(copy)
        at = {id(g): i for i, g in enumerate(copy)}
        base = (-1, at[id(shown[b])]) if beside else (index, b)
        plan = PlannedControl(-1, index, trap.kind, base, at[id(trap_group)], trap.base_quality, trap.quality)
        return copy, plan


def _copy_base_role(kind: str) -> str:
    """The source copy's role as the base of a trap of ``kind``: the better text of the pair, or the
    worse when the trap adds a correction (a source-first bot fails both that and a trap that is the
    source)."""
    return "worse" if kind in BETTER_KINDS else "better"


SOURCE_ROLE_SLACK = 2
"""How many more traps may have the source as the worse text of their pair than as the better (the
other way round none): a little room for the roles that are easier to make, the source as the trap
or as an added correction's base, to lead; a bot that rates the source copy worst gains at most
this many traps in a campaign."""
_LOOK_DECK = 100
"""Looks dealt at a time for new traps (``ControlPlanner._next_look``)."""
_CELL_DRAWS = 8
"""Looks drawn for one trap before the HIT is left with fewer traps."""
_CHOICES = 6
"""(base, displaced) pairs tried per screen: each costs up to a dozen GLEU+ checks."""


def controls_add(
    campaign: Campaign, screens: list[Screen], groups: list[list[Group]], hits: list[list[int]]
) -> list:
    """Hidden traps and repeats (``ranking.quality.controls``): control screens appended to
    ``screens`` and ``groups``, each HIT's screens then placed in a secret random order."""
    if campaign.trap_design != TrapDesign.HIDDEN or not (campaign.trap_rate or campaign.repeat_rate):
        return []
    sentence_ids = sorted({s.sentence_id for s in screens})
    planner = ControlPlanner(
        campaign,
        {s.sentence_id: s.sentence for s in screens},
        corpus_references(campaign.corpus_id, sentence_ids),
        screens,
        groups,
    )
    next_index: dict[int, int] = defaultdict(int)
    for s in screens:
        next_index[s.sentence_id] = max(next_index[s.sentence_id], s.index + 1)
    donors = _donors(screens, hits)
    judged = [list(members) for members in hits]  # before the controls join them
    plans = []
    for number, members in enumerate(hits):
        new, planned = planner.plan_hit(str(number), members, judged[donors[number]])
        for screen, copy in new:
            screen.index = next_index[screen.sentence_id]
            next_index[screen.sentence_id] += 1
            members.append(len(screens))
            screens.append(screen)
            groups.append(copy)
        plans += planned
        order = list(members)
        random.Random(f"{campaign.trap_secret}:order:{number}").shuffle(order)
        for position, i in enumerate(order):
            screens[i].hit_position = position
    return plans


def _donors(screens: list[Screen], hits: list[list[int]]) -> list[int]:
    """For each HIT, the HIT whose screens its traps copy: the next HIT of the same domain (the HITs
    of a domain in a ring), itself only when it is its domain's one HIT."""
    by_domain: dict[str, list[int]] = defaultdict(list)
    for number, members in enumerate(hits):
        by_domain[screens[members[0]].hit.domain if members else ""].append(number)
    donors = list(range(len(hits)))
    for ring in by_domain.values():
        for at, number in enumerate(ring):
            donors[number] = ring[(at + 1) % len(ring)]
    return donors


def controls_save(
    plans: list[PlannedControl], screens: list[Screen], candidates: list[list[Candidate]]
) -> None:
    """The planned controls, once their screens and candidates are saved (``candidates[i]``: screen
    ``i``'s candidates in group order)."""
    rows = []
    for plan in plans:
        base = trap = None
        if plan.base is not None:
            at, g = plan.base
            base = candidates[plan.screen if at == -1 else at][g]
            trap = candidates[plan.screen][plan.trap]
        rows.append(
            Control(
                screen=screens[plan.screen],
                original=screens[plan.original],
                kind=plan.kind,
                base=base,
                trap=trap,
                base_quality=plan.base_quality,
                trap_quality=plan.trap_quality,
            )
        )
    Control.objects.bulk_create(rows, batch_size=2000)
