"""A study is a file (issue 39): load, check, apply and export one campaign's study document."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction
from jsonschema import Draft202012Validator

from annotate.formats.readers import load_stream
from annotate.formats.services import corpus_export
from annotate.formats.writers import save_files
from annotate.models import Corpus, Project, Qualification, System, SystemKind
from annotate.services import outputs_import, project_find_or_create
from annotate.streaming import corpus_save
from geceval.errors import GecInputError
from ranking.campaign_settings import BY_NAME, EXCLUSION_RULES, SETTINGS, Setting, settings_check
from ranking.models import Campaign, CampaignStatus, GoldScreen, Hit
from ranking.protocols import protocol_get
from ranking.quality.gold import gold_assignment
from ranking.quality.rules import exclusion_rules
from ranking.services import campaign_create, campaign_exclusion_rules_set
from ranking.services.campaigns import campaign_options, handed_out
from ranking.study.schema import STUDY_VERSION, TOP_GROUP, study_schema
from ranking.study.sections import sections

FIXED = ("corpus", "systems", "seed")
"""What a study names besides the settings; fixed once a campaign is launched."""


def study_load(path: str | Path) -> dict[str, Any]:
    """A study file, YAML or JSON (JSON is YAML), as a dictionary."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = yaml.safe_load(handle)
    except (OSError, yaml.YAMLError) as exc:
        raise GecInputError(f"cannot read the study file: {exc}", path=str(path)) from None
    if not isinstance(doc, dict):
        raise GecInputError("a study file is a mapping (keys and values)", path=str(path))
    return doc


def study_problems(doc: dict[str, Any]) -> list[str]:
    """What is wrong with the document, without a database: the schema, then the protocol's sizes."""
    problems = [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
        for error in sorted(Draft202012Validator(study_schema()).iter_errors(doc), key=str)
    ]
    if problems:
        return problems
    protocol = protocol_get(doc.get("protocol", BY_NAME["protocol"].proposed))
    size = doc.get("screens", {}).get("max_candidates", BY_NAME["max_candidates"].proposed)
    low, high = protocol.screen_size
    if not low <= size <= high:
        problems.append(f"screens/max_candidates: {protocol.label} shows {low} to {high} outputs per screen")
    if len(doc["systems"]) < protocol.min_systems:
        problems.append(f"systems: {protocol.name} needs at least {protocol.min_systems} systems")
    return problems


def study_dump(doc: dict[str, Any], fmt: str = "yaml") -> str:
    if fmt == "json":
        return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


# --------------------------------------------------------------------------- values


def _study_value(setting: Setting, value: Any) -> Any:
    """A setting's value as the study file writes it (a system or qualification by name)."""
    if value is None:
        return None
    if setting.kind in ("system", "qualification"):
        return value.name
    if setting.kind in ("decimal", "float"):
        return float(value)
    if setting.kind == "choices":
        return list(dict.fromkeys(value))
    return value


def _stored(campaign: Campaign, setting: Setting) -> Any:
    if setting.name == "preview_line":  # stored as the sentence (campaign_create's preview_sentence)
        sentence = campaign.preview_sentence
        return None if sentence is None else sentence.position + 1
    if setting.kind == "choices":
        return campaign.trap_types or ()
    return getattr(campaign, setting.name)


def _section(doc: dict[str, Any], group: str) -> dict[str, Any]:
    return doc if group == TOP_GROUP else doc.get(group) or {}


def _desired(doc: dict[str, Any], project: Project, corpus: Corpus) -> dict[str, Any]:
    """The settings a campaign of this document gets, as ``campaign_create`` and the exclusion rules
    take them: a setting left out is what the form and the API propose (``Setting.proposed``)."""
    flat = {s.name: _section(doc, s.group).get(s.name, s.proposed) for s in SETTINGS}
    for name in ("reference", "trap_system"):
        if flat[name] is not None:
            found = System.objects.filter(corpus=corpus, name=flat[name]).first()
            if found is None:
                raise GecInputError(f"{name}: no system {flat[name]!r} in corpus {corpus.name!r}")
            flat[name] = found
    if flat["qualification"] is not None:
        found = Qualification.objects.filter(project=project, name=flat["qualification"]).first()
        if found is None:
            raise GecInputError(
                f"qualification: no qualification {flat['qualification']!r} in {project.name!r}"
            )
        flat["qualification"] = found
    if "instructions" not in _section(doc, "instructions"):  # as the form: the protocol's own
        flat["instructions"] = protocol_get(flat["protocol"]).instructions
    options = settings_check(campaign_options(flat))
    return {**options, **{name: bool(flat[name]) for name in EXCLUSION_RULES}}


def _section_values(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for section in sections():
        defaults = {k: v.get("default") for k, v in section.schema["properties"].items()}
        out[section.name] = {**defaults, **(doc.get(section.name) or {})}
    return out


# --------------------------------------------------------------------------- export


def study_export(
    campaign: Campaign, *, files: Path | None = None, base: Path | None = None
) -> dict[str, Any]:
    """The study document of any campaign (made from a file, in the browser or through the API). With
    ``files`` (a folder), the corpus is written there as JSONL with every system, and the document
    names it relative to ``base`` (the study file's folder): applied into an empty database, it gives
    an equal campaign."""
    corpus = campaign.corpus
    entry: Any = corpus.name
    if files is not None:
        written = save_files(corpus_export(corpus, fmt="jsonl"), files)
        relative = os.path.relpath(written[0], base or files)
        entry = {"name": corpus.name, "file": relative, "format": "jsonl", "language": corpus.language}
    values = {s.name: _study_value(s, _stored(campaign, s)) for s in SETTINGS}
    doc: dict[str, Any] = {
        "study": STUDY_VERSION,
        "name": campaign.name,
        "project": campaign.project.name,
        "seed": campaign.seed,
        "corpus": entry,
        "systems": sorted(campaign.systems.values_list("name", flat=True)),
        **{s.name: values[s.name] for s in SETTINGS if s.group == TOP_GROUP},
    }
    for group in dict.fromkeys(s.group for s in SETTINGS if s.group != TOP_GROUP):
        doc[group] = {s.name: values[s.name] for s in SETTINGS if s.group == group}
    for section in sections():
        doc[section.name] = section.read(campaign)
    return doc


# --------------------------------------------------------------------------- apply


@dataclass
class ApplyReport:
    campaign: Campaign
    created: bool = False
    rebuilt: bool = False
    changed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        name = self.campaign.name
        if self.created or self.rebuilt:
            screens, hits = self.campaign.screens.count(), self.campaign.hits.count()
            verb = "created" if self.created else "rebuilt (a draft)"
            return [f"{verb} campaign {name!r}: {screens} screens in {hits} HITs, a draft"]
        out = [f"changed in {name!r}: {', '.join(self.changed)}"] if self.changed else []
        if self.refused:
            status = self.campaign.status
            out.append(f"refused ({status}: fixed once launched): {', '.join(self.refused)}")
        return out or [f"unchanged: campaign {name!r} already is as the study says"]


def _path(base: Path | None, relative: str) -> str:
    if base is None:
        raise GecInputError(f"{relative}: a file to import needs the study file's folder")
    return str(base / relative)


def _corpus(project: Project, entry: Any, base: Path | None) -> Corpus:
    name = entry if isinstance(entry, str) else entry["name"]
    corpus = Corpus.objects.filter(project=project, name=name).first()
    if corpus is not None:
        return corpus
    if isinstance(entry, str) or "file" not in entry:
        raise GecInputError(f"corpus: no corpus {name!r} in project {project.name!r} (give a file to import)")
    stream = load_stream(_path(base, entry["file"]), entry.get("format", "jsonl"))
    return corpus_save(project=project, name=name, stream=stream, language=entry.get("language", "en"))


def _system(corpus: Corpus, entry: Any, base: Path | None) -> System:
    name = entry if isinstance(entry, str) else entry["name"]
    system = System.objects.filter(corpus=corpus, name=name).first()
    if system is not None:
        return system
    if isinstance(entry, str) or "file" not in entry:
        raise GecInputError(f"systems: no system {name!r} in corpus {corpus.name!r} (give a file to import)")
    kind = entry.get("kind", SystemKind.MODEL)
    return outputs_import(corpus=corpus, system_name=name, kind=kind, file=_path(base, entry["file"]))


def _create(
    doc: dict[str, Any],
    project: Project,
    corpus: Corpus,
    systems: list[System],
    into: Campaign | None = None,
) -> Campaign:
    """A draft campaign of the document; ``into``: that draft, built again under its own id."""
    desired = _desired(doc, project, corpus)
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name=doc["name"],
        systems=systems,
        created_by=project.owner,
        seed=doc.get("seed", 0),
        status=CampaignStatus.DRAFT,
        into=into,
        **{k: v for k, v in desired.items() if k not in EXCLUSION_RULES},
    )
    campaign_exclusion_rules_set(campaign=campaign, **exclusion_rules(desired))
    for section in sections():
        section.write(campaign, _section_values(doc)[section.name])
    campaign.study = doc
    campaign.save(update_fields=["study"])
    return campaign


def _differences(doc: dict[str, Any], campaign: Campaign, corpus: Corpus, systems: list[System]) -> list[str]:
    desired = _desired(doc, campaign.project, corpus)
    changed = [
        s.name for s in SETTINGS if _study_value(s, desired[s.name]) != _study_value(s, _stored(campaign, s))
    ]
    fixed = {
        "corpus": corpus.pk != campaign.corpus_id,
        "systems": sorted(s.pk for s in systems) != sorted(campaign.systems.values_list("pk", flat=True)),
        "seed": doc.get("seed", 0) != campaign.seed,
    }
    changed += [name for name, differs in fixed.items() if differs]
    wanted = _section_values(doc)
    for section in sections():
        if section.differs is not None:
            changed += [f"{section.name}/{k}" for k in section.differs(campaign, wanted[section.name])]
            continue
        now = section.read(campaign)
        changed += [f"{section.name}/{k}" for k, v in wanted[section.name].items() if now.get(k) != v]
    return changed


def _may_change(name: str) -> bool:
    if "/" in name:
        return next(s for s in sections() if s.name == name.split("/")[0]).after_launch
    return name not in FIXED and BY_NAME[name].after_launch


def _update(doc: dict[str, Any], campaign: Campaign, names: list[str]) -> None:
    """Store the changed settings that may change on this campaign (no screen depends on them)."""
    desired = _desired(doc, campaign.project, campaign.corpus)
    fields = [n for n in names if n in BY_NAME and n not in EXCLUSION_RULES]
    for name in fields:
        value = desired[name]
        setattr(
            campaign,
            name,
            Decimal(str(value)) if BY_NAME[name].kind == "decimal" and value is not None else value,
        )
    campaign.study = doc
    campaign.save(update_fields=[*fields, "study"])
    if any(n in EXCLUSION_RULES for n in names):
        campaign_exclusion_rules_set(campaign=campaign, **exclusion_rules(desired))
    wanted = _section_values(doc)
    for section in sections():
        given = {k.split("/", 1)[1]: None for k in names if k.startswith(f"{section.name}/")}
        if given:
            section.write(campaign, {k: wanted[section.name][k] for k in given})


def _gold_dropped(doc: dict[str, Any], campaign: Campaign) -> None:
    """Remove the draft's gold answers before it is built again (``campaign_create`` refuses to lose
    them); a document without a gold section (written by hand, or before gold was part of a study)
    would drop them unsaid: refused, saying what to do."""
    golds = GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True)
    if "gold" not in doc and (golds.exists() or gold_assignment(campaign) is not None):
        raise GecInputError(
            f"campaign {campaign.name!r} has gold answers and the study file has no gold section, so"
            " building the draft again would drop them: export its study (which holds them) and change"
            " that, or remove them on its Gold screens page first"
        )
    golds.delete()
    Hit.objects.filter(campaign=campaign, qualification=True).delete()  # with the expert's assignment


@transaction.atomic
def study_apply(doc: dict[str, Any], *, base: Path | None = None) -> ApplyReport:
    """Create the campaign the document describes as a draft, or bring an existing one to it: a draft
    changes wholly (its screens built again, under the same id, when they would change), a launched campaign only in what may change
    after launch; the rest is refused and reported. Applying the same document twice changes nothing."""
    problems = study_problems(doc)
    if problems:
        raise GecInputError("; ".join(problems))
    project = project_find_or_create(doc.get("project")).project
    corpus = _corpus(project, doc["corpus"], base)
    systems = [_system(corpus, entry, base) for entry in doc["systems"]]
    campaign = Campaign.objects.filter(project=project, name=doc["name"].strip()).first()
    if campaign is None:
        return ApplyReport(_create(doc, project, corpus, systems), created=True)
    changed = _differences(doc, campaign, corpus, systems)
    fixed = [n for n in changed if not _may_change(n)]
    if fixed and campaign.status == CampaignStatus.DRAFT and not handed_out(campaign):
        # A draft has handed nothing out: build its screens again from the document, under the same
        # id, so the invite links and crowd settings made for it stay (issue 39). Its gold answers
        # are on screens made anew: the document holds them (its gold section), and they are
        # marked again on the new screens.
        _gold_dropped(doc, campaign)
        return ApplyReport(_create(doc, project, corpus, systems, into=campaign), rebuilt=True)
    allowed = [n for n in changed if n not in fixed]
    if allowed:
        _update(doc, campaign, allowed)
    return ApplyReport(campaign, changed=allowed, refused=fixed)
