"""DRF classes the REST_FRAMEWORK settings point at: bounds on what a client may ask of the API.

- ``BoundedLimitOffsetPagination``: DRF's ``LimitOffsetPagination`` has no ``max_limit``, so
  ``?limit=9223372036854775808`` reached the database as ``LIMIT 2**63`` (SQLite: "datatype
  mismatch", PostgreSQL: bigint out of range), a 500. A huge ``offset`` is harmless: past the count
  DRF answers an empty page without a query.
- ``JSONParser``: a body nested deeper than Python's ``json`` recursion limit (``[[[[…`` 1,000 levels,
  a 2 kB request) raised ``RecursionError`` out of DRF's parser, a 500; it is a malformed body (400).
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
