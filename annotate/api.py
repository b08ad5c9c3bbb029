"""REST API for projects, corpora and systems: thin views over selectors."""

from __future__ import annotations

from rest_framework import permissions, serializers, viewsets
from rest_framework.exceptions import ValidationError

from annotate.http import parse_id
from annotate.models import Corpus, Project, System
from annotate.roles import is_researcher, researches_a_project
from annotate.selectors import corpus_list_for, project_list_for, system_list_for


class IsResearcher(permissions.BasePermission):
    message = "Researchers only."

    def has_permission(self, request, view) -> bool:
        """Site-wide researchers and researchers of a project (every list is scoped to their projects)."""
        user = request.user
        return bool(user and user.is_authenticated and (is_researcher(user) or researches_a_project(user)))


class ProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["id", "name", "description", "created"]


class CorpusSerializer(serializers.ModelSerializer):
    project = serializers.PrimaryKeyRelatedField(read_only=True)
    sentence_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Corpus
        fields = [
            "id",
            "project",
            "name",
            "language",
            "description",
            "tokenized",
            "sentence_count",
            "created",
        ]


class ProjectViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = ProjectSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        return project_list_for(self.request.user).order_by("name")


class CorpusViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = CorpusSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        return corpus_list_for(self.request.user)


class SystemSerializer(serializers.ModelSerializer):
    output_count = serializers.IntegerField(read_only=True)
    # declared: the model field's pattern and blank make the schema a oneOf that "" matches twice
    tags = serializers.CharField(read_only=True, help_text="meta-evaluation tags: classic, fluent, input")

    class Meta:
        model = System
        fields = ["id", "corpus", "name", "kind", "tags", "output_count", "created"]


class SystemViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = SystemSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        qs = system_list_for(self.request.user)
        corpus = self.request.query_params.get("corpus")
        if corpus is not None:
            corpus_id = parse_id(corpus)
            if corpus_id is None:
                raise ValidationError({"corpus": "must be an integer id"})
            qs = qs.filter(corpus_id=corpus_id)
        return qs
