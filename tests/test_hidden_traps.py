"""Hidden traps (issue 17): traps without a tell, secret seeds, traps that are worse than their base.

Built on GMEG dev FCE as the issue asks (its source, 4 references and 6 systems), with the default
hidden-trap settings a researcher gets from the campaign form.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.db.models import Count
from scipy.stats import chi2_contingency

from annotate.models import Corpus, Output, Sentence
from annotate.selectors import corpus_references
from annotate.services import trap_system_generate
from geceval.traps.hidden import DEFAULT_MIN_DROP, make_trap, sentence_gleu
from geceval.traps.inserter import insert_errors, line_seed
from ranking.models import Control, ControlKind, Screen, ScreenJudgment, WorkerRecord
from ranking.quality.controls import SOURCE_ROLE_SLACK
from ranking.rankings import iter_screen_rankings
from ranking.selectors import valid_judgments
from ranking.services import (
    NoWork,
    assignment_request,
    assignment_return,
    campaign_create,
)
from ranking.work.judging import normalise
from tests import factories as f
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db

SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer")


@pytest.fixture
def fce(tmp_path) -> Corpus:
    """GMEG dev FCE: source, ref0-3 and the six systems (not the corpus's own source+error)."""
    return f.gmeg_fce_corpus(tmp_path, SYSTEMS)


def _campaign(corpus: Corpus, protocol: str, **options):
    systems = list(corpus.systems.filter(name__in=SYSTEMS))
    return campaign_create(
        project=corpus.project,
        corpus=corpus,
        name=f"{protocol} {sorted(options.items())}",
        systems=systems,
        created_by=corpus.project.owner,
        protocol=protocol,
        trap_rate=options.pop("trap_rate", 0.2),
        trap_secret=options.pop("trap_secret", "fixed secret for the tests"),
        repeat_rate=options.pop("repeat_rate", 0.05),
        **options,
    )


def _cells(campaign) -> tuple[Counter, Counter]:
    """(candidate count, shows a copy of the source) of trap screens and of the other screens."""
    traps = set(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .values_list("screen_id", flat=True)
    )
    with_trap, without = Counter(), Counter()
    for screen in (
        Screen.objects.filter(campaign=campaign).select_related("sentence").prefetch_related("candidates")
    ):
        texts = [normalise(c.text) for c in screen.candidates.all()]
        cell = (len(texts), normalise(screen.sentence.text) in texts)
        (with_trap if screen.pk in traps else without)[cell] += 1
    return with_trap, without


LOOK_SECRETS = tuple(f"look secret {n}" for n in range(4))
"""The trap secrets of the look tests: one campaign each, their cells added up. A campaign's draws
read its seed and its sentences' positions, and its traps its secret; the look tests also reset the
id sequences (draws once read ids, and one campaign's p-value swung above and below 0.01 with them),
so that their outcome depends on the code and the data, not on which tests ran before."""
LOOKS = [("prws", {}), ("ranking", {"screens_per_sentence": 2}), ("edits", {"screens_per_sentence": 2})]
_looks: dict[str, tuple[Counter, Counter]] = {}


def _looks_of(corpus: Corpus, protocol: str, options: dict) -> tuple[Counter, Counter]:
    """``_cells`` of one campaign per ``LOOK_SECRETS``, added up (computed once per protocol: with the
    ids reset, every test that asks builds the same campaigns)."""
    if protocol not in _looks:
        with_trap, without = Counter(), Counter()
        for secret in LOOK_SECRETS:
            campaign = _campaign(corpus, protocol, trap_secret=secret, **options)
            t, o = _cells(campaign)
            with_trap += t
            without += o
            campaign.delete()
        _looks[protocol] = with_trap, without
    return _looks[protocol]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, reset_sequences=True)
@pytest.mark.parametrize("protocol,options", LOOKS)
def test_trap_screens_look_like_the_others(fce, protocol, options):
    """A chi-square test of (candidates shown, shows a copy of the source) against trap or not, on the
    screens of several campaigns (``LOOK_SECRETS``): nothing a worker sees tells traps from the other
    screens. Issue 41 (h46): a screen showing a source copy was a trap less often (pooled, PRWS 14.6%
    against 18.2%, ranking's two-candidate source copies 13.4% against 19.3%; p < 1e-6): a look with a
    source copy and one or two candidates needs the source copy as the base or the source as the
    trap, and the source-first bot's balance held the first to the second, which only one-edit
    bases gave. Now any base whose corrections the source undoes by the drop gives it, and a look
    the kind wanted cannot give is kept for another kind rather than dropped for an easier look
    (``ControlPlanner._search``). Before that, PRWS's one-candidate screens were traps 9.4% (with a
    source copy) and 12.8% of the time against 15.8% overall (p 9e-7), and ranking's two-candidate
    screens with a source copy 13.4-13.8% against 16% (p 0.012; 0.007 once added corrections joined
    its kinds). The second chi-square asks the source-copy question alone."""
    with_trap, without = _looks_of(fce, protocol, options)
    assert sum(with_trap.values()) + sum(without.values()) >= 1000 * len(LOOK_SECRETS)
    assert sum(with_trap.values()) >= 100 * len(LOOK_SECRETS)
    cells = sorted(set(with_trap) | set(without))
    table = [[with_trap[c] for c in cells], [without[c] for c in cells]]
    _chi2, p, _dof, _expected = chi2_contingency(table)
    assert p > 0.01, (p, cells, table)
    # the tell that was, on its own (a sharper test than the one over every look)
    copy = [[sum(n for (_k, c), n in counts.items() if c == shows) for shows in (True, False)]
            for counts in (with_trap, without)]  # fmt: skip
    _chi2, p, _dof, _expected = chi2_contingency(copy)
    assert p > 0.01, (p, copy)


@pytest.mark.django_db(transaction=True, reset_sequences=True)
@pytest.mark.parametrize("protocol,options", LOOKS)
def test_no_look_is_a_trap_half_or_twice_as_often_as_screens_overall(fce, protocol, options):
    """A bound the chi-square above does not give: every look of 100 screens or more is a trap more
    than half and less than twice as often as screens overall (before h46 PRWS's one-candidate source
    copy was a trap 0.55-0.63 times as often)."""
    with_trap, without = _looks_of(fce, protocol, options)
    assert sum(with_trap.values()) + sum(without.values()) >= 1000 * len(LOOK_SECRETS)
    assert sum(with_trap.values()) >= 100 * len(LOOK_SECRETS)
    overall = sum(with_trap.values()) / (sum(with_trap.values()) + sum(without.values()))
    ratios = {
        cell: with_trap[cell] / (with_trap[cell] + without[cell]) / overall
        for cell in set(with_trap) | set(without)
        if with_trap[cell] + without[cell] >= 100
    }
    assert len(ratios) >= 6, ratios
    assert all(0.5 < r < 2 for r in ratios.values()), ratios
    # Dealt in the screens' proportions, not drawn at random, the looks keep much closer than that
    # (drawn at random, a look of 350 screens, some 55 traps, strays 13% by one standard deviation).
    # Not PRWS's one-candidate source copy (0.78): its only trap is the source, a role the
    # source-first balance rations (module docstring of ranking.quality.controls).
    assert all(0.9 < r < 1.1 for (n, _copy), r in ratios.items() if n > 1), str(sorted(ratios.items()))


@pytest.mark.parametrize("protocol,options", [("prws", {}), ("ranking", {"screens_per_sentence": 2})])
def test_the_source_copy_is_a_base_no_more_often_than_a_trap_is_the_source(fce, protocol, options):
    """The source-first bot (the candidate equal to the original best, the rest at random) passed 55%
    of PRWS traps: the source copy was the base of a trap (an added error on it) more often than a
    trap was the source (a one-edit base's correction undone). Now trusting the source copy wins as
    many traps as it loses, and the bot is as blind as a random one. Nor the other way: the source is
    the trap at most ``SOURCE_ROLE_SLACK`` times more often than the source copy is a base, so a bot
    that rates the source copy worst gains as little (issue 41: the source became the trap of any
    corrected base, not only of one-edit bases). A ranking campaign's added corrections (positive
    controls) count the other way round: with the source copy as their base the source is the worse
    text of the pair, which the bot fails as it fails a trap that is the source."""
    campaign = _campaign(fce, protocol, **options)
    controls = Control.objects.filter(screen__campaign=campaign).exclude(kind=ControlKind.REPEAT)
    roles = Counter()
    for control in controls.select_related("base", "trap", "screen__sentence"):
        source = normalise(control.screen.sentence.text)
        better, worse = (
            (control.trap, control.base)
            if control.kind == ControlKind.ADDED_CORRECTION
            else (control.base, control.trap)
        )
        roles["better"] += normalise(better.text) == source
        roles["worse"] += normalise(worse.text) == source
        roles[control.kind, normalise(control.base.text) == source] += 1
    assert controls.count() >= 150
    if protocol == "ranking":
        assert roles[ControlKind.ADDED_CORRECTION, True] > 0, roles
    assert roles["worse"] > 0 and roles["better"] <= roles["worse"] <= roles["better"] + SOURCE_ROLE_SLACK, (
        roles
    )


def test_every_trap_is_worse_than_its_base_by_the_campaign_drop(fce):
    campaign = _campaign(fce, "prws")
    controls = Control.objects.filter(screen__campaign=campaign).exclude(kind=ControlKind.REPEAT)
    assert controls.count() >= 100
    refs = _references(fce)
    for control in controls.select_related("base__screen__sentence", "trap"):
        sentence = control.base.screen.sentence
        base = sentence_gleu(sentence.text, refs[sentence.pk], control.base.text)
        trap = sentence_gleu(sentence.text, refs[sentence.pk], control.trap.text)
        assert base - trap >= campaign.trap_min_drop - 1e-9
        assert (base, trap) == pytest.approx((control.base_quality, control.trap_quality))


def _references(corpus: Corpus) -> dict[int, list[str]]:
    return corpus_references(corpus.pk)


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.slow
def test_generated_traps_never_outscore_their_base_on_jfleg_and_gmeg_dev():
    """The finding: the public inserter, as the paper design seeded it ("N/i"), can repair a learner's
    error while adding another, so the trap is better than the source it should be worse than. On
    JFLEG dev and GMEG dev (FCE, Wikipedia) sentence GLEU+ says so for many lines; a generated trap
    (``make_trap``, base = the source) never scores above its base minus the drop."""
    jfleg = shared_path("jfleg", "dev")
    gmeg = shared_path("GMEG", "data", "dev")
    sets = {
        "jfleg": (_lines(jfleg / "dev.src"), [_lines(jfleg / f"dev.ref{i}") for i in range(4)]),
        **{
            d: (_lines(gmeg / d / "source"), [_lines(gmeg / d / f"ref{i}") for i in range(4)])
            for d in ("fce", "wiki")
        },
    }
    for name, (sources, references) in sets.items():
        old_better = made = 0
        for i, source in enumerate(sources):
            refs = [r[i] for r in references]
            old = insert_errors(source, seed=line_seed(0, i)).text
            old_better += sentence_gleu(source, refs, old) > sentence_gleu(source, refs, source)
            trap = make_trap(source, source, refs, seed=f"test:{name}:{i}")
            if trap is not None:
                made += 1
                assert trap.quality <= trap.base_quality - DEFAULT_MIN_DROP, (name, i, trap)
                assert sentence_gleu(source, refs, trap.text) == pytest.approx(trap.quality)
        assert old_better > 50, (name, old_better)  # the finding, reproduced
        # at the default drop (0.25) a source with one or two errors often admits none
        assert made > len(sources) // 8, (name, made)


def _oracle(refs: dict[int, list[str]]):
    """Scores every candidate by its sentence GLEU+ against the references (a careful reader)."""

    def answer(screen, candidates):
        source = screen.sentence.text
        return [round(100 * sentence_gleu(source, refs[screen.sentence_id], c.text)) for c in candidates]

    return answer


def _source_first(seed: int):
    """The finding's bot: 100 to the candidate equal to the displayed original, 0-99 to the others."""
    rng = random.Random(seed)

    def answer(screen, candidates):
        source = normalise(screen.sentence.text)
        return [100 if normalise(c.text) == source else rng.randrange(100) for c in candidates]

    return answer


def test_a_careful_reader_passes_and_the_source_first_bot_is_excluded(fce):
    campaign = _campaign(fce, "prws", judgments_per_item=3, screens_per_hit=20)
    reader, bot = (f.user(name, "annotator") for name in ("reader", "bot"))
    campaign.project.members.add(reader, bot)
    f.work_hits(campaign, reader, _oracle(_references(fce)), max_screens=150)
    record = WorkerRecord.objects.get(campaign=campaign, worker=reader)
    assert record.traps_seen >= 15 and record.traps_passed == record.traps_seen
    assert not record.excluded
    verdicts = ScreenJudgment.objects.filter(judge=reader, trap_passed__isnull=False)
    assert verdicts.count() == record.traps_seen
    for judgment in verdicts:  # each verdict on the control screen, with the two answers compared
        assert judgment.screen.control.kind != ControlKind.REPEAT
        assert judgment.trap_base_answer - judgment.trap_answer >= campaign.trap_margin

    # Before: 65 of 65 traps passed, never excluded. Now about half fail and the bot is excluded.
    f.work_hits(campaign, bot, _source_first(7), max_screens=150)
    record = WorkerRecord.objects.get(campaign=campaign, worker=bot)
    assert record.excluded
    # It passes a trap by chance (p = 0.5) where the careful reader passed all. It is excluded
    # after about 15 traps, so "about half" is a binomial draw: a CI run saw 11 of 15. More than
    # 80% happens with probability under 2%; the exclusion above is the claim.
    assert record.traps_passed <= 0.8 * record.traps_seen


def test_controls_never_count_in_results(fce):
    campaign = _campaign(fce, "prws", judgments_per_item=1, screens_per_hit=20)
    reader = f.user("reader", "annotator")
    campaign.project.members.add(reader)
    f.work_hits(campaign, reader, _oracle(_references(fce)), max_screens=60)
    judged = ScreenJudgment.objects.filter(judge=reader, assignment__status="submitted")
    controls = judged.filter(screen__control__isnull=False)
    assert controls.exists()
    assert set(valid_judgments(campaign)) == set(judged.filter(screen__control__isnull=True))
    assert not any(sr.screen_id in {j.screen_id for j in controls} for sr in iter_screen_rankings(campaign))


def test_traps_cannot_be_regenerated_from_public_seeds(fce):
    """The finding: seeded with "N/i" and public code, seeds 0-4 over 200 lines found every trap.
    Hidden traps come from the campaign's secret: public seeds 0-9 find none."""
    campaign = _campaign(fce, "prws", trap_secret=None)  # the product's own secret
    assert len(campaign.trap_secret) >= 32
    positions = dict(Sentence.objects.filter(corpus=fce).values_list("pk", "position"))
    controls = list(
        Control.objects.filter(screen__campaign=campaign, kind=ControlKind.ADDED_ERROR).select_related(
            "base", "trap", "screen"
        )
    )

    def found(seeds) -> int:
        """Traps equal to the inserter's draw on their base (or source) for one of ``seeds``."""
        return sum(
            any(
                insert_errors(text, seed=line_seed(s, positions[c.screen.sentence_id])).text
                == normalise(c.trap.text)
                for s in seeds
                for text in (c.base.text, c.screen.sentence.text)
            )
            for c in controls
        )

    # A short sentence leaves the rules few choices, so any seed hits some traps by chance: the public
    # seeds may do no better than seeds nobody used (and far from the finding's 27 of 27).
    public, unused = found(range(10)), found([f"unused-{k}" for k in range(10)])
    assert len(controls) >= 50
    assert public < 0.25 * len(controls)
    assert public <= 2 * unused + 5, (public, unused)
    # The paper's design: its Source+error system now has a secret seed too (the same chance applies).
    generated = trap_system_generate(corpus=fce)
    rows = list(
        Output.objects.filter(system=generated)
        .order_by("sentence__position")
        .values_list("sentence__position", "sentence__text", "text")[:200]
    )

    def regenerated(seeds) -> int:
        return sum(
            any(insert_errors(src, seed=line_seed(s, i)).text == text for s in seeds) for i, src, text in rows
        )

    public, unused = regenerated(range(10)), regenerated([f"unused-{k}" for k in range(10)])
    assert public < 0.25 * len(rows) and public <= 2 * unused + 5, (public, unused)


def _near_copies(campaign, hits: list[int] | None = None) -> tuple[set[int], set[int], int, int]:
    """The "compare the copies" attacker (issue 41): within each HIT, pairs of screens of one source
    whose candidates differ in exactly one text. Returns the candidates it flags (the differing ones,
    on both screens: any rule that then picks "the rarer, less supported" of the two picks among
    them), the pairs of exact copies it sees (repeats: the finder is not blind), and the number of
    candidates shown in all. ``hits``: one worker's HITs, compared all together (what that worker
    saw), instead of each HIT apart."""
    by_hit: dict[int, list[tuple[int, int, list[tuple[int, str]]]]] = {}
    shown = 0
    screens = Screen.objects.filter(campaign=campaign, hit__qualification=False)
    if hits is not None:
        screens = screens.filter(hit_id__in=hits)
    for screen in screens.prefetch_related("candidates"):
        texts = [(c.pk, normalise(c.text)) for c in screen.candidates.all()]
        shown += len(texts)
        key = 0 if hits is not None else screen.hit_id
        by_hit.setdefault(key, []).append((screen.pk, screen.sentence_id, texts))
    flagged: set[int] = set()
    exact = 0
    for screens in by_hit.values():
        for i, (_a, sentence_a, texts_a) in enumerate(screens):
            for _b, sentence_b, texts_b in screens[i + 1 :]:
                if sentence_a != sentence_b or len(texts_a) != len(texts_b):
                    continue
                only_a = Counter(t for _, t in texts_a) - Counter(t for _, t in texts_b)
                only_b = Counter(t for _, t in texts_b) - Counter(t for _, t in texts_a)
                if not only_a and not only_b:
                    exact += 1
                elif sum(only_a.values()) == 1 and sum(only_b.values()) == 1:
                    flagged |= {pk for pk, t in texts_a if t in only_a} | {
                        pk for pk, t in texts_b if t in only_b
                    }
    return flagged, exact, shown


@pytest.mark.parametrize("protocol,options", [("prws", {}), ("ranking", {"screens_per_sentence": 2})])
def test_comparing_the_copies_in_a_hit_does_not_find_the_trap(fce, protocol, options):
    """Issue 41: a trap used to differ from a screen of its HIT by exactly one candidate, so an attacker
    comparing the copies found it (96% of added errors with a cheap rule). Now a trap's screen copies
    a screen of another HIT, with its base beside it: the attacker's flagged candidates hold traps no
    more often than as many candidates drawn at random. PRWS screens of one candidate have no room
    for a base beside the trap: those traps still replace their base on a copy in the same HIT (the
    residual, counted apart and not claimed here)."""
    campaign = _campaign(fce, protocol, **options)
    controls = Control.objects.filter(screen__campaign=campaign).exclude(kind=ControlKind.REPEAT)
    one_candidate = {c.trap_id for c in controls.annotate(n=Count("screen__candidates")).filter(n=1)}
    traps = set(controls.values_list("trap_id", flat=True)) - one_candidate
    assert len(traps) >= 100
    flagged, exact, shown = _near_copies(campaign)
    assert exact > 0  # the repeats: the attacker does find copies
    found = len((flagged - one_candidate) & traps)
    chance = len(flagged - one_candidate) * len(traps) / shown
    assert found <= chance + 3 * chance**0.5 + 1, (found, chance, len(flagged), len(traps))
    # and no trap of two candidates or more is a near-copy of its HIT's screens at all
    assert found == 0, found
    # every trap's verdict still waits for a judged screen of its own HIT (issue 35)
    for control in controls.select_related("screen", "original", "base"):
        assert control.original.hit_id == control.screen.hit_id
        assert not hasattr(control.original, "control")  # a judged screen, not another control
        if control.trap_id not in one_candidate:
            assert control.base.screen_id == control.screen_id


def _hits_in_a_row(campaign, worker) -> list[int]:
    """The HITs ``worker`` is handed one after another (each given back unfinished, which counts as
    seen) until NoWork."""
    taken = []
    while True:
        try:
            assignment = assignment_request(campaign=campaign, worker=worker)
        except NoWork:
            return taken
        taken.append(assignment.hit_id)
        assignment_return(assignment=assignment, worker=worker)


@pytest.mark.parametrize("protocol,options", [("prws", {}), ("ranking", {"screens_per_sentence": 2})])
def test_comparing_the_copies_over_a_worker_s_hits_does_not_find_the_trap(fce, protocol, options):
    """Issue 41: a trap's screen copies a screen of another HIT (its donor), so a worker handed both
    HITs saw the donor screen and its one-candidate-changed copy and could compare them across HITs.
    A HIT showing again a sentence the worker saw beside a copy of it (a trap's, a gold screen's) in
    another HIT is no longer handed to them: over everything one worker is handed, in a row until
    NoWork, the attacker flags no trap of two candidates or more. PRWS traps of one candidate still
    replace their base on a copy in the same HIT (not fixed: docs/hardening.md), counted apart."""
    campaign = _campaign(fce, protocol, **options)
    worker = f.user("comparer", "annotator")
    campaign.project.members.add(worker)
    taken = _hits_in_a_row(campaign, worker)
    hits = Screen.objects.filter(campaign=campaign).values_list("hit_id", flat=True).distinct().count()
    controls = Control.objects.filter(screen__campaign=campaign, screen__hit_id__in=taken).exclude(
        kind=ControlKind.REPEAT
    )
    one_candidate = {c.trap_id for c in controls.annotate(n=Count("screen__candidates")).filter(n=1)}
    traps = set(controls.values_list("trap_id", flat=True)) - one_candidate
    assert len(traps) >= 40
    flagged, exact, shown = _near_copies(campaign, taken)
    assert exact > 0
    found = len((flagged - one_candidate) & traps)
    chance = len(flagged - one_candidate) * len(traps) / shown
    assert found <= chance + 3 * chance**0.5 + 1, (found, chance, len(flagged), len(traps))
    assert found == 0, found
    assert 10 <= len(taken) < hits  # many HITs, not all: each trap's donor HIT or copy HIT is skipped
