"""The study file's JSON Schema, built from the one list of campaign settings
(``ranking.campaign_settings``) and the registered sections (``ranking.study.sections``)."""

from __future__ import annotations

from typing import Any

from annotate.formats.readers import FORMATS
from annotate.models import SystemKind
from ranking.campaign_settings import GROUPS, SETTINGS, Setting
from ranking.study.sections import sections

STUDY_VERSION = 1
TOP_GROUP = "protocol"
"""Settings of this group are top-level keys of the study file; every other group is a section."""


def _value_schema(setting: Setting) -> dict[str, Any]:
    kind = setting.kind
    if setting.choices and kind in ("int", "choice"):
        schema: dict[str, Any] = {"enum": [value for value, _ in setting.choice_list()]}
    elif kind == "choices":
        items = {"enum": [value for value, _ in setting.choice_list()]}
        schema = {"type": "array", "items": items, "uniqueItems": True}
    else:
        json_type = {"int": "integer", "float": "number", "decimal": "number", "bool": "boolean"}
        schema = {"type": json_type.get(kind, "string")}
        if setting.minimum is not None:
            schema["minimum"] = setting.minimum
        if setting.maximum is not None:
            schema["maximum"] = setting.maximum
        if setting.max_length:
            schema["maxLength"] = setting.max_length
    if setting.blank and kind != "choices":
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def setting_schema(setting: Setting) -> dict[str, Any]:
    """One setting as the study file writes it: a system or qualification by name."""
    notes = [setting.help] if setting.help else []
    if setting.kind in ("system", "qualification"):
        notes.append(f"The {setting.kind}'s name.")
    if setting.applies_when:
        notes.append(f"Applies to: {', '.join(setting.protocols())}.")
    notes.append("May change after launch." if setting.after_launch else "Fixed once launched.")
    default = setting.proposed
    return {
        "title": setting.label or setting.name.replace("_", " ").capitalize(),
        "description": " ".join(notes),
        **_value_schema(setting),
        "default": list(default) if isinstance(default, tuple) else default,
    }


def _named(extra: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "anyOf": [
            {"type": "string", "minLength": 1},
            {"type": "object", "properties": extra, "required": required, "additionalProperties": False},
        ]
    }


def study_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a study file, as ``/api/schema/study/`` serves it."""
    top = {s.name: setting_schema(s) for s in SETTINGS if s.group == TOP_GROUP}
    groups = {
        group: {
            "type": "object",
            "properties": {s.name: setting_schema(s) for s in SETTINGS if s.group == group},
            "additionalProperties": False,
        }
        for group in GROUPS
        if group != TOP_GROUP
    }
    name = {"type": "string", "minLength": 1, "maxLength": 200}
    corpus = _named(
        {
            "name": name,
            "file": {
                "type": "string",
                "description": "imported when the project has no corpus of this name; "
                "a path relative to the study file",
            },
            "format": {"enum": list(FORMATS), "default": "jsonl"},
            "language": {"type": "string", "default": "en"},
        },
        ["name"],
    )
    system = _named(
        {
            "name": name,
            "file": {
                "type": "string",
                "description": "one output a line, imported when the corpus has no "
                "system of this name; relative to the study file",
            },
            "kind": {
                "enum": [k for k in SystemKind.values if k != SystemKind.SOURCE_ERROR],
                "default": "model",
            },
        },
        ["name"],
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "/api/schema/study/",
        "title": "GEC Arena study",
        "description": "One judgment campaign: python manage.py study apply|export|validate.",
        "type": "object",
        "required": ["study", "name", "corpus", "systems"],
        "additionalProperties": False,
        "properties": {
            "study": {"const": STUDY_VERSION, "description": "the study file's version"},
            "name": {**name, "description": "the campaign's name (unique in its project)"},
            "project": {**name, "description": "created when missing; absent: the only project"},
            "seed": {"type": "integer", "minimum": 0, "default": 0},
            "corpus": {**corpus, "description": "by name, or a file to import"},
            "systems": {"type": "array", "minItems": 1, "items": system, "description": "the systems judged"},
            **top,
            **groups,
            **{section.name: section.schema for section in sections()},
        },
    }
