"""Test helpers for judgment campaigns: a worker doing whole HITs through the services."""

from __future__ import annotations

from collections.abc import Callable

from ranking.models import Assignment, Candidate, Screen
from ranking.services import CandidateScore, assignment_request, screen_submit
from ranking.work.assignments import assignment_next_screen

Answer = Callable[[Screen, Candidate], CandidateScore]


def is_trap(candidate: Candidate) -> bool:
    return candidate.outputs.filter(system__kind="source+error").exists()


def is_source(screen: Screen, candidate: Candidate) -> bool:
    return " ".join(candidate.text.split()) == " ".join(screen.sentence.text.split())


def do_hit(campaign, worker, answer: Answer) -> Assignment:
    assignment = assignment_request(campaign=campaign, worker=worker)
    while assignment.status == "active" and (screen := assignment_next_screen(assignment)) is not None:
        answers = {c.pk: answer(screen, c) for c in screen.candidates.all()}
        screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers, seconds=7.0)
        assignment.refresh_from_db()
    return assignment


def honest_prws(screen: Screen, candidate: Candidate) -> CandidateScore:
    """Traps clearly worse than the source, everything else 70."""
    if is_trap(candidate):
        return CandidateScore(score=10)
    return CandidateScore(score=70)


def careless_prws(screen: Screen, candidate: Candidate) -> CandidateScore:
    """Every output the same score: each trap is a tie with the source, i.e. a failure."""
    return CandidateScore(score=50)
