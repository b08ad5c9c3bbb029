"""Between the models and ``geceval.human.worker_checks``: a campaign's exclusion rules and a worker record's
evidence as the core's plain data, for the services that exclude and the worker table that explains."""

from __future__ import annotations

from geceval.human.worker_checks import Evidence, Rules, exclusion_reasons, kind_never_passed
from ranking.models import Campaign, WorkerRecord

RULE_FIELDS = {
    "pass_rate": "exclude_by_pass_rate",
    "mann_whitney": "exclude_by_mann_whitney",
    "consistency": "exclude_by_consistency",
    "flat": "exclude_by_flat",
    "agreement": "exclude_by_agreement",
}
"""Rule name (``geceval.human.worker_checks.Rules``) -> the campaign field that switches it on."""


def exclusion_rules(data: dict) -> dict[str, bool]:
    """``campaign_exclusion_rules_set``'s keyword arguments from cleaned form or API data (the campaign
    field names); a field missing from ``data`` keeps the model's default."""
    defaults = {f.name: f.default for f in Campaign._meta.get_fields() if f.name in RULE_FIELDS.values()}
    return {rule: bool(data.get(name, defaults[name])) for rule, name in RULE_FIELDS.items()}


def campaign_rules(campaign: Campaign) -> Rules:
    """The campaign's choice of exclusion rules, with the pass-rate rule's own settings."""
    return Rules(
        **{rule: getattr(campaign, name) for rule, name in RULE_FIELDS.items()},
        trap_threshold=campaign.trap_threshold,
        trap_min_seen=campaign.trap_min_seen,
    )


def record_evidence(record: WorkerRecord) -> Evidence:
    return Evidence(
        traps_seen=record.traps_seen,
        traps_passed=record.traps_passed,
        mann_whitney_p=record.mann_whitney_p,
        inconsistent=record.inconsistent,
        flat_reason=record.flat_reason,
        agreement_low=record.agreement_low,
        drifting=record.drift_from is not None,
        agreement_drifting=record.agreement_drift_from is not None,
        kind_failed=record_kind_failed(record),
        crowd_vouches=record.agreement_vouches,
    )


def record_kind_failed(record: WorkerRecord) -> str:
    """The kind of hidden trap of which the worker failed every one (``kind_never_passed``), or ""."""
    return kind_never_passed({kind: tuple(counts) for kind, counts in record.trap_kinds.items()})


def record_exclusion_reasons(campaign: Campaign, record: WorkerRecord) -> list[str]:
    """The campaign's chosen rules this record breaks (the researcher's override aside)."""
    return exclusion_reasons(record_evidence(record), campaign_rules(campaign))
