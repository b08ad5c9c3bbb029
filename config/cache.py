"""Django's Redis cache, keeping one ``redis.Redis`` client per connection pool.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` on every cache call, and
redis-py's constructor fills a table of some 170 response callbacks each time: about 50 µs of CPU
and 200 Python calls, more than the GET it serves. Every request of a logged-in worker reads its
session copy from this cache (config/sessions.py), so that was a noticeable part of a crowd
request (issue 22; bench/load_workers.py prints the CPU per request).

A ``redis.Redis`` only holds its pool and options, and Django gives each thread its own cache object
(``django.core.cache.caches`` is thread-local), so keeping the client changes nothing else: the
pool still hands each command a connection and checks for a fork.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
