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
    failed: Callable[[], str | None] | None = None,
    retry: Callable[[], object] | None = None,
) -> None:
    """``text`` in an info box whose fragment runs every ``every`` seconds: it reruns the page
    when ``done()``; with ``here`` (no pool) its second run (the first view drawn, this session's
    ``st.session_state[key]`` set to ``token`` by the first) calls ``here()`` and reruns the page.
    ``polled()`` runs at each poll (e.g. telling the refiner this session still waits). When
    ``failed()`` names why the refinement failed, the box says so instead (the page keeps its
    first view) with a button that calls ``retry()`` and reruns the page."""

    @st.fragment(run_every=every)
    def _refining() -> None:
        reason = failed() if failed is not None else None
        if reason is not None:
            why = reason.rstrip(".")
            st.warning(
                f"**The full run failed**, so this view stays on its first result ({why}).",
                icon=":material/error:",
            )
            if st.button("Try the full run again", key=f"{key}_retry"):
                if retry is not None:
                    retry()
                st.rerun(scope="app")
            return
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
