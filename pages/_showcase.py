"""The Home picture's evidence, warmed when the server starts, and its record for the notebook.

``app.py`` calls :func:`warm` on every run; the first call (per server process) starts one daemon
thread that fills :func:`dpcore.views.home.evidence` (memoised per process), so the first visitor
to Home finds the picture ready. :func:`record_for_notebook` notes the two figures, with the
dpcore calls that rebuild them, for the view's notebook (``pages/_notebook.py``).
"""

from __future__ import annotations

import threading

import streamlit as st

from dpcore.views.home import HomeView, evidence
from pages._notebook import record

__all__ = ["evidence", "record_for_notebook", "warm"]


def record_for_notebook(v: HomeView, sentence: str) -> None:
    """Note Home's two figures as drawn in this run, as :func:`pages._ui.chart` notes a chart: for
    the view's notebook (with the view's code) and, light-themed, for the slides and reports.
    """
    drawn = st.session_state.setdefault("_ui_charts", {})
    for (name, code), fig, data in zip(v.code.items(), v.light, (v.noise, v.errors), strict=True):
        drawn[name] = (fig, sentence, data)
        record(name, sentence, code)


@st.cache_resource(show_spinner=False)
def warm() -> threading.Thread:
    """Start (once per server) a daemon thread computing :func:`evidence`."""
    thread = threading.Thread(target=evidence, name="warm-home-evidence", daemon=True)
    thread.start()
    return thread
