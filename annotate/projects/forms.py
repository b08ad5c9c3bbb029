from __future__ import annotations

import re

from django import forms
from django.core.validators import validate_email

from annotate.models import Role
from annotate.projects.models import INVITABLE_ROLES

ROLE_CHOICES = [(r.value, r.value.capitalize()) for r in INVITABLE_ROLES]
LEAST_ROLE = Role.ANNOTATOR
"""What the member and invitation forms start at (issue 40: least privilege; a researcher manages the
project, so it is a choice, never the default)."""
MAX_INVITE_ADDRESSES = 50


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=200, label="Project name")
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, label="Description"
    )


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="Username")
    role = forms.ChoiceField(choices=ROLE_CHOICES, label="Role", initial=LEAST_ROLE)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, prefix="add", **kwargs)


class InviteForm(forms.Form):
    email = forms.CharField(
        label="E-mail addresses",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=f"One or more (up to {MAX_INVITE_ADDRESSES}), separated by commas, spaces or new lines; "
        "each gets a link of their own.",
    )
    role = forms.ChoiceField(choices=ROLE_CHOICES, label="Role", initial=LEAST_ROLE)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, prefix="invite", **kwargs)

    def clean_email(self) -> list[str]:
        """The addresses, each checked, repeats dropped (case aside), in the order given."""
        addresses = [a for a in re.split(r"[\s,;]+", self.cleaned_data["email"]) if a]
        if not addresses:
            raise forms.ValidationError("Enter a valid e-mail address.")
        if len(addresses) > MAX_INVITE_ADDRESSES:
            raise forms.ValidationError(f"At most {MAX_INVITE_ADDRESSES} addresses at once.")
        bad = []
        for address in addresses:
            try:
                validate_email(address)
            except forms.ValidationError:
                bad.append(address)
        if bad:
            raise forms.ValidationError(f"Enter a valid e-mail address. Not one: {', '.join(bad)}.")
        unique: dict[str, str] = {}
        for address in addresses:
            unique.setdefault(address.lower(), address)
        return list(unique.values())


class SignupForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)

    username = forms.CharField(max_length=150, label="Choose a username")
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}), label="Password"
    )
    password2 = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}), label="Password again"
    )
