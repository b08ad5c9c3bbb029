from __future__ import annotations

from django import forms

from ranking.analysis.metrics import METRICS
from ranking.analysis.models import AnalysisKind, AnalysisRun, ImportedScores, RunStatus
from ranking.analysis.parameters import DEFAULT_CHUNKS, MAX_SEED
from ranking.analysis.services import SUPPORTED_KINDS
from ranking.protocols import human_score_choices


class RunForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, AnalysisKind(k).label) for k in SUPPORTED_KINDS])
    seed = forms.IntegerField(min_value=0, max_value=MAX_SEED, initial=0)
    runs = forms.IntegerField(
        min_value=1,
        max_value=100_000,
        initial=1000,
        required=False,
        help_text="TrueSkill / Expected Wins bootstrap runs",
    )
    chunks = forms.IntegerField(
        min_value=1, max_value=1000, initial=DEFAULT_CHUNKS, required=False, help_text="split across workers"
    )
    estimate_needed = forms.BooleanField(
        required=False, label="Estimate judgments still needed (resampling at 1.5×, 2×, 4×)"
    )
    metrics = forms.MultipleChoiceField(
        choices=[(m, m) for m in METRICS], initial=["gleu", "bleu", "chrf"], required=False,
        widget=forms.CheckboxSelectMultiple,
    )  # fmt: skip
    human_run = forms.TypedChoiceField(
        coerce=int,
        empty_value=None,
        required=False,
        label="Human run",
        help_text="meta-evaluation and ensemble: a finished human ranking (PRWS summary for the ensemble)",
    )
    metric_run = forms.TypedChoiceField(
        coerce=int,
        empty_value=None,
        required=False,
        label="Metric run",
        help_text="meta-evaluation: a finished metric scores run",
    )
    human_score = forms.ChoiceField(
        choices=[],
        required=False,
        label="Human score",
        help_text="meta-evaluation: what the metrics are correlated with",
    )
    synthetic = forms.BooleanField(
        required=False, label="Add synthetic systems (hybrid super-sampling; needs a PRWS human run)"
    )
    allow_missing = forms.BooleanField(
        required=False,
        label="Allow missing scores",
        help_text="run even when fewer than 90% of the judged systems (or, at sentence level, judged "
        "pairs) find their metric scores; without it such a run fails naming what did not match",
    )
    imported = forms.MultipleChoiceField(
        choices=[],
        required=False,
        label="Imported metric scores",
        help_text="meta-evaluation: scores of metrics run elsewhere, uploaded below, beside ours",
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, campaign=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        runs = AnalysisRun.objects.none()
        if campaign is not None:
            runs = (
                AnalysisRun.objects.filter(campaign__project_id=campaign.project_id, status=RunStatus.DONE)
                .select_related("campaign")
                .order_by("-created")
            )
        human_kinds = (AnalysisKind.TRUESKILL, AnalysisKind.EXPECTED_WINS, AnalysisKind.PRWS_SUMMARY)
        label = lambda r: f"#{r.pk} {r.get_kind_display()} · {r.campaign.name}"  # noqa: E731
        self.fields["human_run"].choices = [("", "—")] + [
            (r.pk, label(r)) for r in runs if r.kind in human_kinds
        ]
        self.fields["metric_run"].choices = [("", "—")] + [
            (r.pk, label(r)) for r in runs if r.kind == AnalysisKind.METRIC_SCORES
        ]
        self.fields["human_score"].choices = [
            ("", "the human run's own score (TrueSkill mu, Expected Wins, PRWS mean)"),
            *human_score_choices(),
        ]
        imported = ImportedScores.objects.none()
        if campaign is not None:
            imported = ImportedScores.objects.filter(corpus_id=campaign.corpus_id)
        self.fields["imported"].choices = [
            (s.name, f"{s.name} ({s.get_level_display()})") for s in imported.order_by("name")
        ]
        if not self.fields["imported"].choices:
            del self.fields["imported"]

    def parameters(self) -> dict:
        d = self.cleaned_data
        kind = d["kind"]
        if kind in ("trueskill", "expected_wins"):
            return {
                "runs": d["runs"] or 1000,
                "chunks": d["chunks"] or DEFAULT_CHUNKS,
                "estimate_needed": d["estimate_needed"],
            }
        if kind == "metric_scores":
            return {"metrics": d["metrics"] or ["gleu"]}
        if kind == "ensemble":
            return {"human_run": d["human_run"]}
        if kind == "meta_eval":
            params = {"human_run": d["human_run"], "metric_run": d["metric_run"]}
            if d["synthetic"]:
                params["synthetic"] = {"samples": 1}
            if d.get("human_score"):
                params["human_score"] = d["human_score"]
            if d.get("imported"):
                params["imported"] = d["imported"]
            if d.get("allow_missing"):
                params["allow_missing"] = True
            return params
        return {}


class ImportedScoresForm(forms.Form):
    name = forms.CharField(
        max_length=50,
        label="Metric name",
        help_text="e.g. SOME; a second file under the same name replaces the first",
    )
    file = forms.FileField(
        label="Scores file",
        help_text="per system (system, score) or per sentence (system, item, score; items named as in "
        "the judgment exports): CSV, TSV or JSON",
    )
