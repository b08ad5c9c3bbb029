"""The login limiter's state: per account across addresses (the database), per address (the cache,
or the database while the cache is down). The rules that use it are in ``config.security``.

Per account (issue 36): failures against one username from any address are counted in
``AccountLoginThrottle``. After ``LOGIN_ACCOUNT_DELAY_AFTER`` (10) failures in the window each
further attempt waits an increasing delay (1 s, 2 s, 4 s ... up to ``LOGIN_ACCOUNT_DELAY_MAX_SECONDS``),
measured from the previous attempt; an attempt before that time is refused without checking the
password (the right password too) and is not counted, so nobody can make the delays longer by
hammering the form. No web process sleeps: the refusal says "try again in N s" (``Retry-After``).
After ``LOGIN_ACCOUNT_LOCK_AFTER`` (50) failures the account is locked until its owner follows the
link mailed to them or an administrator lifts the lock on the account's page, or, when
``LOGIN_ACCOUNT_LOCK_SECONDS`` is set (0 by default: not set), until that time has passed: the account is then
one failure short of a new lock. A successful login clears the account's failures.

The account's count is kept apart from the per-address window (``LOGIN_FAILURES_WINDOW_SECONDS``, 15
min): it decays by one failure per ``LOGIN_ACCOUNT_WINDOW_SECONDS / LOGIN_ACCOUNT_LOCK_AFTER`` seconds
(24 h / 50: one per 29 minutes). Before the review of issue 36 it was reset after 15 minutes without a
failure, so a guesser pausing that long between bursts (~1,000 guesses a day) never reached the lock;
now a guesser is held to about ``LOCK_AFTER`` guesses per window, slowed past ``DELAY_AFTER``, and
locked when faster.

The gate takes a row lock and books the next slot before the password is checked, so that
parallel attempts from many addresses cannot all slip through the same free moment.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from annotate.accounts.models import AccountLoginThrottle, LoginCounter

log = logging.getLogger(__name__)

UNLOCK_SALT = "gec-arena.login-unlock"
UNLOCK_LINK_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Refusal:
    """Why an attempt was not checked: the account is locked, or must wait ``retry_after`` seconds."""

    locked: bool
    retry_after: int


def account_name(username: object) -> str:
    return str(username if username is not None else "").strip().lower()[:150]


def account_delay(failures: int) -> int:
    """Seconds to wait after ``failures`` failures: 0 below the threshold, then 1, 2, 4 ... up to the cap."""
    over = failures - settings.LOGIN_ACCOUNT_DELAY_AFTER
    if over < 0:
        return 0
    return min(settings.LOGIN_ACCOUNT_DELAY_MAX_SECONDS, 2 ** min(over, 30))


def _decayed(failures: int, since, now) -> int:
    """``failures`` counted at ``since``, less one per ``LOGIN_ACCOUNT_WINDOW_SECONDS /
    LOGIN_ACCOUNT_LOCK_AFTER`` seconds since (a lock's worth drains in the window: 50 a day)."""
    if since is None:
        return 0
    window = settings.LOGIN_ACCOUNT_WINDOW_SECONDS
    step = window / max(1, settings.LOGIN_ACCOUNT_LOCK_AFTER)
    if step <= 0:
        return 0
    return max(0, failures - int((now - since).total_seconds() // step))


def _effective(row: AccountLoginThrottle, now) -> tuple[bool, int]:
    """(locked, failures) now. A lock older than ``LOGIN_ACCOUNT_LOCK_SECONDS`` (when that is set) has
    ended by itself; the account is then one failure short of the lock, decaying from its end, so the
    owner gets in after at most one delay and a guesser gets one guess per lock."""
    if row.locked_at is not None:
        lock = settings.LOGIN_ACCOUNT_LOCK_SECONDS
        if lock <= 0 or row.locked_at > now - timedelta(seconds=lock):
            return True, row.failures
        ended = row.locked_at + timedelta(seconds=lock)
        return False, _decayed(max(0, settings.LOGIN_ACCOUNT_LOCK_AFTER - 1), ended, now)
    return False, _decayed(row.failures, row.last_failure, now)


def _stale(row: AccountLoginThrottle, now) -> bool:
    locked, failures = _effective(row, now)
    return not locked and failures == 0 and (row.retry_at is None or row.retry_at <= now)


def _refusal(row: AccountLoginThrottle, now) -> Refusal | None:
    if _effective(row, now)[0]:
        return Refusal(locked=True, retry_after=0)
    if row.retry_at is not None and row.retry_at > now:
        return Refusal(locked=False, retry_after=max(1, math.ceil((row.retry_at - now).total_seconds())))
    return None


def account_gate(username: object) -> Refusal | None:
    """Before the password is checked: a Refusal while locked or before the account's next slot."""
    name = account_name(username)
    if not name or settings.LOGIN_ACCOUNT_DELAY_AFTER <= 0:
        return None
    now = timezone.now()
    row = AccountLoginThrottle.objects.filter(username=name).first()
    if row is None or _stale(row, now):
        return None
    refusal = _refusal(row, now)
    if refusal is not None or _effective(row, now)[1] < settings.LOGIN_ACCOUNT_DELAY_AFTER:
        return refusal
    with transaction.atomic():  # book the slot: parallel attempts see it taken
        row = AccountLoginThrottle.objects.select_for_update().filter(pk=row.pk).first()
        if row is None:
            return None
        refusal = _refusal(row, now)
        if refusal is None:
            row.retry_at = now + timedelta(seconds=account_delay(_effective(row, now)[1] + 1))
            row.save(update_fields=["retry_at"])
        return refusal


def account_failed(username: object, request=None) -> None:
    """Count a wrong password for this username; the failure that reaches the lock mails the owner."""
    name = account_name(username)
    if not name or settings.LOGIN_ACCOUNT_DELAY_AFTER <= 0:
        return
    now = timezone.now()
    with transaction.atomic():
        try:
            row, _ = AccountLoginThrottle.objects.select_for_update().get_or_create(username=name)
        except IntegrityError:  # made by a parallel failure between our read and insert
            row = AccountLoginThrottle.objects.select_for_update().get(username=name)
        locked, failures = _effective(row, now)
        if not locked:  # the decayed count (an ended lock: one short of a new one)
            row.failures, row.locked_at = failures, None
        row.failures += 1
        row.last_failure = now
        locked_now = row.locked_at is None and row.failures >= settings.LOGIN_ACCOUNT_LOCK_AFTER > 0
        if locked_now:
            row.locked_at = now
        elif row.failures >= settings.LOGIN_ACCOUNT_DELAY_AFTER:
            row.retry_at = max(row.retry_at or now, now + timedelta(seconds=account_delay(row.failures)))
        row.save()
    if locked_now:
        log.warning("login: account %r locked after %d failures", name, row.failures)
        _mail_unlock_link(row, request)


def account_succeeded(username: object) -> None:
    row = AccountLoginThrottle.objects.filter(username=account_name(username)).first()
    if row is not None and not _effective(row, timezone.now())[0]:
        AccountLoginThrottle.objects.filter(pk=row.pk, locked_at=row.locked_at).delete()


def account_state(username: object) -> AccountLoginThrottle | None:
    """The account's limiter row for its page, its failures decayed (None when none is left)."""
    row = AccountLoginThrottle.objects.filter(username=account_name(username)).first()
    if row is None or _stale(row, timezone.now()):
        return None
    locked, row.failures = _effective(row, timezone.now())
    if not locked:
        row.locked_at = None
    return row


def account_unlock(username: object) -> bool:
    """Lift the lock and forget the failures (an administrator, or the owner's link)."""
    return AccountLoginThrottle.objects.filter(username=account_name(username)).delete()[0] > 0


def unlock_token(row: AccountLoginThrottle) -> str:
    return signing.dumps({"u": row.username, "t": row.locked_at.isoformat()}, salt=UNLOCK_SALT)


def unlock_with_token(token: str) -> str | None:
    """Lift the lock the link was mailed for; the username, or None for a bad, old or already used link."""
    try:
        data = signing.loads(token, salt=UNLOCK_SALT, max_age=UNLOCK_LINK_SECONDS)
    except signing.BadSignature:
        return None
    row = AccountLoginThrottle.objects.filter(username=data.get("u"), locked_at__isnull=False).first()
    if row is None or row.locked_at.isoformat() != data.get("t"):
        return None
    row.delete()
    return row.username


def _mail_unlock_link(row: AccountLoginThrottle, request) -> None:
    users = get_user_model().objects.filter(username__iexact=row.username).exclude(email="")
    path = reverse("login-unlock", args=[unlock_token(row)])
    link = request.build_absolute_uri(path) if request is not None else path
    for user in users:
        body = (
            f"Someone tried {row.failures} wrong passwords for your GEC Arena account “{user.get_username()}”, "
            "so it is locked: nobody can log in to it, not even with the right password.\n\n"
            f"If that was you, or to let yourself in again, open this link (valid for 7 days):\n{link}\n\n"
            "If it was not you, your password held; consider changing it once you are in."
        )
        try:
            send_mail("Your GEC Arena account is locked", body, None, [user.email])
        except Exception:  # the lock holds; an administrator can lift it on the account's page
            log.warning("login: could not mail the unlock link to %s", user.pk, exc_info=True)


# ----------------------------------------------------------------------------- per-address counts


def _db_count(key: str) -> int:
    row = LoginCounter.objects.filter(key=key, expires__gt=timezone.now()).values_list("count", flat=True)
    return next(iter(row), 0)


def _db_bump(key: str, window: int) -> None:
    now = timezone.now()
    with transaction.atomic():
        try:
            row, made = LoginCounter.objects.select_for_update().get_or_create(
                key=key, defaults={"count": 1, "expires": now + timedelta(seconds=window)}
            )
        except IntegrityError:
            row, made = LoginCounter.objects.select_for_update().get(key=key), False
        if made:
            LoginCounter.objects.filter(expires__lte=now).delete()
            return
        if row.expires <= now:
            row.count, row.expires = 0, now + timedelta(seconds=window)
        row.count += 1
        row.save(update_fields=["count", "expires"])


def counter_get(key: str) -> int:
    """A per-address count from the cache; from the database while the cache cannot be reached."""
    try:
        return int(cache.get(key, 0))
    except Exception:
        log.warning("login limiter: cache unavailable, counting in the database", exc_info=True)
        return _db_count(key)


def counter_bump(key: str, window: int) -> None:
    try:
        if not cache.add(key, 1, timeout=window):
            cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
    except Exception:
        log.warning("login limiter: cache unavailable, counting in the database", exc_info=True)
        _db_bump(key, window)


def counter_clear(key: str) -> None:
    try:
        cache.delete(key)
    except Exception:
        log.warning("login limiter: cache unavailable", exc_info=True)
    LoginCounter.objects.filter(key=key).delete()
