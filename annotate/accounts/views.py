"""Accounts in the product (not Django's admin): the administrators' list and account page (the
login lock, the site-wide researcher role), and the unlock link mailed to a locked account's owner."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from annotate.accounts import logins
from annotate.accounts.services import site_researcher_set
from annotate.models import Role
from annotate.roles import user_roles


def _admin_only(request: HttpRequest) -> None:
    if Role.ADMIN not in user_roles(request.user):
        raise PermissionDenied("administrators only")


@login_required
def account_list(request: HttpRequest) -> HttpResponse:
    _admin_only(request)
    if request.method != "GET":
        return HttpResponse(status=405)
    query = request.GET.get("q", "").strip()[:150]
    users = get_user_model().objects.order_by("username")
    if query:
        users = users.filter(username__icontains=query) | users.filter(email__icontains=query)
    return render(request, "annotate/account_list.html", {"users": users[:200], "query": query})


@login_required
def account_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """GET shows the account; POST ``action`` = unlock, grant-researcher or revoke-researcher."""
    _admin_only(request)
    user = get_object_or_404(get_user_model(), pk=pk)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "unlock":
            logins.account_unlock(user.get_username())
            messages.success(
                request, f"{user.get_username()} may log in again; their failures are forgotten."
            )
        elif action in ("grant-researcher", "revoke-researcher"):
            site_researcher_set(actor=request.user, user=user, on=action == "grant-researcher")
            state = "now has" if action == "grant-researcher" else "no longer has"
            messages.success(request, f"{user.get_username()} {state} the site-wide researcher role.")
        else:
            return HttpResponse("Unknown action.", status=400, content_type="text/plain")
        return redirect("account", pk=user.pk)
    context = {
        "account": user,
        "roles": sorted(user_roles(user)),
        "site_researcher": Role.RESEARCHER in user_roles(user),
        "throttle": logins.account_state(user.get_username()),
    }
    return render(request, "annotate/account_detail.html", context)


def login_unlock(request: HttpRequest, token: str) -> HttpResponse:
    """The mailed link: GET asks (mail scanners open links), POST lifts the lock."""
    if request.method == "POST":
        username = logins.unlock_with_token(token)
        if username is None:
            raise Http404("this link is not valid any more")
        messages.success(request, "Your account is unlocked: log in with your password.")
        return redirect("login")
    try:
        logins.signing.loads(token, salt=logins.UNLOCK_SALT, max_age=logins.UNLOCK_LINK_SECONDS)
    except logins.signing.BadSignature:
        raise Http404("this link is not valid any more") from None
    return render(request, "annotate/login_unlock.html", {})
