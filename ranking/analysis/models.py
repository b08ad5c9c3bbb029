"""Analysis runs and their results (imported into ranking.models so Django finds them).

A run reads a campaign (collected or imported) once, when it starts: the
judgments it uses are frozen in its ``RunInput``, so its chunks all see the
same data and its results never change after it finishes. New data = a new run.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class AnalysisKind(models.TextChoices):
    TRUESKILL = "trueskill", "Human ranking: TrueSkill"
    EXPECTED_WINS = "expected_wins", "Human ranking: Expected Wins"
    PRWS_SUMMARY = "prws_summary", "PRWS summary"
    METRIC_SCORES = "metric_scores", "Metric scores"
    META_EVAL = "meta_eval", "Meta-evaluation (metric vs human)"
    ENSEMBLE = "ensemble", "Ensemble"
    GLEU_VS_REFS = "gleu_vs_refs", "GLEU vs number of references"


class RunStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    MERGING = "merging"
    DONE = "done"
    FAILED = "failed"


class AnalysisRun(models.Model):
    campaign = models.ForeignKey("ranking.Campaign", on_delete=models.CASCADE, related_name="analysis_runs")
    kind = models.CharField(max_length=20, choices=AnalysisKind.choices)
    parameters = models.JSONField(default=dict, blank=True)
    seed = models.IntegerField(default=0)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.PENDING)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(default=0)
    judgments_used = models.PositiveIntegerField(default=0, help_text="valid judgments (screens) read")
    pairs_used = models.PositiveIntegerField(default=0, help_text="pairwise judgments (ranking runs)")
    excluded_workers = models.PositiveIntegerField(default=0)
    versions = models.JSONField(default=dict, blank=True, help_text="code and library versions")
    timings = models.JSONField(default=dict, blank=True, help_text="seconds per step")
    summary = models.JSONField(default=dict, blank=True, help_text="run-level results, e.g. reliability")
    study = models.JSONField(
        default=dict,
        blank=True,
        help_text="the campaign's study document when the run was made (study export)",
    )
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in AnalysisKind]), name="analysis_run_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in RunStatus]), name="analysis_run_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(progress_done__lte=models.F("progress_total")), name="analysis_run_progress_ok"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} of {self.campaign_id} ({self.status})"


class RunInput(models.Model):
    """The data a run reads, frozen when it starts (e.g. pairwise judgments as lists)."""

    run = models.OneToOneField(AnalysisRun, on_delete=models.CASCADE, related_name="input")
    data = models.JSONField(default=dict)
    arrays = models.BinaryField(
        null=True, blank=True, help_text="numeric input as a numpy .npz archive (ranking.analysis.frozen)"
    )

    def __str__(self) -> str:
        return f"input of run {self.run_id}"


class ChunkStatus(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"


class ChunkPhase(models.TextChoices):
    FREEZE = "freeze", "freeze part"
    RUNS = "runs", "bootstrap runs"


class RunChunk(models.Model):
    """Some of a ranking run's bootstrap runs, or one part of its freeze (the pairs of a share of a
    compact campaign's sentences, ``services._freeze_part_execute``); a worker claims it by a
    conditional update."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    run_indices = models.JSONField()
    phase = models.CharField(max_length=10, choices=ChunkPhase.choices, default=ChunkPhase.RUNS)
    status = models.CharField(max_length=10, choices=ChunkStatus.choices, default=ChunkStatus.PENDING)
    steps_done = models.PositiveBigIntegerField(default=0)
    steps_total = models.PositiveBigIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    claimed = models.DateTimeField(null=True, blank=True)
    alive = models.DateTimeField(
        null=True, blank=True, help_text="the computing worker's last sign of life: its lease on the chunk"
    )
    finished = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(
        max_length=120, blank=True, help_text="host:pid of the process that last claimed it"
    )
    result = models.JSONField(
        null=True,
        blank=True,
        help_text="geceval.human.system_ranking.ChunkResult.to_dict(); a freeze part's pair counts and agreement tables",
    )
    arrays = models.BinaryField(
        null=True, blank=True, help_text="a freeze part's pairs (ranking.analysis.frozen.part_to_bytes)"
    )

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="run_chunk_unique_index"),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in ChunkStatus]), name="run_chunk_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(phase__in=[p.value for p in ChunkPhase]), name="run_chunk_phase_valid"
            ),
            models.CheckConstraint(
                condition=~Q(status=ChunkStatus.DONE) | Q(result__isnull=False),
                name="run_chunk_done_has_result",
            ),
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of run {self.run_id} ({self.status})"


class SystemRankResult(models.Model):
    """A system's place in a TrueSkill or Expected Wins run (papers' ranking table)."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="rank_results")
    system = models.ForeignKey("annotate.System", on_delete=models.SET_NULL, null=True, blank=True)
    name = models.CharField(max_length=200)
    position = models.PositiveSmallIntegerField(help_text="1 = best")
    mu = models.FloatField(help_text="mean TrueSkill mu, or Expected Wins on all judgments")
    rank_lo = models.PositiveSmallIntegerField()
    rank_hi = models.PositiveSmallIntegerField()
    cluster = models.PositiveSmallIntegerField()
    expected_wins = models.FloatField(null=True, blank=True)
    pairs = models.PositiveIntegerField(default=0, help_text="pairwise judgments involving the system")

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "name"], name="rank_result_unique_system"),
            models.UniqueConstraint(fields=["run", "position"], name="rank_result_unique_position"),
            models.CheckConstraint(
                condition=Q(rank_lo__lte=models.F("rank_hi")), name="rank_result_range_ok"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.name} {self.mu:.3f}"


class PrwsResult(models.Model):
    """A system's PRWS summary: mean of sentence means, raw and z-scored, with its cluster."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="prws_results")
    system = models.ForeignKey("annotate.System", on_delete=models.SET_NULL, null=True, blank=True)
    name = models.CharField(max_length=200)
    position = models.PositiveSmallIntegerField()
    mean = models.FloatField()
    z_mean = models.FloatField()
    cluster = models.PositiveSmallIntegerField()
    ratings = models.PositiveIntegerField()
    items = models.PositiveIntegerField()
    meaning_changed = models.FloatField(help_text="share of ratings marking a meaning change")

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "name"], name="prws_result_unique_system"),
            models.UniqueConstraint(fields=["run", "position"], name="prws_result_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.mean:.2f}"


class MetricResult(models.Model):
    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="metric_results")
    name = models.CharField(max_length=200, help_text="system (or synthetic system) scored")
    reference_set = models.CharField(max_length=200)
    metric = models.CharField(max_length=50)
    score = models.FloatField()
    details = models.JSONField(default=dict, blank=True)
    signature = models.JSONField(
        default=dict,
        blank=True,
        help_text="what produced the score (geceval.metrics Signature.as_dict(): metric, version, "
        "tokenisation, parameters, references, libraries); empty for rows made before it was kept",
    )

    class Meta:
        ordering = ["run", "metric", "reference_set", "-score"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "name", "reference_set", "metric"], name="metric_result_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.metric}/{self.reference_set} {self.name}: {self.score:.4f}"


class CorrelationResult(models.Model):
    """System-level agreement of one metric × reference set with a human run; Williams p against the others."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="correlation_results")
    metric = models.CharField(max_length=50)
    reference_set = models.CharField(max_length=200)
    systems = models.PositiveSmallIntegerField()
    pearson = models.FloatField(null=True, blank=True)
    spearman = models.FloatField(null=True, blank=True)
    kendall = models.FloatField(null=True, blank=True)
    williams = models.JSONField(
        default=dict,
        blank=True,
        help_text="'metric/refset' of another row -> one-sided p that this one is better",
    )
    points = models.JSONField(
        default=list, blank=True, help_text="[[system, metric score, human score], ...]"
    )

    class Meta:
        ordering = ["run", "reference_set", "metric"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "metric", "reference_set"], name="correlation_result_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.metric}/{self.reference_set}: r={self.pearson}"


class SentenceCorrelationResult(models.Model):
    """Sentence-level agreement of one metric × reference set with the human run's pairwise
    judgments (WMT tau variant and pairwise accuracy), kept split by the pair of systems judged so
    the page sums it over any subset of systems by their current tags
    (``geceval.metaeval.kobayashi2024.sentence_pair_counts``)."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="sentence_results")
    metric = models.CharField(max_length=50)
    reference_set = models.CharField(max_length=200)
    pair_counts = models.JSONField(
        default=list,
        blank=True,
        help_text="[[system a, system b, concordant, discordant, metric ties, human ties, missing], ...]",
    )

    class Meta:
        ordering = ["run", "reference_set", "metric"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "metric", "reference_set"], name="sentence_correlation_result_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"sentence level {self.metric}/{self.reference_set} of run {self.run_id}"


class ScoreLevel(models.TextChoices):
    SYSTEM = "system", "per system"
    SENTENCE = "sentence", "per sentence"


class ImportedScores(models.Model):
    """A metric's scores computed elsewhere (SOME, IMPARA, PT-M2, ...) for a corpus's systems, per
    system or per sentence, meta-evaluated beside ours by the runs that choose them."""

    corpus = models.ForeignKey("annotate.Corpus", on_delete=models.CASCADE, related_name="imported_scores")
    name = models.CharField(max_length=50, help_text="the metric's name on the pages")
    level = models.CharField(max_length=10, choices=ScoreLevel.choices)
    scores = models.JSONField(
        help_text="system -> score, or system -> {sentence as judgment files name it (id or 0-based line) -> score}"
    )
    systems = models.PositiveIntegerField()
    sentences = models.PositiveIntegerField(default=0, help_text="sentences scored (per-sentence files)")
    left_out = models.PositiveIntegerField(
        default=0, help_text="items of the file that are not sentences of the corpus"
    )
    file_name = models.CharField(max_length=255, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["corpus", "name"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "name"], name="imported_scores_unique_name"),
            models.CheckConstraint(
                condition=Q(level__in=[c.value for c in ScoreLevel]), name="imported_scores_level_valid"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="imported_scores_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_level_display()}) for corpus {self.corpus_id}"


class AnalysisCache(models.Model):
    """Expensive per-content work shared by all workers (e.g. ERRANT reference M2), keyed by a content hash."""

    kind = models.CharField(max_length=40)
    key = models.CharField(max_length=64, help_text="sha256 of the inputs")
    value = models.TextField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="analysis_cache_unique_key")]

    def __str__(self) -> str:
        return f"{self.kind}:{self.key[:12]}"


__all__ = [
    "AnalysisCache",
    "AnalysisKind",
    "AnalysisRun",
    "ChunkPhase",
    "ChunkStatus",
    "CorrelationResult",
    "ImportedScores",
    "MetricResult",
    "PrwsResult",
    "RunChunk",
    "RunInput",
    "RunStatus",
    "ScoreLevel",
    "SentenceCorrelationResult",
    "SystemRankResult",
]
