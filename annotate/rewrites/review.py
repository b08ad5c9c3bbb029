"""An expert's review decision as the review page posts it: a rejection needs a reason.

The reason is stored on the rewrite (``review_reason``) and shown to its author on their list."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from annotate.models import Rewrite
from annotate.rewrites.services import RewriteError, rewrite_review

MAX_REASON_CHARS = 1000


def rewrite_review_decide(
    *, rewrite: Rewrite, reviewer: AbstractBaseUser, decision: str, text: str = "", reason: str = ""
) -> Rewrite:
    reason = " ".join((reason or "").split())
    if decision == "reject" and not reason:
        raise RewriteError("Give a reason for rejecting this rewrite.")
    if len(reason) > MAX_REASON_CHARS:
        raise RewriteError(f"Keep the reason under {MAX_REASON_CHARS} characters.")
    return rewrite_review(rewrite=rewrite, reviewer=reviewer, decision=decision, text=text, reason=reason)
