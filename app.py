"""dpmean lab: the entry point.

Run with ``make run`` (see README). This file draws the global controls in the sidebar, binds
them to the URL query string (so a link reproduces the view and survives page changes) and hands
over to the page the user picked. It holds no DP logic: that is all in ``dpcore``.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import streamlit as st

from dpcore import limits
from dpcore.data import DISTRIBUTIONS
from pages._ui import BUDGET_PRESETS, DEFAULTS, MAX_SEED, UNITS, parse_query, settings, size_error

st.set_page_config(page_title="dpmean lab", page_icon=":material/lock:", layout="wide")

ROOT = Path(__file__).parent
PAGES = [
    ("pages/home.py", "Home", ":material/home:"),
    ("pages/privacy_budget.py", "Privacy budget", ":material/balance:"),
    ("pages/plan_step_by_step.py", "PLAN step by step", ":material/filter_center_focus:"),
    ("pages/compare.py", "Compare estimators", ":material/leaderboard:"),
    ("pages/winsorized.py", "Winsorized mean", ":material/content_cut:"),
    ("pages/simplex.py", "Free lunch (simplex)", ":material/change_history:"),
    ("pages/binary_product.py", "Binary product", ":material/apps:"),
    ("pages/your_data.py", "Your data", ":material/upload_file:"),
    ("pages/privacy_audit.py", "Privacy audit", ":material/verified_user:"),
]


def _init_state() -> None:
    """On a session's first run, take the settings from the URL (falling back to defaults)."""
    if st.session_state.get("_initialised"):
        return
    values = {**asdict(DEFAULTS), **parse_query(st.query_params.to_dict())}
    spec = DISTRIBUTIONS[values["distribution"]]
    lo, hi = spec.skew_range
    if not lo <= values["skew"] <= hi:
        values["skew"] = spec.default_skew
    for key, value in values.items():
        st.session_state[key] = value
    st.session_state["budget_preset"] = _nearest_preset(values["budget_value"])
    st.session_state["_initialised"] = True


def _nearest_preset(value: float) -> float:
    return min(BUDGET_PRESETS, key=lambda p: abs(p - value) if value > 0 else p)


def _on_distribution() -> None:
    spec = DISTRIBUTIONS[st.session_state["distribution"]]
    lo, hi = spec.skew_range
    if not lo <= st.session_state["skew"] <= hi:
        st.session_state["skew"] = spec.default_skew


def _on_preset() -> None:
    st.session_state["budget_value"] = st.session_state["budget_preset"]


def _on_exact() -> None:
    st.session_state["budget_preset"] = _nearest_preset(st.session_state["budget_value"])


def _new_seed() -> None:
    st.session_state["seed"] = int(st.session_state["seed"]) + 1


def sidebar() -> None:
    """The global controls."""
    sb = st.sidebar
    sb.markdown("### Data")
    sb.selectbox("Distribution", list(DISTRIBUTIONS), key="distribution",
                 format_func=lambda k: DISTRIBUTIONS[k].label, on_change=_on_distribution)
    spec = DISTRIBUTIONS[st.session_state["distribution"]]
    sb.slider(f"Skew: {spec.skew_label}", float(spec.skew_range[0]), float(spec.skew_range[1]), step=0.05,
              key="skew", help="0 means no skew: every coordinate has the same spread.",
              disabled=not spec.skew_applies)
    c1, c2 = sb.columns(2)
    c1.number_input("n (rows)", min_value=2, max_value=limits.MAX_N, step=500, key="n")
    c2.number_input("d (columns)", min_value=1, max_value=limits.MAX_D, step=1, key="d")
    sb.markdown("### Privacy budget")
    sb.radio("Unit", list(UNITS), format_func=UNITS.get, key="unit", horizontal=True)
    sb.select_slider("Preset (log scale): ← more private · less private →", BUDGET_PRESETS,
                     key="budget_preset", on_change=_on_preset)
    label = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}[st.session_state["unit"]]
    sb.number_input(f"Exact {label} (smaller is more private)", key="budget_value", format="%g",
                    step=0.05, on_change=_on_exact)
    if st.session_state["unit"] == "eps_delta":
        sb.number_input("δ (smaller is more private)", key="delta", format="%g", step=1e-6)
    c3, c4 = sb.columns([3, 2])
    c3.number_input("Seed", min_value=0, max_value=MAX_SEED, step=1, key="seed")
    c4.button("New seed", on_click=_new_seed, width="stretch")


_init_state()
pages = [st.Page(path, title=title, icon=icon, default=(path == "pages/home.py"))
         for path, title, icon in PAGES if (ROOT / path).exists()]
nav = st.navigation(pages)
sidebar()
current = settings()
st.query_params.update(current.to_query())  # keeps page keys such as preset=
try:
    _budget = current.budget  # validates the budget; raises ValueError naming the fix
except ValueError as err:
    st.error(f"That privacy budget is impossible: {err}")
    st.stop()
if (too_big := size_error(current.n, current.d)) is not None:
    st.error(too_big)
    st.stop()
nav.run()
