"""REST API for systems, campaigns and their results."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from annotate.api import IsResearcher
from annotate.models import Qualification, System
from annotate.selectors import corpus_list_for
from geceval.errors import GecInputError
from ranking.campaign_settings import SETTINGS, Setting
from ranking.models import Campaign, SystemScore
from ranking.quality.rules import exclusion_rules
from ranking.selectors import (
    campaign_list_for,
    campaign_progress,
    campaign_results,
)
from ranking.services import (
    campaign_create,
    campaign_exclusion_rules_set,
)
from ranking.services.campaigns import campaign_options, fresh_seed
from ranking.services.life_cycle import TRANSITIONS, campaign_transition
from ranking.study.schema import study_schema


class CampaignSerializer(serializers.ModelSerializer):
    systems = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    screen_count = serializers.IntegerField(read_only=True)
    judgment_count = serializers.IntegerField(read_only=True)
    trap_error_types = serializers.SerializerMethodField(help_text="empty: every type")
    preview_line = serializers.SerializerMethodField(
        help_text="the corpus line (from 1) the preview shows; null: the built-in example"
    )

    class Meta:
        model = Campaign
        fields = [
            *("id", "project", "corpus", "name", "origin", "status", "systems"),
            *(setting.name for setting in SETTINGS),
            *("screen_count", "judgment_count", "created"),
        ]
        read_only_fields = fields

    def get_trap_error_types(self, campaign: Campaign) -> list[str]:
        return list(campaign.trap_types or ())

    def get_preview_line(self, campaign: Campaign) -> int | None:
        sentence = campaign.preview_sentence
        return None if sentence is None else sentence.position + 1


def _api_field(setting: Setting) -> serializers.Field:
    """The create serializer's field for one setting of the list (``ranking.campaign_settings``); a
    system or qualification is given by id."""
    common: dict = {"default": setting.proposed}
    if setting.blank:
        common.update(required=False, allow_null=True)
    if setting.help:
        common["help_text"] = setting.help
    bounds = {
        k: v for k, v in (("min_value", setting.minimum), ("max_value", setting.maximum)) if v is not None
    }
    kind = setting.kind
    if setting.choices and kind in ("int", "choice"):
        return serializers.ChoiceField(choices=[], **common)  # choices filled in per instance (registry)
    if kind == "choices":
        child = serializers.ChoiceField(choices=[c for c, _ in setting.choice_list()])
        return serializers.ListField(child=child, default=list, help_text=setting.help)
    if kind in ("int", "system", "qualification"):
        return serializers.IntegerField(**bounds, **common)
    if kind == "float":
        return serializers.FloatField(**bounds, **common)
    if kind == "decimal":
        return serializers.DecimalField(**bounds, **setting.form_only, **common)
    if kind == "bool":
        return serializers.BooleanField(**common)
    return serializers.CharField(max_length=setting.max_length, allow_blank=True, **common)


class _CampaignCreateBase(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    corpus = serializers.IntegerField()
    systems = serializers.ListField(child=serializers.IntegerField(), min_length=1)
    status = serializers.ChoiceField(
        choices=["draft", "pilot", "active"],
        default="draft",
        help_text="draft (default): nothing handed out until launched (POST .../transition/)",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for setting in SETTINGS:  # the registry as it is now
            if setting.choices and setting.kind in ("int", "choice"):
                self.fields[setting.name].choices = [c for c, _ in setting.choice_list()]


CampaignCreateSerializer = type(
    "CampaignCreateSerializer", (_CampaignCreateBase,), {s.name: _api_field(s) for s in SETTINGS}
)
"""A campaign's name, corpus, systems and status, and the one list of campaign settings."""


class SystemScoreSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="system.name")
    system_id = serializers.IntegerField()
    kind = serializers.CharField(source="system.kind")

    class Meta:
        model = SystemScore
        fields = [
            "system_id",
            "system",
            "kind",
            "mean_score",
            "items",
            "ratings",
            "meaning_changed",
            "updated",
        ]


class CampaignResultsSerializer(serializers.Serializer):
    campaign = serializers.IntegerField()
    progress = serializers.DictField(child=serializers.IntegerField())
    systems = SystemScoreSerializer(many=True)


class TransitionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=[t.action for t in TRANSITIONS])


def _related(corpus, name: str, pk: int | None):
    """A system of the corpus, or a qualification of its project, named by id in the API's data."""
    if pk is None:
        return None
    rows = Qualification.objects.filter(project=corpus.project) if name == "qualification" else corpus.systems
    found = rows.filter(pk=pk).first()
    if found is None:
        where = "project" if name == "qualification" else "corpus"
        raise ValidationError({name: f"no such {name.replace('_', ' ')} in the {where}"})
    return found


@extend_schema_view(
    list=extend_schema(parameters=[OpenApiParameter("corpus", int, description="only this corpus's systems")])
)
class CampaignViewSet(viewsets.mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    permission_classes = [IsResearcher]

    def get_queryset(self):
        return campaign_list_for(self.request.user)

    def get_serializer_class(self):
        return CampaignCreateSerializer if self.action == "create" else CampaignSerializer

    @extend_schema(request=CampaignCreateSerializer, responses={201: CampaignSerializer})
    def create(self, request, *args, **kwargs):
        payload = CampaignCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        corpus = corpus_list_for(request.user).filter(pk=data["corpus"]).first()
        if corpus is None:
            raise ValidationError({"corpus": "no such corpus in your projects"})
        systems = list(System.objects.filter(corpus=corpus, pk__in=data["systems"]))
        if len(systems) != len(set(data["systems"])):
            raise ValidationError({"systems": "every system must belong to the corpus"})
        related = {
            name: _related(corpus, name, data[name]) for name in ("reference", "trap_system", "qualification")
        }
        try:
            campaign = campaign_create(
                project=corpus.project,
                corpus=corpus,
                name=data["name"],
                systems=systems,
                created_by=request.user,
                status=data["status"],
                seed=fresh_seed(),
                **campaign_options({**data, **related}),
            )
        except GecInputError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        campaign_exclusion_rules_set(campaign=campaign, **exclusion_rules(data))
        out = CampaignSerializer(self.get_queryset().get(pk=campaign.pk))
        return Response(out.data, status=status.HTTP_201_CREATED)

    @extend_schema(request=TransitionSerializer, responses=CampaignSerializer)
    @action(detail=True, methods=["post"])
    def transition(self, request, pk=None):
        """One life-cycle step: launch, pilot, pause, resume, close (no new HITs; live ones may
        finish), reopen (as paused) or draft (only before any HIT was handed out)."""
        campaign = self.get_object()
        payload = TransitionSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            campaign_transition(campaign=campaign, action=payload.validated_data["action"])
        except GecInputError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(CampaignSerializer(self.get_queryset().get(pk=campaign.pk)).data)

    @extend_schema(responses=CampaignResultsSerializer)
    @action(detail=True, methods=["get"])
    def results(self, request, pk=None):
        campaign = self.get_object()
        body = {
            "campaign": campaign.pk,
            "progress": campaign_progress(campaign),
            "systems": SystemScoreSerializer(campaign_results(campaign), many=True).data,
        }
        return Response(body)


@require_GET
def study_schema_view(request: HttpRequest) -> JsonResponse:
    """The study file's JSON Schema (issue 39): public, like the API's own schema, and built from the
    one list of campaign settings as the running code has it."""
    return JsonResponse(study_schema(), json_dumps_params={"indent": 2})
