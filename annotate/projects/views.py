"""HTML views for projects: list, create, members and roles, invitations, the nav switcher."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from annotate.decorators import site_researcher_required
from annotate.http import id_field
from annotate.projects import selectors as sel
from annotate.projects import services
from annotate.projects.forms import InviteForm, MemberAddForm, ProjectForm, SignupForm


@login_required
def project_list(request: HttpRequest) -> HttpResponse:
    context = {
        "projects": sel.project_visible_list_for(request.user).select_related("owner"),
        "my_invitations": sel.invitations_for(request.user),
    }
    return render(request, "annotate/project_list.html", context)


@login_required
@require_POST
def invitation_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept or decline an invitation addressed to this account (anyone else's: 404)."""
    found = get_object_or_404(sel.invitations_for(request.user), pk=pk)
    accept = request.POST.get("answer") == "accept"
    try:
        services.invitation_answer(invitation=found, user=request.user, accept=accept)
    except services.ProjectError as exc:
        messages.error(request, str(exc))
        return redirect("project-list")
    if not accept:
        messages.success(request, f"You declined the invitation to {found.project.name}.")
        return redirect("project-list")
    request.session[sel.SESSION_KEY] = found.project_id
    messages.success(request, f"Welcome to {found.project.name}: you joined as {found.role}.")
    return redirect("project", pk=found.project_id)


@site_researcher_required
def project_new(request: HttpRequest) -> HttpResponse:
    form = ProjectForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            project = services.project_new(
                actor=request.user,
                name=form.cleaned_data["name"],
                description=form.cleaned_data["description"],
            )
        except services.ProjectError as exc:
            form.add_error("name", str(exc))
        else:
            request.session[sel.SESSION_KEY] = project.pk
            messages.success(request, f"Project {project.name} created.")
            return redirect("project", pk=project.pk)
    return render(request, "annotate/project_new.html", {"form": form}, status=400 if form.errors else 200)


def _visible_project(request: HttpRequest, pk: int):
    return get_object_or_404(sel.project_visible_list_for(request.user).select_related("owner"), pk=pk)


@login_required
def project_detail(request: HttpRequest, pk: int) -> HttpResponse:
    project = _visible_project(request, pk)
    manage = sel.may_manage_project(request.user, project)
    add_form, invite_form = MemberAddForm(), InviteForm()
    status = 200
    if request.method == "POST":
        if not manage:
            raise PermissionDenied("only the project's researchers manage its members")
        if "add-username" in request.POST:
            form = add_form = MemberAddForm(request.POST)
            done = _add_member
        else:
            form = invite_form = InviteForm(request.POST)
            done = _invite
        if form.is_valid() and done(request, project, form):
            return redirect("project", pk=project.pk)
        status = 400
    context = {
        "project": project,
        # workers never see each other (tests/hardening): the member list is for its managers
        "members": sel.project_members(project) if manage else [],
        "manage": manage,
        "invitations": sel.invitation_pending_list(project) if manage else [],
        "add_form": add_form,
        "invite_form": invite_form,
        "invitation_days": settings.INVITATION_DAYS,
        "now": timezone.now(),
    }
    return render(request, "annotate/project_detail.html", context, status=status)


def _add_member(request: HttpRequest, project, form: MemberAddForm) -> bool:
    """An invitation to the account, which joins when it accepts; the same words whether it exists."""
    data = form.cleaned_data
    try:
        services.member_invite(
            actor=request.user, project=project, username=data["username"], role=data["role"]
        )
    except services.ProjectError as exc:
        form.add_error("username", str(exc))
        return False
    words = {"username": data["username"].strip(), "role": data["role"], "project": project.name}
    messages.success(request, services.INVITED_BY_NAME.format(**words))
    return True


def _invite(request: HttpRequest, project, form: InviteForm) -> bool:
    """One invitation per address given (issue 40: several at once); an address refused (a member
    already, ...) is named and the others are sent."""
    data = form.cleaned_data
    refused = []
    for email in data["email"]:
        try:
            sent = services.invitation_create(
                actor=request.user,
                project=project,
                email=email,
                role=data["role"],
                link_for=lambda token: request.build_absolute_uri(reverse("invitation", args=[token])),
            )
        except services.ProjectError as exc:
            refused.append(f"{email}: {exc}")
            continue
        link = request.build_absolute_uri(reverse("invitation", args=[sent.token]))
        if sent.mailed:
            messages.success(request, f"Invitation sent to {email}. Its link, if they need it again: {link}")
        else:
            messages.warning(request, f"The e-mail to {email} could not be sent; give them this link: {link}")
    if refused:
        form.add_error("email", " ".join(refused))
        return False
    return True


@login_required
@require_POST
def invitation_renew(request: HttpRequest, pk: int, invitation_id: int) -> HttpResponse:
    """A new link for a pending e-mail invitation; the old one stops working (issue 40)."""
    project = _visible_project(request, pk)
    invitation = get_object_or_404(sel.invitation_pending_list(project), pk=invitation_id)
    try:
        sent = services.invitation_renew(
            actor=request.user,
            invitation=invitation,
            link_for=lambda token: request.build_absolute_uri(reverse("invitation", args=[token])),
        )
    except services.ProjectError as exc:
        messages.error(request, str(exc))
        return redirect("project", pk=project.pk)
    link = request.build_absolute_uri(reverse("invitation", args=[sent.token]))
    email = invitation.email
    if sent.mailed:
        messages.success(
            request, f"A new link was sent to {email}; the old one no longer works. New link: {link}"
        )
    else:
        messages.warning(request, f"The e-mail to {email} could not be sent; give them this new link: {link}")
    return redirect("project", pk=project.pk)


def _member(project, user_id: int):
    return get_object_or_404(project.members.all(), pk=user_id)


@login_required
@require_POST
def member_role(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    project = _visible_project(request, pk)
    member = _member(project, user_id)
    try:
        services.member_set_role(
            actor=request.user, project=project, user=member, role=request.POST.get("role", "")
        )
    except services.ProjectError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{member.get_username()} is now {request.POST['role']}.")
    return redirect("project", pk=project.pk)


@login_required
def member_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    """GET asks for confirmation; POST removes."""
    project = _visible_project(request, pk)
    if not sel.may_manage_project(request.user, project):
        raise PermissionDenied("only the project's researchers manage its members")
    member = _member(project, user_id)
    if request.method == "POST":
        try:
            services.member_remove(actor=request.user, project=project, user=member)
        except services.ProjectError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"{member.get_username()} was removed from {project.name}.")
        return redirect("project", pk=project.pk)
    return render(request, "annotate/member_remove.html", {"project": project, "member": member})


@login_required
@require_POST
def project_switch(request: HttpRequest) -> HttpResponse:
    project_id = id_field(request.POST, "project")
    project = sel.project_visible_list_for(request.user).filter(pk=project_id).first() if project_id else None
    if request.POST.get("project") == sel.ALL_PROJECTS:
        request.session[sel.SESSION_KEY] = sel.ALL_PROJECTS
        messages.success(request, "Showing all your projects.")
    elif project is None:
        messages.error(request, "Choose one of your projects.")
    else:
        request.session[sel.SESSION_KEY] = project.pk
        messages.success(request, f"Current project: {project.name}.")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        target = reverse("project-list")
    return redirect(target)


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The link of an e-mail invitation: create an account, or accept while signed in."""
    found = sel.invitation_for_token(token)
    problem = services.invitation_problem(found)
    if found is None:
        return render(request, "annotate/invitation.html", {"problem": problem}, status=404)
    if problem:
        return render(
            request, "annotate/invitation.html", {"problem": problem, "invitation": found}, status=410
        )
    if request.user.is_authenticated and not services.addressed_to(found, request.user):
        # issue 36: accepted by the addressed account only; say so, and offer to switch accounts
        context = {"invitation": found, "wrong_account": services.wrong_account(found)}
        return render(request, "annotate/invitation.html", context, status=403)
    form = SignupForm(request.POST or None)
    error = ""
    if request.method == "POST":
        try:
            if request.user.is_authenticated:
                services.invitation_accept(token=token, user=request.user)
                user = request.user
            elif form.is_valid():
                user = services.invitation_signup(token=token, **form.cleaned_data)
                login(request, user)
            else:
                user = None
        except services.ProjectError as exc:
            error = str(exc)
        else:
            if user is not None:
                request.session[sel.SESSION_KEY] = found.project_id
                messages.success(request, f"Welcome to {found.project.name}: you joined as {found.role}.")
                return redirect("project", pk=found.project_id)
    context = {"invitation": found, "form": form, "error": error, "login_url": reverse("login")}
    status = 400 if request.method == "POST" else 200
    return render(request, "annotate/invitation.html", context, status=status)
