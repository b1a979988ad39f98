"""The Home picture's evidence, cached once per server and warmed when the server starts.

``app.py`` calls :func:`warm` on every run; the first call (per server process) starts one daemon
thread that fills the cache, so the first visitor to Home finds the picture ready. No DP logic here:
the simulation is :func:`dpcore.experiments.studies.why_plan_wins`. :func:`record_for_notebook`
notes the two figures, with the dpcore calls that rebuild them, for the view's notebook
(``pages/_notebook.py``).
"""

from __future__ import annotations

import threading

import streamlit as st

from dpcore.experiments.studies import HOME_SETTING, Evidence, why_plan_wins
from dpcore.figures.gallery import why_plan_figures
from dpcore.figures.style import drawn_dict, tidy_log_axes
from dpcore.figures.theme import on_dark
from pages._notebook import record

SEEDS = 20

_CALL = ", ".join(f"{key}={value!r}" for key, value in HOME_SETTING.items())
#: the notebook's code for Home's two figures: name -> snippet (the second uses ``ev`` from the
#: first, so the 20 runs are made once)
NOTEBOOK_CODE = {
    "why_plan_noise": (
        "# Home's example is a fixed setting (the call below) with its own seeds "
        f"0 to {SEEDS - 1},\n# not the sidebar's settings and seed in the table above\n"
        "from dpcore.experiments.studies import why_plan_wins\n"
        "from dpcore.figures.gallery import why_plan_figures\n"
        "from dpcore.figures.style import tidy_log_axes\n\n"
        f"ev = why_plan_wins(seeds={SEEDS}, {_CALL})\n"
        "fig = tidy_log_axes(why_plan_figures(ev.errors, ev.noise)[0])\n"
    ),
    "why_plan_error": (
        f"# the same {SEEDS} runs (ev from the cell above): how often PLAN's error was the smallest\n"
        f'print(f"PLAN smallest in {{round(ev.win_rate() * {SEEDS})}} of {SEEDS} runs")\n'
        'print("median ℓ2 error:", ev.medians())\n'
        'print("worst run:", ev.worst())\n'
        "fig = tidy_log_axes(why_plan_figures(ev.errors, ev.noise)[1])\n"
    ),
}


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


def record_for_notebook(sentence: str) -> None:
    """Note Home's two figures as drawn in this run, as :func:`pages._ui.chart` notes a chart: for
    the view's notebook (with :data:`NOTEBOOK_CODE`) and, light-themed, for the slides and reports.
    """
    ev = evidence()
    left, right = why_plan_charts(False)
    drawn = st.session_state.setdefault("_ui_charts", {})
    for (name, code), fig, data in zip(
        NOTEBOOK_CODE.items(), (left, right), (ev.noise, ev.errors), strict=True
    ):
        drawn[name] = (fig, sentence, data)
        record(name, sentence, code)


@st.cache_resource(show_spinner=False)
def warm() -> threading.Thread:
    """Start (once per server) a daemon thread computing :func:`evidence`."""
    thread = threading.Thread(target=evidence, name="warm-home-evidence", daemon=True)
    thread.start()
    return thread
