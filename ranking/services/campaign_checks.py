"""The checks ``campaign_create`` makes before it saves anything, and the sentences it judges."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from annotate.models import Corpus, Output, Project, Qualification, Sentence, System, SystemKind
from geceval.errors import GecInputError
from geceval.traps.hidden import MIN_DROP_FLOOR
from geceval.traps.inserter import ERROR_TYPES
from ranking.models import Campaign, TrapDesign
from ranking.protocols import Protocol, protocol_get


def check_speed(base: float, per_word: float) -> None:
    if not (0 <= base <= 600 and 0 <= per_word <= 10):
        raise GecInputError("the speed rule's seconds per screen are 0 to 600, per word 0 to 10")


def check_scope(project: Project, corpus: Corpus, name: str, systems: list[System], protocol: str) -> None:
    if not name:
        raise GecInputError("the campaign needs a name")
    chosen = protocol_get(protocol)  # GecInputError for an unknown protocol
    if corpus.project_id != project.pk:
        raise GecInputError("the corpus belongs to another project")
    if not systems:
        raise GecInputError("choose at least one system to judge")
    if any(s.corpus_id != corpus.pk for s in systems):
        raise GecInputError("every system must belong to the campaign's corpus")
    if any(s.kind == SystemKind.SOURCE_ERROR for s in systems):
        raise GecInputError("a Source+error system is a trap: choose it as the trap system, not as a system")
    if len(systems) < chosen.min_systems:
        count = {2: "two", 3: "three"}.get(chosen.min_systems, str(chosen.min_systems))
        raise GecInputError(f"{chosen.name} needs at least {count} systems")


def check_sizes(
    protocol: Protocol,
    max_candidates: int,
    judgments_per_item: int,
    screens_per_hit: int,
    screens_per_sentence: int,
    assignment_minutes: int,
) -> None:
    low, high = protocol.screen_size
    if not low <= max_candidates <= high:
        raise GecInputError(f"a screen shows {low} to {high} outputs")
    if judgments_per_item < 1 or screens_per_hit < 1 or screens_per_sentence < 1 or assignment_minutes < 1:
        raise GecInputError("judgments per item, screens per HIT and assignment minutes must be positive")


def check_traps(
    corpus: Corpus,
    design: str,
    trap_system: System | None,
    rates: tuple[float, float, float, float],
    active_selection: bool,
) -> None:
    trap_rate, _threshold, repeat_rate, min_drop = rates
    if design not in TrapDesign.values:
        raise GecInputError(f"unknown trap design {design!r}; choose from {', '.join(TrapDesign.values)}")
    if not all(0 <= x <= 1 for x in rates):
        raise GecInputError("trap rate, threshold, repeat rate and GLEU+ drop are between 0 and 1")
    if min_drop < MIN_DROP_FLOOR:
        raise GecInputError(f"a trap must lose at least {MIN_DROP_FLOOR} GLEU+ against its base")
    if design == TrapDesign.HIDDEN:
        if (trap_rate or repeat_rate) and active_selection:
            raise GecInputError(
                "hidden traps copy screens drawn when the campaign is made; active selection draws "
                "them later: choose the paper's design or no traps"
            )
        if trap_system is not None:
            raise GecInputError("hidden traps are generated: a Source+error system is the paper's design")
        return
    if repeat_rate:
        raise GecInputError("repeats are part of the hidden design, not the paper's")
    if trap_rate > 0 and trap_system is None:
        raise GecInputError("a trap rate needs a Source+error trap system")
    if trap_system is not None and (
        trap_system.corpus_id != corpus.pk or trap_system.kind != SystemKind.SOURCE_ERROR
    ):
        raise GecInputError("the trap system must be a Source+error system of this corpus")


def trap_errors_row(error_types: Iterable[str], errors: int | None) -> dict:
    chosen = list(dict.fromkeys(error_types))
    unknown = [t for t in chosen if t not in ERROR_TYPES]
    if unknown:
        raise GecInputError(f"unknown error types {', '.join(unknown)}; choose from {', '.join(ERROR_TYPES)}")
    if errors not in (None, 1, 2):
        raise GecInputError("a generated trap adds 1 or 2 errors")
    return {"trap_error_types": ",".join(chosen), "trap_errors": errors}


def check_related(
    project: Project,
    reference: System | None,
    qualification: Qualification | None,
    protocol: str,
    active_selection: bool,
    *,
    corpus: Corpus,
    name: str,
    other_than: Campaign | None = None,
) -> None:
    if reference is not None and (reference.corpus_id != corpus.pk or reference.kind != SystemKind.REFERENCE):
        raise GecInputError("the reference to show must be a reference of this corpus")
    if qualification is not None and qualification.project_id != project.pk:
        raise GecInputError("the qualification belongs to another project")
    if active_selection and not protocol_get(protocol).draws_systems:
        raise GecInputError("active selection chooses systems for ranking screens; PRWS shows them all")
    others = Campaign.objects.filter(project=project, name=name)
    if other_than is not None:
        others = others.exclude(pk=other_than.pk)
    if others.exists():
        raise GecInputError(f"a campaign named {name!r} already exists in project {project.name!r}")


def preview_sentence_pick(corpus: Corpus, systems: list[System], line: int | None) -> Sentence | None:
    if line is None:
        return None
    if type(line) is not int or line < 1:
        raise GecInputError("the preview example is a line number of the corpus, from 1")
    sentence = corpus.sentences.filter(position=line - 1).first()
    if sentence is None:
        raise GecInputError(f"the corpus has no line {line} for the preview example")
    if not Output.objects.filter(sentence=sentence, system__in=systems).exists():
        raise GecInputError(f"line {line} has no output of the chosen systems to show in the preview")
    return sentence


@dataclass(frozen=True)
class Sample:
    """Which sentences a judgment campaign takes (issue 40): corpus lines ``first_line`` to
    ``last_line`` (from 1, as the corpus page numbers them; None: the corpus' first, last), then
    ``size`` of them (None: all), the first ones or, with a ``seed``, a random draw with that seed."""

    first_line: int | None = None
    last_line: int | None = None
    size: int | None = None
    seed: int | None = None

    def check(self) -> None:
        if self.first_line is not None and self.first_line < 1:
            raise GecInputError("the sample's first line is 1 or more")
        if None not in (self.first_line, self.last_line) and self.first_line > self.last_line:
            raise GecInputError(
                f"the sample's lines {self.first_line} to {self.last_line} are in the wrong order"
            )
        if self.size is not None and self.size < 1:
            raise GecInputError("a sample takes at least 1 sentence")
        if self.seed is not None and self.size is None:
            raise GecInputError("a random sample's seed needs a sample size")
        if self.seed is not None and self.seed < 0:
            raise GecInputError("a random sample's seed is 0 or more")

    def take(self, sentences: list[Sentence]) -> list[Sentence]:
        """``sentences`` (in corpus order) narrowed to the sample, in corpus order."""
        first, last = self.first_line or 1, self.last_line
        pool = [s for s in sentences if s.position + 1 >= first and (last is None or s.position + 1 <= last)]
        if self.size is None:
            return pool
        if self.size > len(pool):
            raise GecInputError(
                f"a sample of {self.size} sentences from a pool of {len(pool)}: choose at most {len(pool)}"
            )
        if self.seed is None:
            return pool[: self.size]
        chosen = random.Random(self.seed).sample(range(len(pool)), self.size)
        return [pool[i] for i in sorted(chosen)]

    def describe(self) -> str:
        """In words, for the campaign page ("" : the whole corpus)."""
        parts = []
        if self.first_line is not None or self.last_line is not None:
            parts.append(f"lines {self.first_line or 1} to {self.last_line or 'the last'}")
        if self.size is not None:
            parts.append(
                f"{self.size} sentences drawn at random (seed {self.seed})"
                if self.seed is not None
                else f"the first {self.size} sentences"
            )
        return ", ".join(parts)


def campaign_sample(campaign: Campaign) -> Sample:
    return Sample(
        campaign.sample_first_line, campaign.sample_last_line, campaign.sample_size, campaign.sample_seed
    )


def campaign_sentences(
    corpus: Corpus, domain: str, preview: Sentence | None = None, sample: Sample = Sample()
) -> list[Sentence]:
    """The judged pool: the corpus (or domain) less the preview example, which a worker sees before
    accepting and so is never judged (a trap copy of it would differ from what the preview showed),
    narrowed to the ``sample``."""
    sentences = list(corpus.sentences.filter(domain=domain) if domain else corpus.sentences.all())
    sentences = sample.take([s for s in sentences if preview is None or s.pk != preview.pk])
    if not sentences:
        where = f" in domain {domain!r}" if domain else ""
        besides = " besides the preview example" if preview is not None else ""
        within = f" within {sample.describe()}" if sample.describe() else ""
        raise GecInputError(f"the corpus has no sentences{where}{within}{besides}")
    return sentences
