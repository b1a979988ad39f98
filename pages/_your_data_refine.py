"""Your data's first view: :data:`dpcore.views.your_data.FIRST_REPS` runs per estimator, then the
runs slider's count in the background (the notice's next run, after the first view is on the
screen), as Compare refines its first result. ``DPMEAN_PROGRESSIVE=0`` turns it off (the test
suite runs that way). docs/speed.md ("Page first views, round 2": Your data)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

import streamlit as st

from dpcore.views.your_data import FIRST_REPS, ExploreSettings

#: seconds between the first view and the refinement (the notice's next run)
REFINE_AFTER = 0.5


def first_view(explore: ExploreSettings) -> ExploreSettings:
    """The record the page shows now: ``explore`` once this session has refined it (or when it
    asks for at most :data:`FIRST_REPS` runs, or progressive views are off), else ``explore``
    with :data:`FIRST_REPS` runs per estimator."""
    if os.environ.get("DPMEAN_PROGRESSIVE", "1") == "0" or explore.reps <= FIRST_REPS:
        return explore
    if st.session_state.get("_yd_refined") == explore:
        return explore
    return replace(explore, reps=FIRST_REPS)


def refining_notice(explore: ExploreSettings, refine: Callable[[], object]) -> None:
    """An info box saying the first view rests on :data:`FIRST_REPS` runs; its next run calls
    ``refine`` (the full runs of ``explore``, into the shared cache) and reruns the page, which
    then shows ``explore`` itself."""

    @st.fragment(run_every=REFINE_AFTER)
    def _refining() -> None:
        if st.session_state.get("_yd_refine_next") == explore:
            refine()
            st.session_state["_yd_refined"] = explore
            st.rerun()
        st.session_state["_yd_refine_next"] = explore
        st.info(
            f"First view: {FIRST_REPS} runs per estimator. The {explore.reps} runs you asked for "
            "replace them in a moment.",
            icon=":material/hourglass_top:",
        )

    _refining()
