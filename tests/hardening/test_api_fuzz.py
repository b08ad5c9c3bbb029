"""API fuzzing against the product's own OpenAPI schema (issue 9): no request answers a server error.

schemathesis reads the schema drf-spectacular serves at /api/schema/ and generates requests for every
operation, valid ones and ones that break the schema (wrong types, missing and extra fields, out of
range numbers, odd strings, NUL), GET and POST alike. Each operation is fuzzed as four roles
(anonymous, a worker, the researcher who owns the project, a researcher of another project) against
the WSGI application in-process, with DRF tokens. A generated request is sent as generated and again
with its path ids and body ids (corpus, systems, campaign, runs) pointed at real objects of the world
(`apiworld.py`), so the fuzzed bodies reach the code behind the 404s: the generated number picks which
object, so hypothesis still shrinks it. Every request runs in a savepoint rolled back afterwards
(with its on-commit work, e.g. the score update of a finished HIT, run before the rollback), so every
example sees the same world and a failure replays exactly.

The checks are schemathesis' ``not_a_server_error`` (no status >= 500; the report carries the server's
traceback), ``content_type_conformance`` and ``response_schema_conformance``. ``API_FUZZ_EXAMPLES`` sets
the examples per operation and role (10 here, about 35 s on SQLite and 50 s on PostgreSQL; ``make fuzz``
runs 200), derandomized; ``API_FUZZ_RANDOM=1`` explores with a random seed. Ids that ``str.isdigit``
accepts and ``int()`` refuses are rare in generated data, so they are sent to every id parameter
explicitly, and each finding of the fuzzer is pinned below with its exact input.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from contextlib import contextmanager

import pytest
import schemathesis
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from tests.hardening.apiworld import ROLES, ApiWorld, build_api_world

EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "10"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=os.environ.get("API_FUZZ_RANDOM", "") == "",
    database=None,
    print_blob=True,
)


# No 5xx; a documented answer (200, 201) has a documented content type and matches its schema. The
# errors (400, 403, 404, 409) are DRF's {"detail": ...} and not in the schema, so status codes are not checked.
CHECKS = [not_a_server_error, content_type_conformance, response_schema_conformance]


def served_schema() -> dict:
    """The schema /api/schema/ serves, made in-process (the test below checks they are equal)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    return json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))


SCHEMA = schemathesis.openapi.from_dict(served_schema())
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]

# The first path segment after /api/ names what an ``{id}`` is; the work routes name their parameters.
PATH_KINDS = {
    "analysis-runs": "run",
    "campaigns": "campaign",
    "corpora": "corpus",
    "projects": "project",
    "systems": "system",
    "judgment-exports": "campaign",
}
QUERY_KINDS = {"corpus": "corpus", "campaign": "campaign"}
BODY_KINDS = {"corpus": "corpus", "systems": "system", "trap_system": "system", "campaign": "campaign"}
PARAMETER_KINDS = {"human_run": "run", "metric_run": "run"}


@pytest.fixture(scope="module", autouse=True)
def _hypothesis_put_back():
    """schemathesis patches Hypothesis for the whole process the first time it builds a strategy
    (``schemathesis.generation.hypothesis.setup``): a printer that prints no falsifying example, a
    buffer four times larger. The hypothesis tests that run after this module get theirs back."""
    import schemathesis.generation.hypothesis as st_hypothesis
    from hypothesis import core as root_core
    from hypothesis.internal import entropy
    from hypothesis.internal.conjecture import engine
    from hypothesis.strategies._internal import collections, core

    places = [
        (root_core, "RepresentationPrinter"),
        (root_core, "BUFFER_SIZE"),
        (engine, "BUFFER_SIZE"),
        (collections, "BUFFER_SIZE"),
        (core, "is_first_param_referenced_in_function"),
        (entropy, "register_random"),
    ]
    saved = [getattr(module, name) for module, name in places]
    yield
    for (module, name), value in zip(places, saved):
        setattr(module, name, value)
    st_hypothesis.setup._is_patched = False


@pytest.fixture(scope="module")
def api_world(django_db_setup, django_db_blocker):
    """Built once for the module inside a transaction that is rolled back at its end; each test runs in
    a savepoint of it (pytest-django's ``db``) and each request in a savepoint of that."""
    from django.contrib.auth.models import Group
    from django.test.utils import override_settings

    from annotate.models import Role
    from config.celery import app

    app.conf.task_always_eager = True
    with (
        django_db_blocker.unblock(),
        override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]),
        transaction.atomic(),
    ):
        for role in Role.values:  # a transactional test before us may have flushed them
            Group.objects.get_or_create(name=role)
        yield build_api_world()
        transaction.set_rollback(True)


def _number(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value[-9:])  # it only picks an object; int() refuses more than 4300 digits
    return None


def _pick(choices: list[int], value):
    n = _number(value)
    return value if n is None or not choices else choices[n % len(choices)]


def with_real_ids(case, world: ApiWorld):
    """A copy of the case with its ids pointing at real objects, or None when it has none to point."""
    real = case.derive(keep_auth=True)
    changed = False
    params = dict(case.path_parameters)
    for name, value in params.items():
        if name == "screen_id":
            continue
        kind = name.removesuffix("_id") if name != "id" else PATH_KINDS[case.operation.path.split("/")[2]]
        params[name] = _pick(world.ids[kind], value)
    if "screen_id" in params:
        params["screen_id"] = _pick(world.screens.get(params["assignment_id"], []), params["screen_id"])
    if params != case.path_parameters:
        real.path_parameters = params
        changed = True
    query = {k: _pick(world.ids[QUERY_KINDS[k]], v) if k in QUERY_KINDS else v for k, v in case.query.items()}
    if query != case.query:
        real.query = query
        changed = True
    if isinstance(case.body, dict):
        body = dict(case.body)
        for name, kind in BODY_KINDS.items():
            if name in body:
                value = body[name]
                body[name] = (
                    [_pick(world.ids[kind], v) for v in value]
                    if isinstance(value, list)
                    else _pick(world.ids[kind], value)
                )
        answers = body.get("answers")
        if isinstance(answers, list) and all(
            isinstance(a, dict) and type(a.get("position")) is int for a in answers
        ):  # one answer per output shown, positions 0..k-1: the submit may be valid (finishing the HIT)
            shown = world.outputs.get(params.get("screen_id"), len(answers))
            body["answers"] = [a | {"position": i} for i, a in enumerate(answers[:shown])]
        if isinstance(body.get("parameters"), dict):
            body["parameters"] = {
                k: _pick(world.ids[PARAMETER_KINDS[k]], v) if k in PARAMETER_KINDS else v
                for k, v in body["parameters"].items()
            }
        if body != case.body:
            real.body = body
            changed = True
    return real if changed else None


def send(case, headers: dict[str, str], capture_on_commit):
    """Send the case to the WSGI application in a savepoint; fail on a 5xx with the server's traceback."""
    from config.wsgi import application

    tracebacks: list[str] = []

    def record(sender, request=None, **kwargs):
        tracebacks.append(traceback.format_exc())

    got_request_exception.connect(record)
    # As Django's test client does: the handler's end-of-request connection cleanup would close the
    # connection that holds the test's transaction (PostgreSQL with CONN_MAX_AGE).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        with transaction.atomic():
            with capture_on_commit(execute=True):
                response = case.call(app=application, headers=headers)
            transaction.set_rollback(True)
    finally:
        got_request_exception.disconnect(record)
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    try:
        case.validate_response(response, checks=CHECKS, headers=headers)
    except FailureGroup as failure:
        raise AssertionError(f"{failure}\nServer traceback:\n{''.join(tracebacks) or '(none)'}") from None
    return response


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: op.label)
@pytest.mark.parametrize("role", ROLES)
def test_fuzzed_requests_never_get_a_server_error_and_get_documented_answers(
    role, operation, api_world, db, django_capture_on_commit_callbacks
):
    headers = api_world.headers(role)
    cases = st.one_of([operation.as_strategy(generation_mode=mode) for mode in GenerationMode])

    @FUZZ
    @given(case=cases)
    def fuzz(case):
        send(case, headers, django_capture_on_commit_callbacks)
        real = with_real_ids(case, api_world)
        if real is not None:
            send(real, headers, django_capture_on_commit_callbacks)

    fuzz()


def test_the_fuzzed_schema_is_the_one_the_api_serves(client):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    assert json.loads(response.content) == served_schema()
    assert len(OPERATIONS) == 23  # 21, + the workers' heartbeat (issue 18), + campaign transition (issue 20)


@pytest.mark.parametrize(
    ("role", "statuses"),
    [
        ("anonymous", [403, 403, 403]),
        ("worker", [403, 200, 201]),
        ("researcher", [200, 403, 403]),
        ("other_researcher", [404, 403, 403]),
    ],
)
def test_each_role_authenticates_and_real_ids_reach_the_objects(
    role, statuses, api_world, db, django_capture_on_commit_callbacks
):
    """What the fuzz relies on to get past 403 and 404: the role's token works and `with_real_ids` turns
    a generated id into the world's object (a researcher's campaign, the worker's assignment)."""
    cases = [
        SCHEMA["/api/campaigns/{id}/"]["GET"].Case(path_parameters={"id": 0}),
        SCHEMA["/api/work/assignments/{assignment_id}/"]["GET"].Case(path_parameters={"assignment_id": "0"}),
        SCHEMA["/api/work/campaigns/{campaign_id}/request/"]["POST"].Case(
            path_parameters={"campaign_id": "0"}
        ),
    ]
    headers = api_world.headers(role)
    got = [
        send(with_real_ids(case, api_world), headers, django_capture_on_commit_callbacks).status_code
        for case in cases
    ]
    assert got == statuses


# ------------------------------------------------------------------- hostile ids, every id parameter

# What ``str.isdigit`` accepts and ``int()`` refuses ("²", more than 4300 digits), what ``int()`` takes
# but a bigint does not hold, and other near-numbers. Each goes into every path id and documented id
# query parameter, as the worker and as the researcher.
HOSTILE_IDS = ["\u00b2", "1" * 5000, "9" * 19, "\u0661\u0662", "-1", "0", " 1", "1.5", "0x1f", "1e3"]
ID_PARAMETERS = [
    (operation, location, name)
    for operation in OPERATIONS
    for location, names in (
        ("path", [p.name for p in operation.path_parameters]),
        ("query", [n for n in QUERY_KINDS if n in operation.query]),
    )
    for name in names
]


def _hostile_cases():
    for operation, location, name in ID_PARAMETERS:
        for value in HOSTILE_IDS:
            label = value if len(value) < 20 else f"{len(value)} digits"
            yield pytest.param(operation, location, name, value, id=f"{operation.label}-{name}={label}")


@pytest.mark.parametrize(("operation", "location", "name", "value"), list(_hostile_cases()))
def test_a_hostile_id_is_never_a_server_error(
    operation, location, name, value, api_world, db, django_capture_on_commit_callbacks
):
    base = operation.Case(path_parameters={p.name: 0 for p in operation.path_parameters})
    path = dict((with_real_ids(base, api_world) or base).path_parameters)  # the other ids are real
    if location == "path":
        path[name] = value
    case = operation.Case(path_parameters=path, query={name: value} if location == "query" else None)
    for role in ("worker", "researcher"):
        send(case, api_world.headers(role), django_capture_on_commit_callbacks)  # fails on a 5xx


def test_parse_id_takes_ascii_digits_that_fit_a_bigint_only():
    from annotate.http import parse_id

    assert [parse_id(v) for v in ("12", " 12 ", "0", "9" * 18)] == [12, 12, 0, 10**18 - 1]
    assert [parse_id(v) for v in HOSTILE_IDS if v.strip() not in ("0", "1")] == [None] * 8


# ----------------------------------------------------------------- findings of the fuzzer, pinned


def _post(client, world, url, body, role="researcher"):
    client.raise_request_exception = False
    token = f"Token {world.tokens[role]}"
    return client.post(url, body, content_type="application/json", HTTP_AUTHORIZATION=token)


def test_an_analysis_run_seed_past_32_bits_is_refused_not_a_server_error(api_world, db, client):
    """Found by the fuzzer: seed 56607686526313627648 reached AnalysisRun.seed (32 bits on PostgreSQL,
    64 on SQLite): OverflowError / DataError."""
    campaign = api_world.ids["campaign"][0]
    body = {"campaign": campaign, "kind": "gleu_vs_refs", "parameters": {}}
    for seed in (56607686526313627648, 2**31):
        response = _post(client, api_world, "/api/analysis-runs/", body | {"seed": seed})
        assert response.status_code == 400
        assert response.json() == {"seed": ["Ensure this value is less than or equal to 2147483647."]}
    response = _post(client, api_world, "/api/analysis-runs/", body | {"seed": 2**31 - 1})
    assert response.status_code == 201 and response.json()["seed"] == 2**31 - 1


def test_the_analysis_page_refuses_a_seed_past_32_bits(api_world, db, client):
    from django.urls import reverse

    client.force_login(api_world.world.researcher)
    url = reverse("campaign-analysis", args=[api_world.ids["campaign"][0]])
    response = client.post(url, {"kind": "gleu_vs_refs", "seed": 2**31})
    assert response.status_code == 400
    assert b"Ensure this value is less than or equal to 2147483647." in response.content


GUNICORN_FRAMES = 20


@contextmanager
def _frames_above_not_counted():
    """Python's recursion limit counts every frame of the stack, so whether 900 levels of JSON parse
    depends on how deep the caller already is: a server's request starts some 60 frames down, this
    test under pytest more, and under pytest-xdist's worker (execnet's loop) more again, where the
    parser itself gave up at 900 (CI, 2026-11-28). For this call the limit is moved by the frames
    above it less a gunicorn worker's own (about 20 above its WSGI call), so the request is handled at
    a server's depth, and a check that recursed per level would still overflow as it did."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + max(0, depth - GUNICORN_FRAMES))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize(
    ("parameters", "error"),
    [
        ({"\u0000": None}, "Null characters are not allowed."),
        ({"metrics": ["gleu\u0000"]}, "Null characters are not allowed."),
        ({"a": "\ud800"}, "Lone surrogates are not allowed."),
        ({"a": [[[[[[[[[1]]]]]]]]]}, "Nested deeper than 8 levels."),
        ({"a": json.loads("[" * 900 + "]" * 900)}, "Nested deeper than 8 levels."),
    ],
    ids=["nul-key", "nul-value", "lone-surrogate", "depth-9", "depth-900"],
)
def test_analysis_run_parameters_postgres_cannot_store_are_refused(parameters, error, api_world, db, client):
    """Found by the fuzzer on PostgreSQL: {"\\u0000": null} as trueskill parameters, a 500 (jsonb
    cannot hold NUL). A lone surrogate fails the same way; 900 levels overflowed the check's recursion."""
    body = {"campaign": api_world.ids["campaign"][0], "kind": "trueskill", "parameters": parameters}
    raw = json.dumps(body)  # ensure_ascii: the lone surrogate travels as \\ud800, as a client sends it
    with _frames_above_not_counted():
        response = _post(client, api_world, "/api/analysis-runs/", raw)
    assert response.status_code == 400
    assert response.json() == {"parameters": [error]}


def test_analysis_run_parameters_nested_8_deep_are_accepted(api_world, db, client):
    body = {"campaign": api_world.ids["campaign"][0], "kind": "trueskill"}
    parameters = {"runs": 5, "chunks": 1, "note": [[[[[[["x"]]]]]]]}
    response = _post(client, api_world, "/api/analysis-runs/", body | {"parameters": parameters})
    assert response.status_code == 201 and response.json()["parameters"]["note"] == [[[[[[["x"]]]]]]]


def test_the_schema_documents_every_content_type_a_run_export_answers():
    """Found by content_type_conformance: the export was documented as text/plain."""
    responses = served_schema()["paths"]["/api/analysis-runs/{id}/export/"]["get"]["responses"]
    assert sorted(responses["200"]["content"]) == ["application/json", "text/csv", "text/x-tex"]


def test_the_schema_documents_every_content_type_a_judgment_export_answers():
    """Found once the fuzzed world had an edit-level campaign: its edit-jsonl export answered
    application/jsonl, documented as text/csv or application/xml only."""
    responses = served_schema()["paths"]["/api/judgment-exports/{id}/"]["get"]["responses"]
    assert sorted(responses["200"]["content"]) == ["application/jsonl", "application/xml", "text/csv"]


def test_bounded_pagination_caps_the_limit_at_1000():
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from config.rest import BoundedLimitOffsetPagination

    request = Request(APIRequestFactory().get("/", {"offset": "false", "limit": "9223372036854775808"}))
    paginator = BoundedLimitOffsetPagination()
    assert (paginator.get_limit(request), paginator.get_offset(request)) == (1000, 0)


def test_the_json_parser_answers_a_too_deep_body_with_a_parse_error():
    import io

    from rest_framework.exceptions import ParseError

    from config.rest import JSONParser

    with pytest.raises(ParseError, match="nested too deeply"):
        JSONParser().parse(io.BytesIO(b"[" * 5000 + b"]" * 5000))
    assert JSONParser().parse(io.BytesIO(b'{"a": [[1]]}')) == {"a": [[1]]}


def test_a_limit_past_64_bits_gets_a_page_not_a_server_error(api_world, db, client):
    """Found by the fuzzer: GET /api/analysis-runs/?offset=false&limit=9223372036854775808 put LIMIT 2**63
    into the SQL (SQLite "datatype mismatch", PostgreSQL bigint out of range)."""
    client.raise_request_exception = False
    headers = {"HTTP_AUTHORIZATION": f"Token {api_world.tokens['researcher']}"}
    response = client.get("/api/analysis-runs/?offset=false&limit=9223372036854775808", **headers)
    assert response.status_code == 200 and response.json()["count"] == 3


def test_a_json_body_nested_5000_deep_is_a_400_not_a_server_error(api_world, db, client):
    response = _post(client, api_world, "/api/campaigns/", "[" * 5000 + "]" * 5000)
    assert response.status_code == 400
    assert response.json() == {"detail": "JSON parse error - nested too deeply"}
