"""Search leases on a real redis-server: one node's lease at a time, and a node whose lease expired can neither
extend nor delete the lease another node took since."""

from __future__ import annotations

import pytest
from support.services import RedisServer
from support.waiting import eventually

from webapp.search.leases import PREFIX, SearchLeases
from webapp.transport.redis_clients import connect

pytestmark = pytest.mark.servers


@pytest.fixture
def redis_url(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    yield server.url
    server.stop()


def test_a_lease_is_held_by_one_node_and_given_back(redis_url):
    a, b = SearchLeases(connect(redis_url), "node-a"), SearchLeases(connect(redis_url), "node-b")
    assert a.claim("g1")
    assert a.claim("g1")  # renewing its own
    assert not b.claim("g1")
    assert b.unclaimed(["g1", "g2"]) == ["g2"]
    b.release("g1")  # not b's: nothing happens
    assert a.redis.get(PREFIX + "g1") == b"node-a"
    a.release("g1")
    assert b.unclaimed(["g1"]) == ["g1"]
    assert b.claim("g1")


def test_an_expired_lease_taken_by_another_node_is_neither_renewed_nor_released_by_the_first(redis_url):
    redis = connect(redis_url)
    a, b = SearchLeases(connect(redis_url), "node-a", ttl=0.3), SearchLeases(connect(redis_url), "node-b", ttl=30)
    assert a.claim("g")
    eventually(lambda: not redis.exists(PREFIX + "g"), "the expiry of A's lease")
    assert b.unclaimed(["g"]) == ["g"]  # A stopped renewing: its lease expired
    assert b.claim("g")
    assert a.renew(["g"]) == ["g"]  # A learns it lost the lease...
    assert redis.get(PREFIX + "g") == b"node-b"
    assert redis.pttl(PREFIX + "g") > 25_000  # ...and B's lease and its time to live are untouched
    a.release("g")
    assert redis.get(PREFIX + "g") == b"node-b"
    assert not a.claim("g")
    assert b.renew(["g"]) == []


def test_without_redis_every_node_acts_alone_and_takes_the_lease_once_redis_is_back(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    a = SearchLeases(connect(server.url), "node-a")
    server.stop()
    assert a.claim("g")  # cannot be checked: searched anyway
    assert a.unclaimed(["g"]) == []  # nobody can tell: no turn is taken over
    assert a.renew(["g"]) == []
    server.start()
    try:
        assert a.renew(["g"]) == []
        assert a.redis.get(PREFIX + "g") == b"node-a"
    finally:
        server.stop()
