"""The reads every request of a working crowd makes, in plain SQL (issue 22, "Load under noise").

A claim, a screen and a submit each read the assignment with its HIT and campaign, the screen with
its sentence and candidates, and the next screen with the HIT's progress. Built by the ORM these
cost 0.4-1.5 ms of the web process's CPU each (``select_related`` of the campaign's fifty columns
alone 1.3 ms), most of a request's cost; as plain statements whose rows become instances as the ORM makes them
(``annotate.sql_rows``: every field's database converters, then ``from_db``) they cost about
0.1 ms each:
``bench/load_workers.py`` prints the CPU per request, and docs/benchmarks.md has the figures.

Every statement here is portable SQL (PostgreSQL and the embedded SQLite), names tables and columns
from the models' ``_meta``, and has an ORM twin it is tested against (tests/test_work_reads.py).
Nothing here decides anything: the services and the API do, with what these return.
"""

from __future__ import annotations

from functools import cache

from django.db import connection

from annotate.models import Project, Sentence
from annotate.sql_rows import Columns, columns, joined_rows
from annotate.sql_rows import column as _col
from annotate.sql_rows import quote as _q
from annotate.sql_rows import table as _table
from geceval.traps.hidden import BETTER_KINDS
from ranking.models import (
    COPIED_KINDS,
    LIVE_STATUSES,
    Assignment,
    Campaign,
    Candidate,
    Control,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.statuses import IDENTITY_HOLDS, AssignmentStatus


def _assignment_parts() -> tuple[Columns, ...]:
    return columns((Assignment, "a"), (Hit, "h"), (Campaign, "c"))


@cache
def _assignment_sql() -> str:
    a, h, c = _assignment_parts()
    return (
        f"SELECT {a.select}, {h.select}, {c.select} FROM {_table(Assignment)} a "
        f"INNER JOIN {_table(Hit)} h ON h.{_col(Hit, 'pk')} = a.{_col(Assignment, 'hit')} "
        f"INNER JOIN {_table(Campaign)} c ON c.{_col(Campaign, 'pk')} = h.{_col(Hit, 'campaign')} "
        f"WHERE a.{_col(Assignment, 'pk')} = %s AND a.{_col(Assignment, 'worker')} = %s"
    )


def assignment_with_campaign(*, worker_id: int, pk: int) -> Assignment | None:
    """The worker's assignment ``pk`` with its HIT and campaign loaded (``assignment.hit.campaign``
    needs no query), in one statement: the workers' API's twin of ``selectors.assignment_for_worker``."""
    found = joined_rows(_assignment_parts(), _assignment_sql(), [pk, worker_id])
    if not found:
        return None
    assignment, hit, campaign = found[0]
    hit.campaign = campaign
    assignment.hit = hit
    return assignment


def _claim_parts() -> tuple[Columns, ...]:
    return columns((Assignment, "a"), (Hit, "h"))


@cache
def _active_sql() -> str:
    a, h = _claim_parts()
    return (
        f"SELECT {a.select}, {h.select} FROM {_table(Assignment)} a "
        f"INNER JOIN {_table(Hit)} h ON h.{_col(Hit, 'pk')} = a.{_col(Assignment, 'hit')} "
        f"WHERE h.{_col(Hit, 'campaign')} = %s AND a.{_col(Assignment, 'worker')} = %s "
        f"AND a.{_col(Assignment, 'status')} = %s AND a.{_col(Assignment, 'expires')} >= %s "
        f"ORDER BY a.{_col(Assignment, 'pk')} LIMIT 1"
    )


def active_assignment(*, campaign_id: int, worker_id: int, now) -> Assignment | None:
    """The worker's active, not overdue assignment in the campaign, with its HIT loaded."""
    params = [campaign_id, worker_id, "active", connection.ops.adapt_datetimefield_value(now)]
    found = joined_rows(_claim_parts(), _active_sql(), params)
    if not found:
        return None
    assignment, hit = found[0]
    assignment.hit = hit
    return assignment


@cache
def _claimable_sql(pilot: int, domains: int) -> str:
    (h,) = columns((Hit, "h"))
    a, pk = _table(Assignment), _col(Hit, "pk")
    hit, worker, status = (_col(Assignment, f) for f in ("hit", "worker", "status"))
    only_pilot = f" AND h.{pk} IN ({', '.join(['%s'] * pilot)})" if pilot else ""
    only_domains = f" AND h.{_col(Hit, 'domain')} IN ({', '.join(['%s'] * domains)})" if domains else ""
    return (
        f"SELECT {h.select}, h.live FROM (SELECT h.*, (SELECT COUNT(*) FROM {a} l "
        f"WHERE l.{hit} = h.{pk} AND l.{status} IN ({', '.join(['%s'] * len(LIVE_STATUSES))})) AS live FROM {_table(Hit)} h "
        f"WHERE h.{_col(Hit, 'campaign')} = %s AND h.{_col(Hit, 'qualification')} = %s "
        f"AND NOT EXISTS (SELECT 1 FROM {a} m WHERE m.{hit} = h.{pk} AND m.{worker} = %s) "
        f"AND h.{pk} NOT IN ({_copies_seen_sql()})"
        f"{only_pilot}{only_domains}) h "
        f"WHERE h.live < %s ORDER BY h.live DESC, h.{_col(Hit, 'index')} LIMIT %s"
    )


@cache
def _copies_seen_sql() -> str:
    """HITs (``x``'s) that show a sentence the worker (``m``) was shown in another HIT (``y``'s) where
    one of the two screens is a control copying a screen of another HIT (``ranking.models.COPIED_KINDS``:
    a trap's copy of its donor screen, a gold copy): the subquery of ``_claimable_sql``, parameters
    (campaign, worker), any assignment of the worker's (given back or expired too: they saw it).
    Uncorrelated, so the database computes it once per claim, from the worker's own assignments. Its
    ORM twin: ``ranking.quality.control_judging.hits_with_copies_seen``."""
    s, k, a = _table(Screen), _table(Control), _table(Assignment)
    kinds = ", ".join(f"'{kind.value}'" for kind in COPIED_KINDS)
    sentence, hit, campaign = (_col(Screen, f) for f in ("sentence", "hit", "campaign"))

    def copied(alias: str) -> str:
        return (
            f"EXISTS (SELECT 1 FROM {k} k WHERE k.{_col(Control, 'screen')} = {alias}.{_col(Screen, 'pk')} "
            f"AND k.{_col(Control, 'kind')} IN ({kinds}))"
        )

    # From the worker's assignments (of this campaign's HITs) to their screens by HIT, then to the
    # campaign's screens of the same sentence: index lookups only, whatever the planner's statistics.
    return (
        f"SELECT x.{hit} FROM {a} m "
        f"INNER JOIN {_table(Hit)} mh ON mh.{_col(Hit, 'pk')} = m.{_col(Assignment, 'hit')} "
        f"INNER JOIN {s} y ON y.{hit} = m.{_col(Assignment, 'hit')} "
        f"INNER JOIN {s} x ON x.{campaign} = mh.{_col(Hit, 'campaign')} AND x.{sentence} = y.{sentence} "
        f"AND x.{hit} <> y.{hit} "
        f"WHERE mh.{_col(Hit, 'campaign')} = %s AND m.{_col(Assignment, 'worker')} = %s "
        f"AND ({copied('x')} OR {copied('y')})"
    )


def claimable_hits(
    *,
    campaign_id: int,
    worker_id: int,
    target: int,
    hit_ids: list[int] | None = None,
    domains: set[str] | None = None,
    limit: int = 50,
) -> list[Hit]:
    """The campaign's HITs (qualification tests apart) the worker has never had, with fewer than
    ``target`` live assignments, fullest first then by index, each with ``live`` (its live
    assignments); only ``hit_ids`` (a pilot's) and only ``domains`` when given. The claim's twin of
    the ORM query it replaced (tests/test_work_reads.py)."""
    if (hit_ids is not None and not hit_ids) or (domains is not None and not domains):
        return []
    pilot, kinds = list(hit_ids or ()), sorted(domains or ())
    params = [
        *(status.value for status in LIVE_STATUSES),
        campaign_id,
        False,
        worker_id,
        campaign_id,
        worker_id,
    ]
    sql = _claimable_sql(len(pilot), len(kinds))
    found = []
    for hit, live in joined_rows(columns((Hit, "h")), sql, [*params, *pilot, *kinds, target, limit]):
        hit.live = live
        found.append(hit)
    return found


@cache
def _member_campaign_sql() -> str:
    (c,) = columns((Campaign, "c"))
    p, members = Project._meta, Project.members.through._meta
    return (
        f"SELECT {c.select} FROM {_table(Campaign)} c "
        f"INNER JOIN {_q(p.db_table)} p ON p.{_q(p.pk.column)} = c.{_col(Campaign, 'project')} "
        f"WHERE c.{_col(Campaign, 'pk')} = %s AND (p.{_q(p.get_field('owner').column)} = %s OR EXISTS ("
        f"SELECT 1 FROM {_q(members.db_table)} m WHERE m.{_q(members.get_field('project').column)} = "
        f"p.{_q(p.pk.column)} AND m.{_q(members.get_field('user').column)} = %s))"
    )


def member_campaign(*, pk: int, user_id: int) -> Campaign | None:
    """Campaign ``pk`` if it belongs to a project the user owns or is a member of, whatever its
    status: the claim's twin of ``selectors.campaign_member_list_for(user).filter(pk=pk).first()``
    (the caller checks the user is an annotator)."""
    found = joined_rows(columns((Campaign, "c")), _member_campaign_sql(), [pk, user_id, user_id])
    return found[0][0] if found else None


def _screen_parts() -> tuple[Columns, ...]:
    return columns((Screen, "s"), (Sentence, "t"))


@cache
def _screen_sql() -> str:
    s, t = _screen_parts()
    return (
        f"SELECT {s.select}, {t.select} FROM {_table(Screen)} s "
        f"INNER JOIN {_table(Sentence)} t ON t.{_col(Sentence, 'pk')} = s.{_col(Screen, 'sentence')} "
        f"WHERE s.{_col(Screen, 'pk')} = %s AND s.{_col(Screen, 'hit')} = %s"
    )


def screen_of_hit(*, pk: int, hit_id: int) -> Screen | None:
    """Screen ``pk`` if it belongs to HIT ``hit_id``, with its sentence loaded: one statement."""
    found = joined_rows(_screen_parts(), _screen_sql(), [pk, hit_id])
    if not found:
        return None
    screen, sentence = found[0]
    screen.sentence = sentence
    return screen


def _candidate_parts() -> tuple[Columns, ...]:
    return columns((Candidate, "c", ("pk", "position", "text")))


@cache
def _candidates_sql(with_traps: bool) -> str:
    (c,) = _candidate_parts()
    through = Candidate.outputs.through
    output = through._meta.get_field("output").remote_field.model
    trap = (
        f"EXISTS (SELECT 1 FROM {_q(through._meta.db_table)} co "
        f"INNER JOIN {_table(output)} o ON o.{_q(output._meta.pk.column)} = co.{_q(through._meta.get_field('output').column)} "
        f"WHERE co.{_q(through._meta.get_field('candidate').column)} = c.{_q(Candidate._meta.pk.column)} "
        f"AND o.{_col(output, 'system')} = %s)"
        if with_traps
        else "0"
    )
    return (
        f"SELECT {c.select}, {trap} FROM {_table(Candidate)} c "
        f"WHERE c.{_col(Candidate, 'screen')} = %s ORDER BY c.{_col(Candidate, 'position')}"
    )


def screen_candidates_marked(*, screen_id: int, trap_system_id: int | None) -> list[Candidate]:
    """The screen's candidates in display order with ``is_trap`` (stands for an output of the trap
    system): the twin of ``selectors.screen_candidates_for_submit``. For the server's checks only."""
    params = [trap_system_id, screen_id] if trap_system_id else [screen_id]
    found = []
    for candidate, is_trap in joined_rows(_candidate_parts(), _candidates_sql(bool(trap_system_id)), params):
        candidate.is_trap = bool(is_trap)
        found.append(candidate)
    return found


@cache
def _shown_candidates_sql() -> str:
    (c,) = _candidate_parts()
    return (
        f"SELECT {c.select} FROM {_table(Candidate)} c "
        f"WHERE c.{_col(Candidate, 'screen')} = %s ORDER BY c.{_col(Candidate, 'position')}"
    )


def screen_candidates_shown(screen_id: int) -> list[Candidate]:
    """Candidates in display order, id, position and text only: the twin of
    ``selectors.screen_candidates``."""
    return [
        candidate for (candidate,) in joined_rows(_candidate_parts(), _shown_candidates_sql(), [screen_id])
    ]


@cache
def _unjudged_sql() -> str:
    s, t = _screen_parts()
    j = _table(ScreenJudgment)
    return (
        f"SELECT {s.select}, {t.select}, COUNT(*) OVER (), "
        f"(SELECT COUNT(*) FROM {_table(Screen)} s2 WHERE s2.{_col(Screen, 'hit')} = %s) "
        f"FROM {_table(Screen)} s "
        f"INNER JOIN {_table(Sentence)} t ON t.{_col(Sentence, 'pk')} = s.{_col(Screen, 'sentence')} "
        f"WHERE s.{_col(Screen, 'hit')} = %s AND NOT EXISTS ("
        f"SELECT 1 FROM {j} WHERE {j}.{_col(ScreenJudgment, 'screen')} = s.{_col(Screen, 'pk')} "
        f"AND {j}.{_col(ScreenJudgment, 'judge')} = %s) "
        f"ORDER BY s.{_col(Screen, 'hit_position')} LIMIT 1"
    )


def first_unjudged_screen(*, hit_id: int, worker_id: int) -> tuple[Screen | None, int, int]:
    """(The HIT's first screen in order that the worker has not judged, with its sentence loaded, or
    None; the screens the worker has left in the HIT; the HIT's screens), in one statement. Without
    an unjudged screen the counts are (0, 0): ask ``assignment_progress`` then."""
    found = joined_rows(_screen_parts(), _unjudged_sql(), [hit_id, hit_id, worker_id])
    if not found:
        return None, 0, 0
    screen, sentence, left, total = found[0]
    screen.sentence = sentence
    return screen, left, total


@cache
def _left_sql() -> str:
    s, j = _table(Screen), _table(ScreenJudgment)
    return (
        f"SELECT 1 FROM {s} WHERE {s}.{_col(Screen, 'hit')} = %s AND NOT EXISTS ("
        f"SELECT 1 FROM {j} WHERE {j}.{_col(ScreenJudgment, 'screen')} = {s}.{_q(Screen._meta.pk.column)} "
        f"AND {j}.{_col(ScreenJudgment, 'judge')} = %s) LIMIT 1"
    )


def screens_left(*, hit_id: int, worker_id: int) -> bool:
    """Whether the HIT has a screen the worker has not judged."""
    with connection.cursor() as cursor:
        cursor.execute(_left_sql(), [hit_id, worker_id])
        return cursor.fetchone() is not None


@cache
def _progress_sql() -> str:
    s, j = _table(Screen), _table(ScreenJudgment)
    return (
        f"SELECT (SELECT COUNT(*) FROM {s} WHERE {_col(Screen, 'hit')} = %s), "
        f"(SELECT COUNT(DISTINCT j.{_col(ScreenJudgment, 'screen')}) FROM {j} j "
        f"INNER JOIN {s} s ON s.{_col(Screen, 'pk')} = j.{_col(ScreenJudgment, 'screen')} "
        f"WHERE s.{_col(Screen, 'hit')} = %s AND j.{_col(ScreenJudgment, 'judge')} = %s)"
    )


def hit_progress(*, hit_id: int, worker_id: int) -> tuple[int, int]:
    """(screens of the HIT the worker has judged, screens in the HIT): ``assignment_progress``."""
    with connection.cursor() as cursor:
        cursor.execute(_progress_sql(), [hit_id, hit_id, worker_id])
        total, done = cursor.fetchone()
    return done, total


# ------------------------------------------------------------------ a worker's evidence (issue 17)
# Read after each submit that brings evidence (a trap's verdict, a repeat, a HIT's last screen).


def _evidence_join() -> str:
    """Joins the judgment's (``j``) assignment as ``ea``, for ``_evidence_where``."""
    return (
        f"INNER JOIN {_table(Assignment)} ea "
        f"ON ea.{_col(Assignment, 'pk')} = j.{_col(ScreenJudgment, 'assignment')} "
    )


def _evidence_where() -> str:
    """The judgment's assignment is the worker's evidence: not ``ranking.statuses.NOT_EVIDENCE``
    (dropped, or held for a doubt on who did it). Literal values: no parameter to keep in order."""
    reasons = ", ".join(f"'{reason.value}'" for reason in IDENTITY_HOLDS)
    return (
        f"ea.{_col(Assignment, 'status')} <> '{AssignmentStatus.DROPPED.value}' "
        f"AND ea.{_col(Assignment, 'hold_reason')} NOT IN ({reasons})"
    )


@cache
def _verdicts_sql() -> str:
    j, s, c = _table(ScreenJudgment), _table(Screen), _table(Control)
    base, trap = (f"j.{_col(ScreenJudgment, name)}" for name in ("trap_base_answer", "trap_answer"))
    better = ", ".join(f"'{kind}'" for kind in BETTER_KINDS)
    flipped = f"c.{_col(Control, 'kind')} IN ({better})"
    return (
        f"SELECT j.{_col(ScreenJudgment, 'trap_passed')}, "
        f"CASE WHEN {flipped} THEN {trap} ELSE {base} END, CASE WHEN {flipped} THEN {base} ELSE {trap} END, "
        f"c.{_col(Control, 'kind')} FROM {j} j "
        f"INNER JOIN {s} s ON s.{_col(Screen, 'pk')} = j.{_col(ScreenJudgment, 'screen')} "
        f"LEFT OUTER JOIN {c} c ON c.{_col(Control, 'screen')} = s.{_col(Screen, 'pk')} "
        f"{_evidence_join()}"
        f"WHERE s.{_col(Screen, 'campaign')} = %s AND j.{_col(ScreenJudgment, 'judge')} = %s "
        f"AND j.{_col(ScreenJudgment, 'trap_passed')} IS NOT NULL AND {_evidence_where()} "
        f"ORDER BY j.{_col(ScreenJudgment, 'pk')}"
    )


def worker_trap_verdicts(
    *, campaign_id: int, worker_id: int
) -> list[tuple[bool, int | None, int | None, str | None]]:
    """(passed, answer on the better text, answer on the worse, the control's kind) of each of the
    worker's trap verdicts,
    from assignments that are their evidence (``_evidence_where``): the base's and the trap's answers,
    the other way round for a positive control (``BETTER_KINDS``: a correction added, so the trap is
    the better text), as Appraise's test compares them."""
    with connection.cursor() as cursor:
        cursor.execute(_verdicts_sql(), [campaign_id, worker_id])
        return [(bool(passed), base, trap, kind) for passed, base, trap, kind in cursor.fetchall()]


@cache
def _ratings_sql(answer: str) -> str:
    r, j, s, h, k, c = (_table(m) for m in (Rating, ScreenJudgment, Screen, Hit, Control, Candidate))
    return (
        f"SELECT j.{_col(ScreenJudgment, 'screen')}, k.{_col(Control, 'kind')}, k.{_col(Control, 'original')}, "
        f"c.{_col(Candidate, 'position')}, c.{_col(Candidate, 'text')}, r.{_col(Rating, answer)} FROM {r} r "
        f"INNER JOIN {j} j ON j.{_col(ScreenJudgment, 'pk')} = r.{_col(Rating, 'judgment')} "
        f"INNER JOIN {s} s ON s.{_col(Screen, 'pk')} = j.{_col(ScreenJudgment, 'screen')} "
        f"INNER JOIN {c} c ON c.{_col(Candidate, 'pk')} = r.{_col(Rating, 'candidate')} "
        f"LEFT OUTER JOIN {h} h ON h.{_col(Hit, 'pk')} = s.{_col(Screen, 'hit')} "
        f"LEFT OUTER JOIN {k} k ON k.{_col(Control, 'screen')} = s.{_col(Screen, 'pk')} "
        f"{_evidence_join()}"
        f"WHERE j.{_col(ScreenJudgment, 'judge')} = %s AND s.{_col(Screen, 'campaign')} = %s "
        f"AND (h.{_col(Hit, 'pk')} IS NULL OR h.{_col(Hit, 'qualification')} = %s) AND {_evidence_where()} "
        f"ORDER BY r.{_col(Rating, 'pk')}"
    )


def worker_ratings(*, campaign_id: int, worker_id: int, answer: str) -> list[tuple]:
    """(screen, control kind or None, control's original or None, position, text, answer) of every
    rating the worker gave in the campaign, qualification tests and assignments that are not their
    evidence (``_evidence_where``) aside, in the order they were saved.
    ``answer``: the Rating field the protocol's answers are in."""
    with connection.cursor() as cursor:
        cursor.execute(_ratings_sql(answer), [worker_id, campaign_id, False])
        return cursor.fetchall()


# ---------------------------------------------- the worker against the crowd (issue 41), and drift
# Read at the same refreshes as the evidence above; each was an ORM query in ranking.quality.evidence
# (``_crowd_recount``, ``_drift_recount``) costing ~300-500 Python calls to build, more than the
# rest of a submit's own reads (docs/benchmarks.md, "Issue 41's evidence on the worker path").


def _mine_where() -> str:
    """The judgment ``mj`` (screen ``ms``, its HIT ``mh`` joined outer) is the worker's (%s) in the
    campaign (%s), outside qualification tests (%s: False)."""
    return (
        f"mj.{_col(ScreenJudgment, 'judge')} = %s AND ms.{_col(Screen, 'campaign')} = %s "
        f"AND (mh.{_col(Hit, 'pk')} IS NULL OR mh.{_col(Hit, 'qualification')} = %s)"
    )


def _mine_from() -> str:
    j, s, h = _table(ScreenJudgment), _table(Screen), _table(Hit)
    return (
        f"FROM {j} mj INNER JOIN {s} ms ON ms.{_col(Screen, 'pk')} = mj.{_col(ScreenJudgment, 'screen')} "
        f"LEFT OUTER JOIN {h} mh ON mh.{_col(Hit, 'pk')} = ms.{_col(Screen, 'hit')} "
    )


@cache
def _crowd_sql(answer: str) -> str:
    r, j = _table(Rating), _table(ScreenJudgment)
    value = _col(Rating, answer)
    return (
        f"SELECT j.{_col(ScreenJudgment, 'screen')}, j.{_col(ScreenJudgment, 'judge')}, "
        f"r.{_col(Rating, 'candidate')}, r.{value} FROM {r} r "
        f"INNER JOIN {j} j ON j.{_col(ScreenJudgment, 'pk')} = r.{_col(Rating, 'judgment')} "
        f"{_evidence_join()}"
        f"WHERE j.{_col(ScreenJudgment, 'screen')} IN "
        f"(SELECT mj.{_col(ScreenJudgment, 'screen')} {_mine_from()}WHERE {_mine_where()}) "
        f"AND r.{value} IS NOT NULL AND {_evidence_where()} "
        f"ORDER BY r.{_col(Rating, 'pk')}"
    )


def crowd_answers(*, campaign_id: int, worker_id: int, answer: str) -> list[tuple[int, int, int, object]]:
    """(screen, judge, candidate, answer) of every judge's rating with an answer on the screens the
    worker judged in the campaign (qualification tests aside; any of the worker's judgments), from
    assignments that are their judge's evidence (``_evidence_where``), in the order they were saved.
    ``answer``: the Rating field the protocol's answers are in. Its ORM twin is in
    tests/test_work_reads.py."""
    with connection.cursor() as cursor:
        cursor.execute(_crowd_sql(answer), [worker_id, campaign_id, False])
        return cursor.fetchall()


@cache
def _others_sql() -> str:
    return (
        f"SELECT {_col(WorkerRecord, 'worker')}, {_col(WorkerRecord, 'excluded')}, "
        f"{_col(WorkerRecord, 'agreement')} FROM {_table(WorkerRecord)} "
        f"WHERE {_col(WorkerRecord, 'campaign')} = %s AND {_col(WorkerRecord, 'worker')} <> %s"
    )


def other_records(*, campaign_id: int, worker_id: int) -> list[tuple[int, bool, float | None]]:
    """(worker, excluded, agreement) of the campaign's other workers' records."""
    with connection.cursor() as cursor:
        cursor.execute(_others_sql(), [campaign_id, worker_id])
        return [(pk, bool(out), r) for pk, out, r in cursor.fetchall()]


def _created_part() -> Columns:
    (part,) = columns((ScreenJudgment, "j", ("created",)))
    return part


@cache
def _judged_sql() -> str:
    return (
        f"SELECT mj.{_col(ScreenJudgment, 'screen')}, mj.{_col(ScreenJudgment, 'created')} {_mine_from()}"
        f"WHERE {_mine_where()} ORDER BY mj.{_col(ScreenJudgment, 'pk')}"
    )


def worker_judged(*, campaign_id: int, worker_id: int) -> list[tuple[int, object]]:
    """(screen, when saved) of the worker's judgments in the campaign, qualification tests aside (any
    assignment's), in the order they were saved."""
    part = _created_part()
    with connection.cursor() as cursor:
        cursor.execute(_judged_sql(), [worker_id, campaign_id, False])
        rows = cursor.fetchall()
    if not part.converters:  # PostgreSQL's datetimes come as the ORM gives them
        return rows
    return [(screen, part.convert([created])[0]) for screen, created in rows]


@cache
def _drift_sql() -> str:
    j, s, h = _table(ScreenJudgment), _table(Screen), _table(Hit)
    return (
        f"SELECT j.{_col(ScreenJudgment, 'trap_passed')}, j.{_col(ScreenJudgment, 'created')} FROM {j} j "
        f"INNER JOIN {s} s ON s.{_col(Screen, 'pk')} = j.{_col(ScreenJudgment, 'screen')} "
        f"LEFT OUTER JOIN {h} h ON h.{_col(Hit, 'pk')} = s.{_col(Screen, 'hit')} "
        f"{_evidence_join()}"
        f"WHERE j.{_col(ScreenJudgment, 'judge')} = %s AND s.{_col(Screen, 'campaign')} = %s "
        f"AND j.{_col(ScreenJudgment, 'trap_passed')} IS NOT NULL "
        f"AND (h.{_col(Hit, 'pk')} IS NULL OR h.{_col(Hit, 'qualification')} = %s) AND {_evidence_where()} "
        f"ORDER BY j.{_col(ScreenJudgment, 'pk')}"
    )


def worker_trap_times(*, campaign_id: int, worker_id: int) -> list[tuple[bool, object]]:
    """(passed, when saved) of the worker's trap verdicts in the campaign, qualification tests aside,
    from assignments that are their evidence, in the order they were saved (drift's input)."""
    part = _created_part()
    with connection.cursor() as cursor:
        cursor.execute(_drift_sql(), [worker_id, campaign_id, False])
        rows = cursor.fetchall()
    if not part.converters:
        return [(bool(passed), created) for passed, created in rows]
    return [(bool(passed), part.convert([created])[0]) for passed, created in rows]
