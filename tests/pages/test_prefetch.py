"""``pages._pool.prefetch`` (issue 18): work started early on the session's lane, waited for later,
shared through the cache; without a pool it runs on demand in the script thread."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from dpcore.pool import FairPool
from pages import _pool


def _squares(ex):
    jobs = [ex.submit(pow, k, 2) for k in range(6)] if ex is not None else None
    return [j.result() for j in jobs] if jobs else [k**2 for k in range(6)]


@pytest.fixture
def lane(monkeypatch):
    pool = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    monkeypatch.setattr(_pool, "session_lane", lambda: pool.lane("s"))
    yield pool
    pool.shutdown()


def test_prefetch_runs_on_the_lane_and_caches(lane):
    cache = _pool.SharedCache(4)
    started = threading.Event()

    def work(ex):
        started.set()
        assert ex is not None  # the session's lane, handed to the background thread
        return _squares(ex)

    wait = _pool.prefetch(cache, "k", work)
    assert started.wait(10)  # already running before anyone waits
    assert wait() == [k**2 for k in range(6)]
    assert cache.get("k") == [k**2 for k in range(6)]
    calls = []
    again = _pool.prefetch(cache, "k", calls.append)
    assert again() == [k**2 for k in range(6)] and calls == []  # served from the cache


def test_prefetch_hands_errors_to_the_waiter(lane):
    def bad(ex):
        raise ValueError("epsilon must be positive")

    wait = _pool.prefetch(_pool.SharedCache(4), "bad", bad)
    with pytest.raises(ValueError, match="epsilon"):
        wait()


def test_prefetch_without_a_pool_runs_when_asked(monkeypatch):
    monkeypatch.setattr(_pool, "session_lane", lambda: None)
    calls = []

    def work(ex):
        calls.append(ex)
        return _squares(ex)

    cache = _pool.SharedCache(4)
    wait = _pool.prefetch(cache, "k", work)
    assert calls == []  # nothing yet: the script thread computes it when the page asks
    assert wait() == [k**2 for k in range(6)] and calls == [None]
    assert cache.get("k") == [k**2 for k in range(6)]
