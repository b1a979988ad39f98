"""A fair, shared worker pool: many clients (app sessions) submit to one process pool, and a
round-robin dispatcher keeps one heavy client from starving the others.

:class:`FairPool` wraps any :class:`concurrent.futures.Executor` (normally a
:class:`~concurrent.futures.ProcessPoolExecutor`, so the numeric work runs outside the calling
thread's GIL). Each client submits through its own *lane* (:meth:`FairPool.lane`, an ``Executor``
view). At most ``max_in_flight`` jobs are handed to the inner executor at a time; when a slot frees,
the next job comes from the lane after the one served last (round robin over the lanes that have
work), so a client with 50 queued tasks delays a client with 5 by at most one task per turn,
instead of making it wait for all 50 (what the inner executor's own FIFO queue would do). Lanes
have a priority: a job of a lower number always goes before any job of a higher one. The app
refines results in the background on a second, low-priority pool (``process_pool(..., nice=19)``),
so a refinement neither holds a worker a page view needs nor takes CPU from one; without that pool
it falls back to priority 1 on the shared one.

Results do not depend on the pool: :func:`dpcore.experiments.run` addresses every random stream by
content, so the same config gives the identical frame with or without an executor.

Work nobody waits for is stopped: :meth:`FairPool.cancel` with ``running=True`` also stops the
lane's jobs that are already in a worker. Each job runs under :func:`_guarded`, which watches a
stop file of its own (a file in a directory of the pool's, so it works across processes with
nothing but the file system) and, in a worker process, interrupts the job between two Python
steps within about :data:`STOP_POLL` seconds of it appearing (never inside an import or numba's
compiler: a module left half-imported would break every later job of that worker); the job's
future then raises :class:`Stopped` and the worker takes the next job (the pool is not broken).

This module does not import streamlit; the app keeps one :class:`FairPool` per server process in
``st.cache_resource`` (``pages/_pool.py``) and gives each session its own lane.

References
----------
Classroom load (a class of students sharing one server); :mod:`dpcore.experiments` ("Parallel
runs").
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
import uuid
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator
from concurrent.futures import Executor, Future, InvalidStateError, ProcessPoolExecutor
from typing import Any, TypeVar

__all__ = [
    "BACKGROUND_NICE",
    "FairPool",
    "Lane",
    "Stopped",
    "TimeBudgetExceeded",
    "call_each",
    "process_pool",
    "run_stoppable",
    "workers_from_env",
]

T = TypeVar("T")

#: Environment variable naming the number of worker processes of the app's shared pool
#: (``0`` runs everything in the calling thread).
WORKERS_ENV = "DPMEAN_WORKERS"

#: How much lower the background pool's workers run (``nice`` 19: only CPU nothing else wants).
BACKGROUND_NICE = 19


def workers_from_env(default: int | None = None) -> int:
    """The number of worker processes: ``$DPMEAN_WORKERS`` if set, else ``default`` (else the
    number of CPUs available to this process, at most 4).

    Raises
    ------
    ValueError
        If ``$DPMEAN_WORKERS`` is not a non-negative integer.
    """
    raw = os.environ.get(WORKERS_ENV)
    if raw is None or raw.strip() == "":
        if default is not None:
            return int(default)
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # pragma: no cover - not Linux
            cpus = os.cpu_count() or 1
        return max(1, min(cpus, 4))
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(
            f"{WORKERS_ENV}={raw!r} is not a number of worker processes; set it to an integer >= 0 "
            "(0 runs the work in the app's own process)."
        )
    return value


@contextlib.contextmanager
def plain_main() -> Iterator[None]:
    """Run the block with a plain, file-less ``__main__`` module.

    A new worker process (spawn or forkserver) first re-runs the parent's ``__main__`` file. Under
    Streamlit, or after an ``AppTest`` in the same process, that file is the app script, which then
    runs inside the worker and kills it. Start workers (a process pool, a Dask ``LocalCluster``)
    inside this block. Under a Streamlit server it narrows the danger, not closes it: every script
    run that starts meanwhile installs the app script as ``__main__`` again, so ``app.py`` itself
    does nothing when a worker runs it (as ``__mp_main__``).
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def process_pool(workers: int, nice: int = 0) -> ProcessPoolExecutor:
    """A process pool of ``workers`` processes started with ``forkserver`` (never ``fork``: the app
    server has threads, and forking a threaded process can deadlock the child); the fork server
    preloads :mod:`dpcore.experiments` and the Compare views (:mod:`dpcore.figures.compare`, which
    imports plotly), so workers start at once and share that memory.

    ``nice`` > 0 lowers the workers' scheduling priority by that much (``os.nice``; 19 is the
    lowest): the operating system then gives them only the CPU that normal-priority processes leave
    idle. The app runs its background refinements on such a pool, so they never slow a page view.
    """
    if workers < 1:
        raise ValueError(
            f"workers={workers} must be at least 1 for a process pool; use no pool for 0."
        )
    ctx = multiprocessing.get_context("forkserver")
    # the fork server imports the engine once; workers fork from it and share those pages
    ctx.set_forkserver_preload(["dpcore.experiments", "dpcore.figures.compare"])
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=functools.partial(os.nice, nice) if nice > 0 else None,
    )
    # Start every worker now, with a plain __main__: a new process re-runs the parent's __main__
    # file first, and under Streamlit that is the app script (pages run as __main__). Later jobs
    # reuse these workers (a script run starting meanwhile can still make the app __main__: see
    # plain_main).
    with plain_main():
        started = [pool.submit(os.getpid) for _ in range(workers)]
    for f in started:
        f.result(timeout=120)
    return pool


class _Job:
    __slots__ = ("args", "fn", "future", "key", "kwargs", "stop_file")

    def __init__(
        self, key: Hashable, future: Future, fn: Callable[..., Any], args: tuple, kwargs: dict
    ) -> None:
        self.key, self.future, self.fn, self.args, self.kwargs = key, future, fn, args, kwargs
        self.stop_file = ""


# ---- a job that can be stopped mid-run in its worker ---------------------------------------

#: how often a running job looks at its stop file (seconds)
STOP_POLL = 0.2
#: the signal number the job's watcher raises in the worker's main thread (simulated with
#: ``_thread.interrupt_main``: no real signal is sent, so nothing else in the process sees it)
_STOP_SIGNAL = signal.SIGUSR1
#: the worker's state: the stop file of the job running now and of the job asked to stop
_NOW: dict[str, str] = {"running": "", "stop": ""}


class _Interrupted(BaseException):
    """Raised in a worker's job when it is stopped: a ``BaseException``, so that the job's own
    ``except Exception`` (an estimator failing at one setting) does not swallow it."""


#: Code a stop never interrupts (the watcher asks again :data:`STOP_POLL` seconds later): an
#: import, and numba's compiler. A module left half-imported, or numba's registries half-filled,
#: break every later job of the worker ("module 'numba' has no attribute 'core'"), for as long as
#: the worker lives.
_UNSAFE_FILES = ("<frozen importlib",)
_UNSAFE_PACKAGES = (f"{os.sep}numba{os.sep}", f"{os.sep}llvmlite{os.sep}")


def _interruptible(frame: types.FrameType | None) -> bool:
    """Whether a stop may end the job at ``frame``: no frame of its stack is an import or numba."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_UNSAFE_FILES) or any(p in name for p in _UNSAFE_PACKAGES):
            return False
        frame = frame.f_back
    return True


def _on_stop_signal(signum: int, frame: types.FrameType | None) -> None:
    if _NOW["running"] and _NOW["running"] == _NOW["stop"] and _interruptible(frame):
        raise _Interrupted


def _watch(stop_file: str, done: threading.Event) -> None:
    """Until ``done``: when ``stop_file`` appears, interrupt the job in the main thread (again
    every :data:`STOP_POLL` seconds while it still runs)."""
    while not done.wait(STOP_POLL):
        if os.path.exists(stop_file):
            _NOW["stop"] = stop_file
            _thread.interrupt_main(_STOP_SIGNAL)


def _guarded(stop_file: str, fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
    """``fn(*args, **kwargs)`` as a pool job that ends with :class:`Stopped` once ``stop_file``
    exists: at once if it exists before the job starts; in a worker process's main thread also
    mid-run, at the job's next Python step outside an import and numba's compiler (elsewhere, e.g.
    a thread pool, it runs to its end)."""
    if stop_file and os.path.exists(stop_file):
        raise Stopped("the job was stopped before it started")
    if not stop_file or threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    if multiprocessing.parent_process() is None:  # the app's own process: never interrupt it
        return fn(*args, **kwargs)
    signal.signal(_STOP_SIGNAL, _on_stop_signal)
    done = threading.Event()
    watcher = threading.Thread(target=_watch, args=(stop_file, done), daemon=True)
    _NOW["running"] = stop_file
    watcher.start()
    try:
        return fn(*args, **kwargs)
    except _Interrupted:
        raise Stopped("the job was stopped: nobody waits for it any more") from None
    finally:
        _NOW["running"] = ""
        done.set()


def _cancel(jobs: Iterable[_Job]) -> None:
    """Cancel jobs taken out of their lanes and wake whoever waits on them.

    ``Future.cancel`` alone does not notify :func:`~concurrent.futures.as_completed` or
    :func:`~concurrent.futures.wait`: an executor does that when it reaches the job
    (``set_running_or_notify_cancel``), and these jobs will never be reached, so a waiter on them
    would wait forever; this call marks them "cancelled and notified" at once.
    """
    for job in jobs:
        job.future.cancel()
        job.future.set_running_or_notify_cancel()


class FairPool:
    """Round-robin dispatch of many clients' jobs onto one executor.

    Parameters
    ----------
    executor : concurrent.futures.Executor
        Where the jobs run (shared by all lanes).
    max_in_flight : int
        Jobs handed to ``executor`` at once (normally its number of workers): the rest wait in
        their lane, so the order among clients is decided here, fairly.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> pool = FairPool(ThreadPoolExecutor(2), max_in_flight=2)
    >>> pool.lane("alice").submit(pow, 2, 10).result()
    1024
    >>> pool.shutdown()
    """

    def __init__(
        self,
        executor: Executor,
        max_in_flight: int,
        on_change: Callable[[int, int], None] | None = None,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight={max_in_flight} must be at least 1.")
        self._executor = executor
        self._max = int(max_in_flight)
        self._lock = threading.Lock()
        self._lanes: dict[int, OrderedDict[Hashable, deque[_Job]]] = {}  # priority -> lanes
        self._in_flight = 0
        self._running: dict[Future, _Job] = {}  # dispatched, not finished
        self._stop_dir = tempfile.mkdtemp(prefix="dpmean-stop-")
        weakref.finalize(self, shutil.rmtree, self._stop_dir, True)  # also without shutdown()
        #: called with (jobs in the workers, jobs waiting) after each change (a status for tests)
        self.on_change = on_change
        self.dispatched: list[Hashable] = []  # lane keys in dispatch order (last 1000; for tests)
        self.stopped = 0  # jobs that ended in a worker with Stopped, not their result (for tests)

    # ---- public --------------------------------------------------------------------------------

    def lane(self, key: Hashable, priority: int = 0) -> Lane:
        """The ``Executor`` view of client ``key`` (cheap; make one whenever needed). Jobs of
        ``priority`` 0 go before those of 1, and so on; round robin among lanes of one priority."""
        return Lane(self, key, int(priority))

    def pending(self, key: Hashable | None = None) -> int:
        """Jobs waiting (not yet dispatched), in lane ``key`` or in all lanes."""
        with self._lock:
            return sum(
                len(q)
                for lanes in self._lanes.values()
                for k, q in lanes.items()
                if key in (None, k)
            )

    def busy(self) -> tuple[int, int]:
        """(jobs in the workers, jobs waiting), all lanes."""
        with self._lock:
            return self._in_flight, self._pending()

    def _pending(self) -> int:
        return sum(len(q) for lanes in self._lanes.values() for q in lanes.values())

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(*self.busy())

    def cancel(
        self, key: Hashable, only: Collection[Future] | None = None, running: bool = False
    ) -> int:
        """Cancel the jobs of lane ``key`` that have not started (of those, only the ones whose
        future is in ``only`` when given); returns how many. With ``running``, also stop those
        already in a worker: their futures raise :class:`Stopped` at once, and the jobs end at
        their next Python step, within about :data:`STOP_POLL` seconds (their slot stays taken
        until then)."""
        if running:
            with self._lock:
                stop = [
                    j
                    for f, j in self._running.items()
                    if j.key == key and (only is None or f in only)
                ]
            for job in stop:
                with contextlib.suppress(OSError):  # the job ended meanwhile (its dir is gone)
                    open(job.stop_file, "a").close()  # noqa: SIM115 - an empty marker file
                with contextlib.suppress(InvalidStateError):  # it has just finished
                    job.future.set_exception(Stopped("stopped: nobody waits for it any more"))
        with self._lock:
            jobs: list[_Job] = []
            for level, lanes in list(self._lanes.items()):
                queue = lanes.get(key, deque())
                kept: deque[_Job] = deque()
                for job in queue:  # one pass: the chosen jobs out, the others kept in order
                    (jobs if only is None or job.future in only else kept).append(job)
                queue.clear()
                queue.extend(kept)
                if key in lanes and not queue:
                    del lanes[key]
                    if not lanes:
                        del self._lanes[level]
        _cancel(jobs)
        self._changed()
        return len(jobs)

    def shutdown(self, wait: bool = True) -> None:
        """Cancel every waiting job and shut the inner executor down."""
        with self._lock:
            levels, self._lanes = self._lanes, {}
        _cancel([job for lanes in levels.values() for jobs in lanes.values() for job in jobs])
        self._executor.shutdown(wait=wait, cancel_futures=True)
        shutil.rmtree(self._stop_dir, ignore_errors=True)

    # ---- dispatch ------------------------------------------------------------------------------

    def _submit(
        self, key: Hashable, priority: int, fn: Callable[..., Any], args: tuple, kwargs: dict
    ) -> Future:
        future: Future = Future()
        with self._lock:
            lanes = self._lanes.setdefault(priority, OrderedDict())
            lanes.setdefault(key, deque()).append(_Job(key, future, fn, args, kwargs))
        self._pump()
        self._changed()
        return future

    def _take(self) -> tuple[Hashable, _Job] | None:
        """The next job: the most urgent priority, round robin over its lanes (caller holds the lock)."""
        while self._lanes and self._in_flight < self._max:
            level = min(self._lanes)
            lanes = self._lanes[level]
            if not lanes:  # :meth:`cancel` emptied this level
                del self._lanes[level]
                continue
            key, jobs = next(iter(lanes.items()))
            job = jobs.popleft()
            if jobs:
                lanes.move_to_end(key)  # this lane goes to the back of the round
            else:
                del lanes[key]
                if not lanes:
                    del self._lanes[level]
            if job.future.set_running_or_notify_cancel():
                self._in_flight += 1
                job.stop_file = os.path.join(self._stop_dir, uuid.uuid4().hex)
                self._running[job.future] = job
                self.dispatched.append(key)
                del self.dispatched[:-1000]
                return key, job
        return None

    def _pump(self) -> None:
        while True:
            with self._lock:
                taken = self._take()
            if taken is None:
                return
            _, job = taken
            try:  # submit outside the lock: a done callback may run at once, in this thread
                inner = self._executor.submit(_guarded, job.stop_file, job.fn, job.args, job.kwargs)
            except Exception as err:  # noqa: BLE001 - e.g. a broken or shut-down pool: fail this job only
                self._finish(job, None, err)
                continue
            inner.add_done_callback(functools.partial(self._done, job))

    def _done(self, job: _Job, inner: Future) -> None:
        if inner.cancelled():
            self._finish(
                job,
                None,
                RuntimeError("the worker pool cancelled this job (it is shutting down)"),
            )
        else:
            if isinstance(inner.exception(), Stopped):
                self.stopped += 1
            self._finish(
                job, inner.result() if inner.exception() is None else None, inner.exception()
            )

    def _finish(self, job: _Job, result: Any, error: BaseException | None) -> None:
        with self._lock:
            self._in_flight -= 1
            self._running.pop(job.future, None)
        with contextlib.suppress(OSError):
            os.remove(job.stop_file)
        with contextlib.suppress(InvalidStateError):  # already stopped by :meth:`cancel`
            if error is None:
                job.future.set_result(result)
            else:
                job.future.set_exception(error)
        self._pump()
        self._changed()


class Lane(Executor):
    """One client's ``Executor`` view of a :class:`FairPool` (``shutdown`` cancels the waiting jobs
    of its key and leaves the shared pool running; :meth:`cancel_own` only those of this view)."""

    def __init__(self, pool: FairPool, key: Hashable, priority: int = 0) -> None:
        self.pool, self.key, self.priority = pool, key, priority
        self._own: set[Future] = set()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future = self.pool._submit(self.key, self.priority, fn, args, kwargs)
        self._own.add(future)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.pool.cancel(self.key)

    def cancel_own(self, running: bool = False) -> int:
        """Cancel the waiting jobs submitted through this view, not those another view of the same
        key submitted; returns how many. With ``running``, also stop those already in a worker
        (:meth:`FairPool.cancel`): the run that waited for them is gone.

        An interrupted script run cancels its own work with this: under Streamlit's fast reruns the
        session's next run starts in a new thread before the old one stops, on the same lane key,
        and must keep its jobs.
        """
        own, self._own = self._own, set()
        return self.pool.cancel(self.key, only=own, running=running)


# ---------------------------------------------------------------------------------------------
# work that can be stopped: one process per job


class Stopped(Exception):  # noqa: N818 - a state, like CancelledError
    """A job run by :func:`run_stoppable` was stopped before it finished (its caller asked)."""


class TimeBudgetExceeded(ValueError):
    """A job run by :func:`run_stoppable` ran past its time budget and was stopped.

    A ``ValueError`` so that pages showing dpcore's refusals show this one too (with the budget).
    """

    def __init__(self, what: str, seconds: float) -> None:
        self.what, self.seconds = what, float(seconds)
        super().__init__(
            f"{what} took longer than its time budget of {seconds:g} s and was stopped. Try fewer "
            "columns, rows, repetitions or estimators, or leave the slow ones out."
        )


def call_each(calls: Iterable[tuple[Callable[..., Any], tuple, dict]]) -> list[tuple[bool, Any]]:
    """Run each ``(fn, args, kwargs)`` in turn: ``[(True, result) or (False, exception)]``, so one
    call's refusal does not lose the others' results (a job for :func:`run_stoppable`)."""
    out: list[tuple[bool, Any]] = []
    for fn, args, kwargs in calls:
        try:
            out.append((True, fn(*args, **kwargs)))
        except Exception as err:  # noqa: BLE001 - handed back to the caller as it is
            out.append((False, err))
    return out


def _child(conn: Any, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    try:
        result: tuple[bool, Any] = (True, fn(*args, **kwargs))
    except BaseException as err:  # noqa: BLE001 - raised again in the caller
        result = (False, err)
    try:
        conn.send(result)
    except Exception as err:  # noqa: BLE001 - e.g. an exception or result that does not pickle
        conn.send((False, RuntimeError(f"the job's result could not be sent back: {err!r}")))
    conn.close()


#: The name of :func:`run_stoppable`'s processes (``multiprocessing.active_children()`` shows it).
STOPPABLE_NAME = "dpmean-stoppable"

_SLOTS_LOCK = threading.Lock()
_SLOTS: list[threading.BoundedSemaphore] = []
_START_LOCK = threading.Lock()


def _slots() -> threading.BoundedSemaphore:
    """At most ``workers_from_env()`` (at least 1) stoppable jobs run at once in this process."""
    with _SLOTS_LOCK:
        if not _SLOTS:
            _SLOTS.append(threading.BoundedSemaphore(max(1, workers_from_env())))
        return _SLOTS[0]


def _end(proc: Any) -> None:
    """Stop ``proc`` (SIGTERM, then SIGKILL after a second) and reap it."""
    if proc.is_alive():
        proc.terminate()
        proc.join(1.0)
        if proc.is_alive():
            proc.kill()
    proc.join(5.0)


def run_stoppable(
    fn: Callable[..., T],
    /,
    *args: Any,
    seconds: float,
    what: str = "The computation",
    should_stop: Callable[[], bool] | None = None,
    poll: float = 0.05,
    **kwargs: Any,
) -> T:
    """``fn(*args, **kwargs)`` in a process of its own, which is ended when ``seconds`` pass or
    ``should_stop()`` turns true (the caller left), so nothing keeps running for nobody.

    A worker of a :class:`FairPool` cannot be stopped mid-job without breaking the whole pool; this
    runs one job in one fresh process from the ``forkserver`` (about 40 ms to start once the server
    runs), at most ``workers_from_env()`` at a time (waiting for a turn counts against ``seconds``).

    Parameters
    ----------
    fn : callable
        A module-level function of picklable arguments (it runs in another process).
    seconds : float
        The time budget, waiting for a turn included.
    what : str
        What the job is, for the message of :class:`TimeBudgetExceeded`.
    should_stop : callable, optional
        Asked every ``poll`` seconds; true ends the job and raises :class:`Stopped`.

    Returns
    -------
    The job's result; an exception the job raised is raised here.

    Raises
    ------
    TimeBudgetExceeded
        When ``seconds`` pass first (the process is ended).
    Stopped
        When ``should_stop()`` turns true first (the process is ended).

    Examples
    --------
    >>> run_stoppable(pow, 2, 10, seconds=60)
    1024
    """
    deadline = time.monotonic() + float(seconds)
    stop = should_stop or (lambda: False)
    slots = _slots()
    while not slots.acquire(timeout=poll):
        if stop():
            raise Stopped(what)
        if time.monotonic() >= deadline:
            raise TimeBudgetExceeded(what, seconds)
    try:
        ctx = multiprocessing.get_context("forkserver")
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=_child, args=(send, fn, args, kwargs), name=STOPPABLE_NAME, daemon=True
        )
        with _START_LOCK, plain_main():
            proc.start()
        send.close()
        try:
            while not receive.poll(poll):
                if stop():
                    raise Stopped(what)
                if time.monotonic() >= deadline:
                    raise TimeBudgetExceeded(what, seconds)
                if not proc.is_alive() and not receive.poll(0):
                    raise RuntimeError(f"{what}: its process ended without a result")
            ok, value = receive.recv()
        finally:
            receive.close()
            _end(proc)
    finally:
        slots.release()
    if not ok:
        raise value
    return value
