from __future__ import annotations

from django import forms

from annotate.models import Project, SystemKind
from geceval.metaeval.kobayashi2024 import TAGS as SYSTEM_TAGS


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(d, initial) for d in data]
        return [single(data, initial)] if data else []


class CorpusUploadForm(forms.Form):
    project = forms.ModelChoiceField(queryset=Project.objects.none())
    name = forms.CharField(max_length=200)
    source = forms.FileField(help_text="One sentence a line, UTF-8.")
    references = MultipleFileField(
        required=False, help_text="Optional: line-aligned reference files (JFLEG layout: ref0, ref1, ...)."
    )
    domain = forms.CharField(max_length=100, required=False)
    tokenized = forms.BooleanField(required=False, help_text="The text is whitespace-tokenised.")
    language = forms.CharField(max_length=16, initial="en")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)

    def __init__(self, *args, projects=None, current_project: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["project"].initial = current_project
        if projects is not None:
            self.fields["project"].queryset = projects


class OutputsUploadForm(forms.Form):
    system = forms.CharField(max_length=200, label="System name")
    kind = forms.ChoiceField(choices=[])
    file = forms.FileField(help_text="One output a line, aligned with the corpus.")

    def __init__(self, *args, **kwargs):

        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = SystemKind.choices


class SystemTagsForm(forms.Form):
    """A system's meta-evaluation tags (Kobayashi et al. 2024's subsets), by checkboxes."""

    tags = forms.MultipleChoiceField(
        choices=[(t, t) for t in SYSTEM_TAGS], required=False, widget=forms.CheckboxSelectMultiple
    )

    def tags_text(self) -> str:
        chosen = set(self.cleaned_data["tags"])
        return " ".join(t for t in SYSTEM_TAGS if t in chosen)
