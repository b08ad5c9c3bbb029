import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Test users need no slow key stretching (the machine is shared)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
