"""The one list of campaign settings (issue 38): each setting once, with its type, default, bounds,
label and help, whether it may change after launch and which protocols it applies to.

``campaign_create`` validates its keyword arguments against this list; the campaign form
(``ranking.forms``), the API's create serializer (``ranking.api``) and the study file's JSON Schema
(``ranking.study``) are built from it. Adding a setting is one ``Setting(...)`` entry here (plus the
model field it is stored in, of the same name, and its migration); see docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from geceval.human.worker_checks import (
    DEFAULT_TRAP_MIN_SEEN,
    DEFAULT_TRAP_THRESHOLD,
    MANN_WHITNEY_MIN_RANKED_TRAPS,
    MANN_WHITNEY_MIN_TRAPS,
)
from geceval.traps.hidden import DEFAULT_MIN_DROP, MIN_DROP_FLOOR
from geceval.traps.inserter import ERROR_TYPES, TYPE_DESCRIPTIONS
from ranking.models import TrapDesign
from ranking.protocols import DEFAULT_PROTOCOL, protocol_choices, protocol_get

KINDS = ("int", "float", "decimal", "bool", "line", "text", "choice", "choices", "system", "qualification")
"""``system``: a system of the campaign's corpus (a row in the database, its name in a study file);
``qualification``: a qualification of the project (likewise); ``choices``: a list of ``choice``."""

GROUPS = ("protocol", "screens", "sample", "traps", "speed", "exclusion", "payment", "instructions")
"""The study file's sections, in order (``protocol``: top-level keys); ``exclusion`` settings are stored by
``campaign_exclusion_rules_set``, every other group by ``campaign_create``."""

_SAME = object()


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str
    default: Any
    """``campaign_create``'s default (a caller that does not name the setting)."""
    group: str
    label: str = ""
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None
    choices: tuple[tuple[Any, str], ...] | Callable[[], list[tuple[Any, str]]] = ()
    blank: bool = False
    """May be left blank (None): the service picks (``campaign_options``)."""
    initial: Any = _SAME
    """What the form shows and the API and a study file take when the setting is not given, when it
    differs from ``default``."""
    form_initial: Any = _SAME
    """What the form shows, when it differs from ``proposed`` (e.g. every error type ticked, which
    means what the API's and the study file's empty list means)."""
    blank_label: str = ""
    after_launch: bool = False
    """May change once the campaign has been launched (or piloted)."""
    applies_when: str = ""
    """The protocols it applies to: those whose ``Protocol`` attribute of this name is true (e.g.
    ``draws_systems``); empty: every protocol. The registry says which, not a list of names here."""
    form_only: dict = field(default_factory=dict)
    """Extra arguments of the form field (e.g. a textarea's rows)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS or self.group not in GROUPS:
            raise ValueError(f"setting {self.name}: unknown kind {self.kind!r} or group {self.group!r}")

    @property
    def proposed(self) -> Any:
        """What a setting left out of the form, the API or a study file starts from."""
        return self.default if self.initial is _SAME else self.initial

    @property
    def form_proposed(self) -> Any:
        """What the campaign form shows before the researcher changes it."""
        return self.proposed if self.form_initial is _SAME else self.form_initial

    def protocols(self) -> list[str]:
        """The registered protocols this setting applies to."""
        names = [name for name, _ in protocol_choices()]
        return [n for n in names if not self.applies_when or getattr(protocol_get(n), self.applies_when)]

    def choice_list(self) -> list[tuple[Any, str]]:
        return list(self.choices()) if callable(self.choices) else list(self.choices)


def _protocols() -> list[tuple[str, str]]:
    return protocol_choices()  # the registry as it is when a form or schema is built


def _trap_designs() -> list[tuple[str, str]]:
    return list(TrapDesign.choices)


def _mw_help() -> str:
    return (
        f"Exclude workers who, after {MANN_WHITNEY_MIN_TRAPS} traps ({MANN_WHITNEY_MIN_RANKED_TRAPS} when they "
        "rank), do not rate traps clearly worse than their bases (Appraise's test: one-sided Mann-Whitney U, "
        "p < 0.05 keeps them)."
    )


S = Setting
SETTINGS: tuple[Setting, ...] = (
    S("protocol", "choice", DEFAULT_PROTOCOL, "protocol", choices=_protocols),
    S("domain", "line", "", "screens", max_length=100, help="Only sentences of this domain (optional)."),
    S(
        "reference",
        "system",
        None,
        "screens",
        blank=True,
        help="Ranking: a reference shown beside the source.",
    ),
    S(
        "sample_first_line",
        "int",
        None,
        "sample",
        minimum=1,
        blank=True,
        label="Judge from line",
        help="Corpus line from 1 (blank: the first).",
    ),
    S(
        "sample_last_line",
        "int",
        None,
        "sample",
        minimum=1,
        blank=True,
        label="Judge to line",
        help="Blank: the last line.",
    ),
    S(
        "sample_size",
        "int",
        None,
        "sample",
        minimum=1,
        blank=True,
        label="Sample size",
        help="Sentences judged from those lines (blank: every one).",
    ),
    S(
        "sample_seed",
        "int",
        None,
        "sample",
        minimum=0,
        maximum=2**31 - 1,
        blank=True,
        label="Random sample seed",
        help="With a sample size: draw the sentences at random with this seed (blank: the first ones).",
    ),
    S("judgments_per_item", "int", 8, "screens", minimum=1, maximum=50),
    S(
        "max_candidates",
        "int",
        5,
        "screens",
        minimum=1,
        maximum=5,
        label="Outputs per screen",
        help="PRWS: 2 to 5; ranking: 4 or 5 (each protocol says what it takes).",
    ),
    S(
        "screens_per_sentence",
        "int",
        1,
        "screens",
        minimum=1,
        maximum=20,
        help="Ranking: random draws of outputs per sentence.",
        applies_when="draws_systems",
    ),
    S(
        "show_changes",
        "bool",
        False,
        "screens",
        label="Show changes",
        after_launch=True,
        help="Judgment screens offer each correction's changes against the original as a word diff; the "
        "worker turns it on and off with the d key (off by default, as in the papers' screens).",
    ),
    S(
        "active_selection",
        "bool",
        False,
        "screens",
        applies_when="draws_systems",
        help="Ranking: TrueSkill picks each screen's systems from the judgments so far "
        "(the least certain system and close opponents; Sakaguchi et al. 2014).",
    ),
    S("screens_per_hit", "int", 20, "screens", minimum=1, maximum=200, label="Screens per HIT"),
    S(
        "assignment_minutes",
        "int",
        60,
        "screens",
        minimum=1,
        maximum=24 * 60,
        after_launch=True,
        help="An unfinished HIT returns to the pool after this.",
    ),
    S("separate_domains", "bool", False, "screens", help="No worker gets two domains on the same day."),
    S(
        "trap_design",
        "choice",
        None,
        "traps",
        choices=_trap_designs,
        blank=True,
        form_initial=TrapDesign.HIDDEN,
        help="Hidden: traps are erroneous copies of outputs the worker also judges, on screens "
        "that look like the others. The paper's design needs a Source+error system.",
    ),
    S(
        "trap_system",
        "system",
        None,
        "traps",
        blank=True,
        help="The paper's design only: a Source+error system of the corpus.",
    ),
    S(
        "trap_rate",
        "float",
        0.0,
        "traps",
        minimum=0,
        maximum=1,
        blank=True,
        initial=None,
        help="Hidden: trap screens per judged screen (blank: 0.2). Paper: share of screens with "
        "Source+error (blank: none).",
    ),
    S(
        "trap_margin",
        "int",
        1,
        "traps",
        minimum=1,
        maximum=50,
        blank=True,
        applies_when="prws_ratings",
        help="PRWS points a trap must be rated below its base.",
    ),
    S(
        "trap_min_drop",
        "float",
        DEFAULT_MIN_DROP,
        "traps",
        minimum=MIN_DROP_FLOOR,
        maximum=1,
        blank=True,
        label="Trap GLEU+ drop",
        help="With references, a generated trap scores at least this much lower than its base.",
    ),
    S(
        "trap_error_types",
        "choices",
        (),
        "traps",
        choices=tuple((t, f"{t}: {TYPE_DESCRIPTIONS[t]}") for t in ERROR_TYPES),
        blank=True,
        form_initial=list(ERROR_TYPES),
        label="Errors a trap adds",
        help="Generated traps (hidden, or a Source+error system made below) add errors of the ticked "
        "types, named as ERRANT names them; none ticked: every type.",
    ),
    S(
        "trap_errors",
        "int",
        None,
        "traps",
        choices=((1, "1"), (2, "2")),
        blank=True,
        blank_label="1 or 2, drawn per trap",
        label="Errors per trap",
    ),
    S(
        "repeat_rate",
        "float",
        0.0,
        "traps",
        minimum=0,
        maximum=1,
        blank=True,
        initial=None,
        help="Hidden design: exact repeats per judged screen, for the consistency check (blank: 0.05).",
    ),
    S(
        "gold_rate",
        "float",
        0.0,
        "traps",
        minimum=0,
        maximum=1,
        blank=True,
        label="Gold copies per judged screen",
        help="Copies of the screens you answer on the campaign's Gold screens page, placed in each HIT "
        "and scored like traps: answered as you did (gold pass mark) or failed (blank: none).",
    ),
    S(
        "speed_rule",
        "bool",
        False,
        "speed",
        initial=True,
        label="Speed is evidence",
        help="A screen answered faster than its minimum plausible time (below) counts as a failed trap; "
        "a HIT finished in under half its screens' minimum is held until you release it.",
    ),
    S(
        "speed_base_seconds",
        "float",
        2.0,
        "speed",
        minimum=0,
        maximum=600,
        blank=True,
        label="Minimum seconds per screen",
    ),
    S(
        "speed_seconds_per_word",
        "float",
        0.05,
        "speed",
        minimum=0,
        maximum=10,
        blank=True,
        label="Minimum seconds per word shown",
        help="Words of the source and of every candidate (default: a source and five 20-word "
        "candidates need 2 + 0.05 x 120 = 8 s).",
    ),
    S(
        "pilot_hold",
        "bool",
        False,
        "speed",
        initial=True,
        label="Hold a worker whose first HIT looks scripted",
        help="Near-constant answers, or a quarter of the screens under their minimum time, in a "
        "worker's first HIT: their HITs are held (counted nowhere) until their traps clear them or you decide.",
    ),
    S(
        "trap_threshold",
        "float",
        DEFAULT_TRAP_THRESHOLD,
        "exclusion",
        minimum=0,
        maximum=1,
        help="Workers who pass fewer traps than this share are excluded.",
    ),
    S(
        "trap_min_seen",
        "int",
        DEFAULT_TRAP_MIN_SEEN,
        "exclusion",
        minimum=1,
        maximum=100,
        label="Traps seen before exclusion",
        help="The trap pass rate excludes nobody who has seen fewer traps than this.",
    ),
    S(
        "exclude_by_pass_rate",
        "bool",
        True,
        "exclusion",
        after_launch=True,
        help="Exclude workers whose trap pass rate is below the threshold.",
    ),
    S("exclude_by_mann_whitney", "bool", True, "exclusion", after_launch=True, help=_mw_help()),
    S(
        "exclude_by_consistency",
        "bool",
        False,
        "exclusion",
        after_launch=True,
        help="Exclude workers who answer repeated screens far apart (needs repeats; shown either way).",
    ),
    S(
        "exclude_by_flat",
        "bool",
        False,
        "exclusion",
        after_launch=True,
        help="Exclude workers whose answers are near-constant or follow the display position "
        "(shown either way).",
    ),
    S(
        "exclude_by_agreement",
        "bool",
        False,
        "exclusion",
        after_launch=True,
        label="Exclude by agreement with the crowd",
        help="Exclude workers whose answers agree far less with the other workers' on the same screens "
        "than the campaign's workers do (shown either way; a low-agreement worker's HITs are held).",
    ),
    S("reward_per_hit", "decimal", 0, "payment", minimum=0, form_only={"max_digits": 8, "decimal_places": 2}),
    S(
        "budget",
        "decimal",
        None,
        "payment",
        minimum=0,
        blank=True,
        after_launch=True,
        form_only={"max_digits": 10, "decimal_places": 2},
        help="No new HITs once spent (optional).",
    ),
    S(
        "qualification",
        "qualification",
        None,
        "payment",
        blank=True,
        help="Workers must have passed this screening.",
    ),
    S("instructions", "text", "", "instructions", after_launch=True, form_only={"rows": 4}),
    S(
        "preview_line",
        "int",
        None,
        "instructions",
        minimum=1,
        blank=True,
        label="Preview example (line number)",
        help="A platform's preview (MTurk's, before a worker accepts) shows this line of the corpus "
        "with the chosen systems' outputs as an example screen: never judged, stored or counted. "
        "Blank: a built-in example. The preview never shows a screen of the campaign.",
    ),
)
del S

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}

EXCLUSION_RULES: tuple[str, ...] = tuple(
    s.name for s in SETTINGS if s.group == "exclusion" and s.kind == "bool"
)
"""Which evidence excludes a worker: set by ``campaign_exclusion_rules_set``, after ``campaign_create``."""

CAMPAIGN_OPTIONS: tuple[str, ...] = tuple(s.name for s in SETTINGS if s.name not in EXCLUSION_RULES)
"""The optional keyword arguments of ``campaign_create``, as forms and the API name them."""

PREVIEW_FIELDS = (
    "protocol",
    "corpus",
    "domain",
    "systems",
    "trap_design",
    "trap_error_types",
    "trap_errors",
    "trap_min_drop",
)
"""The campaign form's fields a trap preview reads (``ranking.forms.TrapPreviewForm``)."""


def settings_check(given: dict) -> dict:
    """``campaign_create``'s settings: only names of the list, and each one's default filled in."""
    unknown = sorted(set(given) - set(CAMPAIGN_OPTIONS))
    if unknown:
        raise TypeError(f"campaign_create() got unexpected settings: {', '.join(unknown)}")
    return {name: given.get(name, BY_NAME[name].default) for name in CAMPAIGN_OPTIONS}
