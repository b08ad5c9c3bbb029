"""The reads every request of a working crowd makes, in plain SQL (issue 22, "Load under noise").

A claim, a screen and a submit each read the assignment with its HIT and campaign, the screen with
its sentence and candidates, and the next screen with the HIT's progress. Built by the ORM these
cost 0.4-1.5 ms of the web process's CPU each (``select_related`` of the campaign's fifty columns
alone 1.3 ms), most of a request's cost; as plain statements run through ``Model.objects.raw``
(which still applies every field's database converters) they cost about 0.1 ms each:
``bench/load_workers.py`` prints the CPU per request, and docs/benchmarks.md has the figures.

Every statement here is portable SQL (PostgreSQL and the embedded SQLite), names tables and columns
from the models' ``_meta``, and has an ORM twin it is tested against (tests/test_work_reads.py).
Nothing here decides anything: the services and the API do, with what these return.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model

from annotate.models import Sentence
from ranking.models import Assignment, Campaign, Candidate, Control, Hit, Rating, Screen, ScreenJudgment


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _table(model: type[Model]) -> str:
    return _q(model._meta.db_table)


def _col(model: type[Model], field: str) -> str:
    meta = model._meta
    return _q((meta.pk if field == "pk" else meta.get_field(field)).column)


@cache
def _by_fields_sql(model: type[Model], fields: tuple[str, ...], for_update: bool, first_by: str) -> str:
    where = " AND ".join(f"{_col(model, f)} = %s" for f in fields)
    order = f" ORDER BY {_col(model, first_by)} LIMIT 1" if first_by else ""
    lock = " FOR UPDATE" if for_update and connection.features.has_select_for_update else ""
    return f"SELECT * FROM {_table(model)} WHERE {where}{order}{lock}"


def row(model: type[Model], *, for_update: bool = False, first_by: str = "", **equal: object):
    """The one row of ``model`` whose fields equal ``equal`` (None if there is none): what
    ``model.objects.filter(**equal).first()`` gives for a unique match, without building a query;
    ``first_by`` a field: the first of several in its order. ``for_update`` locks the row
    (``select_for_update``) where the database can."""
    names = tuple(sorted(equal))
    sql = _by_fields_sql(model, names, for_update, first_by)
    rows = list(model.objects.raw(sql, [equal[n] for n in names]))
    return rows[0] if rows else None


class _Part:
    """One model's columns in a joined statement: its concrete fields in order, under ``alias``, and
    the converters the ORM would apply to each (as its compiler does for ``select_related``)."""

    def __init__(self, model: type[Model], alias: str):
        self.model, self.alias = model, alias
        fields = model._meta.concrete_fields
        self.attnames = [f.attname for f in fields]
        self.select = ", ".join(f"{alias}.{_q(f.column)}" for f in fields)
        cols = [f.get_col(alias) for f in fields]
        self.converters = [
            (col, convs)
            for col in cols
            if (convs := connection.ops.get_db_converters(col) + col.get_db_converters(connection))
        ]
        self.positions = {id(col): i for i, col in enumerate(cols)}

    def instance(self, values: list):
        for col, convs in self.converters:
            i = self.positions[id(col)]
            for convert in convs:
                values[i] = convert(values[i], col, connection)
        return self.model.from_db(connection.alias, self.attnames, values)


@cache
def _parts(*spec: tuple[type[Model], str]) -> tuple[_Part, ...]:
    return tuple(_Part(model, alias) for model, alias in spec)


def _joined(parts: tuple[_Part, ...], sql: str, params: list) -> list[tuple]:
    """Rows of ``sql`` (which selects every part's columns first, in order, then any extras), each
    as (instance per part..., extra values...)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    out = []
    for values in found:
        values, i, made = list(values), 0, []
        for part in parts:
            n = len(part.attnames)
            made.append(part.instance(values[i : i + n]))
            i += n
        out.append((*made, *values[i:]))
    return out


def _assignment_parts() -> tuple[_Part, ...]:
    return _parts((Assignment, "a"), (Hit, "h"), (Campaign, "c"))


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
    found = _joined(_assignment_parts(), _assignment_sql(), [pk, worker_id])
    if not found:
        return None
    assignment, hit, campaign = found[0]
    hit.campaign = campaign
    assignment.hit = hit
    return assignment


def _claim_parts() -> tuple[_Part, ...]:
    return _parts((Assignment, "a"), (Hit, "h"))


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
    found = _joined(_claim_parts(), _active_sql(), params)
    if not found:
        return None
    assignment, hit = found[0]
    assignment.hit = hit
    return assignment


def _screen_parts() -> tuple[_Part, ...]:
    return _parts((Screen, "s"), (Sentence, "t"))


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
    found = _joined(_screen_parts(), _screen_sql(), [pk, hit_id])
    if not found:
        return None
    screen, sentence = found[0]
    screen.sentence = sentence
    return screen


@cache
def _candidates_sql(with_traps: bool) -> str:
    c, through = _table(Candidate), Candidate.outputs.through
    output = through._meta.get_field("output").remote_field.model
    trap = (
        f"EXISTS (SELECT 1 FROM {_q(through._meta.db_table)} co "
        f"INNER JOIN {_table(output)} o ON o.{_q(output._meta.pk.column)} = co.{_q(through._meta.get_field('output').column)} "
        f"WHERE co.{_q(through._meta.get_field('candidate').column)} = {c}.{_q(Candidate._meta.pk.column)} "
        f"AND o.{_col(output, 'system')} = %s)"
        if with_traps
        else "0"
    )
    return (
        f"SELECT {c}.{_q(Candidate._meta.pk.column)}, {c}.{_col(Candidate, 'position')}, "
        f"{c}.{_col(Candidate, 'text')}, {trap} AS is_trap "
        f"FROM {c} WHERE {c}.{_col(Candidate, 'screen')} = %s ORDER BY {c}.{_col(Candidate, 'position')}"
    )


def screen_candidates_marked(*, screen_id: int, trap_system_id: int | None) -> list[Candidate]:
    """The screen's candidates in display order with ``is_trap`` (stands for an output of the trap
    system): the twin of ``selectors.screen_candidates_for_submit``. For the server's checks only."""
    params = [trap_system_id, screen_id] if trap_system_id else [screen_id]
    found = list(Candidate.objects.raw(_candidates_sql(bool(trap_system_id)), params))
    for candidate in found:
        candidate.is_trap = bool(candidate.is_trap)
    return found


@cache
def _shown_candidates_sql() -> str:
    c = _table(Candidate)
    return (
        f"SELECT {_q(Candidate._meta.pk.column)}, {_col(Candidate, 'position')}, {_col(Candidate, 'text')} "
        f"FROM {c} WHERE {_col(Candidate, 'screen')} = %s ORDER BY {_col(Candidate, 'position')}"
    )


def screen_candidates_shown(screen_id: int) -> list[Candidate]:
    """Candidates in display order, id, position and text only: the twin of
    ``selectors.screen_candidates``."""
    return list(Candidate.objects.raw(_shown_candidates_sql(), [screen_id]))


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
    found = _joined(_screen_parts(), _unjudged_sql(), [hit_id, hit_id, worker_id])
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


# ------------------------------------------------------------------ a worker's evidence (issue 17)
# Read after each submit that brings evidence (a trap's verdict, a repeat, a HIT's last screen).


@cache
def _verdicts_sql() -> str:
    j, s = _table(ScreenJudgment), _table(Screen)
    return (
        f"SELECT j.{_col(ScreenJudgment, 'trap_passed')}, j.{_col(ScreenJudgment, 'trap_base_answer')}, "
        f"j.{_col(ScreenJudgment, 'trap_answer')} FROM {j} j "
        f"INNER JOIN {s} s ON s.{_col(Screen, 'pk')} = j.{_col(ScreenJudgment, 'screen')} "
        f"WHERE s.{_col(Screen, 'campaign')} = %s AND j.{_col(ScreenJudgment, 'judge')} = %s "
        f"AND j.{_col(ScreenJudgment, 'trap_passed')} IS NOT NULL ORDER BY j.{_col(ScreenJudgment, 'pk')}"
    )


def worker_trap_verdicts(*, campaign_id: int, worker_id: int) -> list[tuple[bool, int | None, int | None]]:
    """(passed, answer on the base, answer on the trap) of each of the worker's trap verdicts."""
    with connection.cursor() as cursor:
        cursor.execute(_verdicts_sql(), [campaign_id, worker_id])
        return [(bool(passed), base, trap) for passed, base, trap in cursor.fetchall()]


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
        f"WHERE j.{_col(ScreenJudgment, 'judge')} = %s AND s.{_col(Screen, 'campaign')} = %s "
        f"AND (h.{_col(Hit, 'pk')} IS NULL OR h.{_col(Hit, 'qualification')} = %s) "
        f"ORDER BY r.{_col(Rating, 'pk')}"
    )


def worker_ratings(*, campaign_id: int, worker_id: int, answer: str) -> list[tuple]:
    """(screen, control kind or None, control's original or None, position, text, answer) of every
    rating the worker gave in the campaign, qualification tests aside, in the order they were saved.
    ``answer``: the Rating field the protocol's answers are in."""
    with connection.cursor() as cursor:
        cursor.execute(_ratings_sql(answer), [worker_id, campaign_id, False])
        return cursor.fetchall()
