"""The crowd layer's part of forgetting a worker (``annotate.privacy.worker_forget``): platform ids
(MTurk WorkerId, Prolific PID) in worker identities, MTurk assignment records and the audit log of
platform calls are replaced by the worker's pseudonym. Registered in ``crowd.apps``.
"""

from __future__ import annotations

import json

from django.contrib.auth.models import AbstractBaseUser

from crowd.models import CrowdWorker, MturkAssignment, PlatformCall


def crowd_identities_forget(*, worker: AbstractBaseUser, pseudonym: str) -> None:
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
