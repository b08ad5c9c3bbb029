"""System and Output moved from ranking to annotate (issue 14) without touching a row.

A database that holds data at the migrations before the move (annotate 0003, ranking 0007) is
migrated forward; every system, output and every relation that points at them must survive with the
same ids, and the database's own foreign keys must still guard them. CI runs this on PostgreSQL.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotate", "0003_rewrites"), ("ranking", "0007_active_selection")]
MOVE = [("annotate", "0004_system_output"), ("ranking", "0008_system_output_to_annotate")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _leaf_nodes():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _old_world(apps) -> dict:
    """Rows created through the historical (pre-move) models, where System and Output are ranking's."""
    User = apps.get_model("auth", "User")
    Project = apps.get_model("annotate", "Project")
    Corpus = apps.get_model("annotate", "Corpus")
    Sentence = apps.get_model("annotate", "Sentence")
    System = apps.get_model("ranking", "System")
    Output = apps.get_model("ranking", "Output")
    Campaign = apps.get_model("ranking", "Campaign")
    Screen = apps.get_model("ranking", "Screen")
    Candidate = apps.get_model("ranking", "Candidate")
    SystemScore = apps.get_model("ranking", "SystemScore")
    AnalysisRun = apps.get_model("ranking", "AnalysisRun")
    SystemRankResult = apps.get_model("ranking", "SystemRankResult")
    PrwsResult = apps.get_model("ranking", "PrwsResult")
    ContentType = apps.get_model("contenttypes", "ContentType")

    owner = User.objects.create(username="owner")
    project = Project.objects.create(name="p", owner=owner)
    corpus = Corpus.objects.create(project=project, name="c")
    sentences = [Sentence.objects.create(corpus=corpus, position=i, text=f"s{i} .") for i in range(3)]
    systems = {
        name: System.objects.create(corpus=corpus, name=name, kind=kind)
        for name, kind in [
            ("src", "source"),
            ("ref0", "reference"),
            ("AMU", "model"),
            ("trap", "source+error"),
        ]
    }
    for system in systems.values():
        for s in sentences:
            Output.objects.create(system=system, sentence=s, text=f"{system.name}:{s.position}")
    campaign = Campaign.objects.create(
        project=project,
        corpus=corpus,
        name="k",
        created_by=owner,
        reference=systems["ref0"],
        trap_system=systems["trap"],
    )
    campaign.systems.set([systems["src"], systems["AMU"]])
    screen = Screen.objects.create(campaign=campaign, sentence=sentences[1])
    candidate = Candidate.objects.create(screen=screen, position=0, text="same")
    candidate.outputs.set(Output.objects.filter(sentence=sentences[1], system__name__in=["src", "AMU"]))
    SystemScore.objects.create(campaign=campaign, system=systems["AMU"], mean_score=61.5, ratings=3, items=1)
    run = AnalysisRun.objects.create(campaign=campaign, kind="trueskill")
    SystemRankResult.objects.create(
        run=run, system=systems["AMU"], name="AMU", position=1, mu=0.25, rank_lo=1, rank_hi=1, cluster=1
    )
    PrwsResult.objects.create(
        run=run, system=systems["src"], name="src", position=1, mean=50.0, z_mean=0.0, cluster=1,
        ratings=3, items=1, meaning_changed=0.0,
    )  # fmt: skip
    for model in ("system", "output"):  # as post_migrate made them on a database in use
        ContentType.objects.get_or_create(app_label="ranking", model=model)
    return {
        "systems": {s.name: (s.pk, s.kind, s.corpus_id) for s in System.objects.all()},
        "outputs": sorted(Output.objects.values_list("pk", "system_id", "sentence_id", "text")),
        "campaign": campaign.pk,
        "candidate": candidate.pk,
        "candidate_outputs": sorted(candidate.outputs.values_list("pk", flat=True)),
        "content_types": dict(
            ContentType.objects.filter(app_label="ranking", model__in=["system", "output"]).values_list(
                "model", "pk"
            )
        ),
    }


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_moving_system_and_output_to_annotate_keeps_every_row_and_relation():
    old = _old_world(_migrate(BEFORE))
    _migrate(_leaf_nodes())

    from django.contrib.contenttypes.models import ContentType

    from annotate.models import Output, System
    from ranking.analysis.models import PrwsResult, SystemRankResult
    from ranking.models import Campaign, Candidate, SystemScore

    assert System._meta.db_table == "ranking_system" and Output._meta.db_table == "ranking_output"
    assert {s.name: (s.pk, s.kind, s.corpus_id) for s in System.objects.all()} == old["systems"]
    assert sorted(Output.objects.values_list("pk", "system_id", "sentence_id", "text")) == old["outputs"]
    ids = {name: pk for name, (pk, _, _) in old["systems"].items()}
    campaign = Campaign.objects.get(pk=old["campaign"])
    assert sorted(campaign.systems.values_list("name", flat=True)) == ["AMU", "src"]
    assert (campaign.reference_id, campaign.trap_system_id) == (ids["ref0"], ids["trap"])
    candidate = Candidate.objects.get(pk=old["candidate"])
    assert sorted(candidate.outputs.values_list("pk", flat=True)) == old["candidate_outputs"]
    assert {o.system.name for o in candidate.outputs.all()} == {"src", "AMU"}
    assert SystemScore.objects.get().system.name == "AMU"
    assert SystemRankResult.objects.get().system_id == ids["AMU"]
    assert PrwsResult.objects.get().system_id == ids["src"]
    # reverse relations work from the new home
    assert System.objects.get(name="AMU").campaigns.get().pk == campaign.pk
    assert System.objects.get(name="AMU").outputs.count() == 3
    # content types follow the models, keeping their ids (permissions and admin log rows point at them)
    assert (
        dict(
            ContentType.objects.filter(app_label="annotate", model__in=["system", "output"]).values_list(
                "model", "pk"
            )
        )
        == old["content_types"]
    )
    assert not ContentType.objects.filter(app_label="ranking", model__in=["system", "output"]).exists()

    # the database's own foreign keys still guard the moved tables
    with pytest.raises(IntegrityError), transaction.atomic():
        Output.objects.create(system_id=10**9, sentence_id=old["outputs"][0][2], text="orphan")
        connection.check_constraints()  # both engines defer foreign key checks to here or the commit
    # and the move is reversible: back to the old state and forward again keeps the rows
    _migrate(BEFORE)
    _migrate(_leaf_nodes())
    assert sorted(Output.objects.values_list("pk", "system_id", "sentence_id", "text")) == old["outputs"]
