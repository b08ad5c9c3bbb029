"""Builders for the rewrite-collection tests."""

from __future__ import annotations

from django.contrib.auth.models import Group

from annotate.models import Corpus, Role
from annotate.services import SentenceRecord, corpus_create
from tests import factories

SOURCES = [
    "He do n't like cats , she said .",
    "Every person need to know a bit about math .",
    "I goes to school every days .",
    "This are a sentence .",
]


def tokenized_corpus(project, sources=SOURCES, name: str = "jfleg-like") -> Corpus:
    return corpus_create(
        project=project,
        name=name,
        tokenized=True,
        sentences=[
            SentenceRecord(text=s, document_id="d1", paragraph_position=i) for i, s in enumerate(sources)
        ],
    )


def ensure_role_groups() -> None:
    """Transactional tests flush the groups migration 0002 made; the role names are all the app needs."""
    for role in Role:
        Group.objects.get_or_create(name=role)


def team(n_annotators: int = 3, n_experts: int = 2):
    ensure_role_groups()
    researcher = factories.user("res", "researcher")
    annotators = [factories.user(f"ann{i}", "annotator") for i in range(n_annotators)]
    experts = [factories.user(f"exp{i}", "expert") for i in range(n_experts)]
    project = factories.project(researcher, members=annotators + experts)
    return researcher, annotators, experts, project
