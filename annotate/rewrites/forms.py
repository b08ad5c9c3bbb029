from __future__ import annotations

from django import forms
from django.contrib.auth.models import Group

from annotate.models import Corpus, Project, Qualification, RewritePreset, Role
from annotate.projects.selectors import current_first


def _corpora(projects, current_project: int | None):
    """The corpora of the user's projects, the current project's first (the nav's switcher)."""
    corpora = Corpus.objects.filter(project__in=projects).select_related("project")
    return current_first(corpora, current_project, "project__name", "name")


class RewriteCampaignForm(forms.Form):
    project = forms.ModelChoiceField(queryset=Project.objects.none())
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.none())
    name = forms.CharField(max_length=200)
    preset = forms.ChoiceField(choices=RewritePreset.choices, label="Instruction preset")
    instructions = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 10}),
        required=False,
        help_text="The full text workers see; empty uses the preset's text.",
    )
    rewrites_per_sentence = forms.IntegerField(
        min_value=1, max_value=50, initial=4, label="Rewrites per sentence"
    )
    groups = forms.ModelMultipleChoiceField(
        queryset=Group.objects.filter(name__in=[Role.ANNOTATOR, Role.EXPERT]).order_by("name"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Allowed groups",
        help_text="None ticked: every annotator and expert of the project.",
    )
    per_group = forms.IntegerField(
        min_value=1,
        max_value=25,
        required=False,
        label="Rewrites per group",
        help_text="Optional: each ticked group gets this many rewrites of every sentence (e.g. 2 expert + 2 crowd).",
    )
    ask_difficulty = forms.BooleanField(required=False, label="Ask a 1-5 difficulty rating")
    require_review = forms.BooleanField(required=False, label="Expert review of every rewrite")
    pay_per_sentence = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, initial=0)
    domain = forms.CharField(max_length=100, required=False, help_text="Only sentences of this domain.")
    first_position = forms.IntegerField(
        min_value=1,
        required=False,
        label="From line",
        help_text="As the corpus page numbers its lines, from 1.",
    )
    last_position = forms.IntegerField(min_value=1, required=False, label="To line (inclusive)")
    qualification = forms.ModelChoiceField(queryset=Qualification.objects.none(), required=False)
    far_length_ratio = forms.FloatField(
        min_value=1.01,
        initial=3.0,
        required=False,
        label="Review a rewrite this many times longer or shorter than its sentence",
        help_text="Such a rewrite goes to expert review flagged 'far from its sentence'.",
    )
    far_edit_rate = forms.IntegerField(
        min_value=1,
        max_value=100,
        initial=80,
        required=False,
        label="Review a rewrite that changes more than this % of the sentence's words",
        help_text="Blank: the defaults (3 times, 80%).",
    )

    def __init__(self, *args, projects=None, current_project: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["project"].initial = current_project
        if projects is not None:
            self.fields["project"].queryset = projects
            self.fields["corpus"].queryset = _corpora(projects, current_project)
            self.fields["qualification"].queryset = Qualification.objects.filter(project__in=projects)
        self.fields["corpus"].label_from_instance = lambda c: f"{c.project.name} / {c.name}"

    def clean(self):
        data = super().clean()
        if data.get("per_group") and not data.get("groups"):
            self.add_error("per_group", "Tick the groups that get their own rewrites.")
        for name in ("first_position", "last_position"):  # lines as shown (from 1) -> positions (from 0)
            if data.get(name) is not None:
                data[name] -= 1
        return data


class QualificationForm(forms.Form):
    project = forms.ModelChoiceField(queryset=Project.objects.none())
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.none(), help_text="Where the samples come from.")
    name = forms.CharField(max_length=200)
    positions = forms.CharField(
        label="Sample lines",
        help_text="Line numbers of the sample sentences as the corpus page shows them (from 1), separated by "
        "commas (5 is usual).",
    )
    instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), required=False)

    def __init__(self, *args, projects=None, current_project: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["project"].initial = current_project
        if projects is not None:
            self.fields["project"].queryset = projects
            self.fields["corpus"].queryset = _corpora(projects, current_project)
        self.fields["corpus"].label_from_instance = lambda c: f"{c.project.name} / {c.name}"

    def clean_positions(self) -> list[int]:
        raw = self.cleaned_data["positions"]
        try:
            values = [int(p) for p in raw.replace(";", ",").split(",") if p.strip()]
        except ValueError:
            raise forms.ValidationError(
                "Write line numbers separated by commas, e.g. 3, 17, 42, 80, 101."
            ) from None
        if not values or any(v < 1 for v in values):
            raise forms.ValidationError("Give at least one line number (from 1).")
        return [v - 1 for v in values]  # positions count from 0
