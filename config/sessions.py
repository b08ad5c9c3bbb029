"""Sessions kept in the database, with a short-lived copy in the shared Redis cache.

Every request of a logged-in worker reads its session; from the database that is one query and about
0.6 ms of the web process's CPU, from Redis a GET. The database stays the record: the cache holds a
copy for at most ``SESSION_CACHE_SECONDS`` (5 minutes by default), and any cache error falls back to
the database, so pages keep working while Redis is down (tests/hardening: the Redis outage test).

Django's ``cached_db`` already guards the write after a save; this also guards the read-through
write, the delete and the existence check, which raise in ``cached_db`` when Redis is unreachable.
A delete that fails (logout while Redis is down) leaves the copy for at most the cache lifetime:
that bound is why the copy is short-lived, instead of living as long as the session.

Used only with ``CACHE_URL`` set (config/settings.py): the per-process memory cache Django falls
back to otherwise would keep a logged-out session alive in the other processes.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.sessions.backends import cached_db

log = logging.getLogger("django.contrib.sessions")


class SessionStore(cached_db.SessionStore):
    cache_key_prefix = "gec.session."

    def _cache_seconds(self, age: int) -> int:
        return max(0, min(age, settings.SESSION_CACHE_SECONDS))

    def load(self):
        try:
            data = self._cache.get(self.cache_key)
        except Exception:
            log.warning("session cache unavailable: reading the database", exc_info=True)
            data = None
        if data is not None:
            return data
        stored = self._get_session_from_db()
        if not stored:
            return {}
        data = self.decode(stored.session_data)
        try:
            self._cache.set(
                self.cache_key, data, self._cache_seconds(self.get_expiry_age(expiry=stored.expire_date))
            )
        except Exception:
            log.warning("session cache unavailable: not keeping a copy", exc_info=True)
        return data

    def exists(self, session_key):
        try:
            if session_key and (self.cache_key_prefix + session_key) in self._cache:
                return True
        except Exception:
            log.warning("session cache unavailable: asking the database", exc_info=True)
        return super(cached_db.SessionStore, self).exists(session_key)

    def save(self, must_create=False):
        super(cached_db.SessionStore, self).save(must_create)  # the database first: it is the record
        try:
            self._cache.set(self.cache_key, self._session, self._cache_seconds(self.get_expiry_age()))
        except Exception:
            log.warning("session cache unavailable: not keeping a copy", exc_info=True)

    def delete(self, session_key=None):
        super(cached_db.SessionStore, self).delete(session_key)
        key = session_key if session_key is not None else self.session_key
        if key is None:
            return
        try:
            self._cache.delete(self.cache_key_prefix + key)
        except Exception:
            log.warning(
                "session cache unavailable: a deleted session's copy may live %ss more",
                settings.SESSION_CACHE_SECONDS,
                exc_info=True,
            )
