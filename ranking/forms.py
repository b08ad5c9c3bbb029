from __future__ import annotations

from django import forms

from annotate.models import Corpus
from ranking.models import System


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.none())
    systems = forms.ModelMultipleChoiceField(
        queryset=System.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    judgments_per_item = forms.IntegerField(min_value=1, max_value=50, initial=8)
    instructions = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        initial="Rate how grammatical and fluent each correction is, from completely ungrammatical "
        "or garbled (0) to perfect (100). Tick 'meaning changed' if it no longer means what the "
        "original sentence meant.",
    )

    def __init__(self, *args, corpora=None, systems=None, **kwargs):
        super().__init__(*args, **kwargs)
        if corpora is not None:
            self.fields["corpus"].queryset = corpora
        if systems is not None:
            self.fields["systems"].queryset = systems
            self.fields["systems"].label_from_instance = lambda s: f"{s.corpus.name} / {s.name} ({s.kind})"

    def clean(self):
        data = super().clean()
        corpus, systems = data.get("corpus"), data.get("systems")
        if corpus and systems and any(s.corpus_id != corpus.pk for s in systems):
            raise forms.ValidationError("Choose systems of the selected corpus only.")
        return data
