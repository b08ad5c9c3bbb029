"""Creating judgment campaigns: screens (collapsed, shuffled, with traps) bundled into HITs."""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotate.models import Corpus, Output, Project, Sentence, System
from geceval.errors import GecInputError
from geceval.formats.judgments import expand_pairwise
from ranking.analysis.active import next_systems
from ranking.campaign_settings import CAMPAIGN_OPTIONS, settings_check
from ranking.models import (
    Assignment,
    Campaign,
    CampaignStatus,
    Candidate,
    GoldScreen,
    Hit,
    Screen,
    TrapDesign,
)
from ranking.protocols import protocol_get
from ranking.quality.controls import Group, controls_add, controls_save
from ranking.rankings import campaign_rankings
from ranking.services.campaign_checks import (
    Sample,
    campaign_sentences,
    check_related,
    check_scope,
    check_sizes,
    check_speed,
    check_traps,
    preview_sentence_pick,
    trap_errors_row,
)
from ranking.work.judging import normalise

RECOMMENDED_TRAPS = {"trap_rate": 0.2, "repeat_rate": 0.05}
"""What a campaign made in the browser or through the API gets when the researcher leaves the trap
and repeat rates blank (hidden design): one trap screen per five judged screens, one repeat per
twenty. The paper's design gets neither unless asked (its Source+error rate is the researcher's)."""


def campaign_options(data: dict) -> dict:
    """The campaign options present in validated form or API data; a blank (None) trap design,
    trap rate or repeat rate becomes the recommended one (``RECOMMENDED_TRAPS``)."""
    options = {key: data[key] for key in CAMPAIGN_OPTIONS if key in data}
    for key in ("trap_design", "trap_margin", "trap_min_drop"):  # blank: campaign_create's default
        if options.get(key) in (None, ""):
            options.pop(key, None)
    design = options.get("trap_design") or (
        TrapDesign.PAPER if options.get("trap_system") is not None else TrapDesign.HIDDEN
    )
    options["trap_design"] = design
    for key, recommended in RECOMMENDED_TRAPS.items():
        if options.get(key) is None:
            options[key] = recommended if design == TrapDesign.HIDDEN else 0.0
    if options.get("speed_rule") is None:  # issue 35: speed is evidence unless the researcher says no
        options["speed_rule"] = True
    if (
        options.get("pilot_hold") is None
    ):  # issue 40: a pilot holds an obvious bot unless the researcher says no
        options["pilot_hold"] = True
    for key in ("speed_base_seconds", "speed_seconds_per_word", "gold_rate"):  # blank: the model's default
        if options.get(key) is None:
            options.pop(key, None)
    return options


@transaction.atomic
def fresh_seed() -> int:
    """A seed for a campaign made in the browser or through the API: its screens and HITs are drawn
    from its seed and the sentences' positions (never database ids, so that a study file builds the
    same campaign in any database), and two such campaigns over one corpus draw anew. A study file
    names its seed (0 when it does not)."""
    return secrets.randbelow(2**31)


def campaign_create(
    *,
    project: Project,
    corpus: Corpus,
    name: str,
    systems: Iterable[System],
    created_by: AbstractBaseUser | None,
    min_seconds: float = 5.0,
    seed: int = 0,
    trap_secret: str | None = None,
    status: str = CampaignStatus.ACTIVE,
    into: Campaign | None = None,
    **settings,
) -> Campaign:
    """Validate, save the campaign, build its screens and HITs, all or nothing. ``settings``: the
    campaign settings of ``ranking.campaign_settings.SETTINGS`` (their defaults when not given).
    PRWS (GMEG): per sentence the distinct texts of the chosen systems, up to ``max_candidates`` per
    screen. Ranking (Napoles et al. 2015): per sentence ``screens_per_sentence`` random draws of
    ``max_candidates`` systems, their identical outputs collapsed. Traps: hidden by default
    (``ranking.quality.controls``; ``trap_rate`` trap copies and ``repeat_rate`` repeats per judged
    screen); a Source+error ``trap_system`` gives the GMEG paper's design (``trap_design="paper"``: a
    share ``trap_rate`` of sentences show the Source+error text beside the source, unless it equals an
    output). ``trap_error_types`` (empty: all), ``trap_errors`` (None: 1 or 2): what a generated trap
    adds; ``trap_secret`` (tests only): the traps' secret. ``speed_rule`` (``services.holds``): off here
    like trap rates, on from the form and API; so is ``pilot_hold`` (the pilot check, issue 40).
    ``sample_*``: which sentences are judged (``campaign_checks.Sample``: a line range, then a count,
    the first or a seeded random draw). ``preview_line``: the corpus line (from 1) a preview shows
    (``ranking.preview``), not judged. ``status``: active here; the form and the API pass ``draft``.
    ``into``: a draft that has handed out no HIT, rebuilt under its own id instead of a new row (its
    screens and HITs made again; its invite links, crowd settings and trap secret kept; issue 39)."""
    if status not in (CampaignStatus.DRAFT, CampaignStatus.ACTIVE, CampaignStatus.PILOT):
        raise GecInputError("a new campaign is a draft, a pilot or active")
    s = settings_check(settings)
    systems, name, protocol = list(systems), name.strip(), s["protocol"]
    check_scope(project, corpus, name, systems, protocol)
    sizes = [
        s[k] for k in ("max_candidates", "judgments_per_item", "screens_per_hit", "screens_per_sentence")
    ]
    check_sizes(protocol_get(protocol), *sizes, s["assignment_minutes"])
    trap_design = s["trap_design"] or (
        TrapDesign.PAPER if s["trap_system"] is not None else TrapDesign.HIDDEN
    )
    rates = (s["trap_rate"], s["trap_threshold"], s["repeat_rate"], s["trap_min_drop"])
    check_traps(corpus, trap_design, s["trap_system"], rates, s["active_selection"])
    check_speed(s["speed_base_seconds"], s["speed_seconds_per_word"])
    related = (s["reference"], s["qualification"], protocol, s["active_selection"])
    check_related(project, *related, corpus=corpus, name=name, other_than=into)
    preview_sentence = preview_sentence_pick(corpus, systems, s["preview_line"])
    sample = Sample(s["sample_first_line"], s["sample_last_line"], s["sample_size"], s["sample_seed"])
    sample.check()
    sentences = campaign_sentences(corpus, s["domain"], preview_sentence, sample)
    row = dict(
        **{key: s[key] for key in CAMPAIGN_OPTIONS if key not in _NOT_AS_GIVEN},
        project=project,
        corpus=corpus,
        min_seconds=min_seconds,
        seed=seed,
        status=status,
        name=name,
        trap_design=trap_design,
        **trap_errors_row(s["trap_error_types"], s["trap_errors"]),
        reward_per_hit=Decimal(str(s["reward_per_hit"])),
        budget=None if s["budget"] is None else Decimal(str(s["budget"])),
        preview_sentence=preview_sentence,
    )
    if into is None:
        campaign = Campaign.objects.create(
            **row, created_by=created_by, trap_secret=trap_secret or secrets.token_hex(16)
        )
    else:
        campaign = _emptied(into, row)
    campaign.systems.set(systems)
    _build(campaign, systems, sentences)
    return campaign


def handed_out(campaign: Campaign) -> bool:
    """Has the campaign handed a HIT to anyone? The expert answering its qualification test's gold
    (the Gold answers page) is not a worker: that assignment goes with the test when it is built again."""
    return Assignment.objects.filter(hit__campaign=campaign, gold=False).exists()


def _emptied(campaign: Campaign, row: dict) -> Campaign:
    """The draft ``campaign`` with ``row``'s values and no screens or HITs, ready to be built again."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.status != CampaignStatus.DRAFT or handed_out(campaign):
        raise GecInputError("only a draft that has handed out no HIT is built again")
    golds = GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True).count()
    if golds:  # the researcher's answers are on screens a rebuild makes anew: refuse, not lose them
        raise GecInputError(
            f"this draft has {golds} gold screen{'s' if golds != 1 else ''} with the researcher's answers,"
            " which building it again would lose: remove them on its Gold screens page first, or make a new"
            " campaign"
        )
    if Assignment.objects.filter(hit__campaign=campaign, gold=True).exists():  # the same for the test's
        raise GecInputError(
            "this draft's qualification test has the expert's gold answers, which building it again would"
            " lose: make a new campaign (a study file carries them: study export, then apply)"
        )
    campaign.screens.all().delete()
    campaign.hits.all().delete()
    for key, value in row.items():
        setattr(campaign, key, value)
    campaign.save()
    return campaign


_NOT_AS_GIVEN = ("trap_design", "trap_error_types", "trap_errors", "reward_per_hit", "budget", "preview_line")
"""Settings ``campaign_create`` stores otherwise than as given (every other one is a field of its name)."""


def _groups(
    outputs: list[tuple[int, int, str]],
) -> dict[str, Group]:
    groups: dict[str, Group] = {}
    for output_id, system_id, text in outputs:
        g = groups.setdefault(normalise(text), Group(text))
        g.output_ids.append(output_id)
        g.systems.append(system_id)
    return groups


def _build(campaign: Campaign, systems: list[System], sentences: list[Sentence]) -> None:
    per_sentence: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    ids = [s.pk for s in systems]
    for row in (
        Output.objects.filter(system_id__in=ids, sentence__in=sentences)
        .order_by("system__name")
        .values_list("sentence_id", "id", "system_id", "text")
    ):
        per_sentence[row[0]].append(row[1:])
    traps: dict[int, tuple[int, str]] = {}
    if campaign.trap_system_id and campaign.trap_rate > 0:
        traps = {
            sid: (oid, text)
            for sid, oid, text in Output.objects.filter(
                system_id=campaign.trap_system_id, sentence__in=sentences
            ).values_list("sentence_id", "id", "text")
        }

    screens: list[Screen] = []
    screen_groups: list[list[Group]] = []
    for sentence in sorted(sentences, key=lambda s: s.position):
        rng = random.Random(f"{campaign.seed}:{sentence.position}")
        outputs = per_sentence.get(sentence.pk, [])
        if not outputs:
            continue
        for index, groups in enumerate(
            _screens_for_sentence(campaign, sentence, outputs, traps.get(sentence.pk), rng)
        ):
            screens.append(Screen(campaign=campaign, sentence=sentence, index=index))
            screen_groups.append(groups)
    if not screens:
        raise GecInputError("no screens: the chosen systems have no outputs to judge")
    plans = controls_add(campaign, screens, screen_groups, _bundle_into_hits(campaign, screens))
    # Control screens are planned after the judged ones; saved in that order they would carry the
    # campaign's largest ids (and their candidates too). One insert in a secret random order gives
    # ids that say nothing of which screen is a control (issue 35).
    order = list(range(len(screens)))
    if plans:
        random.Random(f"{campaign.trap_secret}:insert").shuffle(order)
    Screen.objects.bulk_create([screens[i] for i in order], batch_size=2000)

    candidates: list[Candidate] = []
    members: list[list[int]] = []
    per_screen: list[list[Candidate]] = [[] for _ in screens]
    for i in order:
        for position, group in enumerate(screen_groups[i]):
            candidate = Candidate(screen=screens[i], position=position, text=group.text)
            candidates.append(candidate)
            per_screen[i].append(candidate)
            members.append(group.output_ids)
    Candidate.objects.bulk_create(candidates, batch_size=2000)
    through = Candidate.outputs.through
    through.objects.bulk_create(
        [through(candidate_id=c.pk, output_id=o) for c, outs in zip(candidates, members) for o in outs],
        batch_size=5000,
    )
    controls_save(plans, screens, per_screen)


def _trap_group(
    campaign: Campaign,
    sentence: Sentence,
    trap: tuple[int, str] | None,
    taken: Iterable[str],
    rng: random.Random,
) -> Group | None:
    """The trap for this sentence, when drawn and usable (differs from the source and every output)."""
    if trap is None or rng.random() >= campaign.trap_rate:
        return None
    output_id, text = trap
    key = normalise(text)
    if key == normalise(sentence.text) or key in taken:
        return None
    return Group(text, [output_id], [campaign.trap_system_id])


def _source_group(sentence: Sentence, groups: dict[str, Group]) -> Group:
    """The candidate showing the source text: a system's output when one equals it, else the sentence."""
    return groups.get(normalise(sentence.text)) or Group(sentence.text)


def _screens_for_sentence(
    campaign: Campaign,
    sentence: Sentence,
    outputs: list[tuple[int, int, str]],
    trap: tuple[int, str] | None,
    rng: random.Random,
) -> list[list[Group]]:
    size = campaign.max_candidates
    if not protocol_get(campaign.protocol).draws_systems:
        groups = _groups(outputs)
        trap_group = _trap_group(campaign, sentence, trap, groups, rng)
        rest = list(groups.values())
        rng.shuffle(rest)
        chunks: list[list[Group]] = []
        if trap_group is not None:
            source = _source_group(sentence, groups)
            rest = [g for g in rest if g is not source]
            chunks.append([source, trap_group, *rest[: size - 2]])
            rest = rest[size - 2 :]
        chunks += [rest[i : i + size] for i in range(0, len(rest), size)]
        for chunk in chunks:
            rng.shuffle(chunk)
        return [c for c in chunks if c]

    by_system: dict[int, tuple[int, int, str]] = {o[1]: o for o in outputs}
    # drawn from the systems in name order (``outputs`` comes so), not id order: the same study
    # applied into another empty database (its corpus file lists the systems by name) draws the same
    # systems, so its gold rows (by sentence, screen and system name, issue 39) name the same screens
    system_ids = list(by_system)
    screens = []
    for _ in range(campaign.screens_per_sentence):
        if campaign.active_selection:
            screens.append([])  # drawn when first shown, from the judgments by then (screen_draw_active)
            continue
        drawn = rng.sample(system_ids, min(size, len(system_ids)))
        chosen = _ranking_groups(campaign, sentence, outputs, drawn, trap, rng)
        if len(chosen) < 2:
            continue  # every drawn system wrote the same text: nothing to rank
        screens.append(chosen)
    return screens


def _ranking_groups(
    campaign: Campaign,
    sentence: Sentence,
    outputs: list[tuple[int, int, str]],
    drawn: list[int],
    trap: tuple[int, str] | None,
    rng: random.Random,
) -> list[Group]:
    """The drawn systems' outputs, collapsed, with the trap beside the source when drawn; shuffled."""
    by_system = {o[1]: o for o in outputs}
    groups = _groups([by_system[s] for s in drawn])
    trap_group = _trap_group(campaign, sentence, trap, groups, rng)
    chosen = list(groups.values())
    if trap_group is not None:
        source = _source_group(sentence, _groups(outputs))
        others = [g for g in chosen if normalise(g.text) != normalise(sentence.text)]
        rng.shuffle(others)
        chosen = [source, trap_group, *others[: campaign.max_candidates - 2]]
    rng.shuffle(chosen)
    return chosen


@transaction.atomic
def screen_draw_active(*, screen: Screen) -> Screen:
    """Active selection (Sakaguchi et al. 2014): choose this ranking screen's systems from the
    campaign's valid judgments so far, the first time the screen is shown. TrueSkill picks the
    system it is least sure of and opponents close to it (ranking.analysis.active.next_systems)."""

    screen = Screen.objects.select_for_update().select_related("campaign", "sentence").get(pk=screen.pk)
    if screen.candidates.exists():
        return screen
    campaign, sentence = screen.campaign, screen.sentence
    outputs = list(
        Output.objects.filter(system__in=campaign.systems.all(), sentence=sentence)
        .order_by("system__name")
        .values_list("id", "system_id", "text")
    )
    names = dict(campaign.systems.filter(pk__in=[o[1] for o in outputs]).values_list("name", "pk"))
    k = min(campaign.max_candidates, len(names))
    if k >= 2:
        pairs = expand_pairwise(campaign_rankings(campaign))
        drawn = [
            names[n] for n in next_systems(pairs, sorted(names), k, seed=campaign.seed * 100_003 + screen.pk)
        ]
    else:
        drawn = list(names.values())
    trap = None
    if campaign.trap_system_id and campaign.trap_rate > 0:
        trap = (
            Output.objects.filter(system_id=campaign.trap_system_id, sentence=sentence)
            .values_list("id", "text")
            .first()
        )
    rng = random.Random(f"{campaign.seed}:{sentence.position}:{screen.index}")
    for position, group in enumerate(_ranking_groups(campaign, sentence, outputs, drawn, trap, rng)):
        candidate = Candidate.objects.create(screen=screen, position=position, text=group.text)
        candidate.outputs.set(group.output_ids)
    return screen


def _bundle_into_hits(campaign: Campaign, screens: list[Screen]) -> list[list[int]]:
    """Shuffle screens into HITs of ``screens_per_hit`` (one domain per HIT when domains are kept
    apart); returns each HIT's screen indices."""
    rng = random.Random(f"{campaign.seed}:hits")
    order = list(range(len(screens)))
    rng.shuffle(order)
    pools: dict[str, list[int]] = defaultdict(list)
    domain_of = {s.sentence_id: s.sentence.domain for s in screens}
    for i in order:
        pools[domain_of[screens[i].sentence_id] if campaign.separate_domains else ""].append(i)
    hits: list[Hit] = []
    members: list[list[int]] = []
    for domain in sorted(pools):
        pool = pools[domain]
        for start in range(0, len(pool), campaign.screens_per_hit):
            hits.append(Hit(campaign=campaign, index=len(hits), domain=domain))
            members.append(pool[start : start + campaign.screens_per_hit])
    Hit.objects.bulk_create(hits)
    for hit, indices in zip(hits, members):
        for position, i in enumerate(indices):
            screens[i].hit = hit
            screens[i].hit_position = position
    return members
