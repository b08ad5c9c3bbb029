"""Model instances from plain SQL rows, made as the ORM makes them: each column through the field's
database converters, then ``Model.from_db``.

The crowd's requests read a handful of rows each (issue 22). Built by the ORM a lookup by key costs
0.3-0.6 ms of the web process's CPU; through ``Model.objects.raw`` about 0.1 ms, of which most is the
raw query set matching column names to fields and asking every field for its converters again on
each call (some 60 function calls per row read). Here that is done once per model and alias
(``columns``), so a statement costs its execution and one ``from_db`` per row.

Statements name their tables and columns from the models' ``_meta`` and select a model's columns in
``Columns.select`` order (never ``SELECT *``: a table's physical column order is the order its
migrations added them, not the model's). Callers test each statement against the ORM query it
replaces (tests/test_work_reads.py).
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import Model


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[Model]) -> str:
    return quote(model._meta.db_table)


def column(model: type[Model], field: str) -> str:
    meta = model._meta
    return quote((meta.pk if field == "pk" else meta.get_field(field)).column)


class Columns:
    """One model's columns in a statement: its concrete fields in order (or only ``names``, the
    others deferred as ``.only()`` would leave them), under ``alias``, and the converters the ORM
    would apply to each (as its compiler does for ``select_related``)."""

    def __init__(self, model: type[Model], alias: str, names: tuple[str, ...] = ()):
        self.model, self.alias = model, alias
        fields = model._meta.concrete_fields
        if names:
            fields = [model._meta.pk if n == "pk" else model._meta.get_field(n) for n in names]
        self.attnames = [f.attname for f in fields]
        self.select = ", ".join(f"{alias}.{quote(f.column)}" for f in fields)
        self.converters = [
            (i, col, convs)
            for i, col in enumerate(f.get_col(alias) for f in fields)
            if (convs := connection.ops.get_db_converters(col) + col.get_db_converters(connection))
        ]

    def convert(self, values: list) -> list:
        """``values`` (this part's columns of a row, a list) through the fields' converters, in place."""
        for i, col, convs in self.converters:
            for convert in convs:
                values[i] = convert(values[i], col, connection)
        return values

    def instance(self, values: list) -> Model:
        return self.model.from_db(connection.alias, self.attnames, self.convert(values))


@cache
def columns(*spec: tuple) -> tuple[Columns, ...]:
    """``Columns`` of each (model, alias) or (model, alias, names), made once per process."""
    return tuple(Columns(*part) for part in spec)


def joined_rows(parts: tuple[Columns, ...], sql: str, params: list) -> list[tuple]:
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


@cache
def _by_fields_sql(model: type[Model], fields: tuple[str, ...], for_update: bool, first_by: str) -> str:
    (part,) = columns((model, "t"))
    where = " AND ".join(f"t.{column(model, f)} = %s" for f in fields)
    order = f" ORDER BY t.{column(model, first_by)} LIMIT 1" if first_by else ""
    lock = " FOR UPDATE" if for_update and connection.features.has_select_for_update else ""
    return f"SELECT {part.select} FROM {table(model)} t WHERE {where}{order}{lock}"


def row(model: type[Model], *, for_update: bool = False, first_by: str = "", **equal: object) -> Model | None:
    """The one row of ``model`` whose fields equal ``equal`` (None if there is none): what
    ``model.objects.filter(**equal).first()`` gives for a unique match, without building a query;
    ``first_by`` a field: the first of several in its order. ``for_update`` locks the row
    (``select_for_update``) where the database can."""
    names = tuple(sorted(equal))
    found = joined_rows(
        columns((model, "t")), _by_fields_sql(model, names, for_update, first_by), [equal[n] for n in names]
    )
    return found[0][0] if found else None
