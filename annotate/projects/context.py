"""The nav's project switcher, admin link and qualification count (a context processor)."""

from __future__ import annotations

from django.http import HttpRequest

from annotate.projects.selectors import is_admin, nav_projects
from annotate.rewrites.selectors import may_review, qualification_attempts_awaiting


def nav(request: HttpRequest) -> dict[str, object]:
    user = request.user
    if not user.is_authenticated:
        return {}
    found = nav_projects(request)
    waiting = qualification_attempts_awaiting(user).count() if may_review(user) else None
    return {
        "nav_projects": found.projects,
        "current_project": found.current,
        "all_projects": found.all_chosen,
        "is_admin": is_admin(user),
        "qualifications_waiting": waiting,
    }
