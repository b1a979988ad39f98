"""The shared worker pool: round-robin fairness across lanes, cancellation, failure
handling, and the same experiment frames with and without the process pool."""

from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import CancelledError, ThreadPoolExecutor, as_completed, wait

import numpy as np
import pandas as pd
import pytest

from dpcore.experiments import ExperimentConfig, default_estimators, run
from dpcore.pool import BACKGROUND_NICE, FairPool, process_pool, workers_from_env

#: floats agree to this relative tolerance (far above last-bit differences, far below any change)
RTOL = 1e-9


def _blocked_pool() -> tuple[FairPool, threading.Event]:
    """A one-slot pool whose first job waits for the returned event."""
    gate = threading.Event()
    pool = FairPool(ThreadPoolExecutor(1), max_in_flight=1)
    pool.lane("first").submit(gate.wait, 10)
    return pool, gate


def test_round_robin_between_lanes() -> None:
    pool, gate = _blocked_pool()
    heavy = [pool.lane("heavy").submit(lambda i=i: ("heavy", i)) for i in range(6)]
    light = [pool.lane("light").submit(lambda i=i: ("light", i)) for i in range(2)]
    assert pool.pending() == 8 and pool.pending("light") == 2
    gate.set()
    done = [f.result(timeout=10) for f in heavy + light]
    assert done[-2:] == [("light", 0), ("light", 1)]
    # after the gate: heavy, light, heavy, light, then the rest of heavy (a FIFO queue would
    # have run all six heavy jobs before the first light one)
    assert pool.dispatched == [
        "first",
        "heavy",
        "light",
        "heavy",
        "light",
        "heavy",
        "heavy",
        "heavy",
        "heavy",
    ]
    pool.shutdown()


def test_priority_goes_first() -> None:
    pool, gate = _blocked_pool()
    later = [pool.lane("refine", priority=1).submit(lambda i=i: ("refine", i)) for i in range(3)]
    now = [pool.lane("view").submit(lambda i=i: ("view", i)) for i in range(2)]
    gate.set()
    for f in later + now:
        f.result(timeout=10)
    assert pool.dispatched == ["first", "view", "view", "refine", "refine", "refine"]
    pool.shutdown()


def test_cancel_drops_only_that_lane() -> None:
    pool, gate = _blocked_pool()
    mine = [pool.lane("a").submit(pow, 2, i) for i in range(3)]
    other = pool.lane("b").submit(pow, 3, 2)
    pool.lane("a").shutdown(cancel_futures=True)
    gate.set()
    assert other.result(timeout=10) == 9
    assert all(f.cancelled() for f in mine)
    with pytest.raises(CancelledError):
        mine[0].result()
    pool.shutdown()


def test_cancelled_jobs_wake_their_waiters() -> None:
    # Future.cancel alone does not notify as_completed or wait (an executor does that when it
    # reaches the job, and the pool never will): a waiter on a cancelled job waited forever
    pool, gate = _blocked_pool()
    mine = [pool.lane("a").submit(pow, 2, i) for i in range(3)]
    seen: list = []
    waiter = threading.Thread(target=lambda: seen.extend(as_completed(mine, timeout=5)))
    waiter.start()  # already waiting when the jobs are cancelled, as a script run would be
    assert pool.cancel("a") == 3
    waiter.join(10)
    assert sorted(map(id, seen)) == sorted(map(id, mine))
    assert not wait(mine, timeout=5).not_done
    gate.set()
    pool.shutdown()


def test_a_view_cancels_only_its_own_jobs() -> None:
    # Streamlit's fast reruns: the old run (stopping) and the new one share the session's key
    pool, gate = _blocked_pool()
    old, new = pool.lane("session"), pool.lane("session")
    stale = [old.submit(pow, 2, i) for i in range(3)]
    fresh = [new.submit(pow, 3, i) for i in range(3)]
    assert old.cancel_own() == 3 and old.cancel_own() == 0
    assert pool.pending("session") == 3
    gate.set()
    assert [f.result(timeout=10) for f in fresh] == [1, 3, 9]
    assert all(f.cancelled() for f in stale)
    pool.shutdown()


def test_cancelling_the_only_lane_of_a_priority_does_not_stall_the_pool(caplog) -> None:
    # a background refiner (priority 1) cancelled while alone at its priority left an empty level
    # that every later dispatch tripped over (StopIteration in the done callbacks, logged by
    # concurrent.futures; a Compare page then waited for its sweep forever)
    pool, gate = _blocked_pool()
    background = pool.lane("refine", priority=1).submit(pow, 2, 10)
    pool.lane("refine", priority=1).shutdown(cancel_futures=True)
    after = pool.lane("page").submit(pow, 3, 3)
    gate.set()
    assert after.result(timeout=10) == 27 and background.cancelled()
    assert pool.lane("page").submit(pow, 2, 2).result(timeout=10) == 4  # the pool goes on
    pool.shutdown()
    assert not [r for r in caplog.records if "exception calling callback" in r.getMessage()]


def test_errors_reach_the_caller_and_the_pool_goes_on() -> None:
    pool = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    bad = pool.lane("a").submit(int, "not a number")
    with pytest.raises(ValueError, match="invalid literal"):
        bad.result(timeout=10)
    assert pool.lane("a").submit(int, "7").result(timeout=10) == 7
    pool.shutdown()
    late = (
        FairPool(pool._executor, max_in_flight=1).lane("z").submit(int, "1")
    )  # shut-down inner pool
    with pytest.raises(RuntimeError):
        late.result(timeout=10)


def test_workers_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPMEAN_WORKERS", "3")
    assert workers_from_env() == 3
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    assert workers_from_env() == 0
    for bad in ("-1", "two"):
        monkeypatch.setenv("DPMEAN_WORKERS", bad)
        with pytest.raises(ValueError, match="DPMEAN_WORKERS"):
            workers_from_env()
    monkeypatch.delenv("DPMEAN_WORKERS")
    assert 1 <= workers_from_env() <= 4
    with pytest.raises(ValueError, match="max_in_flight"):
        FairPool(ThreadPoolExecutor(1), max_in_flight=0)
    with pytest.raises(ValueError, match="workers"):
        process_pool(0)


def test_frames_identical_with_and_without_the_process_pool() -> None:
    """The app's Compare default (five estimators, a budget sweep), smaller: the same frame, bit
    for bit (every column but the timing), in the script thread and through two worker processes
    shared by two interleaved lanes. Floats to ``RTOL`` (the rule for every comparison across processes:
    a worker need not pick the script's kernels), everything else exactly."""
    cfg = ExperimentConfig(
        n=400, d=8, estimators=default_estimators("real", "rho", 8), repetitions=3, seed=7
    )
    other = ExperimentConfig(n=300, d=4, estimators=["empirical", "plan"], repetitions=4, seed=8)
    here, here_other = run(cfg), run(other)
    pool = FairPool(process_pool(2), max_in_flight=2)
    try:
        with ThreadPoolExecutor(2) as sessions:  # two sessions submitting at once
            a = sessions.submit(run, cfg, executor=pool.lane("session-a"))
            b = sessions.submit(run, other, executor=pool.lane("session-b"))
            pooled, pooled_other = a.result(timeout=300), b.result(timeout=300)
    finally:
        pool.shutdown()
    for x, y in ((here, pooled), (here_other, pooled_other)):
        pd.testing.assert_frame_equal(
            x.drop(columns="seconds"), y.drop(columns="seconds"), rtol=RTOL, atol=0.0
        )
    assert set(pool.dispatched) == {"session-a", "session-b"}


def test_a_nice_pool_runs_its_workers_at_lower_priority() -> None:
    """The background pool's workers run ``nice`` steps below this process (capped at 19), so the
    operating system gives page views the CPU first; a plain pool keeps this process's priority."""
    here = os.nice(0)
    low, plain = process_pool(1, nice=BACKGROUND_NICE), process_pool(1)
    try:
        assert low.submit(os.nice, 0).result(timeout=120) == min(19, here + BACKGROUND_NICE)
        assert plain.submit(os.nice, 0).result(timeout=120) == here
    finally:
        low.shutdown()
        plain.shutdown()


# ---- jobs nobody waits for are stopped, also mid-run -----------------------------------------


def _heavy_task() -> dict:
    """One sweep task that computes for about 15 s (more under load) in Python steps: IOME's
    search at 60 budgets."""
    from dpcore.experiments.engine import plan_tasks

    cfg = ExperimentConfig(
        n=200,
        d=2,
        estimators=[{"name": "iome_original", "params": {"steps": 1000}}],
        sweep={"budget": [0.02 * k for k in range(1, 61)]},
        repetitions=1,
        unit="rho",
    )
    return plan_tasks(cfg)[0][0]


def test_a_running_job_of_a_lane_is_stopped_and_the_worker_goes_on() -> None:
    """cancel(running=True) stops a job already in a worker process at its next Python step: its
    future raises Stopped instead of the task's rows, and the same worker then runs other jobs (the
    pool is not broken). Without it the task runs to its end (60 IOME runs of 1,000 steps)."""
    from dpcore.experiments.engine import _run_task
    from dpcore.pool import Stopped

    states: list[tuple[int, int]] = []
    pool = FairPool(process_pool(1), max_in_flight=1, on_change=lambda *s: states.append(s))
    try:
        job = pool.lane("visitor").submit(_run_task, _heavy_task())
        waiting = pool.lane("visitor").submit(pow, 2, 5)
        assert pool.busy() == (1, 1)
        time.sleep(1.0)  # the worker has started it (a stop before the start says so instead)
        assert pool.cancel("visitor", running=True) == 1  # the waiting one; the running is stopped
        with pytest.raises(Stopped, match="nobody waits"):
            job.result(timeout=120)
        assert waiting.cancelled()
        after = pool.lane("other").submit(pow, 2, 10)  # runs once the stopped job has left
        assert after.result(timeout=120) == 1024  # the worker (of 1) ended it and goes on
        assert pool.stopped == 1  # ended by the stop, not by finishing its rows
        assert pool.busy() == (0, 0) and states[-1] == (0, 0)
    finally:
        pool.shutdown()


def test_cancel_own_stops_only_this_views_running_jobs() -> None:
    from dpcore.experiments.engine import _run_task
    from dpcore.pool import Stopped

    pool = FairPool(process_pool(2), max_in_flight=2)
    try:
        old, new = pool.lane("s"), pool.lane("s")  # a replaced run and its successor, one key
        gone = old.submit(_run_task, _heavy_task())
        kept = new.submit(sum, range(1000))
        old.cancel_own(running=True)
        with pytest.raises(Stopped):
            gone.result(timeout=120)
        assert kept.result(timeout=60) == sum(range(1000))
        for _ in range(1200):  # the worker ends the stopped job (not run to its end)
            if pool.busy() == (0, 0):
                break
            time.sleep(0.1)
        assert pool.stopped == 1
    finally:
        pool.shutdown()


_SLOW_MODULE = """
import time
for _ in range(100):  # a second of Python steps, all of them inside the import
    time.sleep(0.01)
DONE = True
"""
#: the jobs, in a module the worker can import (a test module is not importable there)
_PROBE = """
import pathlib
import sys

import numpy as np


def load(marker):
    pathlib.Path(marker).touch()  # the job has started: the import comes next
    import slow_module_for_stop

    return slow_module_for_stop.DONE


def loaded():
    module = sys.modules.get("slow_module_for_stop")
    return module is not None and getattr(module, "DONE", False)


def first_kernel_call():
    from dpcore import _kernels

    y = np.ones((64, 8))
    return float(_kernels.clipped_sum_rows(y, np.ones(8), np.zeros(8), 1.0)[0])
"""


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """The module of jobs above, importable here and in workers started after this fixture."""
    (tmp_path / "slow_module_for_stop.py").write_text(_SLOW_MODULE)
    (tmp_path / "probe_for_stop.py").write_text(_PROBE)
    monkeypatch.syspath_prepend(str(tmp_path))  # before the worker starts: it copies sys.path
    import probe_for_stop  # type: ignore[import-not-found]

    yield probe_for_stop
    sys.modules.pop("probe_for_stop", None)


def test_a_stop_never_lands_inside_an_import(probe, tmp_path) -> None:
    """A job stopped while it imports a module ends after the import, not inside it: the module is
    then whole in that worker. An import cut short leaves it out of ``sys.modules`` (for numba,
    half of its submodules in: every later kernel of the worker failed with "module 'numba' has no
    attribute 'core'", and the app's refinements with it, until the worker ended)."""
    from dpcore.pool import Stopped

    marker = tmp_path / "started"
    pool = FairPool(process_pool(1), max_in_flight=1)
    try:
        job = pool.lane("visitor").submit(probe.load, str(marker))
        for _ in range(1200):
            if marker.exists():
                break
            time.sleep(0.05)
        time.sleep(0.3)  # well inside the import's second
        pool.cancel("visitor", running=True)
        with pytest.raises(Stopped):
            job.result(timeout=120)
        assert pool.lane("other").submit(probe.loaded).result(timeout=120) is True
    finally:
        pool.shutdown()


def test_a_job_stopped_while_numba_loads_leaves_the_worker_able_to_run_kernels(probe) -> None:
    """The case the app met: a refinement stopped during a fresh worker's first kernel call (numba's
    import and compile) used to leave numba broken in that worker for good."""
    pytest.importorskip("numba")
    from dpcore.pool import Stopped

    pool = FairPool(process_pool(1), max_in_flight=1)
    try:
        job = pool.lane("visitor").submit(probe.first_kernel_call)
        time.sleep(0.05)
        pool.cancel("visitor", running=True)
        with pytest.raises(Stopped):
            job.result(timeout=120)
        # 64 rows of ones, norm sqrt(8), each clipped to norm 1: 64 / sqrt(8) in each coordinate
        after = pool.lane("other").submit(probe.first_kernel_call).result(timeout=120)
        assert after == pytest.approx(64 / np.sqrt(8), rel=1e-12)
    finally:
        pool.shutdown()
