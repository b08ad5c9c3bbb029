from __future__ import annotations

import json

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat

from crowd.importing import FORMATS
from crowd.importing.saving import COMPACT_FORMATS, compact_by_default
from crowd.models import CrowdSettings


class CrowdSettingsForm(forms.ModelForm):
    class Meta:
        model = CrowdSettings
        fields = [
            "welcome_text",
            "consent_text",
            "completion_code",
            "prolific_completed_code",
            "prolific_screened_out_code",
            "prolific_study_id",
            "hits_per_visit",
            "fee_percent",
            "min_hourly_wage",
            "live_per_address",
            "identities_per_address_day",
            "shared_network",
            "seats",
        ]
        labels = {
            "welcome_text": "Welcome text",
            "consent_text": "Consent text",
            "completion_code": "Completion code (invite links)",
            "prolific_completed_code": "Prolific completion code",
            "prolific_screened_out_code": "Prolific screened-out code",
            "prolific_study_id": "Prolific study id",
            "hits_per_visit": "HITs per visit (0 = until no work is left)",
            "fee_percent": "Platform fee (%)",
            "min_hourly_wage": "Minimum hourly wage",
            "live_per_address": "Live HITs per network address",
            "identities_per_address_day": "New people per network address a day (reusable links)",
            "shared_network": "Shared network (a lab, a classroom)",
            "seats": "Seats of a reusable link (shared network)",
        }
        help_texts = {
            "welcome_text": "Shown first, above the consent.",
            "consent_text": "Shown before the first task; workers must agree.",
            "completion_code": "",
            "hits_per_visit": "Empty: invite links until no work is left, Prolific one HIT (MTurk is always one).",
            "fee_percent": "On rewards and bonuses (e.g. MTurk 20, Prolific 33.3).",
            "min_hourly_wage": "Empty: the site default.",
            "shared_network": "Everyone comes from one address: the two limits above are off; instead a "
            "reusable link admits at most the seats below, one person per browser.",
            "seats": "People a reusable link admits in all (a browser that comes back keeps its place).",
        }
        widgets = {
            "welcome_text": forms.Textarea(attrs={"rows": 3}),
            "consent_text": forms.Textarea(attrs={"rows": 5}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the server's defaults, named where the researcher may override them
        self.fields["live_per_address"].help_text = (
            "Stops one person from holding many HITs at once by opening the link again and again. "
            f"Empty: the server default ({settings.LIVE_ASSIGNMENTS_PER_ADDRESS}); 0: no limit."
        )
        self.fields["identities_per_address_day"].help_text = (
            "Stops one person from becoming many workers by dropping the link's cookie. "
            f"Empty: the server default ({settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY}); 0: no limit."
        )

    def clean(self):
        data = super().clean()
        if data.get("shared_network") and not data.get("seats"):
            self.add_error("seats", "A shared network needs the number of seats (at least 1).")
        return data


class InviteForm(forms.Form):
    count = forms.IntegerField(label="Number of links", min_value=1, max_value=1000, initial=10)
    reusable = forms.BooleanField(label="Reusable (one link for many workers)", required=False)
    label = forms.CharField(label="Label", max_length=200, required=False)


def _json_mapping(raw: str) -> dict | None:
    """A column mapping typed in a form: a JSON object, or None when left blank."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise forms.ValidationError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise forms.ValidationError("the mapping is a JSON object")
    return value


def _mapping_field(help_text: str = "") -> forms.CharField:
    return forms.CharField(
        label="Column mapping (JSON)",
        widget=forms.Textarea(attrs={"rows": 12}),
        required=False,
        help_text=help_text,
    )


class ImportForm(forms.Form):
    file = forms.FileField(label="Results file")
    format = forms.ChoiceField(label="Format", choices=[(f, f) for f in FORMATS])
    name = forms.CharField(label="Name of the imported campaign", max_length=200)
    project = forms.ModelChoiceField(label="Project", queryset=None)
    corpus = forms.ModelChoiceField(label="Corpus (optional)", queryset=None, required=False)
    include_rejected = forms.BooleanField(label="Include rejected assignments", required=False)
    src_id_base = forms.TypedChoiceField(
        label="Appraise src-id base",
        choices=[
            ("", "detect"),
            ("0", "0 (src-id 0 is the first sentence)"),
            ("1", "1 (src-id 1 is the first)"),
        ],
        coerce=int,
        empty_value=None,
        required=False,
        help_text="Appraise XML whose items carry src-id: the sentence is src-id minus this base. Detected "
        "when an item has src-id 0 (base 0) or the corpus' sentence count (base 1); otherwise choose.",
    )
    allow_missing = forms.BooleanField(
        label="Accept judgments that miss the corpus",
        required=False,
        help_text="Onto a chosen corpus the import refuses when under 90% of the judgments name one of its "
        "sentences (a wrong corpus or src-id base); tick to import the rest anyway.",
    )
    mapping = _mapping_field(
        "MTurk files only, and only when the preview says the columns cannot be told apart: the "
        "message lists the columns found and the ones needed. Example: "
        '{"item": "Input.seg", "systems": ["Input.s1", "Input.s2"], "answers": ["Answer.r1", '
        '"Answer.r2"], "answer_kind": "rank"}.'
    )

    def __init__(self, *args, corpora=None, projects=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["corpus"].queryset = corpora
        self.fields["project"].queryset = projects

    def clean(self):
        data = super().clean()
        corpus, project = data.get("corpus"), data.get("project")
        if corpus is not None and project is not None and corpus.project_id != project.pk:
            self.add_error("corpus", "this corpus belongs to another project")
        if data.get("mapping") is not None and data.get("format") != "mturk-csv":
            self.add_error("mapping", "a column mapping is read only for MTurk batch files")
        if data.get("src_id_base") is not None and data.get("format") != "appraise-xml":
            self.add_error("src_id_base", "a src-id base is read only for Appraise XML files")
        upload, fmt = data.get("file"), data.get("format")
        # The view takes uploads up to JUDGMENT_UPLOAD_MAX_BYTES, for the files that stream; a file
        # read whole keeps the bound of every other upload (nothing is kept or queued before this).
        too_large = upload is not None and fmt and upload.size > settings.UPLOAD_MAX_BYTES
        if too_large and not compact_by_default(fmt, upload.size):
            limit = filesizeformat(settings.UPLOAD_MAX_BYTES).replace("\xa0", " ")
            self.add_error(
                "file",
                f"a {fmt} file is read whole, so it may be at most {limit} (UPLOAD_MAX_BYTES); "
                f"only {' and '.join(COMPACT_FORMATS)} files larger than that are streamed",
            )
        return data

    def clean_mapping(self):
        return _json_mapping(self.cleaned_data["mapping"])


class ConfirmImportForm(forms.Form):
    mapping = _mapping_field()

    def clean_mapping(self):
        return _json_mapping(self.cleaned_data["mapping"])
