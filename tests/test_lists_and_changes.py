"""Issue 20, lists and progress: paginated searchable lists, "N of M" for workers, a campaign's
"show changes" screens, and one detokeniser on every page."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotate.rewrites import services as rewrite_services
from annotate.services import InputFile, corpus_import_text, outputs_import_lines
from ranking.models import Campaign
from ranking.services import campaign_create
from tests.factories import team, tokenized_corpus

pytestmark = pytest.mark.django_db


def _corpus(project, n: int, name: str = "long"):
    lines = [f"Sentence number {i} ." for i in range(n)]
    return corpus_import_text(
        project=project, name=name, source=InputFile("s.txt", ("\n".join(lines) + "\n").encode())
    )


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_corpus_sentences_come_fifty_to_a_page_with_a_search_that_the_page_links_keep(client):
    researcher, _, _, project = team(n_annotators=0, n_experts=0)
    corpus = _corpus(project, 120)
    client.force_login(researcher)
    url = reverse("corpus-detail", args=[corpus.pk])
    first = _text(client.get(url))
    assert "Showing 1–50 of 120" in first
    assert "Sentence number 49 ." in first and "Sentence number 50 ." not in first
    assert '<label for="sentences-q">Search the sentences</label>' in first
    last = _text(client.get(url, {"page": 3}))
    assert "Showing 101–120 of 120" in last and "Sentence number 119 ." in last
    found = _text(client.get(url, {"q": "number 1"}))  # 1, 10-19, 100-119
    assert "Showing 1–31 of 31 matching “number 1”" in found
    assert "Sentence number 2 ." not in found
    many = _corpus(project, 1200, name="longer")
    paged = _text(client.get(reverse("corpus-detail", args=[many.pk]), {"q": "number", "page": 2}))
    assert "Showing 51–100 of 1,200 matching “number”" in paged
    assert 'href="?page=3&amp;q=number"' in paged and 'href="?page=1&amp;q=number"' in paged


def test_a_long_list_costs_the_same_queries_at_120_and_1200_sentences(client):
    researcher, _, _, project = team(n_annotators=0, n_experts=0)
    small, big = _corpus(project, 120), _corpus(project, 1200, name="big")
    client.force_login(researcher)
    counts = []
    for corpus in (small, big):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("corpus-detail", args=[corpus.pk]), {"page": 2}).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def _judging_world(tokenized: bool = False, lines: int = 2, **options):
    researcher, annotators, _, project = team(n_annotators=1, n_experts=0)
    sources = ["He do n't like the bus .", "She like cat ."][:lines]
    if tokenized:
        corpus = tokenized_corpus(project, sources=sources, name="tok")
    else:
        corpus = corpus_import_text(
            project=project, name="plain", source=InputFile("s.txt", ("\n".join(sources) + "\n").encode())
        )
    systems = [
        outputs_import_lines(corpus=corpus, system_name=name, kind="model", lines=lines, filename=name)
        for name, lines in {
            "a": ["He does n't like the bus .", "She likes cats ."][:lines],
            "b": ["He dislikes the bus .", "She likes cat ."][:lines],
        }.items()
    ]
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="judge",
        systems=systems,
        created_by=researcher,
        judgments_per_item=1,
        trap_rate=0.0,
        repeat_rate=0.0,
        **options,
    )
    return researcher, annotators[0], project, corpus, campaign


def _screen(client, campaign):
    response = client.get(reverse("campaign-work", args=[campaign.pk]), follow=True)
    assert response.status_code == 200
    return _text(response)


def test_judgment_screens_show_no_changes_unless_the_campaign_asks():
    from django.test import Client

    _, worker, _, _, plain = _judging_world()
    client = Client()
    client.force_login(worker)
    page = _screen(client, plain)
    assert "show-changes" not in page and "show_changes.js" not in page and "candidate-diff" not in page
    assert Campaign._meta.get_field("show_changes").default is False


def test_a_campaign_that_shows_changes_gives_each_correction_its_diff_and_the_d_key(client):
    _, worker, _, _, campaign = _judging_world(show_changes=True)
    client.force_login(worker)
    page = _screen(client, campaign)
    assert 'id="show-changes"' in page and 'aria-keyshortcuts="d"' in page
    assert "js/word_diff.js" in page and "js/show_changes.js" in page
    assert page.count('class="candidate-diff diff"') == 2
    assert "Screen 1 of" in page


def test_show_changes_is_on_the_campaign_form_and_the_api(client):
    researcher, _, _, corpus, _ = _judging_world()
    client.force_login(researcher)
    form = _text(client.get(reverse("campaign-new")))
    assert 'name="show_changes"' in form and "Show changes" in form
    api = APIClient()
    api.force_authenticate(researcher)
    systems = list(corpus.systems.values_list("pk", flat=True))
    made = api.post(
        "/api/campaigns/",
        {"name": "with diffs", "corpus": corpus.pk, "systems": systems, "show_changes": True},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert made.json()["show_changes"] is True
    assert Campaign.objects.get(name="with diffs").show_changes is True


def test_judgment_screen_and_rewrite_page_show_a_tokenised_sentence_the_same_way(client):
    researcher, worker, project, corpus, campaign = _judging_world(tokenized=True, lines=1, show_changes=True)
    rewrite_campaign = rewrite_services.rewrite_campaign_create(
        project=project, corpus=corpus, name="rw", created_by=researcher, rewrites_per_sentence=1
    )
    client.force_login(worker)
    judged = _screen(client, campaign)
    rewrite = _text(client.get(reverse("rewrite-work", args=[rewrite_campaign.pk])))
    shown = "He don&#x27;t like the bus."
    source = re.search(r'id="source-text"[^>]*>([^<]*)<', judged).group(1)
    written = re.search(r'id="source-text"[^>]*>([^<]*)<', rewrite).group(1)
    assert source == written == shown
    assert "bus ." not in judged
    assert "He does n&#x27;t" not in judged and "He doesn&#x27;t like the bus." in judged


def test_workers_see_n_of_m_on_their_work_lists_and_the_rewrite_page(client):
    researcher, worker, project, corpus, _ = _judging_world(tokenized=True)
    rewrite_campaign = rewrite_services.rewrite_campaign_create(
        project=project, corpus=corpus, name="rw", created_by=researcher, rewrites_per_sentence=1
    )
    client.force_login(worker)
    home = _text(client.get(reverse("home")))
    assert "0 of 2 screens judged by you" in home
    work = _text(client.get(reverse("rewrite-work", args=[rewrite_campaign.pk])))
    assert "0 of 2 sentences done" in work
    sentence = corpus.sentences.order_by("position").first()
    rewrite_services.rewrite_submit(
        campaign=rewrite_campaign, user=worker, sentence=sentence, text="He doesn't like the bus."
    )
    index = _text(client.get(reverse("rewrite-index")))
    assert "1 of 2 sentences done" in index
    mine = _text(client.get(reverse("rewrite-mine", args=[rewrite_campaign.pk])))
    assert "1 of 2 sentences done" in mine and "Showing 1–1 of 1" in mine


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize("debug", [True, False])
def test_a_worker_meets_a_plain_404_even_in_debug_mode(client, settings, debug):
    settings.DEBUG = debug
    _, annotators, _, _ = team(n_annotators=1, n_experts=0)
    client.force_login(annotators[0])
    for url in ["/assignments/999999/", "/no/such/page/", "/rewrites/999999/mine/"]:
        response = client.get(url)
        assert response.status_code == 404, url
        page = _text(response)
        assert "Page not found" in page and 'id="not-found"' in page, url
        assert "no such assignment" not in page and "urlpatterns" not in page.lower(), url
        assert "DEBUG" not in page, url


def test_every_page_links_the_favicon(client):
    response = client.get(reverse("login"))
    assert 'rel="icon" href="/static/favicon.svg"' in _text(response)
    from django.contrib.staticfiles import finders

    assert finders.find("favicon.svg")


def test_input_errors_never_show_the_unnamed_input_label():
    from geceval.errors import GecInputError
    from geceval.formats.text import decode_lines

    assert str(GecInputError("the campaign needs a name")) == "the campaign needs a name"
    with pytest.raises(GecInputError) as raised:
        decode_lines(b"")
    assert "<input>" not in str(raised.value) and str(raised.value) == "file is empty"
    assert str(GecInputError("bad", path="src.txt", line=3)) == "src.txt:3: bad"


def test_analysis_run_parameters_and_errors_are_in_words():
    from ranking.analysis.parameters import parameters_in_words

    words = parameters_in_words({"runs": 100, "chunks": 8, "estimate_needed": True, "human_run": 3})
    assert words == [
        "100 runs",
        "in 8 chunks",
        "estimates the judgments still needed",
        "human judgments from run #3",
    ]
    assert parameters_in_words({"estimate_needed": False}) == []


# --------------------------------------------------------------------------- expert review


def _review_world():
    researcher, annotators, experts, project = team(n_annotators=1, n_experts=1)
    corpus = tokenized_corpus(project, sources=["He do n't like the bus ."], name="rv")
    campaign = rewrite_services.rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="rv",
        created_by=researcher,
        rewrites_per_sentence=1,
        require_review=True,
        ask_difficulty=True,
    )
    sentence = rewrite_services.slot_claim(campaign=campaign, user=annotators[0]).sentence
    rewrite_services.rewrite_submit(
        campaign=campaign,
        user=annotators[0],
        sentence=sentence,
        text="He doesn't like the bus.",
        difficulty=4,
    )
    return campaign, annotators[0], experts[0]


def test_review_page_shows_the_authors_pseudonym_difficulty_progress_and_keys(client, settings):
    from annotate.formats.campaign import pseudonym

    campaign, author, expert = _review_world()
    client.force_login(expert)
    page = _text(client.get(reverse("rewrite-review", args=[campaign.pk])))
    assert f"Written by <strong>{pseudonym(author.pk, settings.SECRET_KEY)}</strong>" in page
    assert author.username not in page
    assert "difficulty rated by the author: <strong>4</strong> of 5" in page
    assert "Rewrite 1 of 1 to review" in page
    assert '<label for="review-reason">' in page and "js/rewrite_review.js" in page
    assert "<kbd>Alt</kbd>+<kbd>R</kbd> reject" in page


def test_a_rejection_needs_a_reason_and_nothing_is_saved_without_one(client):
    campaign, _, expert = _review_world()
    client.force_login(expert)
    url = reverse("rewrite-review", args=[campaign.pk])
    rewrite = campaign.rewrites.get()
    response = client.post(url, {"rewrite": rewrite.pk, "decision": "reject", "reason": "  "})
    assert response.status_code == 400
    assert "Give a reason for rejecting this rewrite." in _text(response)
    rewrite.refresh_from_db()
    assert rewrite.status == "submitted"
    response = client.post(
        url, {"rewrite": rewrite.pk, "decision": "reject", "reason": "changes the meaning"}
    )
    assert response.status_code == 302
    rewrite.refresh_from_db()
    assert (rewrite.status, rewrite.review_reason) == ("rejected", "changes the meaning")
    client.force_login(rewrite.annotator)  # the author reads why on their list
    mine = _text(client.get(reverse("rewrite-mine", args=[campaign.pk])))
    assert "Rejected: changes the meaning" in mine


def test_the_qualification_test_numbers_its_sentences_n_of_m(client):
    researcher, annotators, _, project = team(n_annotators=1, n_experts=0)
    corpus = tokenized_corpus(project, name="q")
    qualification = rewrite_services.qualification_create(
        project=project,
        name="screening",
        sentences=list(corpus.sentences.order_by("position")[:3]),
        created_by=researcher,
    )
    client.force_login(annotators[0])
    page = _text(client.get(reverse("qualification-take", args=[qualification.pk])))
    assert "Sentence 1 of 3" in page and "Sentence 3 of 3" in page


def test_a_built_list_is_searched_and_paged_and_each_list_keeps_the_others_query():
    from django.test import RequestFactory

    from annotate.paging import paginate

    names = [f"worker{i:03d}" for i in range(120)]
    request = RequestFactory().get("/", {"workers-q": "worker1", "workers-page": "2", "corpora-q": "x"})
    listing = paginate(
        request, names, search=lambda n, q: q in n, prefix="workers-", label="Search the workers"
    )
    assert listing.total == 20 and listing.summary == "Showing 1–20 of 20"  # page 2 of one page: the last
    assert list(listing.items) == names[100:120]
    request = RequestFactory().get("/", {"workers-page": "2", "corpora-q": "x"})
    listing = paginate(request, names, search=lambda n, q: q in n, prefix="workers-")
    assert listing.summary == "Showing 51–100 of 120"
    assert listing.next_link == "?workers-page=3&corpora-q=x"


def test_the_home_page_searches_the_researchers_campaigns(client):
    researcher, _, _, _, campaign = _judging_world()
    client.force_login(researcher)
    page = _text(client.get(reverse("home"), {"campaigns-q": "judg"}))
    assert "Showing 1–1 of 1 matching “judg”" in page and f'href="/campaigns/{campaign.pk}/"' in page
    page = _text(client.get(reverse("home"), {"campaigns-q": "nothing like it"}))
    assert "Nothing found matching “nothing like it”" in page
    assert f'href="/campaigns/{campaign.pk}/"' not in page


def test_the_corpus_page_shows_a_tokenised_corpus_detokenised_too(client):
    researcher, _, _, project = team(n_annotators=0, n_experts=0)
    corpus = tokenized_corpus(project, sources=["He do n't like the bus ."], name="tok")
    client.force_login(researcher)
    page = _text(client.get(reverse("corpus-detail", args=[corpus.pk])))
    assert "He don&#x27;t like the bus.</li>" in page and "bus .</li>" not in page


def test_the_rewrite_index_searches_the_researchers_rewrite_campaigns(client):
    researcher, _, _, project = team(n_annotators=0, n_experts=0)
    corpus = tokenized_corpus(project, name="rw-corpus")
    for name in ("fluency pilot", "minimal main"):
        rewrite_services.rewrite_campaign_create(
            project=project, corpus=corpus, name=name, created_by=researcher
        )
    client.force_login(researcher)
    page = _text(client.get(reverse("rewrite-index"), {"campaigns-q": "pilot"}))
    assert (
        "Showing 1–1 of 1 matching “pilot”" in page and "fluency pilot" in page and "minimal main" not in page
    )
