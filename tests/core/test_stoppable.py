"""dpcore.pool.run_stoppable: a job in a process of its own, ended at its time budget or when its
caller stops waiting, with nothing left running."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from dpcore.pool import STOPPABLE_NAME, Stopped, TimeBudgetExceeded, call_each, run_stoppable


def test_a_job_past_its_budget_is_ended_at_the_budget() -> None:
    run_stoppable(pow, 2, 3, seconds=60)  # the fork server is up: the budget below is the job's
    t0 = time.monotonic()
    with pytest.raises(TimeBudgetExceeded, match=r"time budget of 0\.5 s"):
        run_stoppable(time.sleep, 60, seconds=0.5, what="A slow job")
    assert time.monotonic() - t0 < 3.0
    assert not [p for p in multiprocessing.active_children() if p.name == STOPPABLE_NAME]


def test_a_job_is_ended_when_its_caller_leaves() -> None:
    left = threading.Event()
    threading.Timer(0.3, left.set).start()
    t0 = time.monotonic()
    with pytest.raises(Stopped):
        run_stoppable(time.sleep, 60, seconds=60, should_stop=left.is_set)
    assert time.monotonic() - t0 < 3.0
    assert not [p for p in multiprocessing.active_children() if p.name == STOPPABLE_NAME]


def test_results_and_errors_come_back() -> None:
    assert run_stoppable(pow, 2, 10, seconds=60) == 1024
    with pytest.raises(ValueError, match="invalid literal"):
        run_stoppable(int, "x", seconds=60)
    out = call_each([(int, ("3",), {}), (int, ("x",), {})])
    assert out[0] == (True, 3) and not out[1][0] and isinstance(out[1][1], ValueError)


def test_the_budget_is_a_value_error_naming_it() -> None:
    err = TimeBudgetExceeded("The peer libraries' means", 30)
    assert isinstance(err, ValueError) and "30 s" in str(err)
