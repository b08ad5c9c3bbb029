"""Writes for judgment campaigns, HITs and judgments (systems and outputs: annotate.systems).

One module per concern; the names other apps and tests use are re-exported here.
"""

from ranking.quality.exclusion import (
    campaign_exclusion_rules_set,
    crowd_caught_up,
    crowd_evidence_overdue,
    crowd_evidence_refresh,
    drift_holds_reconsidered,
    worker_override_set,
    worker_record_refresh,
    worker_record_refresh_after_submit,
)
from ranking.services.campaigns import campaign_create
from ranking.services.life_cycle import campaign_set_status, campaign_transition
from ranking.services.results import campaign_scores_due_clear, campaign_scores_recompute
from ranking.work.assignments import (
    NoWork,
    assignment_request,
    assignment_return,
    assignments_expire,
    screen_submit,
)
from ranking.work.judging import CandidateScore, answers_from_form, validate_answers

__all__ = [
    "CandidateScore",
    "NoWork",
    "answers_from_form",
    "assignment_request",
    "assignment_return",
    "assignments_expire",
    "campaign_create",
    "campaign_exclusion_rules_set",
    "campaign_scores_due_clear",
    "campaign_scores_recompute",
    "campaign_set_status",
    "campaign_transition",
    "crowd_caught_up",
    "crowd_evidence_overdue",
    "crowd_evidence_refresh",
    "drift_holds_reconsidered",
    "screen_submit",
    "validate_answers",
    "worker_override_set",
    "worker_record_refresh",
    "worker_record_refresh_after_submit",
]
