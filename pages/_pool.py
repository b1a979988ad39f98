"""The worker pool every session shares (issue 18): heavy numeric work runs in worker processes,
outside the script threads' GIL, and a round-robin dispatcher (:class:`dpcore.pool.FairPool`)
gives each session its own lane, so one heavy session cannot starve the others.

``DPMEAN_WORKERS`` sets the number of processes (default: the CPUs available, at most 4; ``0``
runs everything in the script thread, as under a pool that cannot start). Results do not depend on
the pool: :func:`dpcore.experiments.run` gives the identical frame for any executor.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dpcore.pool import FairPool, process_pool, workers_from_env

T = TypeVar("T")


@st.cache_resource(show_spinner=False)
def shared_pool() -> FairPool | None:
    """One pool per server process (``None``: no pool, run in the script thread)."""
    try:
        workers = workers_from_env()
        if workers == 0:
            return None
        return FairPool(process_pool(workers), max_in_flight=workers)
    except (OSError, ValueError, NotImplementedError):  # no processes here: run in-process
        return None


def session_lane() -> Executor | None:
    """This session's lane of the shared pool, or ``None`` when there is no pool."""
    pool = shared_pool()
    ctx = get_script_run_ctx()
    return None if pool is None or ctx is None else pool.lane(ctx.session_id)


def with_pool(work: Callable[[Executor | None], T]) -> T:
    """``work(executor)`` on this session's lane; the lane's waiting jobs are cancelled if the run
    is interrupted (a widget changed mid-run), and a broken pool is dropped and the work redone
    in the script thread (same result: the engine does not depend on the executor)."""
    lane = session_lane()
    if lane is None:
        return work(None)
    try:
        return work(lane)
    except BrokenProcessPool:
        shared_pool.clear()
        return work(None)
    except BaseException:
        lane.shutdown(cancel_futures=True)
        raise
