"""Writes for rewrite collection.

Invariants a crowd could break live in the database: one rewrite per
(campaign, sentence, annotator), one claimed slot per (campaign, sentence,
worker), difficulty 1-5, a flag xor a text, nobody reviews their own work.
Services check them first to give a clear message and rely on the constraint
when two requests race.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from django.contrib.auth.models import AbstractBaseUser, Group
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotate.models import (
    Corpus,
    Project,
    Qualification,
    Rewrite,
    RewriteCampaign,
    RewriteCampaignGroup,
    RewriteCampaignStatus,
    RewriteDraft,
    RewriteFlag,
    RewritePreset,
    RewriteSkip,
    RewriteSlot,
    RewriteStatus,
    Sentence,
)
from annotate.rewrites.presets import PRESET_INSTRUCTIONS
from annotate.rewrites.selectors import (
    claim_cutoff,
    may_review_in,
    rewrite_campaign_refusal,
    rewrite_campaign_sentences,
    worker_groups,
)
from annotate.rewrites.validation import (
    MAX_REWRITE_CHARS,
    RewriteError,
    _difficulty,
    _seconds,
    far_from_sentence,
    rewrite_clean,
)

# --------------------------------------------------------------------------- campaigns


@transaction.atomic
def rewrite_campaign_create(
    *,
    project: Project,
    corpus: Corpus,
    name: str,
    created_by: AbstractBaseUser,
    preset: str = RewritePreset.MINIMAL,
    instructions: str | None = None,
    rewrites_per_sentence: int = 4,
    groups: Mapping[Group, int | None] | Iterable[Group] = (),
    ask_difficulty: bool = False,
    require_review: bool = False,
    pay_per_sentence: Decimal | float | str = 0,
    domain: str = "",
    first_position: int | None = None,
    last_position: int | None = None,
    qualification: Qualification | None = None,
    far_length_ratio: float = 3.0,
    far_edit_rate: float = 0.8,
) -> RewriteCampaign:
    """A campaign and its slots: N per sentence, or each group's own count when groups carry one.

    ``groups`` maps allowed groups to a per-group count (None: they share the
    campaign's N slots). When any group has a count, every allowed group needs
    one and the sentence's slots are split by group (Sakaguchi et al.'s
    expert/crowd x minimal/fluency design uses 2 per group).
    """
    name = name.strip()
    if not name:
        raise RewriteError("The campaign needs a name.")
    if corpus.project_id != project.pk:
        raise RewriteError("The corpus belongs to another project.")
    if qualification is not None and qualification.project_id != project.pk:
        raise RewriteError("The qualification belongs to another project.")
    if preset not in RewritePreset.values:
        raise RewriteError(f"Unknown preset {preset!r}.")
    if RewriteCampaign.objects.filter(project=project, name=name).exists():
        raise RewriteError(f"A rewrite campaign named {name!r} already exists in this project.")
    group_counts, rewrites_per_sentence = _group_counts(groups, rewrites_per_sentence)
    pay = Decimal(str(pay_per_sentence))
    if pay < 0:
        raise RewriteError("Pay per sentence cannot be negative.")
    if not far_length_ratio > 1:
        raise RewriteError("The length ratio that sends a rewrite to review must be more than 1.")
    if not 0 < far_edit_rate <= 1:
        raise RewriteError("The share of changed words that sends a rewrite to review is between 0 and 1.")
    text = instructions if instructions is not None and instructions.strip() else PRESET_INSTRUCTIONS[preset]
    campaign = RewriteCampaign.objects.create(
        project=project,
        corpus=corpus,
        name=name,
        preset=preset,
        instructions=text.replace("\r\n", "\n"),
        rewrites_per_sentence=rewrites_per_sentence,
        ask_difficulty=ask_difficulty,
        require_review=require_review,
        pay_per_sentence=pay,
        domain=domain.strip(),
        first_position=first_position,
        last_position=last_position,
        qualification=qualification,
        far_length_ratio=far_length_ratio,
        far_edit_rate=far_edit_rate,
        created_by=created_by,
    )
    RewriteCampaignGroup.objects.bulk_create(
        [
            RewriteCampaignGroup(campaign=campaign, group=g, rewrites_per_sentence=n)
            for g, n in group_counts.items()
        ]
    )
    _slots_create(campaign, group_counts)
    return campaign


def _group_counts(
    groups: Mapping[Group, int | None] | Iterable[Group], rewrites_per_sentence: int
) -> tuple[dict[Group, int | None], int]:
    """Each allowed group's count (None: they share N) and N, the sum of the counts when groups have them."""
    group_counts = dict(groups) if isinstance(groups, Mapping) else dict.fromkeys(groups)
    counted = [n for n in group_counts.values() if n is not None]
    if counted and len(counted) != len(group_counts):
        raise RewriteError("Give every group a count of rewrites, or none of them.")
    if any(not 1 <= n <= 50 for n in counted):
        raise RewriteError("A group's count of rewrites per sentence is between 1 and 50.")
    if counted:
        rewrites_per_sentence = sum(counted)
    if not 1 <= int(rewrites_per_sentence) <= 50:
        raise RewriteError("Rewrites per sentence is between 1 and 50.")
    return group_counts, rewrites_per_sentence


def _slots_create(campaign: RewriteCampaign, group_counts: dict[Group, int | None]) -> None:
    """N slots per sentence of the campaign, split by group (in group-name order) when groups have counts."""
    sentence_ids = list(rewrite_campaign_sentences(campaign).values_list("id", flat=True))
    if not sentence_ids:
        raise RewriteError("No sentence of the corpus matches the domain and line range.")
    by_name = sorted(group_counts.items(), key=lambda kv: kv[0].name)
    plan: list[Group | None] = [g for g, n in by_name for _ in range(n or 0)]
    plan = plan or [None] * int(campaign.rewrites_per_sentence)  # no counts: the groups share N slots
    slots = [
        RewriteSlot(campaign=campaign, sentence_id=s, index=i, group=g)
        for s in sentence_ids
        for i, g in enumerate(plan)
    ]
    RewriteSlot.objects.bulk_create(slots, batch_size=2000)


def rewrite_campaign_set_status(*, campaign: RewriteCampaign, status: str) -> RewriteCampaign:
    if status not in RewriteCampaignStatus.values:
        raise RewriteError(f"Unknown status {status!r}.")
    campaign.status = status
    campaign.save(update_fields=["status"])
    return campaign


# --------------------------------------------------------------------------- assignment


def _free_slots(campaign: RewriteCampaign, user: AbstractBaseUser, now) -> Q:
    return Q(campaign=campaign, rewrite__isnull=True) & (
        Q(claimed_by__isnull=True) | Q(claimed_at__lt=claim_cutoff(now))
    )


@transaction.atomic
def slot_claim(*, campaign: RewriteCampaign, user: AbstractBaseUser, now=None) -> RewriteSlot | None:
    """The worker's current slot (claimed again), or a free one, or None when nothing is left for them.

    A worker is never offered a sentence they rewrote, skipped or hold a slot
    of. Two workers asking at once get different slots: candidate rows are
    locked with ``SKIP LOCKED`` on PostgreSQL, and the claim itself is a
    conditional UPDATE that only succeeds while the slot is still free.
    """
    now = now or timezone.now()
    if rewrite_campaign_refusal(campaign, user) is not None:
        return None
    own = (
        RewriteSlot.objects.select_for_update(of=("self",))
        .filter(campaign=campaign, claimed_by=user, rewrite__isnull=True)
        .select_related("sentence", "group")
        .order_by("sentence__position", "index")
        .first()
    )
    if own is not None:
        own.claimed_at = now
        own.save(update_fields=["claimed_at"])
        return own
    free = RewriteSlot.objects.filter(_free_slots(campaign, user, now))
    if campaign.group_links.filter(rewrites_per_sentence__isnull=False).exists():
        free = free.filter(group_id__in=worker_groups(campaign, user))
    free = (
        free.exclude(
            sentence_id__in=Rewrite.objects.filter(campaign=campaign, annotator=user).values("sentence_id")
        )
        .exclude(
            sentence_id__in=RewriteSkip.objects.filter(campaign=campaign, annotator=user).values(
                "sentence_id"
            )
        )
        .exclude(
            sentence_id__in=RewriteSlot.objects.filter(campaign=campaign, claimed_by=user).values(
                "sentence_id"
            )
        )
        .order_by("sentence__position", "index")
    )
    for _ in range(5):
        slot = free.select_for_update(skip_locked=True, of=("self",)).first()
        if slot is None:
            return None
        try:
            with transaction.atomic():
                taken = (
                    RewriteSlot.objects.filter(pk=slot.pk)
                    .filter(_free_slots(campaign, user, now))
                    .update(claimed_by=user, claimed_at=now)
                )
        except IntegrityError:  # the same worker claimed a slot of this sentence in another tab
            taken = 0
        if taken == 1:
            return RewriteSlot.objects.select_related("sentence", "group").get(pk=slot.pk)
    return None


@transaction.atomic
def slot_release(*, campaign: RewriteCampaign, user: AbstractBaseUser, sentence: Sentence) -> None:
    RewriteSlot.objects.filter(
        campaign=campaign, sentence=sentence, claimed_by=user, rewrite__isnull=True
    ).update(claimed_by=None, claimed_at=None)


@transaction.atomic
def rewrite_skip(*, campaign: RewriteCampaign, user: AbstractBaseUser, sentence: Sentence) -> None:
    """Give the sentence back to the pool; this worker is not offered it again."""
    RewriteSkip.objects.get_or_create(campaign=campaign, sentence=sentence, annotator=user)
    slot_release(campaign=campaign, user=user, sentence=sentence)


@transaction.atomic
def draft_save(
    *,
    campaign: RewriteCampaign,
    user: AbstractBaseUser,
    sentence: Sentence,
    text: str,
    flag: str = "",
    difficulty: object = None,
    seconds: object = None,
) -> RewriteDraft:
    """Autosave: what is in the edit box, unvalidated except for size and type."""
    if not isinstance(text, str) or len(text) > 4 * MAX_REWRITE_CHARS:
        raise RewriteError("The draft is too long to save.")
    if flag not in RewriteFlag.values:
        raise RewriteError("Unknown flag.")
    try:
        level = _difficulty(difficulty)
    except RewriteError:
        level = None
    draft, _ = RewriteDraft.objects.update_or_create(
        campaign=campaign,
        sentence=sentence,
        annotator=user,
        defaults={
            "text": text.replace("\x00", ""),
            "flag": flag,
            "difficulty": level,
            "seconds": _seconds(seconds) or 0,
        },
    )
    return draft


def _slot_for_submit(
    campaign: RewriteCampaign, user: AbstractBaseUser, sentence: Sentence, now
) -> RewriteSlot | None:
    """The worker's slot for this sentence; None when their own concurrent submit just filled it."""
    slot = (
        RewriteSlot.objects.select_for_update(of=("self",))
        .filter(campaign=campaign, sentence=sentence, claimed_by=user, rewrite__isnull=True)
        .select_related("group")
        .first()
    )
    if slot is not None:
        return slot
    if RewriteSlot.objects.filter(campaign=campaign, sentence=sentence, claimed_by=user).exists():
        return (
            None  # a double submit: the other request filled this worker's slot while we waited for its lock
        )
    # The claim expired and was taken over. A worker who was writing it (their draft shows it) may
    # take another free slot of the sentence; nobody may pick sentences they were not given.
    if not RewriteDraft.objects.filter(campaign=campaign, sentence=sentence, annotator=user).exists():
        raise RewriteError(
            "This sentence is not assigned to you (your claim may have expired): open the next one."
        )
    free = RewriteSlot.objects.filter(_free_slots(campaign, user, now), sentence=sentence)
    if campaign.group_links.filter(rewrites_per_sentence__isnull=False).exists():
        free = free.filter(group_id__in=worker_groups(campaign, user))
    slot = (
        free.select_for_update(skip_locked=True, of=("self",))
        .select_related("group")
        .order_by("index")
        .first()
    )
    if slot is None:
        raise RewriteError(
            "This sentence no longer needs your rewrite: your claim expired and others completed it. "
            "Your text is kept as a draft."
        )
    slot.claimed_by = user
    slot.claimed_at = now
    slot.save(update_fields=["claimed_by", "claimed_at"])
    return slot


@transaction.atomic
def rewrite_submit(
    *,
    campaign: RewriteCampaign,
    user: AbstractBaseUser,
    sentence: Sentence,
    text: str = "",
    flag: str = "",
    difficulty: object = None,
    seconds: object = None,
    now=None,
) -> tuple[Rewrite, bool]:
    """Save a worker's rewrite (or flag) of a sentence; returns (rewrite, created).

    Submitting the same sentence again returns the first rewrite unchanged:
    the unique (campaign, sentence, annotator) constraint decides a race.
    """
    now = now or timezone.now()
    existing = Rewrite.objects.filter(campaign=campaign, sentence=sentence, annotator=user).first()
    if existing is not None:
        return existing, False
    refusal = rewrite_campaign_refusal(campaign, user)
    if refusal is not None:
        raise RewriteError(refusal.message)
    if sentence.corpus_id != campaign.corpus_id:
        raise RewriteError("This sentence is not part of the campaign.")
    if flag not in RewriteFlag.values:
        raise RewriteError("Unknown flag.")
    if flag:
        saved = ""
        if (
            flag == RewriteFlag.MERGE
            and not Sentence.objects.filter(
                corpus_id=sentence.corpus_id, position=sentence.position + 1
            ).exists()
        ):
            raise RewriteError("The last sentence of the corpus cannot be merged with a next one.")
    else:
        saved = rewrite_clean(text, source=sentence.text, tokenized=campaign.corpus.tokenized)
    far = bool(saved) and bool(far_reason(campaign, sentence.text, saved))
    level = _difficulty(difficulty)
    if campaign.ask_difficulty and not flag and level is None:
        raise RewriteError("Rate how difficult the sentence was (1-5) before submitting.")
    if not campaign.ask_difficulty:
        level = None
    slot = _slot_for_submit(campaign, user, sentence, now)
    if slot is None:
        return Rewrite.objects.get(campaign=campaign, sentence=sentence, annotator=user), False
    group = slot.group.name if slot.group else _group_name(campaign, user)
    try:
        with transaction.atomic():
            rewrite = Rewrite.objects.create(
                campaign=campaign,
                sentence=sentence,
                annotator=user,
                text=saved,
                flag=flag,
                difficulty=level,
                group=group,
                seconds=_seconds(seconds),
                # Far from its sentence: an expert decides, whether or not the campaign reviews every rewrite.
                status=RewriteStatus.SUBMITTED if campaign.require_review or far else RewriteStatus.ACCEPTED,
                far_from_sentence=far,
            )
    except IntegrityError:  # a double submit won the race
        return Rewrite.objects.get(campaign=campaign, sentence=sentence, annotator=user), False
    slot.rewrite = rewrite
    slot.save(update_fields=["rewrite"])
    RewriteDraft.objects.filter(campaign=campaign, sentence=sentence, annotator=user).delete()
    return rewrite, True


def far_reason(campaign: RewriteCampaign, source: str, text: str) -> str:
    """Why ``text`` is far from its sentence under the campaign's thresholds (``""``: it is not)."""
    return far_from_sentence(
        text, source=source, length_ratio=campaign.far_length_ratio, edit_rate=campaign.far_edit_rate
    )


def _group_name(campaign: RewriteCampaign, user: AbstractBaseUser) -> str:
    ids = worker_groups(campaign, user)
    names = sorted(Group.objects.filter(id__in=ids).values_list("name", flat=True))
    return names[0] if names else ""


# --------------------------------------------------------------------------- expert review


@transaction.atomic
def review_claim(*, campaign: RewriteCampaign, expert: AbstractBaseUser, now=None) -> Rewrite | None:
    """The next submitted rewrite by someone else, held for this expert for the assignment timeout."""
    now = now or timezone.now()
    if not may_review_in(expert, campaign.project_id):
        return None
    base = Rewrite.objects.filter(campaign=campaign, status=RewriteStatus.SUBMITTED).exclude(annotator=expert)
    mine = base.filter(review_claimed_by=expert).select_related("sentence").order_by("created").first()
    if mine is not None:
        return mine
    free = base.filter(
        Q(review_claimed_by__isnull=True) | Q(review_claimed_at__lt=claim_cutoff(now))
    ).order_by("sentence__position", "created")
    for _ in range(5):
        rewrite = free.select_for_update(skip_locked=True, of=("self",)).first()
        if rewrite is None:
            return None
        taken = (
            Rewrite.objects.filter(pk=rewrite.pk, status=RewriteStatus.SUBMITTED)
            .filter(Q(review_claimed_by__isnull=True) | Q(review_claimed_at__lt=claim_cutoff(now)))
            .update(review_claimed_by=expert, review_claimed_at=now)
        )
        if taken == 1:
            return Rewrite.objects.select_related("sentence").get(pk=rewrite.pk)
    return None


REVIEW_DECISIONS = ("accept", "edit", "reject")


@transaction.atomic
def rewrite_review(
    *, rewrite: Rewrite, reviewer: AbstractBaseUser, decision: str, text: str = "", reason: str = "", now=None
) -> Rewrite:
    """Accept, edit (keeping the annotator's text in ``text``) or reject (with the expert's ``reason``)
    a submitted rewrite. A rejection returns the sentence's slot to the pool; the rejected annotator is
    not offered the sentence again (their rewrite row stays)."""
    now = now or timezone.now()
    if decision not in REVIEW_DECISIONS:
        raise RewriteError("Choose accept, edit or reject.")
    if not may_review_in(reviewer, rewrite.campaign.project_id):
        raise RewriteError("Only experts review rewrites.")
    if rewrite.annotator_id == reviewer.pk:
        raise RewriteError("Experts never review their own rewrites.")
    if not rewrite.campaign.require_review and not rewrite.far_from_sentence:
        raise RewriteError("This campaign has no review step.")
    fields: dict[str, object] = {"reviewer": reviewer, "reviewed": now}
    if decision == "accept":
        fields["status"] = RewriteStatus.ACCEPTED
    elif decision == "reject":
        fields["status"] = RewriteStatus.REJECTED
        fields["review_reason"] = reason
    else:
        if rewrite.flag:
            raise RewriteError("A flagged sentence can be accepted or rejected, not edited.")
        sentence = rewrite.sentence
        cleaned = rewrite_clean(text, source=sentence.text, tokenized=rewrite.campaign.corpus.tokenized)
        if cleaned == rewrite.text:
            fields["status"] = RewriteStatus.ACCEPTED
        else:
            fields["status"] = RewriteStatus.EDITED
            fields["reviewed_text"] = cleaned
    updated = Rewrite.objects.filter(pk=rewrite.pk, status=RewriteStatus.SUBMITTED).update(**fields)
    if updated != 1:
        raise RewriteError("This rewrite has already been reviewed.")
    if decision == "reject":
        RewriteSlot.objects.filter(rewrite=rewrite).update(rewrite=None, claimed_by=None, claimed_at=None)
    rewrite.refresh_from_db()
    return rewrite


# Qualification writes live in their own module; re-exported so callers need one import.
from annotate.rewrites.qualifications import (  # noqa: E402, F401
    qualification_allow_retry,
    qualification_create,
    qualification_grade,
    qualification_review,
    qualification_start,
    qualification_submit,
)
