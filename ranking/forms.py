from __future__ import annotations

from django import forms

from annotate.models import Corpus, Qualification, System, SystemKind
from geceval.errors import GecInputError
from geceval.insert_errors import ERROR_TYPES, TYPE_DESCRIPTIONS
from geceval.traps import DEFAULT_MIN_DROP, MIN_DROP_FLOOR
from geceval.worker_checks import (
    DEFAULT_TRAP_MIN_SEEN,
    DEFAULT_TRAP_THRESHOLD,
    MANN_WHITNEY_MIN_RANKED_TRAPS,
    MANN_WHITNEY_MIN_TRAPS,
)
from ranking.models import TrapDesign
from ranking.protocols import DEFAULT_PROTOCOL, protocol_choices, protocol_get


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


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    protocol = forms.ChoiceField(choices=protocol_choices, initial=DEFAULT_PROTOCOL)
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.none())
    domain = forms.CharField(
        max_length=100, required=False, help_text="Only sentences of this domain (optional)."
    )
    systems = forms.ModelMultipleChoiceField(queryset=System.objects.none(), widget=CorpusCheckboxes)
    reference = forms.ModelChoiceField(
        queryset=System.objects.none(),
        widget=CorpusSelect,
        required=False,
        help_text="Ranking: a reference shown beside the source.",
    )
    judgments_per_item = forms.IntegerField(min_value=1, max_value=50, initial=8)
    max_candidates = forms.IntegerField(
        min_value=1,
        max_value=5,
        initial=5,
        label="Outputs per screen",
        help_text="PRWS: 2 to 5; ranking: 4 or 5 (each protocol says what it takes).",
    )
    screens_per_sentence = forms.IntegerField(
        min_value=1, max_value=20, initial=1, help_text="Ranking: random draws of outputs per sentence."
    )
    show_changes = forms.BooleanField(
        required=False,
        label="Show changes",
        help_text="Judgment screens offer each correction's changes against the original as a word diff; the worker turns it on and off with the d key (off by default, as in the papers' screens).",
    )
    active_selection = forms.BooleanField(
        required=False,
        help_text="Ranking: TrueSkill picks each screen's systems from the judgments so far "
        "(the least certain system and close opponents; Sakaguchi et al. 2014).",
    )
    screens_per_hit = forms.IntegerField(min_value=1, max_value=200, initial=20, label="Screens per HIT")
    assignment_minutes = forms.IntegerField(
        min_value=1,
        max_value=24 * 60,
        initial=60,
        help_text="An unfinished HIT returns to the pool after this.",
    )
    separate_domains = forms.BooleanField(
        required=False, help_text="No worker gets two domains on the same day."
    )
    trap_design = forms.ChoiceField(
        choices=TrapDesign.choices,
        initial=TrapDesign.HIDDEN,
        required=False,
        help_text="Hidden: traps are erroneous copies of outputs the worker also judges, on screens "
        "that look like the others. The paper's design needs a Source+error system.",
    )
    trap_system = forms.ModelChoiceField(
        queryset=System.objects.none(),
        widget=CorpusSelect,
        required=False,
        help_text="The paper's design only: a Source+error system of the corpus.",
    )
    trap_rate = forms.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        help_text="Hidden: trap screens per judged screen (blank: 0.2). Paper: share of screens with "
        "Source+error (blank: none).",
    )
    trap_margin = forms.IntegerField(
        min_value=1,
        max_value=50,
        initial=1,
        required=False,
        help_text="PRWS points a trap must be rated below its base.",
    )
    trap_min_drop = forms.FloatField(
        min_value=MIN_DROP_FLOOR,
        max_value=1,
        initial=DEFAULT_MIN_DROP,
        required=False,
        label="Trap GLEU+ drop",
        help_text="With references, a generated trap scores at least this much lower than its base.",
    )
    trap_error_types = forms.MultipleChoiceField(
        choices=[(t, f"{t}: {TYPE_DESCRIPTIONS[t]}") for t in ERROR_TYPES],
        widget=forms.CheckboxSelectMultiple,
        initial=list(ERROR_TYPES),
        required=False,
        label="Errors a trap adds",
        help_text="Generated traps (hidden, or a Source+error system made below) add errors of the ticked "
        "types, named as ERRANT names them; none ticked: every type.",
    )
    trap_errors = forms.TypedChoiceField(
        choices=[("", "1 or 2, drawn per trap"), ("1", "1"), ("2", "2")],
        coerce=int,
        empty_value=None,
        required=False,
        label="Errors per trap",
    )
    generate_trap_system = forms.BooleanField(
        required=False,
        label="Generate a Source+error system now",
        help_text="The paper's design: the corpus's sources with the errors chosen above, from a secret seed; "
        "with references each must score at least the GLEU+ drop below its source.",
    )
    repeat_rate = forms.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        help_text="Hidden design: exact repeats per judged screen, for the consistency check (blank: 0.05).",
    )
    speed_rule = forms.BooleanField(
        required=False,
        initial=True,
        label="Speed is evidence",
        help_text="A screen answered faster than its minimum plausible time (below) counts as a failed trap; "
        "a HIT finished in under half its screens' minimum is held until you release it.",
    )
    speed_base_seconds = forms.FloatField(
        min_value=0, max_value=600, initial=2.0, required=False, label="Minimum seconds per screen"
    )
    speed_seconds_per_word = forms.FloatField(
        min_value=0,
        max_value=10,
        initial=0.05,
        required=False,
        label="Minimum seconds per word shown",
        help_text="Words of the source and of every candidate (default: a source and five 20-word "
        "candidates need 2 + 0.05 x 120 = 8 s).",
    )
    trap_threshold = forms.FloatField(
        min_value=0,
        max_value=1,
        initial=DEFAULT_TRAP_THRESHOLD,
        help_text="Workers who pass fewer traps than this share are excluded.",
    )
    trap_min_seen = forms.IntegerField(
        min_value=1,
        max_value=100,
        initial=DEFAULT_TRAP_MIN_SEEN,
        label="Traps seen before exclusion",
        help_text="The trap pass rate excludes nobody who has seen fewer traps than this.",
    )
    exclude_by_pass_rate = forms.BooleanField(
        required=False, initial=True, help_text="Exclude workers whose trap pass rate is below the threshold."
    )
    exclude_by_mann_whitney = forms.BooleanField(
        required=False,
        initial=True,
        help_text=f"Exclude workers who, after {MANN_WHITNEY_MIN_TRAPS} traps ({MANN_WHITNEY_MIN_RANKED_TRAPS} when they rank), do not rate traps clearly worse than their bases "
        "(Appraise's test: one-sided Mann-Whitney U, p < 0.05 keeps them).",
    )
    exclude_by_consistency = forms.BooleanField(
        required=False,
        help_text="Exclude workers who answer repeated screens far apart (needs repeats; shown either way).",
    )
    exclude_by_flat = forms.BooleanField(
        required=False,
        help_text="Exclude workers whose answers are near-constant or follow the display position "
        "(shown either way).",
    )
    exclude_by_agreement = forms.BooleanField(
        required=False,
        help_text="Exclude workers whose answers agree with the other workers' far less than the "
        "campaign's workers usually do (without this box their HITs are held until you decide).",
    )
    reward_per_hit = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, initial=0)
    budget = forms.DecimalField(
        min_value=0,
        max_digits=10,
        decimal_places=2,
        required=False,
        help_text="No new HITs once spent (optional).",
    )
    qualification = forms.ModelChoiceField(
        queryset=Qualification.objects.none(),
        required=False,
        help_text="Workers must have passed this screening.",
    )
    instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False)
    preview_line = forms.IntegerField(
        min_value=1,
        required=False,
        label="Preview example (line number)",
        help_text="A platform's preview (MTurk's, before a worker accepts) shows this line of the corpus "
        "with the chosen systems' outputs as an example screen: never judged, stored or counted. "
        "Blank: a built-in example. The preview never shows a screen of the campaign.",
    )
    confirm_few_outputs = forms.BooleanField(
        required=False,
        label="Create it anyway",
        help_text="Ranking: tick to create the campaign although many screens would show fewer than 4 "
        "distinct outputs.",
    )

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


PREVIEW_FIELDS = (
    "corpus",
    "domain",
    "systems",
    "trap_design",
    "trap_error_types",
    "trap_errors",
    "trap_min_drop",
)


class TrapPreviewForm(forms.Form):
    """The campaign form's fields a trap preview reads, under the same names and rules, so that the
    campaign form posts to the preview as it is."""

    def __init__(self, *args, corpora, systems, **kwargs):
        super().__init__(*args, **kwargs)
        whole = CampaignForm(corpora=corpora, systems=systems)
        for name in PREVIEW_FIELDS:
            self.fields[name] = whole.fields[name]
        self.fields["systems"].required = False

    def clean(self):
        data = super().clean()
        corpus, systems = data.get("corpus"), data.get("systems") or []
        if corpus and any(s.corpus_id != corpus.pk for s in systems):
            self.add_error("systems", "Choose systems of the selected corpus only.")
        if (data.get("trap_design") or TrapDesign.HIDDEN) == TrapDesign.HIDDEN and corpus and not systems:
            self.add_error("systems", "Hidden traps are copies of the outputs judged: choose systems first.")
        return data

    def problem(self) -> str:
        """The errors in one sentence per field, each under the label the form shows."""
        return " ".join(
            f"{self.fields[name].label or name.replace('_', ' ').capitalize()}: {' '.join(errors)}"
            if name in self.fields
            else " ".join(errors)
            for name, errors in self.errors.items()
        )


class ExclusionRulesForm(forms.Form):
    """The researcher's choice of which evidence excludes, on a running campaign's page. ``rules`` is a
    hidden marker: a POST without it (not from this form) changes nothing, where unticked boxes alone
    would switch every rule off."""

    rules = forms.CharField(widget=forms.HiddenInput, initial="chosen")
    exclude_by_pass_rate = forms.BooleanField(required=False, label="trap pass rate")
    exclude_by_mann_whitney = forms.BooleanField(required=False, label="Appraise's test (Mann-Whitney)")
    exclude_by_consistency = forms.BooleanField(required=False, label="consistency on repeats")
    exclude_by_flat = forms.BooleanField(required=False, label="flat scoring")
    exclude_by_agreement = forms.BooleanField(required=False, label="agreement with the crowd")

    def clean_rules(self) -> str:
        if self.cleaned_data["rules"] != "chosen":
            raise forms.ValidationError("not this form's submission")
        return "chosen"
