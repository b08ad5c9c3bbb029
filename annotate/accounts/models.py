"""Login limiter state kept in the database (imported by annotate.models; read by annotate.accounts.logins).

``AccountLoginThrottle``: failures against one username from every address, the time before which
no attempt is checked, and the lock. ``LoginCounter``: the per-address counts when the cache that
normally holds them cannot be reached.
"""

from __future__ import annotations

from django.db import models


class AccountLoginThrottle(models.Model):
    """One row per username that failed recently (lower-cased), whether or not an account has it:
    an unknown name is slowed and locked the same way, so the delays tell nobody which names exist."""

    username = models.CharField(max_length=150, unique=True)
    failures = models.PositiveIntegerField(default=0)
    last_failure = models.DateTimeField(null=True, blank=True)
    retry_at = models.DateTimeField(null=True, blank=True)
    locked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"login throttle of {self.username}"


class LoginCounter(models.Model):
    """A per-address failure count (hashed key, as in the cache) kept here while the cache is down."""

    key = models.CharField(max_length=80, unique=True)
    count = models.PositiveIntegerField(default=0)
    expires = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}={self.count}"
