"""How a worker names a screen of their assignment: an opaque handle, never the screen's id (issue 35).

Control screens (traps, repeats) are copies of judged screens; a screen's id, its rank within a HIT
or a campaign, or anything derived from it in an order-keeping way tells a worker which screens came
from the same build step. So every page and the workers' API show a screen as ``screen_handle``:
the AES-128 encryption, under a key derived from ``SECRET_KEY``, of the one block
(assignment id, screen id). AES is a pseudo-random permutation: without the key the handles of one
assignment are 16 random-looking bytes each, unrelated in order or value to the ids and different
in every assignment (two workers comparing handles learn nothing); the server decrypts a handle
back to its screen without a query or a stored row, and a permutation cannot map two screens to one
handle, so no table and no unique constraint are needed. A handle made up or taken from another
assignment decrypts to another assignment id (one chance in 2**64 of a match) and names no screen.
Changing ``SECRET_KEY`` makes handles on open pages stale: their submit is refused as not part of the
HIT, as with a stale form.
"""

from __future__ import annotations

import base64
import binascii
import struct
from functools import cache

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from django.conf import settings
from django.utils.crypto import salted_hmac

_BLOCK = struct.Struct(">QQ")
HANDLE_LENGTH = 22
"""base64url of 16 bytes, without padding."""


@cache
def _cipher(secret: str) -> Cipher:
    key = salted_hmac("ranking.screen_handle", "aes-128 key", secret=secret, algorithm="sha256").digest()[:16]
    # ECB of a single block under a fixed key is the block cipher itself: a keyed permutation.
    return Cipher(algorithms.AES(key), modes.ECB())


def screen_handle(*, assignment_id: int, screen_id: int) -> str:
    """The handle of screen ``screen_id`` within assignment ``assignment_id``."""
    encryptor = _cipher(settings.SECRET_KEY).encryptor()
    block = encryptor.update(_BLOCK.pack(assignment_id, screen_id)) + encryptor.finalize()
    return base64.urlsafe_b64encode(block).rstrip(b"=").decode("ascii")


def screen_id_from_handle(handle: object, *, assignment_id: int) -> int | None:
    """The screen ``handle`` names within assignment ``assignment_id``, or None when it is not a
    handle this server gave for that assignment (malformed, made up, another assignment's)."""
    if type(handle) is not str or len(handle) != HANDLE_LENGTH or not handle.isascii():
        return None
    try:
        block = base64.urlsafe_b64decode(handle + "==")
    except (binascii.Error, ValueError):
        return None
    if len(block) != 16 or base64.urlsafe_b64encode(block).rstrip(b"=").decode("ascii") != handle:
        return None  # one block has one spelling: no second handle for the same screen
    decryptor = _cipher(settings.SECRET_KEY).decryptor()
    stamped_assignment, screen_id = _BLOCK.unpack(decryptor.update(block) + decryptor.finalize())
    if stamped_assignment != assignment_id or not 0 < screen_id < 2**63:
        return None
    return screen_id
