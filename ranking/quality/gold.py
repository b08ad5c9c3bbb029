"""Gold answers of a campaign. Two uses of one rule (share of candidate pairs ordered as the gold):

- the campaign's own qualification: a few screens answered by an expert (the gold), then by each worker;
- gold screens (issue 41): ordinary screens the researcher answers on the campaign's Gold screens page
  or imports (CSV or JSON, validated), whose copies are placed in other HITs and scored like traps
  (``ranking.quality.gold_copies``).


A worker passes when the share of candidate pairs they order as the expert did
(better, equal, worse) reaches ``campaign.gold_threshold``. For PRWS scores,
two candidates count as equal when their scores differ by less than
``PRWS_TIE_MARGIN`` points (``ranking.protocols.prws``), since two judges rarely give the same number.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Mapping
from itertools import combinations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from annotate.sql_rows import row
from geceval.errors import GecInputError
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Candidate,
    GoldScreen,
    Hit,
    Rating,
    Screen,
    WorkerRecord,
)
from ranking.protocols import protocol_get
from ranking.protocols.base import CandidateScore
from ranking.quality.gold_copies import gold_copies_place
from ranking.services.campaigns import screen_draw_active


def _judged_screens(campaign: Campaign):
    """The campaign's judged screens: no control copies (hidden traps, repeats, gold copies), none of
    the qualification test. Gold is answered on these only."""
    return Screen.objects.filter(campaign=campaign, hit__qualification=False, control__isnull=True)


@transaction.atomic
def qualification_hit_create(*, campaign: Campaign, screens: int = 5, seed: int | None = None) -> Hit:
    """Copy ``screens`` randomly chosen screens into the campaign's qualification HIT."""
    if Hit.objects.filter(campaign=campaign, qualification=True).exists():
        raise GecInputError("this campaign already has a qualification test")
    # control screens (hidden traps, repeats) are never gold: a test copies judged screens only. In
    # corpus order, not id order: ids follow the insert order the campaign's secret shuffles (issue
    # 35), so the same seed drew another test in each database (the CI failure of stop 47)
    pool = list(_judged_screens(campaign).order_by("sentence__position", "index"))
    if not 1 <= screens <= len(pool):
        raise GecInputError(f"choose 1 to {len(pool)} screens for the test")
    chosen = random.Random(f"{campaign.seed if seed is None else seed}:gold").sample(pool, screens)
    return _qualification_hit_of(campaign, chosen)


def _qualification_hit_of(campaign: Campaign, chosen: list[Screen]) -> Hit:
    """The qualification HIT: copies of ``chosen`` (judged screens), in that order."""
    top = Hit.objects.filter(campaign=campaign).aggregate(m=Max("index"))["m"] or 0
    hit = Hit.objects.create(campaign=campaign, index=top + 1, qualification=True)
    # past every screen of the campaign, and one further for each copy: two chosen screens may show
    # the same sentence (a ranking sentence has a screen per group of systems), and a screen's index
    # is unique per sentence
    offset = (Screen.objects.filter(campaign=campaign).aggregate(m=Max("index"))["m"] or 0) + 1
    for position, original in enumerate(chosen):
        if campaign.active_selection and not original.candidates.exists():
            original = screen_draw_active(screen=original)
        copy = Screen.objects.create(
            campaign=campaign,
            sentence_id=original.sentence_id,
            index=offset + position,
            hit=hit,
            hit_position=position,
        )
        for candidate in original.candidates.all():
            new = Candidate.objects.create(screen=copy, position=candidate.position, text=candidate.text)
            new.outputs.set(candidate.outputs.all())
    return hit


def qualification_hit(campaign: Campaign) -> Hit | None:
    """The campaign's qualification HIT, if it has one (asked on every claim: a plain statement)."""
    return row(Hit, campaign_id=campaign.pk, qualification=True, first_by="index")


def gold_assignment(campaign: Campaign) -> Assignment | None:
    return Assignment.objects.filter(
        hit__campaign=campaign, hit__qualification=True, gold=True, status=AssignmentStatus.SUBMITTED
    ).first()


def gold_assignment_start(*, campaign: Campaign, expert: AbstractBaseUser) -> Assignment:
    """The expert's assignment on the qualification HIT; their answers become the gold."""
    from datetime import timedelta

    from django.utils import timezone

    hit = qualification_hit(campaign)
    if hit is None:
        raise GecInputError("create the qualification test first")
    existing = Assignment.objects.filter(hit=hit, worker=expert).first()
    if existing is not None:
        return existing
    if gold_assignment(campaign) is not None:
        raise GecInputError("the gold answers are already recorded")
    slot = (Assignment.objects.filter(hit=hit).aggregate(m=Max("slot"))["m"] or 0) + 1
    return Assignment.objects.create(
        hit=hit, worker=expert, slot=slot, gold=True, expires=timezone.now() + timedelta(days=7)
    )


def _relations(protocol: str, values: dict[int, int]) -> dict[tuple[int, int], int]:
    """Per pair of candidate positions: -1 first better, 0 equal, 1 second better."""
    relation = protocol_get(protocol).gold_relation
    return {(a, b): relation(values[a], values[b]) for a, b in combinations(sorted(values), 2)}


def _answers(assignment: Assignment, protocol: str) -> dict[int, dict[int, int]]:
    """sentence id -> {candidate position: score or rank} of one assignment."""
    field = protocol_get(protocol).answer_field
    out: dict[int, dict[int, int]] = {}
    for sentence_id, position, value in Rating.objects.filter(judgment__assignment=assignment).values_list(
        "judgment__screen__sentence_id", "candidate__position", field
    ):
        out.setdefault(sentence_id, {})[position] = value
    return out


def gold_agreement(campaign: Campaign, assignment: Assignment) -> float | None:
    """Share of candidate pairs the worker ordered as the gold did (None without gold)."""
    gold = gold_assignment(campaign)
    if gold is None:
        return None
    expected = _answers(gold, campaign.protocol)
    given = _answers(assignment, campaign.protocol)
    agree = total = 0
    for sentence_id, gold_values in expected.items():
        mine = _relations(campaign.protocol, given.get(sentence_id, {}))
        for pair, relation in _relations(campaign.protocol, gold_values).items():
            total += 1
            agree += mine.get(pair) == relation
    return agree / total if total else None


def qualification_grade(*, campaign: Campaign, assignment: Assignment) -> WorkerRecord:
    """Called when a worker finishes the qualification HIT."""
    record, _ = WorkerRecord.objects.select_for_update().get_or_create(
        campaign=campaign, worker=assignment.worker
    )
    agreement = gold_agreement(campaign, assignment)
    record.gold_agreement = agreement
    record.qualified = agreement is not None and agreement >= campaign.gold_threshold
    record.save(update_fields=["gold_agreement", "qualified"])
    return record


# --------------------------------------------------------------------------- gold screens (issue 41)

GOLD_IMPORT_MAX_ROWS = 20000
"""Rows a gold file may have (a campaign's gold is a few dozen screens)."""


def _draft_locked(campaign: Campaign) -> Campaign:
    """``campaign`` read again under a row lock (launching locks it too), so gold copies are never
    placed anew in a campaign that started handing out HITs meanwhile; GecInputError if not a draft."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.status != CampaignStatus.DRAFT:
        raise GecInputError("gold screens are marked while the campaign is a draft (copies go into its HITs)")
    return campaign


def _gold_screen(campaign: Campaign, screen: Screen) -> None:
    """A screen the researcher may answer as gold, or GecInputError saying why not."""
    if campaign.status != CampaignStatus.DRAFT:
        raise GecInputError("gold screens are marked while the campaign is a draft (copies go into its HITs)")
    _gold_screen_kind(campaign, screen)


def _gold_screen_kind(campaign: Campaign, screen: Screen) -> None:
    """A judged screen of the campaign (whatever its status), or GecInputError saying why not."""
    if screen.campaign_id != campaign.pk:
        raise GecInputError("that screen is not part of this campaign")
    if screen.hit_id is None or Hit.objects.filter(pk=screen.hit_id, qualification=True).exists():
        raise GecInputError("only a screen of a HIT can be gold (not one of the qualification test)")
    if hasattr(screen, "control"):
        raise GecInputError("a trap, repeat or gold copy cannot be gold itself")


def _expected_valid(campaign: Campaign, candidates: list[Candidate], expected: Mapping[int, int]) -> None:
    protocol = protocol_get(campaign.protocol)
    if len(candidates) < 2:
        raise GecInputError("a gold screen needs two candidates at least: it is scored by their order")
    if set(expected) != {c.pk for c in candidates}:
        raise GecInputError("give an expected answer for every candidate of the screen, and only those")
    for value in expected.values():
        protocol.validate_answer(CandidateScore(**{protocol.answer_field: value}), len(candidates))


@transaction.atomic
def gold_screen_mark(
    *, campaign: Campaign, screen: Screen, expected: Mapping[int, int], by: AbstractBaseUser | None = None
) -> GoldScreen:
    """Mark ``screen`` gold with ``expected`` (candidate id -> score or rank, as a worker answers),
    then place the campaign's gold copies anew. Marking it again replaces its answers."""
    campaign = _draft_locked(campaign)
    _gold_screen(campaign, screen)
    _expected_valid(campaign, list(screen.candidates.all()), expected)
    gold, _ = GoldScreen.objects.update_or_create(
        screen=screen,
        defaults={"expected": {str(k): v for k, v in expected.items()}, "marked": None, "marked_by": by},
    )
    gold_copies_place(campaign)
    return gold


@transaction.atomic
def gold_screen_unmark(*, campaign: Campaign, screen: Screen) -> None:
    campaign = _draft_locked(campaign)
    _gold_screen(campaign, screen)
    GoldScreen.objects.filter(screen=screen, marked__isnull=True).delete()
    gold_copies_place(campaign)


def _gold_rows(data: bytes, filename: str) -> list[tuple[str, dict]]:
    """(where in the file, {sentence, screen, expected: {system: value}}) of a gold file: JSON (a
    list of objects ``{"sentence": 3, "screen": 0, "expected": {"system": value}}``) or CSV (columns
    sentence, screen (optional), system, expected; one row per candidate)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise GecInputError("the gold file is not UTF-8 text") from None
    if filename.lower().endswith(".json") or text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GecInputError(f"the gold file is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise GecInputError('a JSON gold file is a list of {"sentence", "screen", "expected"} objects')
        if len(items) > GOLD_IMPORT_MAX_ROWS:
            raise GecInputError(f"a gold file has at most {GOLD_IMPORT_MAX_ROWS} rows")
        return [(f"item {n}", item) for n, item in enumerate(items, 1)]
    reader = csv.DictReader(io.StringIO(text))
    missing = {"sentence", "system", "expected"} - set(reader.fieldnames or ())
    if missing:
        raise GecInputError(
            f"a CSV gold file needs the columns sentence, system, expected (missing: {', '.join(sorted(missing))})"
        )
    grouped: dict[tuple[str, str], tuple[str, dict]] = {}
    for line, record in enumerate(reader, 2):
        if line > GOLD_IMPORT_MAX_ROWS + 1:
            raise GecInputError(f"a gold file has at most {GOLD_IMPORT_MAX_ROWS} rows")
        key = ((record.get("sentence") or "").strip(), (record.get("screen") or "0").strip() or "0")
        _first, item = grouped.setdefault(
            key, (f"line {line}", {"sentence": key[0], "screen": key[1], "expected": {}})
        )
        system = (record.get("system") or "").strip()
        if system in item["expected"]:
            raise GecInputError(f"line {line}: system {system!r} twice for one screen")
        item["expected"][system] = (record.get("expected") or "").strip()
    return list(grouped.values())


def _whole(value: object, what: str, where: str) -> int:
    if isinstance(value, bool):
        raise GecInputError(f"{where}: {what} must be a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise GecInputError(f"{where}: {what} must be a whole number, not {str(value)[:40]!r}")


def _gold_items(
    campaign: Campaign, rows: list[tuple[str, dict]], *, answers_optional: bool = False
) -> list[tuple[Screen, dict[int, int] | None]]:
    """Each row's judged screen (``sentence``: its 0-based corpus position, ``screen``: its index among
    that sentence's screens) and expected answers by candidate id (``expected``: system name ->
    answer), checked as a gold answer; GecInputError naming the row at the first problem. The one
    check of gold answers, whether from a gold file, a study file's gold screens or its
    qualification test (``answers_optional``: a row without ``expected`` names its screen only,
    its answers None). The campaign's status is the caller's to check."""
    screens = {
        (s.sentence.position, s.index): s
        for s in _judged_screens(campaign)
        .select_related("sentence")
        .prefetch_related("candidates__outputs__system")
    }
    out: list[tuple[Screen, dict[int, int] | None]] = []
    for where, item in rows:
        sentence = _whole(item.get("sentence"), "sentence", where)
        index = _whole(item.get("screen", 0), "screen", where)
        screen = screens.get((sentence, index))
        if screen is None:
            raise GecInputError(f"{where}: the campaign has no screen {index} of sentence {sentence}")
        answers = item.get("expected")
        if answers is None and answers_optional:
            _gold_screen_kind(campaign, screen)
            out.append((screen, None))
            continue
        if not isinstance(answers, dict) or not answers:
            raise GecInputError(f"{where}: expected is a mapping of system name to answer")
        by_system = {o.system.name: c for c in screen.candidates.all() for o in c.outputs.all()}
        expected: dict[int, int] = {}
        for system, value in answers.items():
            candidate = by_system.get(system)
            if candidate is None:
                raise GecInputError(
                    f"{where}: no candidate of that screen comes from system {str(system)[:60]!r}"
                )
            value = _whole(value, f"the answer for {system}", where)
            if expected.setdefault(candidate.pk, value) != value:
                raise GecInputError(f"{where}: two answers for one candidate (its systems share a text)")
        try:
            _gold_screen_kind(campaign, screen)
            _expected_valid(campaign, list(screen.candidates.all()), expected)
        except GecInputError as exc:
            raise GecInputError(f"{where}: {exc}") from None
        out.append((screen, expected))
    return out


@transaction.atomic
def gold_screens_import(
    *,
    campaign: Campaign,
    data: bytes,
    filename: str = "",
    by: AbstractBaseUser | None = None,
    replace: bool = False,
) -> int:
    """Mark the screens a gold file names (sentence by its 0-based position in the corpus, the
    screen's index among that sentence's screens, each candidate's expected answer by one of its
    systems' names). Every row is checked first; any error refuses the whole file, naming its line.
    ``replace`` (a study file's gold, issue 39): the file is the whole gold, so screens it does not
    name stop being gold, and an empty file leaves none. Returns the screens marked."""
    campaign = _draft_locked(campaign)
    marked = _gold_items(campaign, _gold_rows(data, filename))
    if not marked and not replace:
        raise GecInputError("the gold file names no screen")
    if replace:
        GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True).exclude(
            screen__in=[screen for screen, _ in marked]
        ).delete()
    for screen, expected in marked:
        assert expected is not None  # answers are required here
        GoldScreen.objects.update_or_create(
            screen=screen,
            defaults={"expected": {str(k): v for k, v in expected.items()}, "marked": None, "marked_by": by},
        )
    gold_copies_place(campaign)
    return len(marked)


def gold_rate_set(*, campaign: Campaign, rate: float) -> int:
    """The campaign's gold copies per judged screen (a draft's); copies placed anew. Returns them."""
    if campaign.status != CampaignStatus.DRAFT:
        raise GecInputError("gold copies are placed while the campaign is a draft")
    if not 0 <= rate <= 1:
        raise GecInputError("gold copies per judged screen: a number from 0 to 1")
    with transaction.atomic():
        locked = _draft_locked(campaign)
        locked.gold_rate = campaign.gold_rate = rate  # the caller's object too
        locked.save(update_fields=["gold_rate"])
        return gold_copies_place(locked)


# --------------------------------------------------------------------------- a study file's gold (issue 39)


def _gold_row(screen: Screen, expected: Mapping[int, int] | None) -> dict:
    """A gold file's row of ``screen``: keyed by the sentence's corpus position, the screen's index
    among that sentence's screens and the candidates' system names (every system of a candidate),
    never a database id, so it names the same screen in another database."""
    item: dict = {"sentence": screen.sentence.position, "screen": screen.index}
    if expected is not None:
        item["expected"] = dict(
            sorted((o.system.name, expected[c.pk]) for c in screen.candidates.all() for o in c.outputs.all())
        )
    return item


def gold_screens_rows(campaign: Campaign) -> list[dict]:
    """The researcher's gold screens as a JSON gold file's rows (what ``gold_screens_import`` reads),
    by sentence and screen."""
    rows = [
        _gold_row(gold.screen, {int(k): v for k, v in gold.expected.items()})
        for gold in GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True)
        .select_related("screen__sentence")
        .prefetch_related("screen__candidates__outputs__system")
    ]
    return sorted(rows, key=lambda r: (r["sentence"], r["screen"]))


def qualification_rows(campaign: Campaign) -> list[dict]:
    """The campaign's qualification test, a row per screen in the test's order: the judged screen it
    copies (as a gold file names it) and, once the expert's answers are recorded, their answers."""
    hit = qualification_hit(campaign)
    if hit is None:
        return []
    copies = list(Screen.objects.filter(hit=hit).order_by("hit_position").prefetch_related("candidates"))
    judged: dict[int, list[Screen]] = {}
    for screen in (
        _judged_screens(campaign)
        .filter(sentence_id__in={c.sentence_id for c in copies})
        .select_related("sentence")
        .prefetch_related("candidates__outputs__system")
        .order_by("index")
    ):
        judged.setdefault(screen.sentence_id, []).append(screen)
    gold = gold_assignment(campaign)
    answers: dict[int, dict[int, int]] = {}
    if gold is not None:
        field = protocol_get(campaign.protocol).answer_field
        for screen_id, candidate_id, value in Rating.objects.filter(judgment__assignment=gold).values_list(
            "judgment__screen_id", "candidate_id", field
        ):
            answers.setdefault(screen_id, {})[candidate_id] = value

    def texts(screen: Screen) -> list[str]:
        return [c.text for c in sorted(screen.candidates.all(), key=lambda c: c.position)]

    rows = []
    for at, copy in enumerate(copies, 1):
        original = next((s for s in judged.get(copy.sentence_id, []) if texts(s) == texts(copy)), None)
        if original is None:
            raise GecInputError(
                f"the qualification test's screen {at} copies no judged screen of the campaign"
            )
        expected = None
        if gold is not None:
            by_position = {c.position: answers.get(copy.pk, {}).get(c.pk) for c in copy.candidates.all()}
            expected = {c.pk: by_position[c.position] for c in original.candidates.all()}
        rows.append(_gold_row(original, expected))
    return rows


def gold_rows_meaning(campaign: Campaign, rows: list[dict], *, qualification: bool = False) -> object:
    """What gold rows say, in database terms, to compare two ways of writing the same gold (systems
    that share a candidate's text named or not, rows in another order); rows that do not resolve on
    this campaign say something else (their text)."""
    try:
        resolved = _gold_items(
            campaign, [(f"row {n}", r) for n, r in enumerate(rows, 1)], answers_optional=qualification
        )
    except GecInputError:
        return ("unresolved", json.dumps(rows, sort_keys=True))
    meaning = [(s.pk, None if e is None else sorted(e.items())) for s, e in resolved]
    return meaning if qualification else sorted(meaning, key=lambda m: m[0])


@transaction.atomic
def qualification_test_replace(
    *, campaign: Campaign, rows: list[dict]
) -> list[tuple[Screen, dict[int, int]]]:
    """A draft's qualification test made anew from a study file's rows (none: no test), checked as a
    gold file is. Returns each test screen (the copy) with its expected answers by the copy's
    candidate ids when the rows give answers (to record as the expert's), else an empty list."""
    campaign = _draft_locked(campaign)
    resolved = _gold_items(
        campaign,
        [(f"qualification test, screen {n}", r) for n, r in enumerate(rows, 1)],
        answers_optional=True,
    )
    answered = {e is not None for _, e in resolved}
    if len(answered) > 1:
        raise GecInputError(
            "qualification test: give the expected answers of every screen, or of none (not recorded yet)"
        )
    if len({s.pk for s, _ in resolved}) != len(resolved):
        raise GecInputError("qualification test: a screen is named twice")
    if Assignment.objects.filter(hit__campaign=campaign, hit__qualification=True, gold=False).exists():
        raise GecInputError("workers have taken this campaign's qualification test: it is not made anew")
    Hit.objects.filter(campaign=campaign, qualification=True).delete()
    if not resolved:
        return []
    hit = _qualification_hit_of(campaign, [s for s, _ in resolved])
    if answered != {True}:
        return []
    out = []
    for copy, (original, expected) in zip(
        Screen.objects.filter(hit=hit).order_by("hit_position").prefetch_related("candidates"),
        resolved,
        strict=True,
    ):
        assert expected is not None
        at = {c.position: expected[c.pk] for c in original.candidates.all()}
        out.append((copy, {c.pk: at[c.position] for c in copy.candidates.all()}))
    return out
