"""The workers' API (``/api/work/...``): ask for a HIT, read its next screen, submit screens.

What a worker sees of a screen is what the page shows: its opaque handle (never its id:
``ranking.work.screen_handles``), positions and texts, and what the protocol's page shows of each
candidate (``Protocol.api_candidate_fields``: an edit-level campaign's edits); nothing that tells a
trap apart."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from annotate.http import parse_id
from annotate.models import Output
from annotate.roles import is_annotator
from annotate.selectors import sentence_context
from geceval.errors import GecInputError
from ranking.models import Assignment
from ranking.protocols import WorkAnswerSerializer, protocol_get
from ranking.selectors import screen_candidates, screen_candidates_for_submit
from ranking.services import NoWork, assignment_request, screen_submit
from ranking.statuses import worker_status
from ranking.work.assignments import assignment_screen_and_progress
from ranking.work.leases import assignment_heartbeat
from ranking.work.reads import assignment_with_campaign, member_campaign, screen_of_hit
from ranking.work.screen_handles import screen_handle, screen_id_from_handle
from ranking.work.screen_time import MAX_STAMP_LENGTH, screen_seconds, screen_stamp


class IsAnnotator(permissions.BasePermission):
    message = "Annotators only."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and is_annotator(request.user))


class WorkEditSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="0, 1, ...: the edit's place in the candidate, left to right")
    span = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=2,
        max_length=2,
        help_text="the source tokens [start, end) it changes (whitespace tokens; start = end: an insertion)",
    )
    original = serializers.CharField(allow_blank=True, help_text="those source tokens")
    correction = serializers.CharField(allow_blank=True, help_text="what the candidate has instead")


class WorkCandidateSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    text = serializers.CharField()
    edits = WorkEditSerializer(
        many=True,
        required=False,
        help_text="Edit-level campaigns only: the candidate's edits against the source, in order; "
        "an answer labels each of them, in this order.",
    )


class WorkScreenSerializer(serializers.Serializer):
    id = serializers.CharField(
        help_text="The screen's opaque handle within this assignment (not a database id; another "
        "assignment names the same screen otherwise): submit to .../screens/<id>/."
    )
    source = serializers.CharField()
    context_before = serializers.ListField(child=serializers.CharField())
    context_after = serializers.ListField(child=serializers.CharField())
    reference = serializers.CharField(allow_null=True)
    candidates = WorkCandidateSerializer(many=True)
    ticket = serializers.CharField(
        help_text="The screen's signed issue time: send it back with the submit; the server measures "
        "the time on the screen from it."
    )


class WorkAssignmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    campaign = serializers.IntegerField()
    protocol = serializers.CharField()
    status = serializers.CharField()
    expires = serializers.DateTimeField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    screen = WorkScreenSerializer(allow_null=True)


class WorkHeartbeatSerializer(serializers.Serializer):
    open = serializers.BooleanField()
    expires = serializers.DateTimeField(required=False)


class WorkAnswerDocumentedSerializer(WorkAnswerSerializer):
    """An answer as the schema shows it: every field an answer may have; the campaign's protocol
    (``api_answer_serializer``) reads the ones it takes and ignores the others."""

    labels = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Edit-level campaigns only, and required there (with rank): good, bad or neutral for "
        "each of the candidate's edits, in the order the screen lists them (empty for none).",
    )


class WorkSubmitSerializer(serializers.Serializer):
    """``answers`` in the shape of the campaign's protocol (``api_answer_serializer``)."""

    answers = WorkAnswerDocumentedSerializer(
        many=True,
        min_length=1,
        max_length=5,
        help_text="One per candidate shown: PRWS campaigns a score (and meaning_changed), ranking "
        "campaigns a rank, edit-level campaigns a rank and labels.",
    )
    ticket = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_STAMP_LENGTH,
        default="",
        help_text="The screen's ticket as served: without a valid one the screen has no time.",
    )
    seconds = serializers.FloatField(
        min_value=0,
        max_value=86400,
        required=False,
        allow_null=True,
        default=None,
        help_text="Time the client measured: kept apart (client_seconds), never used for checks.",
    )

    def __init__(self, *args, protocol=None, **kwargs):
        super().__init__(*args, **kwargs)
        if protocol is not None:
            self.fields["answers"] = protocol.api_answer_serializer(many=True, min_length=1, max_length=5)


_EXPIRES = serializers.DateTimeField()

_ANSWER_FIELDS = WorkAnswerSerializer().fields
_SECONDS = WorkSubmitSerializer().fields["seconds"]
_SUBMIT_KEYS = frozenset(("answers", "ticket", "seconds"))


def _plain_answer(answer: object) -> dict | None:
    """One answer as ``WorkAnswerSerializer`` validates it, when every value is of its field's exact
    type (whole numbers in range, true/false; null where the field allows it), else None."""
    if type(answer) is not dict or not answer.keys() <= _ANSWER_FIELDS.keys():
        return None
    item = {}
    for name, field in _ANSWER_FIELDS.items():
        if name not in answer:
            if field.required:
                return None
            item[name] = field.default
            continue
        value = answer[name]
        if value is None:
            if not field.allow_null:
                return None
        elif type(field) is serializers.IntegerField:
            if type(value) is not int or not field.min_value <= value <= field.max_value:
                return None
        elif type(field) is not serializers.BooleanField or type(value) is not bool:
            return None  # a field of another kind: the serializer's to judge
        item[name] = value
    return item


def plain_submit(data: object, protocol) -> dict | None:
    """``WorkSubmitSerializer``'s ``validated_data`` for a body in exactly the shape it documents
    (whole numbers in range, true/false, a trimmed ASCII ticket, finite seconds, no other keys), or None:
    then the serializer validates it and answers its errors. The serializer costs about 500 Python
    calls per submit, a sixth of a crowd worker's request (issue 22); tests/test_work_api_plain.py
    holds this to the serializer's result on generated bodies. Only for the answers of the PRWS and
    ranking protocols (``WorkAnswerSerializer``); other protocols always take the serializer."""
    if protocol.api_answer_serializer is not WorkAnswerSerializer or type(data) is not dict:
        return None
    answers, ticket, seconds = data.get("answers"), data.get("ticket", ""), data.get("seconds")
    if not data.keys() <= _SUBMIT_KEYS or type(answers) is not list or not 1 <= len(answers) <= 5:
        return None
    # A ticket is ASCII without NUL (screen_time signs it): anything else, such as the NUL or the lone
    # surrogate the serializer refuses, is the serializer's to judge.
    if (
        type(ticket) is not str
        or len(ticket) > MAX_STAMP_LENGTH
        or ticket != ticket.strip()
        or not ticket.isascii()
        or "\0" in ticket
    ):
        return None
    if seconds is not None:
        if type(seconds) not in (int, float) or not _SECONDS.min_value <= seconds <= _SECONDS.max_value:
            return None  # NaN fails the comparison too
        seconds = float(seconds)
    items = [_plain_answer(answer) for answer in answers]
    if None in items:
        return None
    return {"answers": items, "ticket": ticket, "seconds": seconds}


def _assignment_body(assignment: Assignment) -> dict:
    """``assignment`` with its HIT and campaign loaded (as the selectors and services hand it over),
    in the shape of ``WorkAssignmentSerializer``: built as plain data (every value already of its
    field's type; the deadline formatted by the serializer's own field), because running the nested
    serializer costs about 0.4 ms of CPU on every request of the crowd (issue 22).
    tests/test_work_reads.py checks the two agree."""
    campaign = assignment.hit.campaign
    screen, done, total = assignment_screen_and_progress(assignment)
    body = {
        "id": assignment.pk,
        "campaign": campaign.pk,
        "protocol": campaign.protocol,
        "status": worker_status(assignment.status),
        "expires": _EXPIRES.to_representation(assignment.expires),
        "done": done,
        "total": total,
        "screen": None,
    }
    if screen is not None:
        before, after = sentence_context(screen.sentence)
        reference = None
        if campaign.reference_id:
            reference = (
                Output.objects.filter(system_id=campaign.reference_id, sentence_id=screen.sentence_id)
                .values_list("text", flat=True)
                .first()
            )
        candidates = screen_candidates(screen)
        extra = protocol_get(campaign.protocol).api_candidate_fields(screen, candidates)
        body["screen"] = {
            "id": screen_handle(assignment_id=assignment.pk, screen_id=screen.pk),
            "source": screen.sentence.text,
            "context_before": [s.text for s in before],
            "context_after": [s.text for s in after],
            "reference": reference,
            "candidates": [
                {"position": c.position, "text": c.text, **extra.get(c.pk, {})} for c in candidates
            ],
            "ticket": screen_stamp(screen_id=screen.pk, assignment_id=assignment.pk),
        }
    return body


class WorkViewSet(viewsets.ViewSet):
    """A worker's HITs: ask for one, read its next screen, submit screens (idempotent)."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=None, responses={201: WorkAssignmentSerializer})
    @action(detail=False, methods=["post"], url_path=r"campaigns/(?P<campaign_id>\d+)/request")
    def request_hit(self, request, campaign_id=None):
        # No corpus: the home page lists it, handing out a HIT does not.
        pk = parse_id(campaign_id)  # the route admits any digits; int() refuses 5000 of them
        # IsAnnotator has let only annotators in: campaign_member_list_for's filter, in one statement
        campaign = None if pk is None else member_campaign(pk=pk, user_id=request.user.pk)
        if campaign is None:
            raise NotFound("no such campaign open to you")
        try:
            assignment = assignment_request(campaign=campaign, worker=request.user)
        except NoWork as reason:
            return Response({"detail": str(reason)}, status=status.HTTP_409_CONFLICT)
        return Response(_assignment_body(assignment), status=status.HTTP_201_CREATED)

    @extend_schema(responses=WorkAssignmentSerializer)
    @action(detail=False, methods=["get"], url_path=r"assignments/(?P<assignment_id>\d+)")
    def assignment(self, request, assignment_id=None):
        pk = parse_id(assignment_id)
        found = None if pk is None else assignment_with_campaign(worker_id=request.user.pk, pk=pk)
        if found is None:
            raise NotFound("no such assignment of yours")
        return Response(_assignment_body(found))

    @extend_schema(request=None, responses={200: WorkHeartbeatSerializer, 409: WorkHeartbeatSerializer})
    @action(detail=False, methods=["post"], url_path=r"assignments/(?P<assignment_id>\d+)/heartbeat")
    def heartbeat(self, request, assignment_id=None):
        """The worker is still at it: renew the HIT's lease (up to the campaign's assignment minutes)."""
        pk = parse_id(assignment_id)
        found = None if pk is None else assignment_with_campaign(worker_id=request.user.pk, pk=pk)
        if found is None:
            raise NotFound("no such assignment of yours")
        expires = assignment_heartbeat(assignment=found)
        if expires is None:
            return Response({"open": False}, status=status.HTTP_409_CONFLICT)
        return Response(WorkHeartbeatSerializer({"open": True, "expires": expires}).data)

    @extend_schema(
        request=WorkSubmitSerializer, responses={201: WorkAssignmentSerializer, 200: WorkAssignmentSerializer}
    )
    @action(
        detail=False,
        methods=["post"],
        url_path=r"assignments/(?P<assignment_id>\d+)/screens/(?P<screen_id>[A-Za-z0-9_-]+)",
    )
    def submit(self, request, assignment_id=None, screen_id=None):
        pk = parse_id(assignment_id)
        found = None if pk is None else assignment_with_campaign(worker_id=request.user.pk, pk=pk)
        if found is None:
            raise NotFound("no such assignment of yours")
        screen_pk = screen_id_from_handle(screen_id, assignment_id=found.pk)
        screen = None if screen_pk is None else screen_of_hit(pk=screen_pk, hit_id=found.hit_id)
        if screen is None:
            raise NotFound("this screen is not part of your HIT")
        screen.campaign = found.hit.campaign
        protocol = protocol_get(screen.campaign.protocol)
        data = plain_submit(request.data, protocol)
        if data is None:  # not in the documented shape: the serializer decides, with its errors
            payload = WorkSubmitSerializer(data=request.data, protocol=protocol)
            payload.is_valid(raise_exception=True)
            data = payload.validated_data
        candidates = screen_candidates_for_submit(screen, screen.campaign)
        by_position = {c.position: c.pk for c in candidates}
        items = {}
        for a in data["answers"]:
            if a["position"] not in by_position or by_position[a["position"]] in items:
                raise ValidationError({"answers": "one answer per position shown on the screen"})
            items[by_position[a["position"]]] = a
        try:
            answers = protocol.answers_from_api(screen, candidates, items)
            _, created = screen_submit(
                assignment=found,
                screen=screen,
                worker=request.user,
                answers=answers,
                seconds=screen_seconds(data["ticket"], screen_id=screen.pk, assignment_id=found.pk),
                candidates=candidates,
                client_seconds=data["seconds"],
            )
        except GecInputError as exc:
            raise ValidationError({"detail": str(exc)}) from None
        # screen_submit left ``found`` with the status the submission gave it: no reload.
        return Response(
            _assignment_body(found), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )
