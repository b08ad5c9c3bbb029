"""Worker identities per platform: (platform, external id) -> one Django user without a password."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction

from annotate.models import Role
from crowd.models import CrowdWorker, Platform
from geceval.errors import GecInputError

_USERNAME_OK = re.compile(r"^[\w.@+-]+$")
MAX_EXTERNAL_ID = 200


def crowd_username(platform: str, external_id: str) -> str:
    """A readable, unique username: ``mturk-A1B2C3`` or, for long or odd ids, a hash of them."""
    digest = hashlib.sha1(f"{platform}\x00{external_id}".encode()).hexdigest()[:10]
    plain = f"{platform}-{external_id}"
    if len(plain) <= 140 and _USERNAME_OK.match(external_id):
        return plain
    safe = re.sub(r"[^\w.@+-]", "_", external_id)[:100]
    return f"{platform}-{safe}-{digest}"


def _new_user(username: str):
    # make_password(None) gives an unusable password without hashing: cheap per worker.
    return get_user_model()(username=username, password=make_password(None))


def check_external_id(platform: str, external_id: str) -> str:
    external_id = (external_id or "").strip()
    if platform not in Platform.values:
        raise GecInputError(f"unknown platform {platform!r}")
    if not external_id or len(external_id) > MAX_EXTERNAL_ID or any(ord(ch) < 32 for ch in external_id):
        raise GecInputError("the worker id is missing or malformed")
    return external_id


def crowd_worker_get_or_create(*, platform: str, external_id: str) -> CrowdWorker:
    """The identity for this platform id, created on first arrival (user in the annotator group)."""
    external_id = check_external_id(platform, external_id)
    found = (
        CrowdWorker.objects.filter(platform=platform, external_id=external_id).select_related("user").first()
    )
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return crowd_workers_bulk(platform=platform, external_ids=[external_id])[external_id]
    except IntegrityError:  # the same worker arrived twice at once
        return CrowdWorker.objects.select_related("user").get(platform=platform, external_id=external_id)


@transaction.atomic
def crowd_workers_bulk(*, platform: str, external_ids: Iterable[str]) -> dict[str, CrowdWorker]:
    """Identities for many ids at once (imports): existing ones kept, the rest created in bulk."""
    wanted = list(dict.fromkeys(external_ids))
    found = {
        w.external_id: w
        for w in CrowdWorker.objects.filter(platform=platform, external_id__in=wanted).select_related("user")
    }
    missing = [e for e in wanted if e not in found]
    if missing:
        User = get_user_model()
        names = {e: crowd_username(platform, e) for e in missing}
        taken = set(User.objects.filter(username__in=names.values()).values_list("username", flat=True))
        for e, name in names.items():
            if name in taken:  # someone registered that name by hand: fall back to the hashed form
                names[e] = f"{name[:120]}-" + hashlib.sha1(f"{platform}:{e}:taken".encode()).hexdigest()[:12]
        users = User.objects.bulk_create([_new_user(names[e]) for e in missing], batch_size=1000)
        if any(u.pk is None for u in users):  # backends without RETURNING
            by_name = dict(User.objects.filter(username__in=names.values()).values_list("username", "pk"))
            for u in users:
                u.pk = by_name[u.username]
        group = Group.objects.get(name=Role.ANNOTATOR)
        Through = User.groups.through
        Through.objects.bulk_create(
            [Through(user_id=u.pk, group_id=group.pk) for u in users], batch_size=1000
        )
        created = CrowdWorker.objects.bulk_create(
            [CrowdWorker(platform=platform, external_id=e, user=u) for e, u in zip(missing, users)],
            batch_size=1000,
        )
        found.update({w.external_id: w for w in created})
    return found
