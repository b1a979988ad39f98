"""The sidebar's "This view as a notebook" download (:mod:`dpcore.notebook`).

:func:`pages._ui.chart` records each chart's code under its name as the page draws it; after the
page has run, :func:`notebook_button` offers those snippets as one notebook and starts the next
run's record afresh.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import streamlit as st

from dpcore.notebook import view_notebook
from pages._present import presenting
from pages._spec import PageSpec

#: session key of the charts drawn in this run: name -> (sentence, code)
DRAWN = "_notebook_charts"
#: session key of the charts of the last full run, as the notebook lists them
SHOWN = "_notebook_view"


def record(name: str, sentence: str, code: str) -> None:
    """Note that chart ``name`` was drawn in this run from ``code`` (called by ``chart``)."""
    st.session_state.setdefault(DRAWN, {})[name] = (sentence, code)


def notebook_button(spec: PageSpec, settings: Any) -> None:
    """A sidebar download of the charts this run drew as a notebook (nothing in presenter mode or
    on a page that drew no chart); the record is cleared for the next run."""
    drawn = st.session_state.pop(DRAWN, {})
    charts = [(name, sentence, code) for name, (sentence, code) in drawn.items()]
    st.session_state[SHOWN] = charts
    if presenting() or not charts:
        return
    st.sidebar.download_button(
        "This view as a notebook (.ipynb)",
        lambda: view_notebook(spec.title, asdict(settings), charts),
        file_name=f"dpmean-{spec.url_path or 'home'}.ipynb",
        mime="application/x-ipynb+json",
        key="download-view-notebook",
        on_click="ignore",
        help="A Jupyter notebook with the dpcore calls behind every chart on this page, at these "
        "settings and seed: run it and get the same numbers and figures.",
    )
