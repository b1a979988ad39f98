"""The Compare page's run wiring: the shared caches, the sweep on the worker pool, the background
refinement and the buttons of :func:`dpcore.experiments.progressive.decide`'s offers.

What to show, offer and refine is decided in dpcore (:mod:`dpcore.experiments.progressive`); this
module only connects that decision to Streamlit's caches, the shared pool (``pages/_pool.py``) and
the widgets. Every cache is keyed on the config's JSON: the engine is deterministic, so the same
key always holds the same frame, for every session.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore.experiments import ExperimentConfig, run
from dpcore.experiments.progressive import FIRST_VIEW_REPS, Decision, decide, first_config
from dpcore.figures.compare import target_views
from dpcore.pool import workers_from_env
from dpcore.views.compare import (
    PRESETS,
    CompareSettings,
    CompareView,
    Views,
    axes,
    peer_seconds,
    present,
    shown_config,
    sweep_views,
)
from pages import _pool
from pages._pool import (
    BUSY_FIRST_REPS,
    FIRST_REPS,
    SharedCache,
    call_on,
    poll_seconds,
    progressive,
    run_bounded,
    with_pool,
)
from pages._refine import refining_notice as notice
from pages._ui import (
    AUTO_REFINE_SECONDS,
    D_CHOICES,
    LONG_RUN_SECONDS,
    N_CHOICES,
    duration_text,
    set_sidebar,
)

if TYPE_CHECKING:
    import pandas as pd

#: The repetitions a first result may have (the pool's, a busy pool's, a story's ``first_reps``,
#: the default's): the refinement takes the runs of the largest one there is.
FIRST_RESULTS = frozenset(
    {FIRST_REPS, BUSY_FIRST_REPS, FIRST_VIEW_REPS, *(p.first_reps for p in PRESETS.values())}
)


@st.cache_resource(show_spinner=False)
def frames() -> SharedCache:
    """Finished sweeps keyed on the JSON config string, shared by all sessions and the background
    refiners (at most 24 kept).

    Not ``st.cache_data``: its replay of elements cannot drive a progress bar drawn outside the
    cached function, and long sweeps need one. Same key, same frame: the engine is deterministic.
    """
    return SharedCache(24)


@st.cache_resource(show_spinner=False)
def view_cache() -> SharedCache:
    """:func:`views` of recent sweeps, shared by all sessions and the background refiners, which
    fill it for the refined sweep before the page asks. The page only reads what it gets."""
    return SharedCache(32)


@st.cache_resource(show_spinner=False)
def target_cache() -> SharedCache:
    """:func:`target` of recent sweeps and targets, shared by all sessions."""
    return SharedCache(64)


@st.cache_resource(show_spinner=False)
def view_records() -> SharedCache:
    """:func:`view` of recent settings records, shared by all sessions."""
    return SharedCache(32)


def refines() -> bool:
    """Whether a first result is refined by itself: on the shared pool's background workers, or,
    without a pool (``DPMEAN_WORKERS=0``), in this process once the first result is drawn (the
    notice's next run, :func:`refining_notice`); ``DPMEAN_PROGRESSIVE=0`` turns both off."""
    return progressive() or (
        os.environ.get("DPMEAN_PROGRESSIVE", "1") != "0" and _pool.shared_pool() is None
    )


def decision(config: ExperimentConfig, first_reps: int = FIRST_REPS) -> Decision:
    """:func:`~dpcore.experiments.progressive.decide` for ``config`` on this server: a first result
    of at most ``first_reps`` repetitions per point (fewer while the pool is busy), refined when
    :func:`refines` (on the pool up to its limit; without one, sweeps that would run in the page),
    with this session's approvals and the shared cache."""
    return decide(
        config,
        limit=AUTO_REFINE_SECONDS if progressive() else LONG_RUN_SECONDS,
        ask_above=LONG_RUN_SECONDS,
        first_reps=min(
            first_reps,
            _pool.first_reps(lambda r: first_config(config, r).to_json(indent=None) in frames()),
        ),
        background=refines(),
        ready=frames(),
        approved=st.session_state.setdefault("_approved_runs", set()),
        n_choices=N_CHOICES,
        d_choices=D_CHOICES,
    )


def sweep(config_json: str) -> pd.DataFrame:
    """The finished sweep of ``config_json``: from the cache, else run on this session's lane of
    the shared pool with a progress bar (a sweep with a peer library in a process of its own,
    ended at its time budget)."""

    def compute() -> pd.DataFrame:
        seconds = peer_seconds(config_json, _pool.PEER_SECONDS)  # read at each call
        if seconds is not None:
            with st.spinner("Running the sweep with the peer libraries…"):
                return run_bounded(
                    run, config_json, seconds=seconds, what="The sweep with the peer libraries"
                )
        bar = st.progress(0.0, text="Running the sweep…")
        ticks = [0, 1]  # (done, total): set in the pool's helper thread, drawn by the script's

        def tick(done: int, total: int) -> None:
            ticks[:] = [done, total]

        def draw() -> None:
            done, total = ticks
            if done:
                bar.progress(done / total, text=f"Running the sweep: {done} of {total} datasets")

        frame = with_pool(
            lambda ex: run(config_json, executor=ex, progress=tick),
            each_wait=draw,
        )
        bar.empty()
        return frame

    return frames().get_or_compute(config_json, compute)


def views(config_json: str, x: str, metric: str) -> Views:
    """The chart (as a plain dict), its data, the sentence, the regret table, the summary and the
    far-off table of one sweep, computed in a worker of the shared pool (outside this process's
    GIL; here without one) and kept for every session."""

    def compute() -> Views:
        frame = sweep(config_json)
        return with_pool(lambda ex: call_on(ex, sweep_views, frame, config_json, x, metric))

    return view_cache().get_or_compute((config_json, x, metric), compute)


def target(config_json: str, x: str, metric: str, value: float) -> tuple[dict, pd.DataFrame, str]:
    """The "what does each estimator need" chart, its data and its sentence for one sweep and
    target ``value``, computed in a worker of the shared pool and kept for every session."""

    def compute() -> tuple[dict, pd.DataFrame, str]:
        frame, summary = sweep(config_json), views(config_json, x, metric)[4]
        unit = ExperimentConfig.from_json(config_json).unit
        return with_pool(
            lambda ex: call_on(ex, target_views, frame, summary, x, value, metric, unit)
        )

    return target_cache().get_or_compute((config_json, x, metric, value), compute)


def view(record: CompareSettings) -> CompareView:
    """The page's view of ``record`` (:func:`dpcore.views.compare.present` of its sweep and
    views, both from the shared caches above), cached on the record alone."""

    def compute() -> CompareView:
        shown_json = shown_config(record).to_json(indent=None)
        x, metric = axes(record)
        return present(record, sweep(shown_json), views(shown_json, x, metric))

    return view_records().get_or_compute(record, compute)


def refine(
    config_json: str, x: str, metric: str, shown_target: dict[str, float]
) -> Callable[[], None] | None:
    """Start the full sweep of ``config_json`` in the background, with its views at this axis and
    norm and (once the page has drawn it) its target view at ``shown_target["target"]``: the rerun
    that draws them then only reads them.

    Without a pool nothing starts here: the function that refines in this thread is returned, for
    :func:`refining_notice` to call once the first result is on the screen."""

    cfg = ExperimentConfig.from_json(config_json)
    firsts = [  # the largest first result there is: its runs are not run again
        first_config(cfg, r).to_json(indent=None)
        for r in sorted(FIRST_RESULTS, reverse=True)
        if r < cfg.repetitions
    ]

    def work(ex: Executor | None) -> pd.DataFrame:
        first = next((f for f in map(frames().get, firsts) if f is not None), None)
        full = run(config_json, executor=ex, reuse=first)  # only the reps the first result lacks
        made = call_on(ex, sweep_views, full, config_json, x, metric)
        view_cache().put((config_json, x, metric), made)
        if "target" in shown_target:
            value = shown_target["target"]
            unit = ExperimentConfig.from_json(config_json).unit
            try:
                done = call_on(ex, target_views, full, made[4], x, value, metric, unit)
                target_cache().put((config_json, x, metric, value), done)
            except Exception:  # only the head start is lost: the rerun computes it (or shows why)
                logging.getLogger(__name__).exception("target view of %s", config_json)
        return full

    if _pool.shared_pool() is None:

        def here() -> None:
            frames().get_or_compute(config_json, lambda: work(None))

        return here
    frames().refine(config_json, work, owner=_pool.session_key())
    return None


def refining_notice(
    config_json: str, text: str, predicted: float, here: Callable[[], None] | None = None
) -> None:
    """``text`` in an info box that reruns the page as soon as the full sweep is there (each poll
    also tells the refiner this session still waits for it). ``here`` (:func:`refine` without a
    pool) refines in the box's next run, after the page has drawn the first result
    (:func:`pages._refine.refining_notice`)."""
    every = poll_seconds(frames().in_flight(), predicted, max(workers_from_env(), 1))
    notice(
        "_cmp_refine_next",
        config_json,
        text,
        every,
        # done, or stopped while this page was away (the rerun starts it again)
        done=lambda: frames().get(config_json) is not None or config_json in frames().stopped,
        here=here,
        polled=lambda: frames().keep(config_json, _pool.session_key(), every),
        failed=lambda: frames().failure(config_json),
        retry=lambda: frames().retry(config_json),
    )


def _callback(action: str, value: str | int) -> Callable[[], None]:
    """What an offer's button does: approve a long run, or set the repetitions, n or d."""
    if action == "approve":
        approved: set = st.session_state.setdefault("_approved_runs", set())
        return lambda: approved.add(value)
    if action == "repetitions":
        return lambda: st.session_state.update(cmp_reps=value)
    return lambda: set_sidebar({action: value})


def offer_buttons(box: DeltaGenerator, made: Decision) -> None:
    """One button per offer of ``made`` in a row of ``box``, each with its predicted time."""
    cols = box.columns(len(made.offers))
    for col, offer in zip(cols, made.offers, strict=True):
        col.button(
            f"{offer.label} (≈ {duration_text(offer.seconds)})",
            type="primary" if offer.primary else "secondary",
            key=f"{'approve' if offer.action == 'approve' else 'smaller'}-{offer.label}",
            on_click=_callback(offer.action, offer.value),
        )
