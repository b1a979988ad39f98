"""dpmean lab: the entry point.

Run with ``make run`` (see README). This file draws the global controls in the sidebar, binds
them to the URL query string (so a link reproduces the view and survives page changes) and hands
over to the page the user picked. It holds no DP logic: that is all in ``dpcore``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict

import streamlit as st

from dpcore import limits
from dpcore.data import DISTRIBUTIONS
from pages import _present
from pages._follow import (
    follow,
    follow_banner,
    followed_settings,
    follower_turn,
    join_slide,
    publish,
    room_controls,
)
from pages._memory import freeze_after_first_run
from pages._notebook import notebook_button
from pages._phone import phone_style
from pages._pool import session_run
from pages._shell import navigation_pages, shell_runs
from pages._showcase import warm
from pages._sidebar import (
    BUDGET_PRESETS,
    DEFAULTS,
    GLOBAL_KEYS,
    MAX_SEED,
    UNITS,
    apply_sidebar,
    convert_unit,
    nearest_preset,
    read_query,
    size_error,
)
from pages._spec import PAGES, page
from pages._ui import settings
from pages._url import refuse_link, send_values, show_link_notes

st.set_page_config(
    page_title="dpmean lab",
    page_icon=":material/lock:",
    layout="wide",
    # the session's presenter flag (the URL's on a first run): turned on from its toggle, the URL
    # says so only later in this run, and the first slide was drawn narrow, then again at full
    # width at the first step (docs/classroom.md)
    initial_sidebar_state="collapsed"
    if st.session_state.get("present", st.query_params.get("present") == "1")
    else "auto",
)


def _init_state() -> None:
    """On a session's first run, take the settings from the URL (falling back to defaults)."""
    if st.session_state.get("_initialised"):
        return
    query = st.query_params.to_dict()
    from_url, refused = read_query(query)
    st.session_state["_url_had_settings"] = bool(from_url)
    values = {**asdict(DEFAULTS), **from_url}
    spec = DISTRIBUTIONS[values["distribution"]]
    lo, hi = spec.skew_range
    if not lo <= values["skew"] <= hi:
        if "skew" in from_url:
            refused["skew"] = f"{spec.label} takes a skew in [{lo:g}, {hi:g}]"
        values["skew"] = spec.default_skew
    for key, reason in refused.items():  # a note on each page while the default stands
        refuse_link(key, query[key], values[key], reason)
    for key, value in values.items():
        st.session_state[key] = value
    st.session_state["budget_preset"] = nearest_preset(values["budget_value"])
    st.session_state["_prev_unit"] = values["unit"]
    st.session_state["_prev_distribution"] = values["distribution"]
    st.session_state["present"] = st.query_params.get("present") == "1"
    st.session_state["_initialised"] = True


def _on_distribution() -> None:
    """A new distribution keeps the skew if it means something there; after a data set whose skew has no
    meaning (bundled real data), or when the skew is outside the new range, it takes the new default."""
    ss = st.session_state
    spec = DISTRIBUTIONS[ss["distribution"]]
    prev = DISTRIBUTIONS.get(ss.get("_prev_distribution", spec.name), spec)
    lo, hi = spec.skew_range
    if not prev.skew_applies or not spec.skew_applies or not lo <= ss["skew"] <= hi:
        ss["skew"] = spec.default_skew
    ss["_prev_distribution"] = spec.name


def _on_unit() -> None:
    """Switching the unit converts the number (rule in :func:`pages._sidebar.convert_unit`), shown under it."""
    ss = st.session_state
    old, new = ss.get("_prev_unit", DEFAULTS.unit), ss["unit"]
    value, rule = convert_unit(old, new, float(ss["budget_value"]), float(ss["delta"]))
    ss["budget_value"] = float(f"{value:.6g}")
    ss["budget_preset"] = nearest_preset(ss["budget_value"])
    ss["_prev_unit"] = new
    ss["_unit_rule"] = (
        (new, f"Unit switched from {UNITS[old]} to {UNITS[new]}: {rule}.") if rule else None
    )


def _on_preset() -> None:
    st.session_state["budget_value"] = st.session_state["budget_preset"]


def _on_exact() -> None:
    st.session_state["budget_preset"] = nearest_preset(st.session_state["budget_value"])


def _new_seed() -> None:
    st.session_state["seed"] = int(st.session_state["seed"]) + 1


def _data_controls(ignored: Mapping[str, str]) -> None:
    """Distribution, skew, n and d; those in ``ignored`` greyed out with the reason."""
    sb = st.sidebar
    sb.markdown("### Data")
    sb.selectbox(
        "Distribution",
        list(DISTRIBUTIONS),
        key="distribution",
        format_func=lambda k: DISTRIBUTIONS[k].label,
        on_change=_on_distribution,
        disabled="distribution" in ignored,
        help=ignored.get("distribution"),
    )
    spec = DISTRIBUTIONS[st.session_state["distribution"]]
    skew_reason = ignored.get("skew") or (
        None
        if spec.skew_applies
        else "Real data has its own skew: this slider has no effect on it."
    )
    sb.slider(
        f"Skew: {spec.skew_label}",
        float(spec.skew_range[0]),
        float(spec.skew_range[1]),
        step=0.05,
        key="skew",
        help=skew_reason or "0 means no skew: every coordinate has the same spread.",
        disabled=skew_reason is not None,
    )
    c1, c2 = sb.columns(2)
    c1.number_input(
        "n (rows)",
        min_value=2,
        max_value=limits.MAX_N,
        step=500,
        key="n",
        disabled="n" in ignored,
        help=ignored.get("n"),
    )
    c2.number_input(
        "d (columns)",
        min_value=1,
        max_value=limits.MAX_D,
        step=1,
        key="d",
        disabled="d" in ignored,
        help=ignored.get("d"),
    )


def _budget_controls(page_path: str) -> None:
    """Unit, preset, exact value and δ (used with the (ε, δ) unit and on the Privacy budget page)."""
    sb = st.sidebar
    ss = st.session_state
    sb.markdown("### Privacy budget")
    sb.radio(
        "Unit",
        list(UNITS),
        format_func=UNITS.get,
        key="unit",
        horizontal=True,
        on_change=_on_unit,
        help="Switching converts the number so the guarantee keeps its strength (the rule is shown below).",
    )
    sb.select_slider(
        "Preset (log scale): ← more private · less private →",
        BUDGET_PRESETS,
        key="budget_preset",
        on_change=_on_preset,
    )
    label = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}[ss["unit"]]
    sb.number_input(
        f"Exact {label} (smaller is more private)",
        key="budget_value",
        format="%g",
        step=0.05,
        on_change=_on_exact,
    )
    rule = ss.get("_unit_rule")
    if rule and rule[0] == ss["unit"]:
        sb.caption(rule[1])
    uses_delta = ss["unit"] == "eps_delta" or page_path == "pages/privacy_budget.py"
    sb.number_input(
        "δ (smaller is more private)",
        key="delta",
        format="%g",
        step=1e-6,
        disabled=not uses_delta,
        help=None if uses_delta else "δ is used only with the (ε, δ) unit: pure ε and ρ have no δ.",
    )
    n = int(ss["n"])
    if uses_delta and float(ss["delta"]) > 1 / n:
        sb.warning(
            f"δ = {float(ss['delta']):g} is above 1/n = {1 / n:.2g}: releasing one random person's whole "
            "row meets (0, δ)-DP for δ ≥ 1/n, so this δ promises almost nothing. Use δ well below 1/n.",
            icon=":material/warning:",
        )


def sidebar(page_path: str) -> None:
    """The global controls; those the page does not use (its :class:`pages._spec.PageSpec`
    ``ignores``) are greyed out with the reason."""
    sb = st.sidebar
    ignored = page(page_path).ignores if page_path else {}
    send_values(*GLOBAL_KEYS, "budget_preset", "present")  # never a number box's minimum instead
    led = _present.following()
    if led:  # a phone in a room: its data, budget and presenter mode are the lecturer's
        followed_settings()  # (a line instead of the controls: a cheaper rerun per step)
    else:
        _data_controls(ignored)
        _budget_controls(page_path)
    c3, c4 = sb.columns([3, 2])
    c3.number_input("Seed", min_value=0, max_value=MAX_SEED, step=1, key="seed")
    c4.button("New seed", on_click=_new_seed, width="stretch")
    if not led:
        sb.markdown("### Presenting")
        sb.toggle(
            "Presenter mode",
            key="present",
            help="Large fonts, no code or download buttons, one idea per screen; ← → step "
            "through it. In the link as ?present=1.",
        )
    room_controls()  # open a room for the class's phones, or join one


def _shell() -> None:
    """Read the URL on a session's first run, draw the sidebar, bind the settings to the URL and
    run the page picked (or say why nothing can run: an impossible budget or size)."""
    _init_state()
    apply_sidebar()  # values a page asked for (e.g. a preset opened from a link) before the sidebar is drawn
    nav = st.navigation(navigation_pages())
    page_path = next((p.path for p in PAGES if p.title == nav.title), "")
    _present.new_run()  # nothing hidden by a presenter deck yet
    follow(page_path)  # a phone in a class room takes the lecturer's newer view first
    sidebar(page_path)
    join_slide()  # a lecturer's room: the code and QR code over the whole screen, until started
    follow_banner()  # a following phone: its buttons are off, and how to explore on one's own
    phone_style()  # a chart's title, legend and toolbar kept apart on a phone
    current = settings()
    for key in st.session_state.get(
        "_page_keys", set()
    ):  # the page writes its own keys back as it runs
        st.query_params.pop(key, None)
    st.query_params.update(current.to_query())
    if _present.presenting():
        st.query_params["present"] = "1"
        _present.style()
    elif "present" in st.query_params:
        del st.query_params["present"]
    show_link_notes(*GLOBAL_KEYS)  # link values refused (e.g. ?delta=0): the defaults used
    try:
        _budget = current.checked()  # validates the budget and δ; raises ValueError naming the fix
    except ValueError as err:
        st.error(f"That privacy budget is impossible: {err}")
        st.stop()
    if (too_big := size_error(current.n, current.d)) is not None:
        st.error(too_big)
        st.stop()
    nav.run()
    if page_path:
        notebook_button(page(page_path), current)
        publish(page_path, current.to_query())  # a lecturer's room follows this view
    freeze_after_first_run(page_path)  # the process's old objects out of full collections


# A worker process started while this script is ``__main__`` (Streamlit makes it so in every
# script run, whatever dpcore.pool.plain_main set) runs this file again as ``__mp_main__``: there
# it does nothing, else it died on the shell and broke its pool.
if __name__ != "__mp_main__":
    warm()  # once per server: computes the Home picture in a background thread
    with shell_runs(), session_run(), follower_turn():  # pages through the shell (pages._shell);
        _shell()  # a session in a run is there, and keeps its background work
        # (pages._pool.session_run); a following phone's run waits its turn (pages._follow)
