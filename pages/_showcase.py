"""The Home picture's evidence, cached once per server and warmed when the server starts.

``app.py`` calls :func:`warm` on every run; the first call (per server process) starts one daemon
thread that fills the cache, so the first visitor to Home finds the picture ready. No DP logic here:
the simulation is :func:`dpcore.experiments.studies.why_plan_wins`.
"""

from __future__ import annotations

import threading

import streamlit as st

from dpcore.experiments.studies import HOME_SETTING, Evidence, why_plan_wins
from dpcore.figures.gallery import why_plan_figures
from dpcore.figures.style import drawn_dict, tidy_log_axes
from dpcore.figures.theme import on_dark

SEEDS = 20


@st.cache_resource(show_spinner=False)
def evidence() -> Evidence:
    """:func:`why_plan_wins` at :data:`HOME_SETTING` over :data:`SEEDS` seeds (computed once)."""
    return why_plan_wins(seeds=SEEDS, **HOME_SETTING)


@st.cache_resource(show_spinner=False)
def why_plan_charts(dark: bool) -> tuple[dict, dict]:
    """Home's two figures (noise shape, error), as drawn in a dark or light theme, as plain dicts:
    built once per theme and server from :func:`evidence`, not once per visitor."""
    ev = evidence()
    figures = (tidy_log_axes(f) for f in why_plan_figures(ev.errors, ev.noise))
    left, right = (drawn_dict(on_dark(f) if dark else f) for f in figures)
    return left, right


@st.cache_resource(show_spinner=False)
def warm() -> threading.Thread:
    """Start (once per server) a daemon thread computing :func:`evidence`."""
    thread = threading.Thread(target=evidence, name="warm-home-evidence", daemon=True)
    thread.start()
    return thread
