"""The checks ``campaign_create`` makes before it saves anything, and the sentences it judges."""

from __future__ import annotations

from collections.abc import Iterable

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
) -> None:
    if reference is not None and (reference.corpus_id != corpus.pk or reference.kind != SystemKind.REFERENCE):
        raise GecInputError("the reference to show must be a reference of this corpus")
    if qualification is not None and qualification.project_id != project.pk:
        raise GecInputError("the qualification belongs to another project")
    if active_selection and not protocol_get(protocol).draws_systems:
        raise GecInputError("active selection chooses systems for ranking screens; PRWS shows them all")
    if Campaign.objects.filter(project=project, name=name).exists():
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


def campaign_sentences(corpus: Corpus, domain: str, preview: Sentence | None = None) -> list[Sentence]:
    """The judged pool: the corpus (or domain) less the preview example, which a worker sees before
    accepting and so is never judged (a trap copy of it would differ from what the preview showed)."""
    sentences = list(corpus.sentences.filter(domain=domain) if domain else corpus.sentences.all())
    sentences = [s for s in sentences if preview is None or s.pk != preview.pk]
    if not sentences:
        where = f" in domain {domain!r}" if domain else ""
        besides = " besides the preview example" if preview is not None else ""
        raise GecInputError(f"the corpus has no sentences{where}{besides}")
    return sentences
