"""REST API for systems, campaigns and their results."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from annotate.api import IsResearcher
from annotate.models import System
from annotate.selectors import corpus_list_for
from geceval.errors import GecInputError
from geceval.insert_errors import ERROR_TYPES
from geceval.traps import DEFAULT_MIN_DROP, MIN_DROP_FLOOR
from geceval.worker_checks import (
    DEFAULT_TRAP_MIN_SEEN,
    DEFAULT_TRAP_THRESHOLD,
    MANN_WHITNEY_MIN_RANKED_TRAPS,
    MANN_WHITNEY_MIN_TRAPS,
)
from ranking.evidence import exclusion_rules
from ranking.models import Campaign, SystemScore, TrapDesign
from ranking.protocols import DEFAULT_PROTOCOL, protocol_choices
from ranking.selectors import (
    campaign_list_for,
    campaign_progress,
    campaign_results,
)
from ranking.services import (
    campaign_create,
    campaign_exclusion_rules_set,
)
from ranking.services.campaigns import campaign_options
from ranking.services.life_cycle import TRANSITIONS, campaign_transition


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
            "id",
            "project",
            "corpus",
            "name",
            "protocol",
            "origin",
            "status",
            "domain",
            "systems",
            "reference",
            "judgments_per_item",
            "max_candidates",
            "screens_per_sentence",
            "active_selection",
            "show_changes",
            "preview_line",
            "screens_per_hit",
            "assignment_minutes",
            "separate_domains",
            "trap_design",
            "trap_system",
            "trap_rate",
            "trap_margin",
            "trap_min_drop",
            "trap_error_types",
            "trap_errors",
            "repeat_rate",
            "speed_rule",
            "speed_base_seconds",
            "speed_seconds_per_word",
            "trap_threshold",
            "trap_min_seen",
            "exclude_by_pass_rate",
            "exclude_by_mann_whitney",
            "exclude_by_consistency",
            "exclude_by_flat",
            "exclude_by_agreement",
            "reward_per_hit",
            "budget",
            "qualification",
            "screen_count",
            "judgment_count",
            "created",
        ]
        read_only_fields = fields

    def get_trap_error_types(self, campaign: Campaign) -> list[str]:
        return list(campaign.trap_types or ())

    def get_preview_line(self, campaign: Campaign) -> int | None:
        sentence = campaign.preview_sentence
        return None if sentence is None else sentence.position + 1


class CampaignCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    corpus = serializers.IntegerField()
    systems = serializers.ListField(child=serializers.IntegerField(), min_length=1)
    protocol = serializers.ChoiceField(choices=[], default=DEFAULT_PROTOCOL)
    judgments_per_item = serializers.IntegerField(min_value=1, max_value=50, default=8)
    max_candidates = serializers.IntegerField(
        min_value=1, max_value=5, default=5, help_text="the protocol's screen size: PRWS 2-5, ranking 2-5"
    )
    screens_per_sentence = serializers.IntegerField(min_value=1, max_value=20, default=1)
    active_selection = serializers.BooleanField(default=False)
    show_changes = serializers.BooleanField(
        default=False,
        help_text="Judgment screens offer each correction's changes against the original as a word diff; the worker turns it on and off with the d key (off by default, as in the papers' screens).",
    )
    screens_per_hit = serializers.IntegerField(min_value=1, max_value=200, default=20)
    assignment_minutes = serializers.IntegerField(min_value=1, max_value=1440, default=60)
    separate_domains = serializers.BooleanField(default=False)
    domain = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    status = serializers.ChoiceField(
        choices=["draft", "pilot", "active"],
        default="draft",
        help_text="draft (default): nothing handed out until launched (POST .../transition/)",
    )
    trap_design = serializers.ChoiceField(
        choices=TrapDesign.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="hidden (default) or paper (chosen too by giving a Source+error trap_system)",
    )
    trap_system = serializers.IntegerField(required=False, allow_null=True, default=None)
    trap_rate = serializers.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="null: 0.2 trap screens per judged screen (hidden), 0 (paper)",
    )
    trap_margin = serializers.IntegerField(min_value=1, max_value=50, default=1)
    trap_min_drop = serializers.FloatField(min_value=MIN_DROP_FLOOR, max_value=1, default=DEFAULT_MIN_DROP)
    trap_error_types = serializers.ListField(
        child=serializers.ChoiceField(choices=ERROR_TYPES),
        default=list,
        help_text="errors a generated trap may add (empty: every type)",
    )
    trap_errors = serializers.ChoiceField(
        choices=[1, 2], allow_null=True, default=None, help_text="errors per generated trap (null: 1 or 2)"
    )
    speed_rule = serializers.BooleanField(
        default=True, help_text="a screen faster than its minimum is a failed trap; a HIT under half is held"
    )
    speed_base_seconds = serializers.FloatField(min_value=0, max_value=600, default=2.0)
    speed_seconds_per_word = serializers.FloatField(min_value=0, max_value=10, default=0.05)
    repeat_rate = serializers.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="null: 0.05 repeats per judged screen (hidden), 0 (paper)",
    )
    trap_threshold = serializers.FloatField(min_value=0, max_value=1, default=DEFAULT_TRAP_THRESHOLD)
    trap_min_seen = serializers.IntegerField(min_value=1, max_value=100, default=DEFAULT_TRAP_MIN_SEEN)
    exclude_by_pass_rate = serializers.BooleanField(
        default=True, help_text="trap pass rate below the threshold"
    )
    exclude_by_mann_whitney = serializers.BooleanField(
        default=True,
        help_text=f"traps not rated worse than their bases (Appraise's test, from {MANN_WHITNEY_MIN_TRAPS} scored traps, {MANN_WHITNEY_MIN_RANKED_TRAPS} ranked)",
    )
    exclude_by_consistency = serializers.BooleanField(
        default=False, help_text="repeated screens answered far apart"
    )
    exclude_by_flat = serializers.BooleanField(
        default=False, help_text="near-constant answers, or answers that follow display position"
    )
    exclude_by_agreement = serializers.BooleanField(
        default=False,
        help_text="agreement with the other workers far below the campaign's (such a worker's HITs are "
        "held for the researcher either way)",
    )
    instructions = serializers.CharField(required=False, allow_blank=True, default="")
    preview_line = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="the corpus line (from 1) a platform's preview shows as an example screen, never "
        "judged, stored or counted (null: a built-in example; never a screen of the campaign)",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["protocol"].choices = protocol_choices()  # the registry as it is now


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
        trap = None
        if data["trap_system"] is not None:
            trap = System.objects.filter(corpus=corpus, pk=data["trap_system"]).first()
            if trap is None:
                raise ValidationError({"trap_system": "no such system in the corpus"})
        try:
            campaign = campaign_create(
                project=corpus.project,
                corpus=corpus,
                name=data["name"],
                systems=systems,
                created_by=request.user,
                status=data["status"],
                **campaign_options({**data, "trap_system": trap}),
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
