"""One way to show a long list: a page of 50, a search box, "Showing 1–50 of 20,000".

A queryset costs two queries (a count and one page) whatever its length; a list already built in
Python is sliced the same way. Several lists on one page keep apart by ``prefix``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.http import HttpRequest

PER_PAGE = 50
MAX_QUERY_CHARS = 200


@dataclass(frozen=True)
class Listing:
    """What templates/_paging.html needs: the page, the search text and the links' query strings."""

    page: Page
    query: str
    prefix: str
    label: str
    other_params: str  # the rest of the request's query string, kept by every link

    @property
    def items(self):
        return self.page.object_list

    @property
    def q_name(self) -> str:
        return f"{self.prefix}q"

    @property
    def page_name(self) -> str:
        return f"{self.prefix}page"

    def link(self, number: int) -> str:
        params = {self.page_name: number}
        if self.query:
            params[self.q_name] = self.query
        extra = f"&{self.other_params}" if self.other_params else ""
        return f"?{urlencode(params)}{extra}"

    @property
    def previous_link(self) -> str:
        return self.link(self.page.previous_page_number()) if self.page.has_previous() else ""

    @property
    def next_link(self) -> str:
        return self.link(self.page.next_page_number()) if self.page.has_next() else ""

    @property
    def first(self) -> int:
        return self.page.start_index()

    @property
    def last(self) -> int:
        return self.page.end_index()

    @property
    def total(self) -> int:
        return self.page.paginator.count

    @property
    def summary(self) -> str:
        """ "Showing 1–50 of 20,000" (or "Nothing found")."""
        if not self.total:
            return "Nothing found"
        return f"Showing {self.first:,}–{self.last:,} of {self.total:,}"


def paginate(
    request: HttpRequest,
    items: QuerySet | Sequence,
    *,
    search: Sequence[str] | Callable[[object, str], bool] = (),
    label: str = "Search",
    prefix: str = "",
    per_page: int = PER_PAGE,
    rows: Callable[[list], Sequence] | None = None,
) -> Listing:
    """The page of ``items`` the request asks for (``?page=``), filtered by ``?q=``.

    ``search`` is the fields a queryset is searched in (case-insensitive, any of them), or for a
    list a function ``(item, text) -> bool``. A page past the end shows the last page. ``rows``
    turns the shown page's items into what the template lists: rows that cost queries to build
    are built for one page, not for the whole list."""
    query = request.GET.get(f"{prefix}q", "").strip()[:MAX_QUERY_CHARS]
    if query and search:
        if callable(search):
            items = [item for item in items if search(item, query)]
        else:
            match = Q()
            for field in search:
                match |= Q(**{f"{field}__icontains": query})
            items = items.filter(match)
    page = Paginator(items, per_page).get_page(request.GET.get(f"{prefix}page"))
    if rows is not None:
        page.object_list = rows(list(page.object_list))
    own = {f"{prefix}q", f"{prefix}page"}
    rest = urlencode([(k, v) for k, values in request.GET.lists() if k not in own for v in values])
    return Listing(page=page, query=query, prefix=prefix, label=label, other_params=rest)
