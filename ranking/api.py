"""REST API for systems, campaigns and their results."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from annotate.api import IsResearcher
from annotate.selectors import corpus_list_for
from geceval.errors import GecInputError
from ranking.models import Campaign, System, SystemScore
from ranking.selectors import campaign_list_for, campaign_progress, campaign_results, system_list_for
from ranking.services import campaign_create


class SystemSerializer(serializers.ModelSerializer):
    output_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = System
        fields = ["id", "corpus", "name", "kind", "output_count", "created"]


class CampaignSerializer(serializers.ModelSerializer):
    systems = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    screen_count = serializers.IntegerField(read_only=True)
    judgment_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Campaign
        fields = [
            "id",
            "project",
            "corpus",
            "name",
            "protocol",
            "status",
            "systems",
            "judgments_per_item",
            "max_candidates",
            "screen_count",
            "judgment_count",
            "created",
        ]
        read_only_fields = fields


class CampaignCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    corpus = serializers.IntegerField()
    systems = serializers.ListField(child=serializers.IntegerField(), min_length=1)
    judgments_per_item = serializers.IntegerField(min_value=1, max_value=50, default=8)
    max_candidates = serializers.IntegerField(min_value=2, max_value=5, default=5)
    instructions = serializers.CharField(required=False, allow_blank=True, default="")


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


class SystemViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = SystemSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        qs = system_list_for(self.request.user)
        corpus = self.request.query_params.get("corpus")
        if corpus is not None:
            if not corpus.isdigit():
                raise ValidationError({"corpus": "must be an integer id"})
            qs = qs.filter(corpus_id=int(corpus))
        return qs


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
        try:
            campaign = campaign_create(
                project=corpus.project,
                corpus=corpus,
                name=data["name"],
                systems=systems,
                created_by=request.user,
                judgments_per_item=data["judgments_per_item"],
                max_candidates=data["max_candidates"],
                instructions=data["instructions"],
            )
        except GecInputError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        out = CampaignSerializer(self.get_queryset().get(pk=campaign.pk))
        return Response(out.data, status=status.HTTP_201_CREATED)

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
