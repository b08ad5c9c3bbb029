"""Submit a rewrite of a chosen sentence the way a worker who was writing it would: draft, then submit.

Workers may only submit sentences they were given; a draft of the sentence is
what lets a worker whose claim lapsed take a free slot of it, so tests that
pick sentences directly go through a draft.
"""

from __future__ import annotations

from annotate.rewrites.services import draft_save
from annotate.rewrites.services import rewrite_submit as _submit


def rewrite_submit(*, campaign, user, sentence, text="", flag="", **kwargs):
    draft_save(campaign=campaign, user=user, sentence=sentence, text=text or sentence.text, flag=flag)
    return _submit(campaign=campaign, user=user, sentence=sentence, text=text, flag=flag, **kwargs)
