from __future__ import annotations

from django import forms

from annotate.projects.models import INVITABLE_ROLES

ROLE_CHOICES = [(r.value, r.value.capitalize()) for r in INVITABLE_ROLES]


class ProjectForm(forms.Form):
    name = forms.CharField(max_length=200, label="Project name")
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, label="Description"
    )


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="Username")
    role = forms.ChoiceField(choices=ROLE_CHOICES, label="Role")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, prefix="add", **kwargs)


class InviteForm(forms.Form):
    email = forms.EmailField(
        label="E-mail address", error_messages={"invalid": "Enter a valid e-mail address."}
    )
    role = forms.ChoiceField(choices=ROLE_CHOICES, label="Role")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, prefix="invite", **kwargs)


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
