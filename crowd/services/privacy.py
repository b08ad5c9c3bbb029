"""Forgetting a worker: their personal data goes, their (now anonymous) judgments stay.

What identifies a person here: the Django user's username, names and e-mail;
platform ids (MTurk WorkerId, Prolific PID) in worker identities, MTurk
assignment records and the audit log of platform calls. Each is replaced by a
pseudonym (HMAC of the user id with SECRET_KEY), so the judgments keep their
grouping by worker for analysis but lead back to no one. Pay workers first:
a forgotten MTurk worker can no longer be bonused or blocked.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from crowd.models import CrowdWorker, MturkAssignment, PlatformCall


def forgotten_name(user_id: int) -> str:
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"forgotten:{user_id}".encode(), hashlib.sha256
    ).hexdigest()
    return "forgotten-" + digest[:16]


@transaction.atomic
def worker_forget(*, worker: AbstractBaseUser) -> str:
    """Remove what identifies ``worker``; returns the pseudonym that replaces them."""
    pseudonym = forgotten_name(worker.pk)
    external = list(CrowdWorker.objects.filter(user=worker).values_list("pk", "external_id"))
    for pk, external_id in external:
        CrowdWorker.objects.filter(pk=pk).update(external_id=f"{pseudonym}-{pk}")
        MturkAssignment.objects.filter(worker_id=external_id).update(worker_id=pseudonym)
        needle = json.dumps(external_id)[1:-1]  # as it appears inside the stored JSON text
        for call in PlatformCall.objects.all().iterator():
            params, response = json.dumps(call.params), json.dumps(call.response)
            if needle in params or needle in response:
                call.params = json.loads(params.replace(needle, pseudonym))
                call.response = json.loads(response.replace(needle, pseudonym))
                call.save(update_fields=["params", "response"])
    worker.username = pseudonym
    worker.first_name = worker.last_name = worker.email = ""
    worker.is_active = False
    worker.set_unusable_password()
    worker.save()
    return pseudonym
