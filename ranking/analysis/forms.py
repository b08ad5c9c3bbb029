from __future__ import annotations

from django import forms

from ranking.analysis.compute import METRICS
from ranking.analysis.models import AnalysisKind
from ranking.analysis.services import SUPPORTED_KINDS


class RunForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, AnalysisKind(k).label) for k in SUPPORTED_KINDS])
    seed = forms.IntegerField(min_value=0, initial=0)
    runs = forms.IntegerField(
        min_value=1,
        max_value=100_000,
        initial=1000,
        required=False,
        help_text="TrueSkill / Expected Wins bootstrap runs",
    )
    chunks = forms.IntegerField(
        min_value=1, max_value=1000, initial=8, required=False, help_text="split across workers"
    )
    estimate_needed = forms.BooleanField(
        required=False, label="Estimate judgments still needed (resampling at 1.5×, 2×, 4×)"
    )
    metrics = forms.MultipleChoiceField(
        choices=[(m, m) for m in METRICS], initial=["gleu", "bleu", "chrf"], required=False,
        widget=forms.CheckboxSelectMultiple,
    )  # fmt: skip
    human_run = forms.IntegerField(
        required=False,
        help_text="meta-evaluation and ensemble: id of a finished human run (PRWS summary for the ensemble)",
    )
    metric_run = forms.IntegerField(required=False, help_text="meta-evaluation: id of a finished metric run")
    synthetic = forms.BooleanField(
        required=False, label="Add synthetic systems (hybrid super-sampling; needs a PRWS human run)"
    )

    def parameters(self) -> dict:
        d = self.cleaned_data
        kind = d["kind"]
        if kind in ("trueskill", "expected_wins"):
            return {
                "runs": d["runs"] or 1000,
                "chunks": d["chunks"] or 8,
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
            return params
        return {}
