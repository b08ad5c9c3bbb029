"""Writes for systems, outputs, judgment campaigns, HITs and judgments.

One module per concern; the names other apps and tests use are re-exported here.
"""

from ranking.services.assignments import (
    NoWork,
    assignment_request,
    assignment_return,
    assignments_expire,
    screen_submit,
)
from ranking.services.campaigns import campaign_create, campaign_set_status
from ranking.services.judging import CandidateScore, answers_from_form, validate_answers
from ranking.services.outputs import outputs_import, outputs_import_lines, trap_system_generate
from ranking.services.results import campaign_scores_recompute
from ranking.services.traps import worker_override_set, worker_record_refresh

__all__ = [
    "CandidateScore",
    "NoWork",
    "answers_from_form",
    "assignment_request",
    "assignment_return",
    "assignments_expire",
    "campaign_create",
    "campaign_scores_recompute",
    "campaign_set_status",
    "outputs_import",
    "outputs_import_lines",
    "screen_submit",
    "trap_system_generate",
    "validate_answers",
    "worker_override_set",
    "worker_record_refresh",
]
