"""The notice a page shows while a first view is refined (Compare's sweep, Your data's runs):
an info box in a fragment that reruns the page once the refinement is there.

With the shared pool the refinement runs in the background (``SharedCache.refine``, started by
the page's helper) and the box polls ``done``; without one, ``here`` refines in the box's next
run, after the page has drawn the first view. docs/speed.md ("Page first views").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import streamlit as st


def refining_notice(
    key: str,
    token: Hashable,
    text: str,
    every: float,
    *,
    done: Callable[[], bool],
    here: Callable[[], object] | None = None,
    polled: Callable[[], object] | None = None,
) -> None:
    """``text`` in an info box whose fragment runs every ``every`` seconds: it reruns the page
    when ``done()``; with ``here`` (no pool) its second run (the first view drawn, this session's
    ``st.session_state[key]`` set to ``token`` by the first) calls ``here()`` and reruns the page.
    ``polled()`` runs at each poll (e.g. telling the refiner this session still waits)."""

    @st.fragment(run_every=every)
    def _refining() -> None:
        if done():
            st.rerun()
        if here is not None and st.session_state.get(key) == token:
            here()
            st.rerun()
        st.session_state[key] = token
        if polled is not None:
            polled()
        st.info(text, icon=":material/hourglass_top:")

    _refining()
