"""The inserts every submitted screen makes (a judgment and its ratings), as one plain statement each.

``Model.objects.create`` and ``bulk_create`` build their INSERT anew on every call, about 0.3 ms of
the web process's CPU each; a submit makes both while the crowd works (issue 22; ranking/work/reads.py
has the reads and says why). Here the instances are prepared exactly as the ORM prepares them (each
field's ``pre_save`` for defaults such as ``auto_now_add``, then ``get_db_prep_save``), inserted in
one statement and given their primary keys from ``RETURNING``. tests/test_work_reads.py compares the
rows with what ``bulk_create`` stores.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model


@cache
def _insert_sql(model: type[Model], n: int) -> tuple[str, tuple]:
    meta = model._meta
    fields = tuple(f for f in meta.concrete_fields if f is not meta.pk)
    q = connection.ops.quote_name
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {q(meta.db_table)} ({', '.join(q(f.column) for f in fields)}) "
        f"VALUES {', '.join([one] * n)} RETURNING {q(meta.pk.column)}"
    )
    return sql, fields


def rows_insert(objs: list[Model]) -> None:
    """INSERT the unsaved instances ``objs`` (all of one model, with an auto primary key) in one
    statement and set their primary keys: what ``bulk_create`` does for them. Database errors (a
    unique index refusing a row) raise as from the ORM, inside the caller's transaction."""
    if not objs:
        return
    if not connection.features.can_return_rows_from_bulk_insert:  # neither PostgreSQL nor SQLite 3.35+
        for obj in objs:  # bulk_create would leave the keys unset there; callers use them
            obj.save(force_insert=True)
        return
    sql, fields = _insert_sql(type(objs[0]), len(objs))
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        keys = [key for (key,) in cursor.fetchall()]
    for obj, key in zip(objs, keys, strict=True):
        obj.pk = key
        obj._state.adding, obj._state.db = False, connection.alias


@cache
def _update_sql(model: type[Model], names: tuple[str, ...]) -> tuple[str, tuple]:
    meta = model._meta
    fields = (
        tuple(meta.get_field(n) for n in names)
        if names
        else tuple(f for f in meta.concrete_fields if f is not meta.pk)
    )
    q = connection.ops.quote_name
    sets = ", ".join(f"{q(f.column)} = %s" for f in fields)
    return f"UPDATE {q(meta.db_table)} SET {sets} WHERE {q(meta.pk.column)} = %s", fields


def row_update(obj: Model, names: tuple[str, ...] = ()) -> None:
    """UPDATE the saved instance's row with its fields ``names`` (all but the key when empty): what
    ``obj.save(update_fields=names)`` (or ``obj.save()``) writes to an existing row, ``auto_now``
    fields included, in a statement built once per model and fields."""
    sql, fields = _update_sql(type(obj), tuple(names))
    params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, obj.pk])
