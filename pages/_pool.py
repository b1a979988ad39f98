"""The worker pool every session shares: heavy numeric work runs in worker processes,
outside the script threads' GIL, and a round-robin dispatcher (:class:`dpcore.pool.FairPool`)
gives each session its own lane, so one heavy session cannot starve the others.

``DPMEAN_WORKERS`` sets the number of processes (default: the CPUs available, at most 4; ``0``
runs everything in the script thread, as under a pool that cannot start). Results do not depend on
the pool: :func:`dpcore.experiments.run` gives the identical frame for any executor.

Nothing runs for a visitor who has left. Streamlit (1.67) has no public "session ended" callback,
but it stops a session's script run when the browser disconnects (and when a widget change
replaces the run), at the run's next *yield point*. So the script thread never blocks on pool
work: :func:`with_pool` and :func:`prefetch` wait in steps of :data:`WAIT_POLL` seconds with a
:func:`stop_point` between, and when the run stops there they stop their jobs, the waiting ones
and those already in a worker (:meth:`dpcore.pool.Lane.cancel_own` with ``running=True``): the
workers are free well within 5 s of the visitor closing the tab. A background refinement, which no
script run waits for, lives while a page that shows it polls (:meth:`SharedCache.keep`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import CancelledError, Executor, Future
from concurrent.futures import wait as wait_for
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import streamlit as st

from dpcore.pool import (
    BACKGROUND_NICE,
    FairPool,
    Lane,
    Stopped,
    process_pool,
    run_stoppable,
    workers_from_env,
)

T = TypeVar("T")

#: The environment variable that sets :data:`FIRST_REPS` (a positive integer; default 3).
FIRST_REPS_ENV = "DPMEAN_FIRST_REPS"


def first_reps_from_env(default: int = 3) -> int:
    """Repetitions per point of a long sweep's first result: ``$DPMEAN_FIRST_REPS``, else ``default``.

    Fewer make a lighter first view (a class of students on their own seeds costs each about a
    sixth of a CPU second less per repetition at Compare's defaults, benchmarks/results/load.md)
    and a rougher first chart; the refined chart is the same either way.

    Raises
    ------
    ValueError
        If the variable is set to anything but a positive integer.
    """
    raw = os.environ.get(FIRST_REPS_ENV, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(
            f"{FIRST_REPS_ENV}={raw!r} is not a number of repetitions; set it to an integer >= 1 "
            f"(or unset it for {default})."
        )
    return int(raw)


#: Repetitions per point of the first result a long sweep draws at once; the full sweep runs on
#: the pool behind every page view and replaces it (``DPMEAN_PROGRESSIVE=0`` turns this off).
#: Repetition r's data and noise do not depend on the number of repetitions (content-addressed
#: streams), so the first result is exactly the first FIRST_REPS repetitions of the full one.
try:
    FIRST_REPS = first_reps_from_env()
except ValueError as _bad:  # a server misconfigured: say so in its log, serve the default
    logging.getLogger(__name__).warning("%s; using 3", _bad)
    FIRST_REPS = 3

#: Repetitions per point of a first result while the shared pool is busy (see :func:`first_reps`).
BUSY_FIRST_REPS = 1


def first_reps(drawn: Callable[[int], bool] | None = None) -> int:
    """Repetitions per point of the first result of the view being drawn now: :data:`FIRST_REPS`,
    or :data:`BUSY_FIRST_REPS` while more jobs wait for the shared pool than it has workers, or
    when ``drawn(BUSY_FIRST_REPS)`` says that first result is already there (a revisit keeps it
    rather than drawing another while the full sweep is on its way).

    A class opening Compare at once, each student on a seed of their own, queues every first
    result behind all the others: each repetition of the defaults costs about 0.17 s of CPU, so a
    one-repetition first result is a third of the work, and every student sees a chart sooner (the
    load table: Compare's p95 went from 181 s to 69 s on the shared machine). The full sweep
    replaces it, the same either way; alone on the server a visitor gets the usual first result.
    """
    pool = shared_pool()
    if pool is None or FIRST_REPS <= BUSY_FIRST_REPS:
        return FIRST_REPS
    busy = pool.pending() > max(workers_from_env(), 1)
    return BUSY_FIRST_REPS if busy or (drawn is not None and drawn(BUSY_FIRST_REPS)) else FIRST_REPS


#: A page waiting for a background refinement asks whether it is done every POLL_SECONDS, at
#: least the first and at most the second (see :func:`poll_seconds`).
POLL_SECONDS = (1.0, 3.0)
#: A refinement some page asked for (:meth:`SharedCache.refine` with an ``owner``) is stopped when
#: no page has polled for it (:meth:`SharedCache.keep`) for its poll interval plus this long:
#: within POLL_SECONDS[1] + KEEP_MARGIN + WATCH_POLL (about 4.3 s) of its last visitor leaving.
KEEP_MARGIN = 1.0
WATCH_POLL = 0.25


#: The environment variable naming a file where the pools write their state, one line per change:
#: ``<time.monotonic()> <pool> <jobs in workers> <jobs waiting>`` (the leave-mid-run browser test
#: reads it; unset, nothing is written).
STATUS_ENV = "DPMEAN_POOL_STATUS"


def _status_writer(name: str) -> Callable[[int, int], None] | None:
    """A :class:`~dpcore.pool.FairPool` ``on_change`` that appends the pool's state to the file
    ``$DPMEAN_POOL_STATUS`` (``None`` when it is not set)."""
    path = os.environ.get(STATUS_ENV)
    if not path:
        return None
    lock = threading.Lock()

    def write(in_flight: int, pending: int) -> None:
        with lock, open(path, "a", encoding="utf-8") as out:
            out.write(f"{time.monotonic():.3f} {name} {in_flight} {pending}\n")

    return write


@st.cache_resource(show_spinner=False)
def shared_pool() -> FairPool | None:
    """One pool per server process (``None``: no pool, run in the script thread)."""
    try:
        workers = workers_from_env()
        if workers == 0:
            return None
        return FairPool(
            process_pool(workers), max_in_flight=workers, on_change=_status_writer("shared")
        )
    except (OSError, ValueError, NotImplementedError):  # no processes here: run in-process
        return None


@st.cache_resource(show_spinner=False)
def background_pool() -> FairPool | None:
    """The pool background refinements run on: as many processes as the shared pool, at the lowest
    scheduling priority (``nice`` 19), so under load they take only CPU that no page view wants and
    never hold a worker a view waits for. ``DPMEAN_BACKGROUND=0`` (or no shared pool) refines on the
    shared pool at priority 1 instead."""
    if os.environ.get("DPMEAN_BACKGROUND", "1") == "0" or shared_pool() is None:
        return None
    try:
        workers = workers_from_env()
        return FairPool(
            process_pool(workers, nice=BACKGROUND_NICE),
            max_in_flight=workers,
            on_change=_status_writer("background"),
        )
    except (OSError, ValueError, NotImplementedError):
        return None


#: The ``st.session_state`` key of this session's lane of the shared pool (a random id).
LANE_KEY = "_dpmean_lane"


def session_key() -> str:
    """This session's key for the fair pool: a random id kept in ``st.session_state`` (made on the
    session's first ask, the same on every page and run after it). Call it in the script thread."""
    key = st.session_state.get(LANE_KEY)
    if not isinstance(key, str):
        key = st.session_state[LANE_KEY] = uuid.uuid4().hex
    return key


#: sessions with a script run in progress, and when each one's last run ended (monotonic)
_RUNS: dict[str, int] = {}
_RUN_ENDED: dict[str, float] = {}
_RUNS_LOCK = threading.Lock()


@contextlib.contextmanager
def session_run() -> Iterator[None]:
    """Mark this session as there while the block (the app's whole run) runs: Streamlit ends a
    run soon after its visitor leaves (at its next yield point), so a session in a run is there;
    its refinements then live (:meth:`SharedCache.keep`) even when a long run delays its polls."""
    key = session_key()
    with _RUNS_LOCK:
        _RUNS[key] = _RUNS.get(key, 0) + 1
    try:
        yield
    finally:
        with _RUNS_LOCK:
            _RUNS[key] -= 1
            if _RUNS[key] <= 0:
                del _RUNS[key]
            _RUN_ENDED[key] = time.monotonic()
            if len(_RUN_ENDED) > 10_000:  # forget sessions gone for long
                cutoff = time.monotonic() - 60.0
                for old in [k for k, t in _RUN_ENDED.items() if t < cutoff]:
                    del _RUN_ENDED[old]


def _still_there(owner: str, until: float, now: float) -> bool:
    """Whether session ``owner`` still waits: in a run, or polled or ran recently."""
    with _RUNS_LOCK:
        ran = _RUN_ENDED.get(owner, -1e18) + POLL_SECONDS[1] + KEEP_MARGIN
        return owner in _RUNS or now < max(until, ran)


def session_lane() -> Lane | None:
    """This session's lane of the shared pool (a fresh view), or ``None`` when there is no pool."""
    pool = shared_pool()
    return None if pool is None else pool.lane(session_key())


#: How often a script run waiting for pool work passes a :func:`stop_point` (seconds).
WAIT_POLL = 0.25


def _wait_here(done: Future, each_wait: Callable[[], None] | None = None) -> None:
    """Wait for ``done`` in the script thread, passing a :func:`stop_point` (and calling
    ``each_wait``, e.g. to draw progress) every :data:`WAIT_POLL` seconds."""
    while not wait_for([done], timeout=WAIT_POLL).done:
        stop_point()
        if each_wait is not None:
            each_wait()


def with_pool(
    work: Callable[[Executor | None], T], each_wait: Callable[[], None] | None = None
) -> T:
    """``work(executor)`` on this session's lane; the jobs of *this call* are stopped if the run is
    interrupted (a widget changed mid-run, or the visitor left), those in a worker too, and a
    broken pool is dropped and the work redone in the script thread (same result: the engine does
    not depend on the executor).

    ``work`` runs in a helper thread while the script thread waits (:func:`_wait_here`, calling
    ``each_wait`` every :data:`WAIT_POLL` seconds): ``work`` must not call Streamlit; a page draws
    its progress in ``each_wait``.

    Only this call's jobs: Streamlit's fast reruns start the session's next run in a new thread
    while this one still runs (it stops at its next ``st`` call), on the same lane key, and that
    run's jobs must go on. Cancelling the whole lane here once left the next run waiting forever
    on jobs the old run had cancelled (a Compare sweep after "New seed" mid-sweep).
    """
    lane = session_lane()
    if lane is None:
        return work(None)
    done: Future = Future()

    def helper() -> None:
        try:
            done.set_result(work(lane))
        except BaseException as err:  # noqa: BLE001 - raised again in the script thread
            done.set_exception(err)

    threading.Thread(target=helper, name="dpmean-work", daemon=True).start()
    try:
        _wait_here(done, each_wait)
        return done.result()
    except (BrokenProcessPool, CancelledError) as err:  # e.g. the pool shut down under this run
        logging.getLogger(__name__).warning("redoing the work in the script thread: %r", err)
        lane.cancel_own(running=True)
        if isinstance(err, BrokenProcessPool):
            shared_pool.clear()
        return work(None)
    except BaseException:  # the run stops here (the visitor left, or a new run replaces it)
        lane.cancel_own(running=True)
        raise


def call_on(ex: Executor | None, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a worker of ``ex``, waiting for it, or in this thread when there is
    no pool (``ex`` is None): the one-call ``work`` of :func:`with_pool` and :func:`prefetch`.
    ``fn`` must be a module-level function of picklable arguments."""
    return fn(*args, **kwargs) if ex is None else ex.submit(fn, *args, **kwargs).result()


def prefetch(
    cache: SharedCache, key: Hashable, work: Callable[[Executor | None], T]
) -> Callable[[], T]:
    """Start ``work(lane)`` for ``key`` now, on this session's lane of the shared pool (a background
    thread waits for it and stores it in ``cache``), unless ``cache`` has it; returns a function that
    waits for the value. The page can then draw what comes before while both cores work on this.

    Without a pool the work runs in the script thread when the value is first asked for (as a plain
    call would); an error in the work (e.g. a ``ValueError``) is raised by the returned function.
    """
    hit = cache.get(key)
    if hit is not None:
        return lambda: hit
    lane = session_lane()
    if lane is None:
        return lambda: cache.get_or_compute(key, lambda: work(None))
    done: Future = Future()

    def compute() -> T:
        try:
            return work(lane)
        except BrokenProcessPool:  # same result in this thread: the work does not depend on it
            return work(None)

    def background() -> None:
        try:  # sessions prefetching the same key at once share one computation
            done.set_result(cache.get_or_compute(key, compute))
        except BaseException as err:  # noqa: BLE001 - handed to the page, which shows it
            done.set_exception(err)

    threading.Thread(target=background, name="dpmean-prefetch", daemon=True).start()

    def wait() -> T:  # in the script thread: the work stops with the run
        try:
            _wait_here(done)
        except BaseException:
            lane.cancel_own(running=True)
            raise
        return done.result()

    return wait


def poll_seconds(in_flight: int, seconds_each: float, workers: int) -> float:
    """How often a page asks whether its background refinement is done: a third of the expected
    wait (``in_flight`` refinements of about ``seconds_each`` seconds on ``workers`` processes),
    within :data:`POLL_SECONDS`.

    Each ask is a fragment run in the server's one process (about 10–20 ms of its CPU). Thirty
    students waiting behind one another's refinements asked 30 times a second, every second, a
    share of the CPU their own first results needed; alone, a student still sees the
    refined chart within a second of it being ready.
    """
    wait = max(in_flight, 1) * max(seconds_each, 0.0) / max(workers, 1)
    return float(min(POLL_SECONDS[1], max(POLL_SECONDS[0], wait / 3)))


def progressive() -> bool:
    """Whether long views draw a first result and refine it in the background (needs the pool)."""
    return os.environ.get("DPMEAN_PROGRESSIVE", "1") != "0" and shared_pool() is not None


class SharedCache:
    """A small LRU dict shared by all sessions and the background refiners (thread-safe)."""

    def __init__(self, size: int) -> None:
        self.size, self._lock = size, threading.Lock()
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self.refining: set[Hashable] = set()
        self._wanted: dict[Hashable, dict[str, float]] = {}  # key -> owner -> wanted until
        self.stopped: set[Hashable] = set()  # refinements stopped because nobody waited
        self.failed: dict[Hashable, str] = {}  # refinements that raised: why (not restarted)
        self._computing: dict[Hashable, list] = {}  # key -> [its lock, sessions using it]

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value for ``key``: from the cache, else ``compute()`` (stored), computed once when
        several sessions ask at the same time. Thirty students opening the same link would
        otherwise run the same sweep thirty times; the others wait for the first and
        read its result. If the first one's run stops (its student changed a widget) or fails,
        the next waiting session computes it."""
        hit = self.get(key)
        if hit is not None:
            return hit
        with self._lock:
            entry = self._computing.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                hit = self.get(key)
                if hit is not None:
                    return hit
                value = compute()
                self.put(key, value)
                return value
        finally:
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0:
                    self._computing.pop(key, None)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._data

    def get(self, key: Hashable) -> Any:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
            return self._data.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def failure(self, key: Hashable) -> str | None:
        """Why refinement ``key`` failed, or ``None``; a failed refinement starts again only after
        :meth:`retry` (the page offers it), never by itself at every poll."""
        with self._lock:
            return self.failed.get(key)

    def retry(self, key: Hashable) -> None:
        """Forget that refinement ``key`` failed: the next :meth:`refine` starts it again."""
        with self._lock:
            self.failed.pop(key, None)

    def in_flight(self) -> int:
        """How many refinements are running or waiting for a worker (all sessions)."""
        with self._lock:
            return len(self.refining)

    def keep(self, key: Hashable, owner: str, every: float | None = None) -> None:
        """Session ``owner`` still wants refinement ``key`` and asks again within ``every`` seconds
        (its page's poll, at most POLL_SECONDS[1]; the refinement stops :data:`KEEP_MARGIN` s
        after a missed one)."""
        every = POLL_SECONDS[1] if every is None else every
        with self._lock:
            self._wanted.setdefault(key, {})[owner] = time.monotonic() + every + KEEP_MARGIN

    def _watch(self, key: Hashable, lane: Lane) -> None:
        """Stop refinement ``key`` (its jobs in the workers too) once no page wants it."""
        while True:
            time.sleep(WATCH_POLL)
            with self._lock:
                if key not in self.refining:
                    self._wanted.pop(key, None)
                    return
                wanted = dict(self._wanted.get(key, {}))
            now = time.monotonic()
            if not any(_still_there(owner, until, now) for owner, until in wanted.items()):
                lane.pool.cancel(lane.key, running=True)
                return

    def refine(
        self, key: Hashable, work: Callable[[Executor], Any], owner: str | None = None
    ) -> None:
        """Compute ``work(lane)`` for ``key`` in a background thread, once per key, and store it: on
        the low-priority :func:`background_pool`, else on a priority-1 lane of the shared pool
        (behind every page view); a failure leaves the first result in place and is kept
        (:meth:`failure`) until :meth:`retry`. With an ``owner`` (a session), the refinement lives
        while some session :meth:`keep`-s it: when the last one leaves, its jobs are stopped."""
        shared = shared_pool()
        if owner is not None:
            self.keep(key, owner)
        with self._lock:
            if shared is None or key in self.refining or key in self._data or key in self.failed:
                return
            self.refining.add(key)
            self.stopped.discard(key)
        low = background_pool()
        lane = shared.lane(("refine", key), priority=1) if low is None else low.lane(key)

        def background() -> None:
            try:
                self.put(key, work(lane))
            except (CancelledError, Stopped):  # nobody wanted it any more
                logging.getLogger(__name__).info("refining %s stopped: its visitors left", key)
                with self._lock:
                    self.stopped.add(key)
            except Exception as e:  # noqa: BLE001 - the view keeps its first result, says why
                logging.getLogger(__name__).exception("refining %s failed", key)
                if isinstance(e, BrokenProcessPool):  # a new pool for the next try, not this one
                    (shared_pool if low is None else background_pool).clear()
                with self._lock:
                    self.failed[key] = f"{type(e).__name__}: {e}"[:300]
            finally:
                with self._lock:
                    self.refining.discard(key)

        threading.Thread(target=background, name="dpmean-refine", daemon=True).start()
        if owner is not None:
            threading.Thread(target=self._watch, args=(key, lane), daemon=True).start()


# ---------------------------------------------------------------------------------------------
# work with a time budget, stopped when its visitor leaves (or the run is replaced)

#: Time budget of one view's peer-library runs (Your data, Compare's sweeps at least this).
PEER_SECONDS = 30.0


def stop_point() -> bool:
    """Let Streamlit stop this script run here if it was asked to; else ``False`` ("go on").

    Streamlit stops a run at its next *yield point* once the run is asked to stop: the visitor left
    (closing the tab disconnects the session, which stops its run) or a widget changed (the new run
    replaces this one). Reading ``st.session_state`` in the script thread is such a point: there
    Streamlit raises its own quiet stop, which ends this run without an error on the page. A call
    from another thread, or outside a script run, reads and goes on.
    """
    st.session_state.get(LANE_KEY)
    return False


def run_bounded(fn: Callable[..., T], /, *args: Any, seconds: float, what: str, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a process of its own (:func:`dpcore.pool.run_stoppable`), ended
    after ``seconds`` (:class:`~dpcore.pool.TimeBudgetExceeded`, a ``ValueError`` naming the budget,
    which :func:`pages._ui.user_errors` shows) or as soon as its visitor leaves or the run is
    replaced: the wait passes a :func:`stop_point` every 0.05 s, where Streamlit ends the run, and
    the process is ended on the way out (nobody is there to see it).

    ``fn`` must be a module-level function of picklable arguments. ``DPMEAN_WORKERS=0`` (no
    processes) runs it in this thread, without a time budget.
    """
    try:
        in_thread = workers_from_env() == 0
    except ValueError:
        in_thread = False
    if in_thread:
        return fn(*args, **kwargs)
    return run_stoppable(fn, *args, seconds=seconds, what=what, should_stop=stop_point, **kwargs)
