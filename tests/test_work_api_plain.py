"""The workers' API reads a submit in the documented shape without its serializer
(``ranking.work.api.plain_submit``, issue 22): on generated bodies, valid and not, whatever the plain
reader accepts the serializer accepts with the same result, and the bodies a client sends (and the
load benchmark sends) take the plain path."""

from __future__ import annotations

import math
import random

import pytest

from ranking.protocols import protocol_get
from ranking.work.api import WorkSubmitSerializer, plain_submit

PRWS, RANKING, EDITS = (protocol_get(name) for name in ("prws", "ranking", "edits"))

VALUES = [
    0, 1, 3, 4, 5, 50, 100, 101, -1, 10**30, True, False, None, 2.0, 2.5, "3", "", " x", "true",
    float("nan"), float("inf"), [], {}, [1], "x" * 20,
]  # fmt: skip


def drf(body: object, protocol) -> dict | None:
    serializer = WorkSubmitSerializer(data=body, protocol=protocol)
    if not serializer.is_valid():
        return None
    data = serializer.validated_data
    return {
        "answers": [dict(a) for a in data["answers"]],
        "ticket": data["ticket"],
        "seconds": data["seconds"],
    }


def generated(rng: random.Random) -> object:
    """A body near the documented shape: each part right most of the time, any value otherwise."""

    def maybe(good, p: float = 0.85):
        return good() if rng.random() < p else rng.choice(VALUES)

    def answer():
        out = {"position": maybe(lambda: rng.randint(0, 4))}
        for key, least, most in (("score", 0, 100), ("rank", 1, 5)):
            if rng.random() < 0.6:
                out[key] = maybe(lambda least=least, most=most: rng.choice([rng.randint(least, most), None]))
        if rng.random() < 0.5:
            out["meaning_changed"] = maybe(lambda: rng.random() < 0.5)
        if rng.random() < 0.05:
            out[rng.choice(["labels", "extra", "Position"])] = rng.choice(VALUES)
        if rng.random() < 0.05:
            del out["position"]
        return out

    body = {"answers": maybe(lambda: [answer() for _ in range(rng.randint(0, 6))], 0.95)}
    if rng.random() < 0.5:
        body["ticket"] = maybe(
            lambda: rng.choice(["", "1.abc:def", " padded ", "a\0b", "x" * 300, "\ud800", "é:1"])
        )
    if rng.random() < 0.5:
        body["seconds"] = maybe(lambda: rng.choice([0, 3, 3.5, 86400, 86401, -0.5, None]))
    if rng.random() < 0.03:
        body["other"] = 1
    return body if rng.random() < 0.97 else rng.choice(VALUES)


@pytest.mark.parametrize("protocol", [PRWS, RANKING], ids=["prws", "ranking"])
def test_whatever_the_plain_reader_accepts_the_serializer_accepts_alike(protocol):
    rng = random.Random(22)
    plain_taken = refused = 0
    for i in range(4000):
        body = generated(rng)
        mine = plain_submit(body, protocol)
        theirs = drf(body, protocol)
        if mine is not None:
            plain_taken += 1
            assert theirs is not None, (i, body)
            assert mine == theirs and [list(a) for a in mine["answers"]] == [
                list(a) for a in theirs["answers"]
            ]
            assert type(mine["seconds"]) is type(theirs["seconds"]), (i, body)
        elif theirs is None:
            refused += 1
    assert plain_taken > 300 and refused > 300  # both paths were exercised


def test_the_bodies_clients_send_take_the_plain_path():
    body = {"answers": [{"position": p, "score": s} for p, s in enumerate([80, 0, 55, 100])], "seconds": 3.0}
    assert plain_submit(body, PRWS) == drf(body, PRWS)
    ranks = {"answers": [{"position": 0, "rank": 1}, {"position": 1, "rank": 1, "meaning_changed": True}]}
    assert plain_submit(ranks | {"ticket": "1.x:y"}, RANKING) == drf(ranks | {"ticket": "1.x:y"}, RANKING)
    assert plain_submit(body | {"seconds": math.nan}, PRWS) is None  # the serializer judges the rest
    surrogate = body | {"ticket": "\ud800"}  # valid JSON; DRF refuses lone surrogates
    assert plain_submit(surrogate, PRWS) is None and drf(surrogate, PRWS) is None


def test_other_protocols_always_take_the_serializer():
    body = {"answers": [{"position": 0, "rank": 1, "labels": []}]}
    assert plain_submit(body, EDITS) is None
