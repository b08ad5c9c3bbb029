"""The ../shared data helper: a missing file skips a test, or fails it under CI when asked to."""

from __future__ import annotations

import pytest

from tests.shared_data import shared_path

MISSING = ("no-such-dataset", "nowhere")


def test_missing_shared_data_skips_locally_and_in_ci_unless_the_test_is_required(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="public GEC data not found"):
        shared_path(*MISSING, required_in_ci=True)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.skip.Exception):
        shared_path(*MISSING)
    with pytest.raises(pytest.fail.Exception, match="CI=true but public GEC data not found"):
        shared_path(*MISSING, required_in_ci=True)
