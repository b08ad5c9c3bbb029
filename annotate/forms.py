from __future__ import annotations

from django import forms

from annotate.formats.readers import format_mismatch, upload_format
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


CORPUS_FORMATS = [
    ("text", "Plain text: one sentence a line (references optional)"),
    ("jfleg", "JFLEG: a source file and its reference files (.src, .ref0, .ref1, ...)"),
    ("m2", "M2: S and A lines (each annotator's corrections become a reference)"),
    ("jsonl", "JSON lines: one object a sentence, with its references and outputs"),
    ("gmeg", "GMEG folder: the source file, and every other file of the folder below"),
]
"""Every format ``import_corpus --format`` reads (issue 40), as the upload form offers them."""


class CorpusUploadForm(forms.Form):
    project = forms.ModelChoiceField(queryset=Project.objects.none())
    name = forms.CharField(max_length=200)
    format = forms.ChoiceField(choices=CORPUS_FORMATS, initial="text", required=False)
    source = forms.FileField(
        help_text="One sentence a line, UTF-8; or the M2 or JSON lines file. Gzip is fine."
    )
    references = MultipleFileField(
        required=False,
        help_text="Plain text and JFLEG: line-aligned reference files (ref0, ref1, ...). GMEG: every other "
        "file of the folder (ref0..N, source+error, system outputs), named as in the folder.",
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

    def clean(self):
        """The format chosen and the files agree: an M2 or JSON lines file uploaded as plain text (JFLEG's
        dev.ref.m2 once imported as 13,119 "sentences") is refused, and so is the reverse."""
        data = super().clean()
        data["format"] = fmt = data.get("format") or "text"
        source, others = data.get("source"), data.get("references") or []
        if source is None:
            return data
        if fmt == "jfleg" and not others:
            self.add_error("references", "JFLEG needs its reference files (.ref0, .ref1, ...).")
        if fmt in ("m2", "jsonl") and others:
            self.add_error(
                "references", "An M2 or JSON lines corpus is one file: its references are inside it."
            )
        mismatch = format_mismatch(fmt, upload_format(source), source.name)
        if mismatch:
            self.add_error("source", mismatch)
        for upload in others if fmt in ("text", "jfleg", "gmeg") else []:
            mismatch = format_mismatch(fmt, upload_format(upload), upload.name)
            if mismatch:
                self.add_error("references", mismatch)
        return data


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
