"""``pages._pool.prefetch``: work started early on the session's lane, waited for later,
shared through the cache; without a pool it runs on demand in the script thread. And
``pages._pool.with_pool``: an interrupted run cancels only its own jobs."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import types
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

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


def test_sessions_prefetching_the_same_key_at_once_share_one_computation(lane):
    """Binary product's TV sweeps are the same for every visitor: thirty students opening the page
    together start one sweep, not thirty."""
    cache, calls, gate = _pool.SharedCache(4), [], threading.Event()

    def work(ex):
        calls.append(1)
        gate.wait(10)
        return _squares(ex)

    waits = [_pool.prefetch(cache, "sweep", work) for _ in range(5)]
    gate.set()
    assert all(w() == [k**2 for k in range(6)] for w in waits)
    assert calls == [1]


def test_call_on_runs_in_a_worker_or_here():
    assert _pool.call_on(None, pow, 2, 5) == 32
    with ThreadPoolExecutor(1) as ex:
        assert _pool.call_on(ex, divmod, 7, 2) == (3, 1)
        where = _pool.call_on(ex, lambda: threading.current_thread().name)
    assert where != threading.current_thread().name


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


class _Stop(BaseException):
    """Stands in for Streamlit's StopException (a BaseException raised at the run's next st call)."""


def test_an_interrupted_run_leaves_the_next_runs_jobs_alone(lane):
    # Streamlit's fast reruns (a widget changed mid-sweep): the session's next run starts in a new
    # thread, on the same lane key, before the old run stops at its next st call. The old run's
    # with_pool once cancelled the whole lane, the new run's queued jobs with it, and the new run
    # then waited in as_completed forever ("Running the sweep…" after "New seed").
    gate = threading.Event()
    lane.lane("other").submit(gate.wait, 10)  # both slots busy: every job below waits in line
    lane.lane("other").submit(gate.wait, 10)
    queued, interrupted = threading.Event(), threading.Event()

    def old_run(ex):
        jobs = [ex.submit(pow, 2, k) for k in range(4)]
        queued.set()
        assert interrupted.wait(10)
        raise _Stop  # e.g. from the progress callback, before any of its jobs ran
        return jobs  # pragma: no cover

    def new_run(ex):
        jobs = [ex.submit(pow, 3, k) for k in range(4)]
        interrupted.set()
        return sorted(f.result() for f in as_completed(jobs, timeout=10))

    errors: list = []

    def stopping() -> None:
        try:
            _pool.with_pool(old_run)
        except _Stop as err:
            errors.append(err)

    old = threading.Thread(target=stopping)
    old.start()
    assert queued.wait(10)
    result: list = []
    new = threading.Thread(target=lambda: result.append(_pool.with_pool(new_run)))
    new.start()
    old.join(10)
    assert errors and lane.pending("s") == 4  # the old run's four cancelled, the new run's queued
    gate.set()
    new.join(20)
    assert result == [[1, 3, 9, 27]]


def test_with_pool_redoes_cancelled_work_in_the_script_thread(lane):
    # e.g. the shared pool shut down under the run: the same result in the script thread, no error
    gate = threading.Event()
    for _ in range(2):
        lane.lane("other").submit(gate.wait, 10)
    calls = []

    def work(ex):
        calls.append(ex)
        if ex is None:
            return 2**5
        job = ex.submit(pow, 2, 5)
        lane.cancel("s")
        return job.result(timeout=10)

    assert _pool.with_pool(work) == 32 and calls[-1] is None
    gate.set()


def test_refine_runs_on_the_background_pool_when_there_is_one(monkeypatch):
    """A refinement goes to the low-priority background pool (its own lane per key), not to the
    pool page views use; without a background pool it goes to the shared pool at priority 1."""
    shared = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    low = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    monkeypatch.setattr(_pool, "shared_pool", lambda: shared)
    try:
        for background, used, lane_key in ((low, low, "k1"), (None, shared, ("refine", "k2"))):
            monkeypatch.setattr(_pool, "background_pool", lambda b=background: b)
            cache = _pool.SharedCache(4)
            key = lane_key if background is not None else "k2"
            cache.refine(key, _squares)
            for _ in range(200):
                if cache.get(key) is not None:
                    break
                threading.Event().wait(0.05)
            assert cache.get(key) == [k**2 for k in range(6)]
            assert set(used.dispatched) >= {lane_key}
        assert "k1" not in shared.dispatched and ("refine", "k2") not in low.dispatched
    finally:
        shared.shutdown()
        low.shutdown()


def test_a_waiting_page_polls_less_often_when_many_refinements_are_queued():
    """Alone, a page asks every second; behind thirty refinements of ~1.3 s on two workers it asks
    every 4 s (each ask is a fragment run in the server's one process); never outside
    POLL_SECONDS, and never less often when fewer refinements are queued."""
    low, high = _pool.POLL_SECONDS
    assert _pool.poll_seconds(1, 1.3, 2) == low
    assert _pool.poll_seconds(0, 1.3, 2) == low
    assert _pool.poll_seconds(30, 1.3, 2) == high
    assert _pool.poll_seconds(10**6, 60.0, 1) == high
    assert _pool.poll_seconds(9, 1.0, 1) == pytest.approx(3.0)
    waits = [_pool.poll_seconds(k, 1.3, 2) for k in range(40)]
    assert waits == sorted(waits)


def test_in_flight_counts_the_refinements_not_yet_stored(monkeypatch):
    gate = threading.Event()
    low = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    monkeypatch.setattr(_pool, "shared_pool", lambda: low)
    monkeypatch.setattr(_pool, "background_pool", lambda: low)
    try:
        cache = _pool.SharedCache(4)
        for key in ("a", "b", "a"):  # the same key twice is one refinement
            cache.refine(key, lambda ex: ex.submit(gate.wait, 10).result())
        assert cache.in_flight() == 2
        gate.set()
        for _ in range(200):
            if cache.in_flight() == 0:
                break
            threading.Event().wait(0.05)
        assert cache.in_flight() == 0 and cache.get("a") is True
    finally:
        low.shutdown()


def test_a_failed_refinement_is_kept_with_its_reason_until_retried(monkeypatch):
    """A refinement that raises leaves no result and says why; it is not started again by the
    page's next refine (which would fail at every poll) until retry(); then it runs again."""
    low = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    monkeypatch.setattr(_pool, "shared_pool", lambda: low)
    monkeypatch.setattr(_pool, "background_pool", lambda: low)
    calls: list[int] = []

    def work(ex):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("module 'numba' has no attribute 'core'")
        return "full"

    def settled() -> None:
        for _ in range(200):
            if cache.in_flight() == 0:
                return
            threading.Event().wait(0.05)

    try:
        cache = _pool.SharedCache(4)
        cache.refine("k", work)
        settled()
        assert cache.get("k") is None
        assert cache.failure("k") == "RuntimeError: module 'numba' has no attribute 'core'"
        cache.refine("k", work)  # the page's rerun: not started again
        settled()
        assert len(calls) == 1 and cache.failure("k") is not None
        cache.retry("k")
        assert cache.failure("k") is None
        cache.refine("k", work)
        settled()
        assert len(calls) == 2 and cache.get("k") == "full" and cache.failure("k") is None
    finally:
        low.shutdown()


def test_a_refinement_on_a_broken_pool_drops_that_pool(monkeypatch):
    """A worker that died breaks its pool for good: the refinement fails, says why, and the
    pool it ran on is dropped, so that "try again" gets a new one (the shared pool's page views
    already did this; the background pool did not)."""
    low = FairPool(ThreadPoolExecutor(1), max_in_flight=1)
    cleared: list[str] = []

    def pool_of(name):
        def get():
            return low

        get.clear = lambda: cleared.append(name)  # type: ignore[attr-defined]
        return get

    monkeypatch.setattr(_pool, "shared_pool", pool_of("shared"))
    monkeypatch.setattr(_pool, "background_pool", pool_of("background"))

    def work(ex):
        raise BrokenProcessPool("A child process terminated abruptly")

    try:
        cache = _pool.SharedCache(4)
        cache.refine("k", work)
        for _ in range(200):
            if cache.in_flight() == 0:
                break
            threading.Event().wait(0.05)
        assert cache.failure("k").startswith("BrokenProcessPool")
        assert cleared == ["background"]
    finally:
        low.shutdown()


def test_a_worker_started_while_the_app_script_is_main_survives(monkeypatch):
    """Streamlit makes the app script ``__main__`` in every script run, so a worker process can
    start with it as its main module (seen in CI: a pool broken about a minute after the server
    started). The worker runs app.py again as ``__mp_main__``; the script must do nothing there."""
    main = types.ModuleType("__main__")
    main.__file__ = str(Path(__file__).resolve().parents[2] / "app.py")
    main.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", main)
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(1, mp_context=ctx) as ex:
        assert ex.submit(os.getpid).result(timeout=180) > 0


def test_get_or_compute_computes_once_for_sessions_asking_together():
    """Thirty students on the same link ask for the same sweep at once: one computes, the others
    wait and read its result; the cache keeps no lock once nobody waits."""
    cache = _pool.SharedCache(4)
    calls: list[str] = []
    started = threading.Event()

    def compute() -> list[int]:
        calls.append(threading.current_thread().name)
        started.set()
        threading.Event().wait(0.3)
        return [1, 2, 3]

    with ThreadPoolExecutor(8) as ex:
        jobs = [ex.submit(cache.get_or_compute, "sweep", compute) for _ in range(8)]
        values = [j.result(timeout=30) for j in jobs]
    assert len(calls) == 1 and all(v is values[0] for v in values)
    assert cache.get("sweep") == [1, 2, 3] and cache._computing == {}
    # a cached value is returned without computing
    assert cache.get_or_compute("sweep", lambda: pytest.fail("computed again")) == [1, 2, 3]


def test_get_or_compute_lets_the_next_session_compute_when_the_first_stops():
    """The first session's run stops (its student changed a widget) or fails: a waiting session
    computes the value itself instead of inheriting the error."""
    cache = _pool.SharedCache(4)
    gate, calls = threading.Event(), []

    def first() -> int:
        calls.append("first")
        gate.wait(10)
        raise RuntimeError("stopped")

    def second() -> int:
        calls.append("second")
        return 7

    with ThreadPoolExecutor(2) as ex:
        a = ex.submit(cache.get_or_compute, "k", first)
        for _ in range(100):
            if calls:
                break
            threading.Event().wait(0.01)
        b = ex.submit(cache.get_or_compute, "k", second)
        threading.Event().wait(0.1)
        gate.set()
        with pytest.raises(RuntimeError, match="stopped"):
            a.result(timeout=10)
        assert b.result(timeout=10) == 7
    assert calls == ["first", "second"] and cache._computing == {}


def test_get_or_compute_does_not_serialise_different_keys():
    cache = _pool.SharedCache(4)
    both = threading.Barrier(2, timeout=10)

    def compute(v: int) -> int:
        both.wait()  # each waits for the other: only possible if they run at the same time
        return v

    with ThreadPoolExecutor(2) as ex:
        jobs = [ex.submit(cache.get_or_compute, k, lambda k=k: compute(k)) for k in (1, 2)]
        assert [j.result(timeout=20) for j in jobs] == [1, 2]


def test_first_reps_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(_pool.FIRST_REPS_ENV, raising=False)
    assert _pool.first_reps_from_env() == 3
    monkeypatch.setenv(_pool.FIRST_REPS_ENV, "1")
    assert _pool.first_reps_from_env() == 1
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv(_pool.FIRST_REPS_ENV, bad)
        with pytest.raises(ValueError, match=r"DPMEAN_FIRST_REPS.*integer >= 1"):
            _pool.first_reps_from_env()


def test_a_busy_pool_draws_lighter_first_results(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    pool = FairPool(ThreadPoolExecutor(1), max_in_flight=1)
    monkeypatch.setattr(_pool, "shared_pool", lambda: pool)
    monkeypatch.setattr(_pool, "FIRST_REPS", 3)
    monkeypatch.setenv("DPMEAN_WORKERS", "2")
    try:
        assert _pool.first_reps() == 3  # alone on the server: the usual first result
        jobs = [pool.lane(f"student {k}").submit(gate.wait, 10) for k in range(4)]
        assert pool.pending() == 3  # one runs, three wait: more than the 2 workers
        assert _pool.first_reps() == _pool.BUSY_FIRST_REPS == 1
        gate.set()
        for job in jobs:
            job.result(timeout=10)
        assert _pool.first_reps() == 3
        # a first result of one repetition already drawn is kept on a quiet server
        assert _pool.first_reps(lambda reps: reps == 1) == 1
        assert _pool.first_reps(lambda reps: False) == 3
    finally:
        gate.set()
        pool.shutdown()
    monkeypatch.setattr(_pool, "shared_pool", lambda: None)
    assert _pool.first_reps() == 3  # no pool: nothing to queue behind


def test_a_refinement_stops_when_no_page_waits_for_it(monkeypatch):
    """A refinement started for a session (``owner``) lives while that session's page polls
    (``keep``); once it stops polling (the visitor left), the refinement's jobs are stopped, the
    waiting ones cancelled, and nothing is stored. Without an owner nothing watches it."""
    gate = threading.Event()
    low = FairPool(ThreadPoolExecutor(1), max_in_flight=1)
    monkeypatch.setattr(_pool, "shared_pool", lambda: low)
    monkeypatch.setattr(_pool, "background_pool", lambda: low)
    monkeypatch.setattr(_pool, "POLL_SECONDS", (0.05, 0.05))
    monkeypatch.setattr(_pool, "KEEP_MARGIN", 0.05)

    def work(ex):  # one job in the worker, a second one waiting behind it
        first, second = ex.submit(gate.wait, 30), ex.submit(pow, 2, 3)
        return first.result(), second.result()

    try:
        cache = _pool.SharedCache(4)
        cache.refine("wanted", work, owner="session-a")
        for _ in range(20):  # the page polls for a while: the refinement goes on
            cache.keep("wanted", "session-a", 0.05)
            threading.Event().wait(0.05)
        assert cache.in_flight() == 1 and low.busy() == (1, 1)
        for _ in range(400):  # the visitor left: no more polls
            if cache.in_flight() == 0:
                break
            threading.Event().wait(0.05)
        assert cache.in_flight() == 0 and cache.get("wanted") is None
        assert low.pending() == 0
    finally:
        gate.set()
        low.shutdown()
