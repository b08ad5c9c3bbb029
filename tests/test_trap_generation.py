"""Issue 20: traps from the browser. The campaign form chooses the errors a generated trap adds and how
many, previews ten traps beside their bases (a fresh seed, checked against the references), and can
generate the paper's Source+error system; the campaign's own traps follow the choice.

Built on GMEG dev FCE (../shared), whose four references make the GLEU+ check real.
"""

from __future__ import annotations

import re

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotate.models import Output, System, SystemKind
from geceval.traps.hidden import ADDED_ERROR, make_trap, source_error
from geceval.traps.inserter import ERROR_TYPES
from ranking.models import Campaign, Control, ControlKind, TrapDesign
from ranking.quality.trap_generation import trap_preview
from ranking.services import campaign_create
from tests import factories as f

SYSTEMS = ("amu", "nus", "transformer")
BASE = "Yesterday the tall man went quickly to the small station near the old harbour ."


def _words(text: str) -> list[str]:
    """The words without the punctuation the inserter keeps in place ("loud <unk>" -> "unk <loud>")."""
    return sorted(re.sub(r"\W", "", w) for w in text.split())


def _word_order_only(base: str, trap: str) -> bool:
    return _words(base) == _words(trap) and base.split() != trap.split()


def test_make_trap_adds_only_the_chosen_error_types():
    for i in range(30):
        trap = make_trap(BASE, BASE, seed=f"s{i}", kinds=(ADDED_ERROR,), error_types=("WO",), n_errors=1)
        assert trap is not None and _word_order_only(BASE, trap.text)
    # every type (the default) is not word order alone on these seeds
    free = [make_trap(BASE, BASE, seed=f"s{i}", kinds=(ADDED_ERROR,)) for i in range(30)]
    assert not all(_word_order_only(BASE, t.text) for t in free)


def test_source_error_with_references_is_worse_and_without_is_any_draw():
    refs = ["Yesterday the tall man went quickly to the small station near the old harbour ."]
    trap = source_error(BASE, refs, seed="x", min_drop=0.25, error_types=("SPELL", "DET"))
    assert trap is not None and trap.base_quality - trap.quality >= 0.25
    assert source_error(BASE, (), seed="x", error_types=("WO",), n_errors=1).quality is None


@pytest.fixture
def fce(tmp_path, db):
    return f.gmeg_fce_corpus(tmp_path, SYSTEMS)


def _create(corpus, **options) -> Campaign:
    return campaign_create(
        project=corpus.project,
        corpus=corpus,
        name=options.pop("name", "typed traps"),
        systems=list(corpus.systems.filter(name__in=SYSTEMS)),
        created_by=corpus.project.owner,
        protocol="prws",
        trap_secret="fixed secret for the tests",
        **{"trap_rate": 0.2, "repeat_rate": 0} | options,
    )


@pytest.mark.django_db
def test_a_campaigns_added_errors_follow_its_error_types(fce):
    campaign = _create(fce, trap_error_types=["WO"], trap_errors=1, trap_min_drop=0.1)
    assert (campaign.trap_error_types, campaign.trap_errors) == ("WO", 1)
    added = Control.objects.filter(screen__campaign=campaign, kind=ControlKind.ADDED_ERROR)
    pairs = list(added.values_list("base__text", "trap__text"))
    assert len(pairs) >= 10
    assert all(_word_order_only(base, trap) for base, trap in pairs)


@pytest.mark.django_db
def test_unknown_error_types_and_counts_are_refused_before_anything_is_saved(fce):
    from geceval.errors import GecInputError

    with pytest.raises(GecInputError, match="unknown error types FOO"):
        _create(fce, trap_error_types=["DET", "FOO"])
    with pytest.raises(GecInputError, match="1 or 2 errors"):
        _create(fce, trap_errors=3)
    assert not Campaign.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "field,value", [("trap_error_types", "DET,FOO"), ("trap_error_types", "DET,"), ("trap_errors", 3)]
)
def test_the_database_refuses_unknown_error_types_and_counts(fce, field, value):
    campaign = _create(fce, trap_rate=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(**{field: value})


@pytest.mark.django_db
def test_preview_shows_ten_hidden_traps_worse_than_their_bases_of_both_kinds(fce):
    systems = list(fce.systems.filter(name__in=SYSTEMS))
    examples = trap_preview(corpus=fce, systems=systems, seed="preview", min_drop=0.25)
    assert len(examples) == 10
    assert {e.kind for e in examples} == {"errors added", "a correction undone"}
    outputs = set(Output.objects.filter(system__in=systems).values_list("text", flat=True))
    for e in examples:
        assert e.base_quality - e.quality >= 0.25
        assert e.base != e.trap and any(op != "same" for op, _ in e.changes)
        assert set(e.base_from.split(", ")) <= set(SYSTEMS)
    assert len({e.line for e in examples}) == 10
    assert outputs  # the bases are outputs (detokenised for display)


@pytest.mark.django_db
def test_an_edit_level_preview_adds_corrections_to_be_judged_better_and_the_other_kinds_worse(fce):
    """Issue 41's positive control in the preview: the edit-level protocol's three kinds in turn, under
    its rule (``reference_edits``), each example saying how a careful worker should judge it."""
    systems = list(fce.systems.filter(name__in=SYSTEMS))
    examples = trap_preview(corpus=fce, protocol="edits", systems=systems, seed="edits preview")
    assert len(examples) == 10
    assert {e.kind for e in examples} == {"errors added", "a correction undone", "a correction added"}
    for e in examples:
        if e.kind == "a correction added":
            assert e.judged == "better" and e.quality > e.base_quality
            assert [op for op, _ in e.changes if op != "same"] in (["ins"], ["del", "ins"], ["del"])
        else:
            assert e.judged == "worse" and e.base_quality - e.quality >= 0.25
    # the default protocol (PRWS) makes no added correction
    assert {e.judged for e in trap_preview(corpus=fce, systems=systems, seed="edits preview")} == {"worse"}


@pytest.mark.django_db
def test_preview_of_the_paper_design_puts_source_errors_beside_their_sources(fce):
    examples = trap_preview(corpus=fce, design=TrapDesign.PAPER, error_types=["WO"], n_errors=1, seed="p")
    assert len(examples) == 10
    assert all(e.base_from == "the source" and e.kind == "errors added" for e in examples)
    assert all(_words(e.base) == _words(e.trap) for e in examples)


def _form(corpus, **extra) -> dict:
    data = {
        "name": "browser traps",
        "protocol": "prws",
        "corpus": corpus.pk,
        "systems": [s.pk for s in corpus.systems.filter(name__in=SYSTEMS)],
        "judgments_per_item": 1,
        "max_candidates": 5,
        "screens_per_sentence": 1,
        "screens_per_hit": 20,
        "assignment_minutes": 60,
        "trap_design": "hidden",
        "trap_margin": 1,
        "trap_min_drop": 0.25,
        "trap_threshold": 0.6,
        "trap_min_seen": 10,
        "exclude_by_pass_rate": "on",
        "exclude_by_mann_whitney": "on",
        "reward_per_hit": 0,
    }
    return data | extra


@pytest.mark.django_db
def test_the_preview_page_and_fragment_escape_and_keep_to_the_researchers_corpora(client, fce):
    client.force_login(fce.project.owner)
    url = reverse("campaign-trap-preview")
    fragment = client.post(url + "?fragment=1", _form(fce, trap_error_types=["SPELL", "PREP"]))
    body = fragment.content.decode()
    assert fragment.status_code == 200 and "<html" not in body
    assert body.count("<tr>") == 11  # the header and ten traps
    assert "GLEU+ base → trap" in body and "errors added: should be judged worse" in body
    assert "should be judged better" not in body and "positive-controls" not in body  # PRWS: none
    whole = client.post(url, _form(fce))
    assert (
        whole.status_code == 200
        and "<html" in whole.content.decode()
        and "Back to the new campaign" in whole.content.decode()
    )
    # no systems chosen for hidden traps: a plain sentence, no field name
    empty = client.post(url + "?fragment=1", _form(fce, systems=[]))
    assert empty.status_code == 400 and "choose systems first" in empty.content.decode()
    assert "trap_design" not in empty.content.decode()
    # another researcher's corpus is not a choice
    stranger = f.user("stranger", "researcher")
    client.force_login(stranger)
    refused = client.post(url + "?fragment=1", _form(fce))
    assert refused.status_code == 400 and "Corpus:" in refused.content.decode()


@pytest.mark.django_db
def test_a_hostile_output_is_escaped_and_a_small_corpus_still_gives_ten_examples(client):
    owner = f.user("res", "researcher")
    sources = [f"<script>alert({i})</script> the men is going to the house of my friend ." for i in range(8)]
    corpus, made = f.corpus_with_systems(
        f.project(owner), sources=sources, systems={"evil": [s.replace("is", "are") for s in sources]}
    )
    client.force_login(owner)
    url = reverse("campaign-trap-preview") + "?fragment=1"
    body = client.post(url, _form(corpus, systems=[made[0].pk])).content.decode()
    assert body.count("<tr>") == 11 and "no references" in body
    assert "<script>alert" not in body and "&lt;script&gt;alert" in body
    # edit-level: no references, so no correction they agree on to add; the other kinds as before
    edits = client.post(url, _form(corpus, systems=[made[0].pk], protocol="edits")).content.decode()
    assert edits.count("<tr>") == 11 and "should be judged worse" in edits
    assert "a correction added" not in edits and "<script>alert" not in edits


@pytest.mark.django_db
def test_the_edit_level_preview_page_names_an_added_correction_a_positive_control(client, fce):
    client.force_login(fce.project.owner)
    url = reverse("campaign-trap-preview") + "?fragment=1"
    response = client.post(url, _form(fce, protocol="edits", max_candidates=4))
    body = response.content.decode()
    assert response.status_code == 200 and body.count("<tr>") == 11
    assert "<td>a correction added: should be judged better</td>" in body
    assert "<td>errors added: should be judged worse</td>" in body
    assert "<td>a correction undone: should be judged worse</td>" in body
    assert 'id="positive-controls"' in body and "ranks the trap at least as high as its base" in body
    assert "marks that correction good" in body


@pytest.mark.django_db
def test_the_ranking_preview_shows_added_corrections_judged_by_rank_alone(client, fce):
    """Ranking campaigns add corrections too (issue 41); their workers label nothing, so the note
    speaks of ranks only."""
    client.force_login(fce.project.owner)
    url = reverse("campaign-trap-preview") + "?fragment=1"
    response = client.post(url, _form(fce, protocol="ranking", max_candidates=4))
    body = response.content.decode()
    assert response.status_code == 200 and body.count("<tr>") == 11
    assert "<td>a correction added: should be judged better</td>" in body
    assert "<td>errors added: should be judged worse</td>" in body
    assert 'id="positive-controls"' in body and "ranking it below its base fails the trap" in body
    # the edit-level note's words, not "marks" alone: a GMEG sentence reads "My marks were n't good enough"
    assert "marks that correction good" not in body


@pytest.mark.django_db
def test_the_form_generates_the_papers_source_error_system_with_the_campaign(client, fce):
    client.force_login(fce.project.owner)
    form = _form(
        fce,
        trap_design="paper",
        generate_trap_system="on",
        trap_rate=0.5,
        trap_error_types=["WO"],
        trap_errors="1",
    )
    response = client.post(reverse("campaign-new"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(name="browser traps")
    trap_system = campaign.trap_system
    assert trap_system.kind == SystemKind.SOURCE_ERROR and trap_system.name == "source+error"
    assert (campaign.trap_design, campaign.trap_error_types, campaign.trap_errors) == ("paper", "WO", 1)
    texts = dict(Output.objects.filter(system=trap_system).values_list("sentence_id", "text"))
    changed = [(s.text, texts[s.pk]) for s in fce.sentences.all() if texts[s.pk] != s.text]
    assert len(changed) > 50 and all(_word_order_only(a, b) for a, b in changed)
    # a second campaign generates under the next free name
    client.post(reverse("campaign-new"), form | {"name": "second"})
    assert Campaign.objects.get(name="second").trap_system.name == "source+error 2"


@pytest.mark.django_db
def test_a_refused_campaign_leaves_no_generated_system(client, fce):
    client.force_login(fce.project.owner)
    form = _form(fce, trap_design="paper", generate_trap_system="on", trap_rate=0.5, domain="no such domain")
    response = client.post(reverse("campaign-new"), form)
    assert response.status_code == 400 and "no sentences in domain" in response.content.decode()
    assert not System.objects.filter(kind=SystemKind.SOURCE_ERROR).exists()
    # generating asks for the paper's design and a rate, and not for a chosen system besides
    page = client.post(reverse("campaign-new"), _form(fce, generate_trap_system="on")).content.decode()
    assert "the paper&#x27;s design: choose it above" in page
    assert "share of screens that show the Source+error trap" in page


@pytest.mark.django_db
def test_the_form_offers_every_error_type_ticked_and_the_preview_button(client, fce):
    client.force_login(fce.project.owner)
    page = client.get(reverse("campaign-new")).content.decode()
    for name in ERROR_TYPES:
        assert re.search(
            rf'value="{re.escape(name)}"[^>]*checked|checked[^>]*value="{re.escape(name)}"', page
        )
    assert 'id="preview-traps"' in page and reverse("campaign-trap-preview") in page


@pytest.mark.django_db
def test_the_api_takes_and_shows_error_types(client, fce):
    client.force_login(fce.project.owner)
    body = {
        "name": "api traps",
        "corpus": fce.pk,
        "systems": [s.pk for s in fce.systems.filter(name__in=SYSTEMS)],
        "protocol": "prws",
        "trap_error_types": ["DET", "PREP"],
        "trap_errors": 2,
    }
    made = client.post("/api/campaigns/", body, content_type="application/json")
    assert made.status_code == 201, made.content
    shown = client.get(f"/api/campaigns/{made.json()['id']}/").json()
    assert (shown["trap_error_types"], shown["trap_errors"]) == (["DET", "PREP"], 2)
    bad = client.post(
        "/api/campaigns/", body | {"name": "x", "trap_error_types": ["FOO"]}, content_type="application/json"
    )
    assert bad.status_code == 400 and "trap_error_types" in bad.json()
