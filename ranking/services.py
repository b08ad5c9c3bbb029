"""Writes for systems, outputs and judgment campaigns."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Q

from annotate.models import Corpus, Project
from annotate.services import InputFile, check_same_length, text_lines
from geceval.errors import GecInputError
from ranking.models import (
    Campaign,
    CampaignStatus,
    Candidate,
    Output,
    Protocol,
    Rating,
    Screen,
    ScreenJudgment,
    System,
    SystemKind,
    SystemScore,
)


@transaction.atomic
def outputs_import_lines(
    *, corpus: Corpus, system_name: str, kind: str, lines: list[str], filename: str
) -> System:
    """One system's line-aligned outputs. An empty line is a valid (empty) output."""
    system_name = system_name.strip()
    if not system_name:
        raise GecInputError("the system needs a name", path=filename)
    if kind not in SystemKind.values:
        raise GecInputError(f"unknown system kind {kind!r}; one of {', '.join(SystemKind.values)}")
    sentence_ids = list(corpus.sentences.order_by("position").values_list("id", flat=True))
    check_same_length(len(sentence_ids), f"corpus {corpus.name!r}", lines, filename)
    if System.objects.filter(corpus=corpus, name=system_name).exists():
        raise GecInputError(f"a system named {system_name!r} already exists in corpus {corpus.name!r}")
    try:
        with transaction.atomic():
            system = System.objects.create(corpus=corpus, name=system_name, kind=kind)
    except IntegrityError:
        raise GecInputError(
            f"a system named {system_name!r} already exists in corpus {corpus.name!r}"
        ) from None
    Output.objects.bulk_create(
        [Output(system=system, sentence_id=sid, text=text) for sid, text in zip(sentence_ids, lines)],
        batch_size=2000,
    )
    return system


def outputs_import(*, corpus: Corpus, system_name: str, kind: str, file: InputFile) -> System:
    return outputs_import_lines(
        corpus=corpus,
        system_name=system_name,
        kind=kind,
        lines=text_lines(file, allow_empty_file=True) if file.data else _empty_file(file),
        filename=file.name,
    )


def _empty_file(file: InputFile) -> list[str]:
    raise GecInputError("file is empty", path=file.name)


def _same_text(text: str) -> str:
    """Outputs that differ only in surrounding white space are one item to a judge."""
    return " ".join(text.split())


@transaction.atomic
def campaign_create(
    *,
    project: Project,
    corpus: Corpus,
    name: str,
    systems: Iterable[System],
    created_by: AbstractBaseUser,
    protocol: str = Protocol.PRWS,
    judgments_per_item: int = 8,
    max_candidates: int = 5,
    instructions: str = "",
    seed: int = 0,
) -> Campaign:
    """A PRWS campaign: one screen per sentence with its distinct corrections, shuffled.

    Identical outputs are collapsed into one candidate that stands for every
    system that produced it (GMEG). A sentence with more distinct texts than
    ``max_candidates`` gets several screens.
    """
    systems = list(systems)
    name = name.strip()
    if not name:
        raise GecInputError("the campaign needs a name")
    if corpus.project_id != project.pk:
        raise GecInputError("the corpus belongs to another project")
    if not systems:
        raise GecInputError("choose at least one system to judge")
    if any(s.corpus_id != corpus.pk for s in systems):
        raise GecInputError("every system must belong to the campaign's corpus")
    if not 2 <= max_candidates <= 5:
        raise GecInputError("a screen shows 2 to 5 corrections")
    if judgments_per_item < 1:
        raise GecInputError("each item needs at least one judgment")
    if protocol != Protocol.PRWS:
        raise GecInputError(f"protocol {protocol!r} is not available yet; use prws")
    if Campaign.objects.filter(project=project, name=name).exists():
        raise GecInputError(f"a campaign named {name!r} already exists in project {project.name!r}")
    campaign = Campaign.objects.create(
        project=project,
        corpus=corpus,
        name=name,
        protocol=protocol,
        judgments_per_item=judgments_per_item,
        max_candidates=max_candidates,
        instructions=instructions,
        created_by=created_by,
    )
    campaign.systems.set(systems)
    _build_prws_screens(campaign, systems, seed=seed)
    return campaign


def _build_prws_screens(campaign: Campaign, systems: list[System], *, seed: int) -> None:
    outputs = (
        Output.objects.filter(system__in=systems)
        .order_by("sentence__position", "system__name")
        .values_list("id", "sentence_id", "text")
    )
    by_sentence: dict[int, dict[str, list[tuple[int, str]]]] = defaultdict(dict)
    for output_id, sentence_id, text in outputs:
        by_sentence[sentence_id].setdefault(_same_text(text), []).append((output_id, text))

    screens: list[Screen] = []
    groups_per_screen: list[list[list[tuple[int, str]]]] = []
    for sentence_id, groups in by_sentence.items():
        rng = random.Random(f"{seed}:{campaign.pk}:{sentence_id}")
        texts = list(groups.values())
        rng.shuffle(texts)
        for index, start in enumerate(range(0, len(texts), campaign.max_candidates)):
            screens.append(Screen(campaign=campaign, sentence_id=sentence_id, index=index))
            groups_per_screen.append(texts[start : start + campaign.max_candidates])
    Screen.objects.bulk_create(screens, batch_size=2000)

    candidates: list[Candidate] = []
    members: list[list[int]] = []
    for screen, groups in zip(screens, groups_per_screen):
        for position, group in enumerate(groups):
            candidates.append(Candidate(screen=screen, position=position, text=group[0][1]))
            members.append([output_id for output_id, _ in group])
    Candidate.objects.bulk_create(candidates, batch_size=2000)
    through = Candidate.outputs.through
    through.objects.bulk_create(
        [
            through(candidate_id=candidate.pk, output_id=output_id)
            for candidate, ids in zip(candidates, members)
            for output_id in ids
        ],
        batch_size=5000,
    )


def screen_next_for_judge(*, campaign: Campaign, judge: AbstractBaseUser) -> Screen | None:
    """The screen this judge has not done that has the fewest judgments, below the target."""
    if campaign.status != CampaignStatus.ACTIVE:
        return None
    return (
        Screen.objects.filter(campaign=campaign)
        .exclude(judgments__judge=judge)
        .annotate(n=Count("judgments"))
        .filter(n__lt=campaign.judgments_per_item)
        .order_by("n", "sentence__position", "index")
        .select_related("sentence")
        .first()
    )


@dataclass(frozen=True)
class CandidateScore:
    score: int
    meaning_changed: bool = False


def judgment_submit(
    *,
    screen: Screen,
    judge: AbstractBaseUser,
    scores: Mapping[int, CandidateScore],
    seconds: float | None = None,
) -> tuple[ScreenJudgment, bool]:
    """Save a judge's PRWS screen; returns (judgment, created).

    Every candidate on the screen needs a score 0-100 and no other candidate
    may be named. Submitting the same screen again is a no-op: the unique
    (screen, judge) constraint decides, so a double click or a replay never
    counts twice.
    """
    candidate_ids = set(screen.candidates.values_list("id", flat=True))
    if set(scores) != candidate_ids:
        raise GecInputError("every correction on the screen needs a score, and only those")
    for value in scores.values():
        if not isinstance(value.score, int) or isinstance(value.score, bool) or not 0 <= value.score <= 100:
            raise GecInputError("scores are whole numbers from 0 to 100")
    if seconds is not None and not 0 <= seconds < 86400:
        seconds = None
    existing = ScreenJudgment.objects.filter(screen=screen, judge=judge).first()
    if existing is not None:
        return existing, False
    if screen.campaign.status != CampaignStatus.ACTIVE:
        raise GecInputError("this campaign is not accepting judgments")
    try:
        with transaction.atomic():
            judgment = ScreenJudgment.objects.create(screen=screen, judge=judge, seconds=seconds)
            Rating.objects.bulk_create(
                [
                    Rating(
                        judgment=judgment, candidate_id=cid, score=v.score, meaning_changed=v.meaning_changed
                    )
                    for cid, v in scores.items()
                ]
            )
    except IntegrityError:  # a concurrent duplicate submit won the race
        return ScreenJudgment.objects.get(screen=screen, judge=judge), False

    from ranking.tasks import task_campaign_scores

    campaign_id = screen.campaign_id
    transaction.on_commit(lambda: task_campaign_scores.delay(campaign_id=campaign_id))
    return judgment, True


@transaction.atomic
def campaign_scores_recompute(*, campaign_id: int) -> list[SystemScore]:
    """Per-system PRWS means from the ratings: recomputed from source rows, so re-runs are harmless.

    A rating of a collapsed candidate counts for every system that produced
    its text. As in GMEG, a system's score is the mean over sentences of the
    sentence's mean rating.
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    rows = (
        Rating.objects.filter(judgment__screen__campaign=campaign)
        .values("candidate__outputs__system_id", "candidate__screen__sentence_id")
        .annotate(mean=Avg("score"), n=Count("id"), changed=Count("id", filter=Q(meaning_changed=True)))
    )
    per_system: dict[int, list[tuple[float, int, int]]] = defaultdict(list)
    for row in rows:
        per_system[row["candidate__outputs__system_id"]].append((row["mean"], row["n"], row["changed"] or 0))
    wanted = {s.pk for s in campaign.systems.all()}
    SystemScore.objects.filter(campaign=campaign).exclude(system_id__in=per_system.keys() & wanted).delete()
    results = []
    for system_id, segs in per_system.items():
        if system_id not in wanted:
            continue
        score, _ = SystemScore.objects.update_or_create(
            campaign=campaign,
            system_id=system_id,
            defaults={
                "mean_score": sum(m for m, _, _ in segs) / len(segs),
                "ratings": sum(n for _, n, _ in segs),
                "items": len(segs),
                "meaning_changed": sum(c for _, _, c in segs),
            },
        )
        results.append(score)
    return results
