"""The sidebar's settings: their values and defaults, the budget units and presets, and how a
link (``?n=...&d=...``), a preset or a page sets them.

``app.py`` draws the sidebar from these; pages read the values with :func:`pages._ui.settings`.
No DP logic lives here (the budget conversions are :mod:`dpcore.privacy`'s).
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

import streamlit as st

from dpcore import limits
from dpcore.data import DISTRIBUTIONS
from dpcore.privacy import Budget, approx_to_zcdp, pure_to_zcdp, zcdp_to_approx
from dpcore.views.settings import DataSettings

UNITS = {"rho": "ρ (zCDP)", "eps": "ε (pure DP)", "eps_delta": "(ε, δ)-DP"}
BUDGET_PRESETS = [0.01, 0.03, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
N_CHOICES = [100, 200, 500, 1000, 2000, 4000, 10_000, 20_000, 50_000, 100_000]
D_CHOICES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
MAX_SEED = 2**31 - 1


#: The sidebar's record lives in dpcore (every view takes it); pages call it ``Settings``.
Settings = DataSettings


DEFAULTS = Settings()


#: Valid ranges of the numeric URL parameters (values outside fall back to the default, so no
#: widget is ever handed a value outside its own range).
QUERY_RANGES: dict[str, tuple[type, float, float]] = {
    "skew": (float, -1e6, 1e6),
    "budget_value": (float, -math.inf, math.inf),
    "delta": (float, -math.inf, math.inf),
    "n": (int, 2, limits.MAX_N),
    "d": (int, 1, limits.MAX_D),
    "seed": (int, 0, MAX_SEED),
}


def parse_query(params: dict[str, str]) -> dict[str, Any]:
    """Read the settings from URL query parameters, keeping only valid values.

    Returns a dict of session-state values; anything missing, malformed, out of range or refused by
    the budget falls back to the default (a broken link still opens the app).
    :func:`read_query` also says why each value was dropped.
    """
    return read_query(params)[0]


def read_query(params: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings a link sets, and why each value it refused was refused (key -> reason).

    Each malformed or out-of-range value, and a ``delta`` or budget that :meth:`Settings.checked`
    refuses, falls back to its default (``app.py`` shows a note on it:
    :func:`pages._url.refuse_link`).

    >>> values, why = read_query({"delta": "-0", "n": "300"})
    >>> values, why["delta"]  # doctest: +ELLIPSIS
    ({'n': 300}, 'delta must be strictly between 0 and 1 (typically below 1/n); got 0.0')
    """
    out: dict[str, Any] = {}
    notes: dict[str, str] = {}
    params = {k: v for k, v in params.items() if isinstance(k, str) and isinstance(v, str)}
    dist = params.get("distribution")
    if dist in DISTRIBUTIONS:
        out["distribution"] = dist
    elif dist is not None:
        notes["distribution"] = "it names no distribution"
    for key, (cast, lo, hi) in QUERY_RANGES.items():
        if key in params:
            try:
                out[key] = _query_number(params[key], cast, lo, hi)
            except ValueError as err:
                notes[key] = str(err)
    if params.get("unit") in UNITS:
        out["unit"] = params["unit"]
    elif "unit" in params:
        notes["unit"] = f"the unit is one of {', '.join(UNITS)}"
    for key in ("delta", "budget_value"):  # δ first: an (ε, δ) budget's check reads it
        try:
            record = Settings(**{**asdict(DEFAULTS), **out})
            _ = Budget.approx(1.0, record.delta) if key == "delta" else record.budget
        except ValueError as err:
            if key in out:
                notes[key] = str(err).rstrip(".")
                del out[key]
    return out, notes


def _query_number(raw: str, cast: type, lo: float, hi: float) -> float | int:
    """``raw`` as a number of type ``cast`` in ``[lo, hi]`` (``-0`` read as ``0``), else a
    ``ValueError`` saying why."""
    try:
        value = float(raw[:64])
    except ValueError:
        raise ValueError("it is not a number") from None
    if not math.isfinite(value):
        raise ValueError("it is not a finite number")
    if cast is int and not value.is_integer():
        raise ValueError("it is not a whole number")
    if not lo <= value <= hi:
        raise ValueError(f"it must lie between {lo:g} and {hi:g}")
    return int(value) if cast is int else value + 0.0  # -0.0 -> 0.0


def size_error(n: int, d: int) -> str | None:
    """Why ``n`` rows by ``d`` columns are too many for an interactive page, or ``None``."""
    if n * d > limits.MAX_APP_CELLS:
        return (
            f"n × d = {n * d:,} values is above the interactive pages' limit of {limits.MAX_APP_CELLS:,} "
            f"(dpcore.limits); use at most n = {limits.MAX_APP_CELLS // d:,} rows at d = {d}, or run "
            "larger experiments from a terminal (python -m dpcore.experiments)."
        )
    try:
        limits.check_size(n, d)
    except ValueError as err:
        return str(err)
    return None


#: The session-state keys of the sidebar controls (they double as URL query parameters).
GLOBAL_KEYS = tuple(asdict(DEFAULTS))
_PENDING = "_pending_sidebar"


def sidebar_values(values: dict[str, Any]) -> dict[str, Any]:
    """The sidebar keys ``values`` sets, normalised (skew inside the distribution's range)."""
    out = {k: v for k, v in values.items() if k in GLOBAL_KEYS}
    dist = DISTRIBUTIONS[
        out.get("distribution", st.session_state.get("distribution", DEFAULTS.distribution))
    ]
    if "skew" in out and not dist.skew_range[0] <= out["skew"] <= dist.skew_range[1]:
        out["skew"] = dist.default_skew
    return out


def set_sidebar(values: dict[str, Any], *, rerun: bool = False) -> None:
    """Write ``values`` into the sidebar's controls: the one state the URL carries.

    From a widget callback (which runs before the sidebar is drawn) the values apply at once. From a
    page body (the sidebar is already drawn) pass ``rerun=True``: they are applied by ``app.py`` at
    the start of the next run.
    """
    vals = sidebar_values(values)
    if rerun:
        st.session_state[_PENDING] = vals
        st.rerun()
    apply_sidebar(vals)


def apply_sidebar(vals: dict[str, Any] | None = None) -> None:
    """Apply sidebar values (or the pending ones ``set_sidebar(..., rerun=True)`` left)."""
    ss = st.session_state
    if vals is None:
        vals = ss.pop(_PENDING, None)
        if not vals:
            return
    for k, v in vals.items():
        ss[k] = v
    if "budget_value" in vals:
        ss["budget_preset"] = nearest_preset(float(vals["budget_value"]))
    ss["_prev_unit"] = ss.get("unit", DEFAULTS.unit)
    ss["_prev_distribution"] = ss.get("distribution", DEFAULTS.distribution)
    ss.pop("_unit_rule", None)


def nearest_preset(value: float) -> float:
    """The budget preset closest to ``value`` on a log scale (the smallest for a non-positive value)."""
    if not value > 0:
        return BUDGET_PRESETS[0]
    return min(BUDGET_PRESETS, key=lambda p: abs(math.log(p / value)))


def convert_unit(old: str, new: str, value: float, delta: float) -> tuple[float, str]:
    """The budget in unit ``new`` that matches ``value`` in unit ``old``, and the rule used.

    Rule: where the old guarantee implies one in the new unit, take the value it implies
    (ε-DP ⇒ ε²/2-zCDP; ρ-zCDP ⇒ (ε, δ)-DP by the Canonne–Kamath–Steinke bound; ε-DP ⇒ (ε, δ)-DP).
    Where nothing is implied (zCDP or (ε, δ) never imply pure ε-DP; (ε, δ) never implies zCDP), take
    the weakest budget in the new unit that implies the old one (ε = √(2ρ); the largest ρ whose CKS
    conversion is (ε, δ); the same ε). These are the conversions the app runs estimators by, and
    each pair is inverse to the other, so switching back and forth returns the first value.
    """
    if old == new or not value > 0:
        return value, ""
    if (old, new) == ("eps", "rho"):
        return pure_to_zcdp(
            value
        ), f"ρ = ε²/2 = {pure_to_zcdp(value):.4g} (what ε = {value:g}-DP implies)"
    if (old, new) == ("rho", "eps"):
        e = math.sqrt(2 * value)
        return e, (
            f"ε = √(2ρ) = {e:.4g}: the pure ε whose implied zCDP level is ρ = {value:g} (zCDP never "
            "implies pure ε-DP, so this ε-DP budget is the weakest that still meets the ρ one)"
        )
    if (old, new) == ("rho", "eps_delta"):
        e = zcdp_to_approx(value, delta, "cks")
        return (
            e,
            f"ε = {e:.4g} at δ = {delta:g}: what ρ = {value:g}-zCDP implies (Canonne–Kamath–Steinke bound)",
        )
    if (old, new) == ("eps_delta", "rho"):
        r = approx_to_zcdp(value, delta, "cks")
        return r, (
            f"ρ = {r:.4g}: the largest ρ whose guarantee implies (ε, δ) = ({value:g}, {delta:g}) "
            "(Canonne–Kamath–Steinke bound)"
        )
    if (old, new) == ("eps", "eps_delta"):
        return value, f"same ε = {value:g}: ε-DP implies (ε, δ)-DP for every δ"
    return value, (
        f"same ε = {value:g}: (ε, δ)-DP never implies pure ε-DP; ε-DP at the same ε is the weakest "
        "pure budget that meets it"
    )  # eps_delta -> eps
