from __future__ import annotations

from django import forms

from annotate.models import Corpus, Qualification, System, SystemKind
from geceval.errors import GecInputError
from geceval.human.worker_checks import CORRECTION_MIN_SEEN, KIND_MIN_SEEN, VOUCH_MARGIN
from ranking.campaign_settings import PREVIEW_FIELDS, SETTINGS, Setting
from ranking.models import TrapDesign
from ranking.protocols import DEFAULT_PROTOCOL, protocol_get


class _CorpusTagged:
    """Each system option carries ``data-corpus``, so static/js/campaign_form.js shows only the
    chosen corpus's systems (the form still checks it on the server)."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        instance = getattr(value, "instance", None)
        if instance is not None:
            option["attrs"]["data-corpus"] = str(instance.corpus_id)
        return option


class CorpusCheckboxes(_CorpusTagged, forms.CheckboxSelectMultiple):
    pass


class CorpusSelect(_CorpusTagged, forms.Select):
    pass


def _form_field(setting: Setting) -> forms.Field:
    """The campaign form's field for one setting of the list (``ranking.campaign_settings``)."""
    common = {"required": setting.blank is False and setting.kind not in ("bool", "line", "text")}
    if setting.label:
        common["label"] = setting.label
    if setting.help:
        common["help_text"] = setting.help
    initial = setting.form_proposed
    if initial is not None and initial is not False and initial != "" and initial != ():
        common["initial"] = initial
    bounds = {
        k: v for k, v in (("min_value", setting.minimum), ("max_value", setting.maximum)) if v is not None
    }
    kind = setting.kind
    if kind == "int" and setting.choices:
        choices = [("", setting.blank_label), *((str(v), label) for v, label in setting.choice_list())]
        return forms.TypedChoiceField(choices=choices, coerce=int, empty_value=None, **common)
    if kind == "int":
        return forms.IntegerField(**bounds, **common)
    if kind == "float":
        return forms.FloatField(**bounds, **common)
    if kind == "decimal":
        return forms.DecimalField(**bounds, **setting.form_only, **common)
    if kind == "bool":
        return forms.BooleanField(**common)
    if kind == "line":
        return forms.CharField(max_length=setting.max_length, **common)
    if kind == "text":
        return forms.CharField(widget=forms.Textarea(attrs=setting.form_only), **common)
    if kind == "choice":
        return forms.ChoiceField(choices=setting.choices, **common)
    if kind == "choices":
        return forms.MultipleChoiceField(
            choices=setting.choices, widget=forms.CheckboxSelectMultiple, **common
        )
    if kind == "system":
        return forms.ModelChoiceField(queryset=System.objects.none(), widget=CorpusSelect, **common)
    return forms.ModelChoiceField(queryset=Qualification.objects.none(), **common)


_SettingsForm = type("_SettingsForm", (forms.Form,), {s.name: _form_field(s) for s in SETTINGS})


class CampaignForm(_SettingsForm):
    """A view of the one list of campaign settings, with what is not a setting: the name, the corpus and
    systems, a Source+error system made now, and the confirmation of a thin forecast."""

    name = forms.CharField(max_length=200)
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.none())
    systems = forms.ModelMultipleChoiceField(queryset=System.objects.none(), widget=CorpusCheckboxes)
    generate_trap_system = forms.BooleanField(
        required=False,
        label="Generate a Source+error system now",
        help_text="The paper's design: the corpus's sources with the errors chosen above, from a secret seed; "
        "with references each must score at least the GLEU+ drop below its source.",
    )
    confirm_few_outputs = forms.BooleanField(
        required=False,
        label="Create it anyway",
        help_text="Ranking: tick to create the campaign although many screens would show fewer than 4 "
        "distinct outputs.",
    )
    field_order = [
        "name",
        "protocol",
        "corpus",
        "domain",
        "systems",
        *(s.name for s in SETTINGS[2 : [s.name for s in SETTINGS].index("trap_errors") + 1]),
        "generate_trap_system",
    ]

    def __init__(self, *args, corpora=None, systems=None, qualifications=None, **kwargs):
        super().__init__(*args, **kwargs)
        if qualifications is not None:
            self.fields["qualification"].queryset = qualifications
        if corpora is not None:
            self.fields["corpus"].queryset = corpora
        if systems is not None:
            judged = systems.exclude(kind=SystemKind.SOURCE_ERROR)
            self.fields["systems"].queryset = judged
            self.fields["systems"].label_from_instance = lambda s: f"{s.corpus.name} / {s.name} ({s.kind})"
            self.fields["reference"].queryset = systems.filter(kind=SystemKind.REFERENCE)
            self.fields["trap_system"].queryset = systems.filter(kind=SystemKind.SOURCE_ERROR)
            for name in ("reference", "trap_system"):
                self.fields[name].label_from_instance = lambda s: f"{s.corpus.name} / {s.name}"

    def clean(self):
        data = super().clean()
        corpus = data.get("corpus")
        if corpus:
            qualification = data.get("qualification")
            if qualification is not None and qualification.project_id != corpus.project_id:
                self.add_error("qualification", "Choose a qualification of the corpus's project.")
            for name in ("systems", "reference", "trap_system"):
                value = data.get(name)
                chosen = list(value) if name == "systems" and value else [value] if value else []
                if any(s.corpus_id != corpus.pk for s in chosen):
                    self.add_error(name, "Choose systems of the selected corpus only.")
        if data.get("generate_trap_system"):
            if data.get("trap_system"):
                self.add_error(
                    "generate_trap_system", "Choose a Source+error system or generate one, not both."
                )
            if data.get("trap_design") != TrapDesign.PAPER:
                self.add_error(
                    "generate_trap_system", "A Source+error system is the paper's design: choose it above."
                )
            if not data.get("trap_rate"):
                self.add_error("trap_rate", "Give the share of screens that show the Source+error trap.")
        try:
            protocol = protocol_get(data.get("protocol"))
        except GecInputError:  # the field has its error already
            protocol = protocol_get(DEFAULT_PROTOCOL)
        low, high = protocol.screen_size
        if data.get("max_candidates") is not None and not low <= data["max_candidates"] <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            self.add_error("max_candidates", f"{protocol.label} shows {wanted} outputs per screen.")
        if not data.get("instructions"):
            data["instructions"] = protocol.instructions
        return data


class _CampaignFormPart(forms.Form):
    """Some of the campaign form's fields (``part``), under the same names and rules, so that the
    campaign form posts to a view reading only them as it is."""

    part: tuple[str, ...] = ()

    def __init__(self, *args, corpora, systems, **kwargs):
        super().__init__(*args, **kwargs)
        whole = CampaignForm(corpora=corpora, systems=systems)
        for name in self.part:
            self.fields[name] = whole.fields[name]
        self.fields["systems"].required = False

    def clean(self):
        data = super().clean()
        corpus, systems = data.get("corpus"), data.get("systems") or []
        if corpus and any(s.corpus_id != corpus.pk for s in systems):
            self.add_error("systems", "Choose systems of the selected corpus only.")
        return data

    def problem(self) -> str:
        """The errors in one sentence per field, each under the label the form shows."""
        return " ".join(
            f"{self.fields[name].label or name.replace('_', ' ').capitalize()}: {' '.join(errors)}"
            if name in self.fields
            else " ".join(errors)
            for name, errors in self.errors.items()
        )


class TrapPreviewForm(_CampaignFormPart):
    """What a trap preview reads (no protocol: the default one's traps)."""

    part = PREVIEW_FIELDS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["protocol"].required = False

    def clean(self):
        data = super().clean()
        corpus, systems = data.get("corpus"), data.get("systems") or []
        if (data.get("trap_design") or TrapDesign.HIDDEN) == TrapDesign.HIDDEN and corpus and not systems:
            self.add_error("systems", "Hidden traps are copies of the outputs judged: choose systems first.")
        return data


FORECAST_FIELDS = (
    "protocol",
    "corpus",
    "domain",
    "systems",
    "max_candidates",
    "active_selection",
    "sample_first_line",
    "sample_last_line",
    "sample_size",
    "sample_seed",
)
"""What the screen-coverage forecast reads (issue 40: shown as the form is filled, before the submit)."""


class ForecastForm(_CampaignFormPart):
    """What the screen-coverage forecast reads."""

    part = FORECAST_FIELDS


class ExclusionRulesForm(forms.Form):
    """The researcher's choice of which evidence excludes, on a running campaign's page. ``rules`` is a
    hidden marker: a POST without it (not from this form) changes nothing, where unticked boxes alone
    would switch every rule off."""

    rules = forms.CharField(widget=forms.HiddenInput, initial="chosen")
    exclude_by_pass_rate = forms.BooleanField(
        required=False,
        label="trap pass rate",
        help_text=(
            f"under the threshold ({VOUCH_MARGIN:.1f} under it for a worker the crowd vouches for), or "
            f"every trap of one kind failed (at least {KIND_MIN_SEEN} of it; {CORRECTION_MIN_SEEN} added "
            "corrections)"
        ),
    )
    exclude_by_mann_whitney = forms.BooleanField(required=False, label="Appraise's test (Mann-Whitney)")
    exclude_by_consistency = forms.BooleanField(required=False, label="consistency on repeats")
    exclude_by_flat = forms.BooleanField(required=False, label="flat scoring")
    exclude_by_agreement = forms.BooleanField(required=False, label="agreement with the crowd")

    def clean_rules(self) -> str:
        if self.cleaned_data["rules"] != "chosen":
            raise forms.ValidationError("not this form's submission")
        return "chosen"
