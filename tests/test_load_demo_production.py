"""Issue 36: `load_demo` on a production site (DEBUG=false) made admin/demo-admin-pass without a word."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command

from ranking.demo import DEMO_ACCOUNTS

pytestmark = pytest.mark.django_db


def test_load_demo_refuses_in_production_without_the_flag(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--i-know-this-is-production"):
        call_command("load_demo")
    assert not get_user_model().objects.exists()


def test_load_demo_in_production_with_the_flag_prints_random_passwords(settings, capsys):
    settings.DEBUG = False
    call_command("load_demo", "--i-know-this-is-production")
    out = capsys.readouterr().out
    for username, published, _role in DEMO_ACCOUNTS:
        assert published not in out
        assert authenticate(username=username, password=published) is None
        printed = next(line.split()[-1] for line in out.splitlines() if line.split()[1:2] == [username])
        assert len(printed) >= 16
        assert authenticate(username=username, password=printed) is not None
    passwords = [line.split()[-1] for line in out.splitlines() if line.startswith("  ")]
    assert len(set(passwords)) == len(DEMO_ACCOUNTS)
    call_command("load_demo", "--i-know-this-is-production")  # again: nothing to print, nothing changed
    assert "password unchanged" in capsys.readouterr().out


def test_load_demo_locally_keeps_the_published_logins(settings, capsys):
    settings.DEBUG = True
    call_command("load_demo")
    out = capsys.readouterr().out
    assert "demo-admin-pass" in out
    assert authenticate(username="admin", password="demo-admin-pass") is not None
