"""Permission matrix (issue 9): every named URL of the product x role, GET and an empty POST, against
the expected status; workers never see researcher pages, trap flags or other workers' work.

The table is the contract: a new URL fails `test_every_route_is_in_the_matrix` until someone decides
who may open it. 302 for anonymous = redirect to the login page; 404 for a researcher of another
project = that project's objects do not exist for them; 405 = the method is not offered.
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.hardening.matrixworld import ROLES, matrix_world, params_for, user_for
from tests.hardening.urlmap import url_for, walk_routes

pytestmark = pytest.mark.django_db

# route                      anonymous worker  expert  other_researcher researcher admin  (GET/POST)
MATRIX = """
account                     302/302  403/403  403/403  403/403  403/403  200/400
account-list                302/302  403/403  403/403  403/403  403/403  200/405
analysis-run                302/302  403/403  403/403  404/404  200/200  200/200
analysis-run-export         302/302  403/403  403/403  404/405  404/405  404/405
analysis-run-plot           302/302  403/403  403/403  404/405  404/405  404/405
analysis-run-progress       302/302  403/403  403/403  404/405  200/405  200/405
analysis-run-resume         302/302  403/403  403/403  405/404  405/302  405/302
api-docs                    200/405  200/405  200/405  200/405  200/405  200/405
study-schema                200/405  200/405  200/405  200/405  200/405  200/405
api:analysis-run-detail     403/403  403/403  403/403  404/405  200/405  200/405
api:analysis-run-export     403/403  403/403  403/403  404/405  404/405  404/405
api:analysis-run-list       403/403  403/403  403/403  200/400  200/400  200/400
api:analysis-run-progress   403/403  403/403  403/403  404/405  200/405  200/405
api:analysis-run-results    403/403  403/403  403/403  404/405  200/405  200/405
api:analysis-run-resume     403/403  403/403  403/403  405/404  405/200  405/200
api:api-root                403/403  200/405  200/405  200/405  200/405  200/405
api:campaign-detail         403/403  403/403  403/403  404/405  200/405  200/405
api:campaign-list           403/403  403/403  403/403  200/400  200/400  200/400
api:campaign-results        403/403  403/403  403/403  404/405  200/405  200/405
api:campaign-transition     403/403  403/403  403/403  405/404  405/400  405/400
api:corpus-detail           403/403  403/403  403/403  404/405  200/405  200/405
api:corpus-list             403/403  403/403  403/403  200/405  200/405  200/405
api:judgment-export-detail  403/403  403/403  403/403  404/405  200/405  200/405
api:project-detail          403/403  403/403  403/403  404/405  200/405  200/405
api:project-list            403/403  403/403  403/403  200/405  200/405  200/405
api:system-detail           403/403  403/403  403/403  404/405  200/405  200/405
api:system-list             403/403  403/403  403/403  200/405  200/405  200/405
api:work-assignment         403/403  200/405  404/405  403/403  403/403  403/403
api:work-heartbeat          403/403  405/200  405/404  403/403  403/403  403/403
api:work-request-hit        403/403  405/201  405/201  403/403  403/403  403/403
api:work-submit             403/403  405/400  405/404  403/403  403/403  403/403
assignment                  302/302  200/400  404/404  403/403  403/403  403/403
assignment-heartbeat        302/302  405/200  405/404  403/403  403/403  403/403
assignment-return           302/302  405/302  405/404  403/403  403/403  403/403
campaign-analysis           302/302  403/403  403/403  404/404  200/200  200/200
campaign-detail             302/302  403/403  403/403  404/404  200/200  200/200
campaign-gold-record        302/302  403/403  403/403  404/404  302/302  302/302
campaign-gold-screens       302/302  403/403  403/403  404/404  200/302  200/302
campaign-gold-test          302/302  403/403  403/403  405/404  405/302  405/302
campaign-judgments-export   302/302  403/403  403/403  404/405  200/405  200/405
campaign-new                302/302  403/403  403/403  200/200  200/200  200/200
campaign-pilot              302/302  403/403  403/403  404/404  200/400  200/400
campaign-scores-csv         302/302  403/403  403/403  404/405  200/405  200/405
campaign-study              302/302  403/403  403/403  404/405  200/405  200/405
first-account               302/302  302/302  302/302  302/302  302/302  302/302
campaign-trap-preview       302/302  403/403  403/403  405/400  405/400  405/400
campaign-forecast           302/302  403/403  403/403  405/200  405/200  405/200
campaign-status             302/302  403/403  403/403  405/404  405/302  405/302
campaign-exclusion-rules    302/302  403/403  403/403  405/404  405/302  405/302
campaign-hold               302/302  403/403  403/403  405/404  405/302  405/302
campaign-work               302/302  302/302  302/302  403/403  403/403  403/403
campaign-worker-override    302/302  403/403  403/403  405/404  405/404  405/404
campaign-worker-forget      302/302  403/403  403/403  405/404  405/404  405/404
corpus-detail               302/302  403/403  403/403  404/404  200/200  200/200
corpus-export               302/302  403/403  403/403  404/405  200/405  200/405
corpus-stats                302/302  403/403  403/403  404/405  200/405  200/405
system-tags                 302/302  403/403  403/403  405/404  405/302  405/302
corpus-upload               302/302  403/403  403/403  200/200  200/200  200/200
crowd-campaign              302/302  403/403  403/403  404/404  200/200  200/200
crowd-import                302/302  403/403  403/403  200/200  200/200  200/200
crowd-invite                404/404  404/404  404/404  404/404  404/404  404/404
crowd-invites               302/302  403/403  403/403  405/404  405/302  405/302
crowd-invites-csv           302/302  403/403  403/403  404/405  200/405  200/405
crowd-mturk                 404/404  404/404  404/404  404/404  404/404  404/404
crowd-payments-csv          302/302  403/403  403/403  404/405  200/405  200/405
crowd-platform-action       302/302  403/403  403/403  405/404  405/302  405/302
imported-scores-upload      302/302  403/403  403/403  405/404  405/400  405/400
imported-scores-delete      302/302  403/403  403/403  405/404  405/302  405/302
import-job                  302/302  403/403  403/403  404/405  200/405  200/405
import-job-progress         302/302  403/403  403/403  404/405  200/405  200/405
import-job-download         302/302  403/403  403/403  404/405  404/405  404/405
import-jobs                 302/302  403/403  403/403  200/405  200/405  200/405
crowd-prolific              404/404  404/404  404/404  404/404  404/404  404/404
crowd-heartbeat             405/404  405/404  405/404  405/404  405/404  405/404
crowd-session               404/404  404/404  404/404  404/404  404/404  404/404
crowd-settings              302/302  403/403  403/403  405/404  405/302  405/302
healthz                     200/405  200/405  200/405  200/405  200/405  200/405
home                        302/302  200/200  200/200  200/200  200/200  200/200
invitation-answer           302/302  405/404  405/404  405/404  405/404  405/404
invitation                  404/404  404/404  404/404  404/404  404/404  404/404
login-unlock                404/404  404/404  404/404  404/404  404/404  404/404
login                       200/200  200/200  200/200  200/200  200/200  200/200
project                     302/302  200/403  200/403  404/404  200/400  200/400
project-list                302/302  200/200  200/200  200/200  200/200  200/200
project-member-remove       302/302  403/403  403/403  404/404  200/302  200/302
project-member-role         302/302  405/403  405/403  405/404  405/302  405/302
project-invitation-renew    302/302  405/403  405/403  405/404  405/302  405/302
project-new                 302/302  403/403  403/403  200/400  200/400  200/400
project-switch              302/302  405/302  405/302  405/302  405/302  405/302
qualification               302/302  403/403  200/200  403/403  200/200  200/200
qualification-decide        302/302  405/403  405/302  405/403  405/302  405/302
qualification-list          302/302  200/200  200/200  200/200  200/200  200/200
qualification-new           302/302  403/403  403/403  200/200  200/200  200/200
qualification-take          302/302  200/400  200/400  403/403  200/400  403/403
rewrite-campaign            302/302  403/403  403/403  404/404  200/200  200/200
rewrite-campaign-export     302/302  403/403  403/403  404/405  200/405  200/405
rewrite-campaign-new        302/302  403/403  403/403  200/200  200/200  200/200
rewrite-campaign-stats      302/302  403/403  403/403  404/405  200/405  200/405
rewrite-campaign-status     302/302  403/403  403/403  405/404  405/302  405/302
rewrite-draft               302/302  405/400  405/400  405/403  405/403  405/403
rewrite-index               302/302  200/200  200/200  200/200  200/200  200/200
rewrite-mine                302/302  200/200  200/200  404/404  200/200  200/200
rewrite-review              302/302  403/403  404/404  403/403  403/403  404/404
rewrite-skip                302/302  405/404  405/404  405/403  405/403  405/403
rewrite-work                302/302  200/404  200/404  403/403  403/403  403/403
schema                      200/405  200/405  200/405  200/405  200/405  200/405
"""


def expected() -> dict[str, dict[str, tuple[int, int]]]:
    table: dict[str, dict[str, tuple[int, int]]] = {}
    for line in MATRIX.strip().splitlines():
        name, *cells = line.split()
        assert len(cells) == len(ROLES), line
        table[name] = {
            role: tuple(int(x) for x in cell.split("/")) for role, cell in zip(ROLES, cells, strict=True)
        }
    return table


def test_every_route_is_in_the_matrix():
    routes = {r.name for r in walk_routes()} - {"logout"}
    table = set(expected())
    assert routes - table == set(), "routes nobody decided the permissions of"
    assert table - routes == set(), "routes in the matrix that no longer exist"


@pytest.mark.parametrize("role", ROLES)
def test_permission_matrix(role):
    world = matrix_world()
    client = Client(raise_request_exception=False)
    user = user_for(world, role)
    if user is not None:
        client.force_login(user)
    values = params_for(world)
    table = expected()
    routes = [r for r in walk_routes() if r.name != "logout"]
    got: dict[str, list[int]] = {r.name: [] for r in routes}
    for route in routes:  # every GET first: POSTs may change state
        got[route.name].append(client.get(url_for(route, values)).status_code)
    for route in routes:
        got[route.name].append(client.post(url_for(route, values)).status_code)
    wrong = {
        name: {"expected": table[name][role], "got": tuple(codes)}
        for name, codes in got.items()
        if tuple(codes) != table[name][role]
    }
    assert wrong == {}


def test_logout_takes_a_post_only_and_ends_the_session(client):
    world = matrix_world()
    client.force_login(world.workers[0])
    assert client.get("/accounts/logout/").status_code == 405
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_no_500_for_any_role_on_any_route():
    """The matrix above would show it too; this names the route when a 5xx appears."""
    for row in expected().values():
        for codes in row.values():
            assert all(c < 500 for c in codes)


def test_worker_pages_and_api_never_show_traps_gold_or_other_workers():
    from rest_framework.test import APIClient

    world = matrix_world()
    other = world.workers[1]
    worker = world.workers[0]
    client = Client()
    client.force_login(worker)
    values = params_for(world)
    table = expected()
    secrets = [
        "source+error",
        "trap_passed",
        "trap_system",
        "is_trap",
        other.username,
        world.researcher.username,
        'name="trap"',
    ]
    seen = 0
    for route in walk_routes():
        if (
            route.name in {"logout", "schema", "api-docs", "study-schema"}
            or table[route.name]["worker"][0] != 200
        ):
            continue  # the API schema is public documentation: field names, no data
        body = client.get(url_for(route, values), follow=True).content.decode()
        seen += 1
        for secret in secrets:
            assert secret not in body, (route.name, secret)
    assert seen >= 6
    api = APIClient()
    api.force_authenticate(worker)
    body = api.get(f"/api/work/assignments/{world.extra['assignment'].pk}/").json()
    for candidate in body["screen"]["candidates"]:
        assert set(candidate) == {"position", "text"}
    flat = str(body)
    for secret in ("trap", "system", "gold", "source+error", other.username):
        assert secret not in flat
