"""Issue 20: the campaign form offers the chosen corpus's systems and warns about ranking screens
with few distinct outputs (before anything is created)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from geceval.human.screen_draws import distinct_counts, screen_distribution, share_at_least
from ranking.models import Campaign
from tests import factories

pytestmark = pytest.mark.django_db

SOURCES = ["a b c .", "d e f .", "g h i .", "j k l ."]


def _system(tag: str) -> list[str]:
    return [f"{s} {tag}" for s in SOURCES]


@pytest.fixture
def setup(client):
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    other = factories.project(researcher, name="Team B")
    # s3 and s4 write the same text everywhere: four systems, three distinct outputs per screen.
    systems = {
        "s1": _system("x"),
        "s2": _system("y"),
        "s3": _system("z"),
        "s4": _system("z"),
        "s5": _system("w"),
    }
    corpus, made = factories.corpus_with_systems(project, sources=SOURCES, systems=systems)
    other_corpus, other_made = factories.corpus_with_systems(
        other, sources=SOURCES, systems={"elsewhere <i>": _system("q")}
    )
    client.force_login(researcher)
    return corpus, {s.name: s for s in made}, other_corpus, other_made[0]


def _form(corpus, systems, **extra):
    return {
        "name": "form campaign",
        "protocol": "ranking",
        "corpus": corpus.pk,
        "systems": [s.pk for s in systems],
        "judgments_per_item": 1,
        "max_candidates": 5,
        "screens_per_sentence": 1,
        "screens_per_hit": 2,
        "assignment_minutes": 60,
        "trap_rate": 0,
        "repeat_rate": 0,
        "trap_threshold": 0.6,
        "trap_min_seen": 10,
        "reward_per_hit": 0,
        **extra,
    }


def test_distinct_outputs_follow_the_draw_exactly():
    assert distinct_counts([1, 1, 1, 1, 1], 5) == {5: 1.0}
    assert distinct_counts([2, 1, 1, 1], 4) == pytest.approx({3: 0.6, 4: 0.4})  # 5 draws, 2 keep both
    assert distinct_counts([3, 3], 2) == pytest.approx({1: 0.4, 2: 0.6})  # 6 of 15 pairs in one group
    both = screen_distribution([[1, 1, 1, 1], [4]], 4)
    assert both == pytest.approx({1: 0.5, 4: 0.5})
    assert share_at_least(both, 4) == pytest.approx(0.5)


def test_every_system_option_names_its_corpus_and_the_script_is_loaded(client, setup):
    corpus, _, other_corpus, _ = setup
    page = client.get(reverse("campaign-new")).content.decode()
    assert f'data-corpus="{corpus.pk}"' in page and f'data-corpus="{other_corpus.pk}"' in page
    assert "js/campaign_form.js" in page
    assert "elsewhere &lt;i&gt;" in page and "elsewhere <i>" not in page


def test_a_system_of_another_corpus_is_refused_on_the_server(client, setup):
    corpus, by_name, _, elsewhere = setup
    response = client.post(reverse("campaign-new"), _form(corpus, [by_name["s1"], by_name["s2"], elsewhere]))
    assert response.status_code == 400
    assert "Choose systems of the selected corpus only." in response.content.decode()
    assert not Campaign.objects.exists()


def test_few_distinct_outputs_warn_with_the_distribution_and_need_a_confirmation(client, setup):
    corpus, by_name, *_ = setup
    chosen = [by_name[n] for n in ("s1", "s2", "s3", "s4")]
    warned = client.post(reverse("campaign-new"), _form(corpus, chosen))
    assert warned.status_code == 200
    html = warned.content.decode()
    assert 'id="few-outputs"' in html and "Only 0% of screens would show at least 4 distinct outputs" in html
    assert "<td>3</td><td>100.0%</td>" in html
    assert 'name="confirm_few_outputs"' in html
    assert not Campaign.objects.exists()  # nothing created before the confirmation
    made = client.post(reverse("campaign-new"), _form(corpus, chosen, confirm_few_outputs="on"))
    assert made.status_code == 302
    campaign = Campaign.objects.get()
    assert campaign.status == "draft"


def test_enough_distinct_outputs_create_at_once_and_prws_never_warns(client, setup):
    corpus, by_name, *_ = setup
    distinct = [by_name[n] for n in ("s1", "s2", "s3", "s5")]
    assert client.post(reverse("campaign-new"), _form(corpus, distinct)).status_code == 302
    few = [by_name[n] for n in ("s1", "s3", "s4")]
    prws = _form(corpus, few, name="prws", protocol="prws")
    assert client.post(reverse("campaign-new"), prws).status_code == 302
    assert set(Campaign.objects.values_list("status", flat=True)) == {"draft"}


def test_a_campaign_of_one_hit_says_so_in_the_singular_and_its_page_links_the_corpus(client, setup):
    corpus, by_name, *_ = setup
    form = _form(corpus, [by_name["s1"], by_name["s2"]], name="one hit", protocol="prws", screens_per_hit=10)
    page = client.post(reverse("campaign-new"), form, follow=True).content.decode()
    assert "Campaign one hit created with 4 screens in 1 HIT. It is a draft" in page
    assert "1 HIT of up to 10 screens" in page
    corpus_link = reverse("corpus-detail", args=[corpus.pk])
    assert f'corpus <a href="{corpus_link}">{corpus.name}</a>' in page  # the walk goes on to the corpus
    two = _form(corpus, [by_name["s1"], by_name["s2"]], name="two hits", protocol="prws", screens_per_hit=2)
    assert (
        "created with 4 screens in 2 HITs."
        in client.post(reverse("campaign-new"), two, follow=True).content.decode()
    )


def test_the_trap_count_before_exclusion_is_labelled_in_words(client, setup):
    page = client.get(reverse("campaign-new")).content.decode()
    assert '<label for="id_trap_min_seen">Traps seen before exclusion:</label>' in page


# --------------------------------------------------------------------------- before the first submit (issue 40)


def test_the_forecast_shows_coverage_and_the_few_outputs_warning_before_any_submit(client, setup):
    corpus, by_name, *_ = setup
    chosen = [by_name[n] for n in ("s1", "s2", "s3", "s4")]
    page = client.get(reverse("campaign-new")).content.decode()
    assert (
        f'<section id="screen-forecast" aria-live="polite" data-url="{reverse("campaign-forecast")}">' in page
    )
    fragment = client.post(reverse("campaign-forecast"), _form(corpus, chosen)).content.decode()
    assert "The screens would cover <strong>4</strong> of the corpus's 4 sentences." in fragment
    assert 'id="few-outputs"' in fragment and "Only 0% of screens would show at least 4 distinct" in fragment
    assert "<td>3</td><td>100.0%</td>" in fragment
    box = (
        '<input type="checkbox" name="confirm_few_outputs" aria-describedby="id_confirm_few_outputs_helptext"'
    )
    assert f'{box} id="id_confirm_few_outputs">' in fragment
    ticked = client.post(reverse("campaign-forecast"), _form(corpus, chosen, confirm_few_outputs="on"))
    assert f'{box} id="id_confirm_few_outputs" checked>' in ticked.content.decode()
    assert not Campaign.objects.exists()
    # the box came with the form: one submit creates the campaign
    assert (
        client.post(reverse("campaign-new"), _form(corpus, chosen, confirm_few_outputs="on")).status_code
        == 302
    )
    distinct = [by_name[n] for n in ("s1", "s2", "s3", "s5")]
    quiet = client.post(reverse("campaign-forecast"), _form(corpus, distinct)).content.decode()
    assert "cover <strong>4</strong>" in quiet and "few-outputs" not in quiet


def test_the_forecast_names_the_sample_and_the_sentences_left_without_a_screen(client, setup):
    corpus, by_name, *_ = setup
    by_name["s1"].outputs.filter(sentence__position=2).delete()
    sample = {"sample_first_line": 2, "sample_size": 2}
    fragment = client.post(
        reverse("campaign-forecast"), _form(corpus, [by_name["s1"]], protocol="prws", **sample)
    ).content.decode()
    assert (
        "The screens would cover <strong>1</strong> of the corpus's 4 sentences (the sample: lines 2 to "
        "the last, the first 2 sentences). <strong>1</strong> sentence of the sample has no output of "
        "the chosen systems and gets no screen."
    ) in fragment
    too_many = client.post(reverse("campaign-forecast"), _form(corpus, [by_name["s1"]], sample_size=9))
    assert "A sample of 9 sentences from a pool of 4: choose at most 4." in too_many.content.decode()
    nothing = client.post(reverse("campaign-forecast"), {"corpus": corpus.pk}).content.decode()
    assert nothing.strip() == ""  # no systems chosen yet: nothing to forecast, no complaint either
