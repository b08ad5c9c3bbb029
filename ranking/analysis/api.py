"""REST API for analysis runs: create, list, progress, results, resume, table exports."""

from __future__ import annotations

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from annotate.api import IsResearcher
from annotate.http import parse_id
from ranking.analysis import exports, services
from ranking.analysis.models import (
    AnalysisRun,
    CorrelationResult,
    MetricResult,
    PrwsResult,
    RunStatus,
    SentenceCorrelationResult,
    SystemRankResult,
)
from ranking.analysis.parameters import MAX_SEED
from ranking.analysis.selectors import run_list_for, run_progress, run_results
from ranking.selectors import campaign_list_for


class AnalysisRunSerializer(serializers.ModelSerializer):
    class Meta:
        model = AnalysisRun
        fields = [
            "id", "campaign", "kind", "parameters", "seed", "status", "progress_done", "progress_total",
            "judgments_used", "pairs_used", "excluded_workers", "versions", "timings", "summary", "study", "error",
            "created", "started", "finished",
        ]  # fmt: skip
        read_only_fields = fields


MAX_PARAMETER_DEPTH = 8


def _parameters_problem(parameters: dict) -> str | None:
    """What PostgreSQL's jsonb (or Python's recursion limit) would refuse with a server error: NUL or a
    lone surrogate in any key or string (DRF's CharField refuses both, a DictField checks nothing), or
    nesting deeper than any run kind uses. Iterative: the input may be nested ~1,000 deep."""
    stack = [(parameters, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_PARAMETER_DEPTH:
            return f"Nested deeper than {MAX_PARAMETER_DEPTH} levels."
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return "Lone surrogates are not allowed."
            if "\x00" in value:
                return "Null characters are not allowed."
        elif isinstance(value, dict):
            stack.extend((item, depth + 1) for pair in value.items() for item in pair)
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
    return None


class AnalysisRunCreateSerializer(serializers.Serializer):
    campaign = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=[str(k) for k in services.SUPPORTED_KINDS])
    seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0)
    parameters = serializers.DictField(
        required=False,
        default=dict,
        help_text="trueskill/expected_wins: runs, chunks, estimate_needed; prws_summary: samples; "
        "metric_scores: metrics, reference_sets {name: [reference system names]}; "
        "meta_eval: human_run, metric_run, exclude, imported [names of imported scores of the corpus], "
        "allow_missing (true: run even when under 90% of the judged systems or pairs find their scores)",
    )

    def validate_parameters(self, value: dict) -> dict:
        problem = _parameters_problem(value)
        if problem is not None:
            raise serializers.ValidationError(problem)
        return value


class ProgressSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.FloatField()
    error = serializers.CharField()
    chunks = serializers.DictField(child=serializers.IntegerField())


class RankRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = SystemRankResult
        fields = [
            "position",
            "name",
            "system",
            "mu",
            "rank_lo",
            "rank_hi",
            "cluster",
            "expected_wins",
            "pairs",
        ]


class PrwsRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = PrwsResult
        fields = [
            "position",
            "name",
            "system",
            "mean",
            "z_mean",
            "cluster",
            "ratings",
            "items",
            "meaning_changed",
        ]


class MetricRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = MetricResult
        fields = ["name", "reference_set", "metric", "score", "details", "signature"]


class CorrelationRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = CorrelationResult
        fields = [
            "metric",
            "reference_set",
            "systems",
            "pearson",
            "spearman",
            "kendall",
            "williams",
            "points",
        ]


class SentenceRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = SentenceCorrelationResult
        fields = ["metric", "reference_set", "pair_counts"]


class RunResultsSerializer(serializers.Serializer):
    run = AnalysisRunSerializer()
    ranks = RankRowSerializer(many=True)
    prws = PrwsRowSerializer(many=True)
    metrics = MetricRowSerializer(many=True)
    correlations = CorrelationRowSerializer(many=True)
    sentences = SentenceRowSerializer(
        many=True,
        help_text="sentence-level agreement per pair of systems (meta-evaluation over a ranking human run): "
        "[system a, system b, concordant, discordant, metric ties, human ties, missing]",
    )


EXPORTS = {
    "ranking.csv": ("ranks", exports.rankings_csv, "text/csv"),
    "ranking.tex": ("ranks", exports.rankings_latex, "text/x-tex"),
    "metrics.csv": ("metrics", exports.metric_csv, "text/csv"),
    "metrics.tex": ("metrics", exports.metric_latex, "text/x-tex"),
}


@extend_schema_view(
    list=extend_schema(
        parameters=[OpenApiParameter("campaign", int, description="only this campaign's runs")]
    )
)
class AnalysisRunViewSet(viewsets.mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Analysis runs of the campaigns you can see. Creating one sends it to the workers."""

    permission_classes = [IsResearcher]
    serializer_class = AnalysisRunSerializer

    def get_queryset(self):
        qs = run_list_for(self.request.user)
        campaign = self.request.query_params.get("campaign")
        if campaign is not None:
            campaign_id = parse_id(campaign)
            if campaign_id is None:
                raise ValidationError({"campaign": "must be an integer id"})
            qs = qs.filter(campaign_id=campaign_id)
        return qs

    @extend_schema(request=AnalysisRunCreateSerializer, responses={201: AnalysisRunSerializer})
    def create(self, request, *args, **kwargs):
        payload = AnalysisRunCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        campaign = campaign_list_for(request.user).filter(pk=data["campaign"]).first()
        if campaign is None:
            raise ValidationError({"campaign": "no such campaign in your projects"})
        for key in ("human_run", "metric_run"):
            ref = data["parameters"].get(key)
            if ref is not None and not run_list_for(request.user).filter(pk=ref).exists():
                raise ValidationError({"parameters": f"run #{ref} is not a run of your projects"})
        try:
            run = services.analysis_run_create(
                campaign=campaign,
                kind=data["kind"],
                parameters=data["parameters"],
                seed=data["seed"],
                created_by=request.user,
            )
        except (services.AnalysisError, TypeError) as exc:
            raise ValidationError({"detail": str(exc)}) from None
        services.analysis_run_enqueue(run)
        run.refresh_from_db()
        return Response(AnalysisRunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=ProgressSerializer)
    @action(detail=True, methods=["get"])
    def progress(self, request, pk=None):
        return Response(run_progress(self.get_object()))

    @extend_schema(responses=RunResultsSerializer)
    @action(detail=True, methods=["get"])
    def results(self, request, pk=None):
        run = self.get_object()
        res = (
            run_results(run)
            if run.status == RunStatus.DONE
            else {"ranks": [], "prws": [], "metrics": [], "correlations": [], "sentences": []}
        )
        return Response(RunResultsSerializer({"run": run, **res}).data)

    @extend_schema(request=None, responses=ProgressSerializer)
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        run = self.get_object()
        try:
            services.analysis_run_resume(run=run)
        except services.BrokerUnreachable:
            # the run is left pending in the database: beat's repair sends it once the broker is back
            return Response({"detail": services.QUEUE_DOWN}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        run.refresh_from_db()
        return Response(run_progress(run))

    @extend_schema(
        parameters=[
            OpenApiParameter("fmt", str, enum=[*EXPORTS, "model.json"], location=OpenApiParameter.QUERY)
        ],
        responses={
            (200, "text/csv"): str,
            (200, "text/x-tex"): str,
            (200, "application/json"): OpenApiTypes.OBJECT,
        },
    )
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        run = self.get_object()
        fmt = request.query_params.get("fmt", "ranking.csv")
        if fmt not in EXPORTS and fmt != "model.json":
            raise ValidationError({"fmt": f"one of {', '.join(EXPORTS)}, model.json"})
        if fmt == "model.json":
            if not run.summary.get("model"):
                raise NotFound("this run has no model")
            return Response(run.summary["model"])
        table, fn, ctype = EXPORTS[fmt]
        rows = run_results(run)[table] if run.status == RunStatus.DONE else []
        if not rows:
            raise NotFound("no such table in this run")
        response = HttpResponse(fn(rows), content_type=f"{ctype}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-{fmt}"'
        return response


class JudgmentExportViewSet(viewsets.ViewSet):
    """A campaign's valid judgments as a file (streamed), worker ids pseudonymised: ``GET
    /judgment-exports/{campaign id}/?fmt=NAME``, a format the campaign's protocol offers."""

    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[
            OpenApiParameter("id", int, location=OpenApiParameter.PATH, description="campaign id"),
            OpenApiParameter(
                "fmt",
                str,
                enum=exports.all_judgment_formats(),
                location=OpenApiParameter.QUERY,
                description="one the campaign's protocol offers (PRWS: all four; ranking: wmt-csv, "
                "appraise-xml; edit-level: edit-jsonl, wmt-csv, appraise-xml)",
            ),
        ],
        responses={(200, content_type): str for content_type in exports.all_judgment_content_types()},
    )
    def retrieve(self, request, pk=None):
        campaign_id = parse_id(pk)
        if campaign_id is None:
            raise NotFound("no such campaign")
        campaign = campaign_list_for(request.user).filter(pk=campaign_id).first()
        if campaign is None:
            raise NotFound("no such campaign in your projects")
        fmt = request.query_params.get("fmt", "wmt-csv")
        offered = exports.judgment_formats(campaign)
        if fmt not in offered:
            raise ValidationError({"fmt": f"one of {', '.join(offered)}"})
        chosen = offered[fmt]
        response = StreamingHttpResponse(
            chosen.writer(campaign), content_type=f"{chosen.content_type}; charset=utf-8"
        )
        response["Content-Disposition"] = (
            f'attachment; filename="campaign-{campaign.pk}-{fmt}.{chosen.extension}"'
        )
        return response
