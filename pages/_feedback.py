"""Feedback before a long run: its predicted time, and cheaper settings to pick instead."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import streamlit as st

from pages._sidebar import D_CHOICES, N_CHOICES, set_sidebar

#: A run predicted to take longer than this many seconds asks first.
LONG_RUN_SECONDS = 3.0
#: Compare draws a first result at once and refines it by itself (on the shared pool, behind
#: every page view) when the whole sweep is predicted within this many seconds; beyond, it offers
#: the full run with its time, and smaller settings.
AUTO_REFINE_SECONDS = 20.0


def confirm_long_run(
    key: str,
    seconds: float,
    what: str,
    smaller: Sequence[tuple[str, float, Callable[[], None]]] = (),
) -> None:
    """Before a run predicted to take more than :data:`LONG_RUN_SECONDS`, show the estimate and a choice.

    ``key`` names the exact run (e.g. its config JSON); once the user chose "Run", the same run is not
    asked about again. ``smaller`` offers cheaper settings as ``(label, predicted seconds, callback)``;
    a callback writes the smaller setting into session state. Stops the page until the user picks.
    """
    if seconds <= LONG_RUN_SECONDS:
        return
    ss = st.session_state
    approved = ss.setdefault("_approved_runs", set())
    if key in approved:
        return
    box = st.container(border=True)
    box.markdown(
        f"**This will take about {duration_text(seconds)}** ({what}). Run it, or pick a smaller setting "
        "for a quick first result."
    )
    cols = box.columns(1 + len(smaller))
    cols[0].button(
        f"Run (≈ {duration_text(seconds)})",
        type="primary",
        key=f"run-{abs(hash(key))}",
        on_click=approved.add,
        args=(key,),
    )
    for col, (label, secs, callback) in zip(cols[1:], smaller, strict=True):
        col.button(f"{label} (≈ {duration_text(secs)})", on_click=callback, key=f"smaller-{label}")
    st.stop()


def duration_text(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    return f"{seconds / 60:.0f} min"


def smaller_data_choices(
    n: int, d: int, seconds: Callable[[int, int], float], *, within: float = LONG_RUN_SECONDS
) -> list[tuple[str, float, Callable[[], None]]]:
    """Cheaper sidebar settings for a page whose cost is ``seconds(n, d)``: the largest n (and d) on the
    usual grids that fit in ``within`` seconds, each as a choice for :func:`confirm_long_run`."""
    out: list[tuple[str, float, Callable[[], None]]] = []
    fit_n = [c for c in N_CHOICES if c < n and seconds(c, d) <= within]
    if fit_n:
        out.append(
            (
                f"Use n = {fit_n[-1]:,}",
                seconds(fit_n[-1], d),
                functools.partial(set_sidebar, {"n": fit_n[-1]}),
            )
        )
    fit_d = [c for c in D_CHOICES if c < d and seconds(n, c) <= within]
    if fit_d:
        out.append(
            (
                f"Use d = {fit_d[-1]}",
                seconds(n, fit_d[-1]),
                functools.partial(set_sidebar, {"d": fit_d[-1]}),
            )
        )
    return out
