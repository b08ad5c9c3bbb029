"""Forgetting a worker: their personal data goes, their (now anonymous) judgments stay.

What identifies a person: the Django user's username, names and e-mail, here;
platform ids (MTurk WorkerId, Prolific PID) kept by the crowd layer, which
registers an eraser for them (``crowd.apps``). Each is replaced by a pseudonym
(HMAC of the user id with SECRET_KEY), so judgments keep their grouping by
worker for analysis but lead back to no one. Pay workers first: a forgotten
MTurk worker can no longer be bonused or blocked.

Erasers are registered by higher layers in their ``AppConfig.ready()``, so this
module (and the ranking page that calls it) imports nothing above annotate.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

# name -> eraser(worker=..., pseudonym=...); keyed so that a second registration replaces the first.
Eraser = Callable[..., None]
_erasers: dict[str, Eraser] = {}


def personal_data_eraser_register(name: str, eraser: Eraser) -> None:
    """Called by an app that stores personal data elsewhere; ``eraser(worker=, pseudonym=)`` runs inside
    the same transaction as the user's own pseudonymisation."""
    _erasers[name] = eraser


def forgotten_name(user_id: int) -> str:
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"forgotten:{user_id}".encode(), hashlib.sha256
    ).hexdigest()
    return "forgotten-" + digest[:16]


@transaction.atomic
def worker_forget(*, worker: AbstractBaseUser) -> str:
    """Remove what identifies ``worker``; returns the pseudonym that replaces them."""
    pseudonym = forgotten_name(worker.pk)
    for eraser in _erasers.values():
        eraser(worker=worker, pseudonym=pseudonym)
    worker.username = pseudonym
    worker.first_name = worker.last_name = worker.email = ""
    worker.is_active = False
    worker.set_unusable_password()
    worker.save()
    return pseudonym
