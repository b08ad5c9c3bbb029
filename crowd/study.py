"""The crowd app's section of a study file (``ranking.study.sections``): welcome and consent texts,
completion codes, the visit's limit, the per-address limits and the shared-network preset (issue 40),
and the payment's fee and minimum wage."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models

from crowd.models import CrowdSettings
from ranking.models import Campaign
from ranking.study.sections import StudySection

FIELDS = (
    "welcome_text",
    "consent_text",
    "hits_per_visit",
    "live_per_address",
    "identities_per_address_day",
    "shared_network",
    "seats",
    "completion_code",
    "prolific_completed_code",
    "prolific_screened_out_code",
    "fee_percent",
    "min_hourly_wage",
)
"""What a study says of crowd entry. Not the Prolific study id nor MTurk's qualification type: they
name one platform account's objects, and a study applied elsewhere must not claim them."""


def _field_schema(f: models.Field) -> dict[str, Any]:
    if isinstance(f, models.DecimalField):
        schema: dict[str, Any] = {"type": "number", "minimum": 0}
        if f.name == "fee_percent":
            schema["maximum"] = 100
    elif isinstance(f, models.BooleanField):
        schema = {"type": "boolean"}
    elif isinstance(f, models.IntegerField):
        schema = {"type": "integer", "minimum": 0}
    else:
        schema = {"type": "string"} | ({"maxLength": f.max_length} if f.max_length else {})
    if f.null:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return {"description": str(f.help_text), **schema, "default": _value(f.name, f.get_default())}


def _read(campaign: Campaign) -> dict[str, Any]:
    found = CrowdSettings.objects.filter(campaign=campaign).first() or CrowdSettings(campaign=campaign)
    return {name: _value(name, getattr(found, name)) for name in FIELDS}


def _value(name: str, value: Any) -> Any:
    is_decimal = isinstance(CrowdSettings._meta.get_field(name), models.DecimalField)
    return float(value) if is_decimal and value is not None else value


def _write(campaign: Campaign, values: dict[str, Any]) -> None:
    found, _ = CrowdSettings.objects.get_or_create(campaign=campaign)
    for name, value in values.items():
        is_decimal = isinstance(CrowdSettings._meta.get_field(name), models.DecimalField)
        setattr(found, name, Decimal(str(value)) if is_decimal and value is not None else value)
    found.full_clean()
    found.save()


def crowd_section() -> StudySection:
    schema = {
        "type": "object",
        "description": "crowd entry: what workers see first, the end codes, HITs per visit, fees",
        "properties": {name: _field_schema(CrowdSettings._meta.get_field(name)) for name in FIELDS},
        "additionalProperties": False,
    }
    return StudySection(name="crowd", schema=schema, read=_read, write=_write, after_launch=True)
