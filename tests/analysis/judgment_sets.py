"""Judgment sets built directly from plain rankings or PRWS ratings, for tests.

The product's importer is crowd.importing.judgments_import (MTurk, Appraise, WMT, PRWS files with
mappings and reports). This builder makes the same shape (a closed campaign of origin
``imported``) from ``geceval`` judgments held in memory, so analysis tests need no files:

- one corpus sentence per item (its text is the item id: the files carry no
  sentence text), one system per system name (placeholder outputs);
- one screen, HIT and submitted assignment per judgment, one candidate per
  entry in the file's order (so the pairwise expansion, and hence TrueSkill,
  sees the judgments in the same order as ``python -m geceval rank`` on the
  file); entries with rank -1 (skipped) are left out;
- one user per judge, named ``imported-<hmac of project and judge>``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotate.models import Corpus, Output, Project, Sentence, System, SystemKind
from geceval.judgments import PrwsRating, RankingJudgment
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignOrigin,
    CampaignStatus,
    Candidate,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
)

KINDS = {
    "src": SystemKind.SOURCE,
    "source": SystemKind.SOURCE,
    "input": SystemKind.SOURCE,
    "orig": SystemKind.SOURCE,
}


def _kind(name: str) -> str:
    low = name.lower()
    if low in KINDS:
        return KINDS[low]
    if low.startswith("ref") or low in ("turk", "human"):
        return SystemKind.REFERENCE
    return SystemKind.MODEL


@transaction.atomic
def judgment_set_create(
    *,
    project: Project,
    name: str,
    created_by,
    rankings: Sequence[RankingJudgment] = (),
    ratings: Sequence[PrwsRating] = (),
    corpus: Corpus | None = None,
) -> Campaign:
    """A closed imported campaign holding ``rankings`` (relative ranking) or ``ratings`` (PRWS).

    With ``corpus``, items are its 0-based sentence positions (as strings) and systems are its
    systems by name (the judgments then refer to real texts); otherwise a placeholder corpus is made.
    """
    if bool(rankings) == bool(ratings):
        raise ValueError("give rankings or ratings (one of them)")
    if ratings:
        grouped: dict[tuple[str, str], list[tuple[str, int | None, int | None, bool]]] = {}
        for r in ratings:
            grouped.setdefault((r.item, r.annotator), []).append(
                (r.system, None, round(r.score), r.meaning_changed)
            )
        judgments = [(item, ann, entries) for (item, ann), entries in grouped.items()]
        protocol = "prws"
    else:
        judgments = [
            (r.item, r.annotator, [(s, k, None, False) for s, k in r.entries if k >= 1]) for r in rankings
        ]
        judgments = [j for j in judgments if len(j[2]) >= 2]
        protocol = "ranking"
    items = list(dict.fromkeys(item for item, _a, _e in judgments))
    system_names = sorted({s for _i, _a, e in judgments for s, *_ in e})
    if corpus is None:
        corpus = Corpus.objects.create(
            project=project, name=f"{name} items", description="imported judgment items"
        )
        sentences = Sentence.objects.bulk_create(
            [Sentence(corpus=corpus, position=i, text=item) for i, item in enumerate(items)]
        )
        sentence_of = dict(zip(items, sentences))
        systems = {n: System.objects.create(corpus=corpus, name=n, kind=_kind(n)) for n in system_names}
        outputs = Output.objects.bulk_create(
            [
                Output(system=systems[n], sentence=s, text=f"{n}:{s.text}")
                for n in system_names
                for s in sentences
            ]
        )
    else:
        by_position = {str(s.position): s for s in corpus.sentences.all()}
        missing_items = [i for i in items if i not in by_position]
        systems = {s.name: s for s in System.objects.filter(corpus=corpus, name__in=system_names)}
        if missing_items or len(systems) != len(system_names):
            raise ValueError(
                f"items {missing_items[:5]} or systems {sorted(set(system_names) - set(systems))} not in the corpus"
            )
        sentence_of = {i: by_position[i] for i in items}
        outputs = list(Output.objects.filter(system__in=systems.values()))
    output_of = {(o.system_id, o.sentence_id): o for o in outputs}
    campaign = Campaign.objects.create(
        project=project,
        corpus=corpus,
        name=name,
        protocol=protocol,
        status=CampaignStatus.CLOSED,
        origin=CampaignOrigin.IMPORTED,
        judgments_per_item=1,
        created_by=created_by,
    )
    campaign.systems.set(systems.values())
    users = _judges(project, sorted({a for _i, a, _e in judgments}))
    now = timezone.now()
    hits = Hit.objects.bulk_create([Hit(campaign=campaign, index=i) for i in range(len(judgments))])
    counters: dict[str, int] = {}
    screens = []
    for (item, _a, _e), hit in zip(judgments, hits):
        index = counters.get(item, 0)
        counters[item] = index + 1
        screens.append(Screen(campaign=campaign, sentence=sentence_of[item], index=index, hit=hit))
    screens = Screen.objects.bulk_create(screens)
    assignments = Assignment.objects.bulk_create(
        [
            Assignment(
                hit=hit,
                worker=users[a],
                slot=0,
                status=AssignmentStatus.SUBMITTED,
                expires=now,
                submitted=now,
            )
            for (_i, a, _e), hit in zip(judgments, hits)
        ]
    )
    sjs = ScreenJudgment.objects.bulk_create(
        [
            ScreenJudgment(screen=screen, assignment=asg, judge=users[a])
            for (_i, a, _e), screen, asg in zip(judgments, screens, assignments)
        ]
    )
    candidates = []
    for (_i, _a, entries), screen in zip(judgments, screens):
        candidates.extend(Candidate(screen=screen, position=p) for p in range(len(entries)))
    candidates = Candidate.objects.bulk_create(candidates)
    links, rows, k = [], [], 0
    through = Candidate.outputs.through
    for (item, _a, entries), sj in zip(judgments, sjs):
        for system, rank, score, mc in entries:
            cand = candidates[k]
            k += 1
            out = output_of[(systems[system].pk, sentence_of[item].pk)]
            links.append(through(candidate_id=cand.pk, output_id=out.pk))
            rows.append(Rating(judgment=sj, candidate=cand, rank=rank, score=score, meaning_changed=mc))
    through.objects.bulk_create(links, batch_size=5000)
    Rating.objects.bulk_create(rows, batch_size=5000)
    return campaign


def _judges(project: Project, names: list[str]) -> dict:
    User = get_user_model()
    out = {}
    for name in names:
        digest = hashlib.sha256(f"{project.pk}:{name}".encode()).hexdigest()[:16]
        out[name], _ = User.objects.get_or_create(username=f"imported-{digest}")
    return out
