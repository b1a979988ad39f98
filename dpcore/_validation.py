"""Input checks shared by every dpcore function.

Each check raises a ``ValueError`` that names the argument and says how to fix it, so the app can
show the message as it is (docs/architecture.md, "Bad input gets a clear message").
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from dpcore import _kernels, limits

RngLike = None | int | np.random.Generator | np.random.SeedSequence


class PrivacyLeakWarning(UserWarning):
    """Bounds or other parameters were read off the private data itself (as in diffprivlib)."""


def as_generator(rng: RngLike) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` following ``default_rng`` semantics (SPEC 7)."""
    if type(rng) is np.random.Generator:  # default_rng returns it unaltered
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise ValueError("rng must be None, an int seed or a numpy Generator, not a bool.")
    if isinstance(rng, (int, np.integer)) and rng < 0:
        raise ValueError(f"rng seed must be a non-negative integer, got {rng}.")
    try:
        return np.random.default_rng(rng)
    except TypeError as err:
        raise ValueError(
            "rng must be None, a non-negative int seed or a numpy.random.Generator; "
            f"got {type(rng).__name__}."
        ) from err


def spawn_generators(rng: RngLike, k: int) -> list[np.random.Generator]:
    """``k`` independent child generators of ``rng`` (SPEC 7): a Generator spawns its own children,
    so two calls with ``default_rng(0)`` give the same streams; an int or ``None`` seeds a
    ``SeedSequence`` and spawns from it (the same children as ``SeedSequence(seed).spawn(k)``)."""
    if isinstance(rng, np.random.Generator):
        return rng.spawn(k)
    as_generator(rng)  # validates the seed with the usual message
    seq = rng if isinstance(rng, np.random.SeedSequence) else np.random.SeedSequence(rng)
    return [np.random.default_rng(c) for c in seq.spawn(k)]


def check_data(
    x: Any, *, name: str = "x", ndim: int | None = None, min_rows: int = 1
) -> np.ndarray:
    """Return ``x`` as a float array after checking shape and finiteness.

    ``ndim=None`` accepts 1-D (n values) or 2-D (n rows by d columns) input.
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be numeric; convert it to a float array first.") from err
    if ndim is not None and arr.ndim != ndim:
        shape = "a 1-D array of n values" if ndim == 1 else "a 2-D array of n rows by d columns"
        raise ValueError(f"{name} must be {shape}; got an array of shape {arr.shape}.")
    if arr.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be 1-D (n values) or 2-D (n rows by d columns); got shape {arr.shape}."
        )
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} needs at least {min_rows} rows; got {arr.shape[0]}.")
    if arr.ndim == 2 and arr.shape[1] < 1:
        raise ValueError(f"{name} needs at least one column; got shape {arr.shape}.")
    top = _largest_magnitude(arr)
    if not np.isfinite(top):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); drop or impute them before estimating."
        )
    if top > limits.MAX_ABS_VALUE:
        raise ValueError(
            f"{name} has values as large as {top:.3g} in magnitude, above the limit of "
            f"{limits.MAX_ABS_VALUE:g} (dpcore.limits: squares and sums would overflow); "
            "rescale the data (change its units) first."
        )
    return arr


def _largest_magnitude(arr: np.ndarray) -> float:
    """``max(arr.max(), -arr.min())`` (``0.0`` for an empty array): NaN or infinite when a value
    is, so an infinity, a NaN or a value beyond ``MAX_ABS_VALUE`` shows in it.

    Large contiguous arrays take it in one read (:func:`dpcore._kernels.max_magnitude_bits`, the
    same float); the rest in numpy's two passes without an n*d temporary."""
    if not arr.size:
        return 0.0
    if _kernels.use_kernels(arr) and (arr.flags.c_contiguous or arr.flags.f_contiguous):
        bits = _kernels.max_magnitude_bits(arr.ravel(order="K").view(np.int64))
        return float(np.int64(bits).view(np.float64))
    return max(float(arr.max()), -float(arr.min()))


def check_positive(value: Any, name: str, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float after checking that it is finite and > 0."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(f"{name} must be a positive finite number; got {_show(value)}.") from err
    if math.isnan(v) or v <= 0 or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}.")
    return v


def check_probability(value: Any, name: str, *, open_interval: bool = True) -> float:
    """Return ``value`` as a float in (0, 1) (or [0, 1] when ``open_interval`` is False)."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(f"{name} must be a number between 0 and 1; got {_show(value)}.") from err
    ok = (0 < v < 1) if open_interval else (0 <= v <= 1)
    if not ok:
        kind = "strictly between 0 and 1" if open_interval else "between 0 and 1"
        raise ValueError(f"{name} must be {kind}; got {value!r}.")
    return v


def _show(value: Any) -> str:
    """``repr(value)`` cut to 60 characters (an integer beyond float range is named as such)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**308:
        return "an integer beyond the float range"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    open_low: bool = False,
    open_high: bool = False,
    hint: str = "",
) -> float:
    """``value`` as a finite float in ``[low, high]`` (ends excluded when ``open_low`` /
    ``open_high``), else a ``ValueError`` naming ``name``, the range and ``hint`` (what to pass).

    Strings, containers, NaN, infinities and integers beyond float range are refused; ``True`` and
    ``False`` are refused too (a flag is not a number).

    Examples
    --------
    >>> check_real(0.25, "share", low=0.0, high=1.0)
    0.25
    >>> try:
    ...     check_real(float("nan"), "share", low=0.0, high=1.0)
    ... except ValueError as err:
    ...     print(err)
    share must be a finite number in [0, 1]; got nan.
    """
    lo_sym, hi_sym = ("(" if open_low else "["), (")" if open_high else "]")
    where = (
        ""
        if low is None and high is None
        else f" in {lo_sym}{'-inf' if low is None else f'{low:g}'}, "
        f"{'inf' if high is None else f'{high:g}'}{hi_sym}"
    )
    message = f"{name} must be a finite number{where}"
    try:
        if isinstance(value, bool | np.bool_ | str | bytes):
            raise TypeError(name)
        v = float(value)
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(f"{message}; got {_show(value)}.{hint and ' ' + hint}") from err
    bad = (
        not np.isfinite(v)
        or (low is not None and (v < low or (open_low and v == low)))
        or (high is not None and (v > high or (open_high and v == high)))
    )
    if bad:
        raise ValueError(f"{message}; got {_show(value)}.{hint and ' ' + hint}")
    return v


def check_flag(value: Any, name: str) -> bool:
    """``value`` as a flag: ``True`` or ``False`` (Python's or NumPy's); anything else (NaN,
    ``1.0``, ``"yes"``) is a ``ValueError`` naming the flag (read by truthiness, NaN or ``"no"``
    would run as ``True``).

    >>> check_flag(np.True_, "clip")
    True
    >>> try:
    ...     check_flag(float("nan"), "clip")
    ... except ValueError as err:
    ...     print(err)
    clip must be True or False; got nan.
    """
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False; got {_show(value)}.")
    return bool(value)


#: Whole numbers beyond this are refused by :func:`check_int` (counts and sizes never reach it).
MAX_WHOLE = 2**62


def check_work_param(value: Any, name: str) -> int:
    """A public parameter of :data:`dpcore.limits.WORK_PARAMS` (``steps``, ``pairs_per_group``)
    as a whole number from 1 to its limit, else a ``ValueError`` naming the limit.

    >>> check_work_param(20, "steps")
    20
    """
    limit = limits.WORK_PARAMS[name]
    return check_int(
        value,
        name,
        minimum=1,
        maximum=getattr(limits, limit),
        hint=limits.limit_hint(limit),
    )


def check_int(
    value: Any,
    name: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    hint: str = "",
) -> int:
    """``value`` as an ``int`` in ``[minimum, maximum]`` (a float is truncated as ``int()`` does),
    else a ``ValueError`` naming ``name`` and the range.

    Examples
    --------
    >>> check_int(5.0, "k", minimum=1)
    5
    >>> try:
    ...     check_int(float("inf"), "k", minimum=1)
    ... except ValueError as err:
    ...     print(err)
    k must be a whole number >= 1; got inf.
    """
    parts = [
        f">= {minimum}" if minimum is not None else "",
        f"<= {maximum}" if maximum is not None else "",
    ]
    where = " and ".join(p for p in parts if p)
    message = f"{name} must be a whole number{' ' + where if where else ''}"
    try:
        if isinstance(value, bool | np.bool_ | str | bytes):
            raise TypeError(name)
        v = int(value)
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(f"{message}; got {_show(value)}.{hint and ' ' + hint}") from err
    if (
        (minimum is not None and v < minimum)
        or (maximum is not None and v > maximum)
        or abs(v) > MAX_WHOLE
    ):
        raise ValueError(f"{message}; got {_show(value)}.{hint and ' ' + hint}")
    return v


def check_option(
    value: Any,
    name: str,
    choices: tuple[str, ...],
    *,
    low: float | None = None,
    open_low: bool = False,
) -> str | float:
    """``value`` when it is one of the strings ``choices``; else, when ``low`` is given, a finite
    number above it (:func:`check_real`); else a ``ValueError`` naming ``name`` and what to pass.

    Examples
    --------
    >>> check_option("plan", "rank_slack_kind", ("plan", "error_only"), low=0.0)
    'plan'
    >>> check_option(3, "rank_slack_kind", ("plan", "error_only"), low=0.0)
    3.0
    """
    if isinstance(value, str) and value in choices:
        return value
    listed = ", ".join(repr(c) for c in choices)
    if low is None or isinstance(value, str):
        extra = "" if low is None else f" or a number {'>' if open_low else '>='} {low:g}"
        raise ValueError(f"{name} must be one of {listed}{extra}; got {_show(value)}.")
    return check_real(value, name, low=low, open_low=open_low, hint=f"Or one of {listed}.")


def check_vector(value: Any, name: str, d: int) -> np.ndarray:
    """``value`` (a number or a length-``d`` sequence) as a float array of shape ``(d,)``, else a
    ``ValueError`` naming ``name`` and the shape to pass; finiteness is the caller's to check.

    Examples
    --------
    >>> check_vector(2, "sigma", 3)
    array([2., 2., 2.])
    """
    try:
        return np.broadcast_to(np.asarray(value, dtype=float), (d,)).copy()
    except (TypeError, ValueError, OverflowError) as err:
        raise ValueError(
            f"{name} must be a number or an array of {d} numbers (one per coordinate); "
            f"got {_show(value)}."
        ) from err


def check_fractions(value: Any, name: str, keys: Any) -> dict[str, float] | None:
    """``value`` as ``{key: finite float}`` with keys among ``keys`` (``None`` passes through);
    the caller checks what the fractions must add up to.

    Examples
    --------
    >>> check_fractions({"a": 0.5, "b": 0.5}, "split", ("a", "b"))
    {'a': 0.5, 'b': 0.5}
    """
    if value is None:
        return None
    allowed = list(keys)
    if not isinstance(value, Mapping):
        raise ValueError(
            f"{name} must be a dict of stage name to share, with names among {allowed}; "
            f"got {_show(value)}."
        )
    out = {}
    for key, share in value.items():
        if key not in allowed:
            raise ValueError(
                f"{name} has an unknown stage {_show(key)}; use names among {allowed}."
            )
        out[key] = check_real(share, f"{name}[{key!r}]", low=0.0, high=1.0)
    return out


def check_bounds(
    bounds: Any, d: int | None = None, *, name: str = "bounds"
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(lower, upper)`` as float arrays broadcast to length ``d`` (or scalars as 0-d arrays).

    Raises a ``ValueError`` for a missing, non-finite or inverted range.
    """
    if bounds is None:
        raise ValueError(
            f"{name} is required: pass public bounds=(lower, upper) known before seeing the data."
        )
    try:
        lower, upper = bounds
        lo = np.asarray(lower, dtype=float)
        hi = np.asarray(upper, dtype=float)
    except OverflowError as err:  # a Python int beyond float range
        raise ValueError(
            f"{name} must be finite numbers within ±{limits.MAX_ABS_VALUE:g}; got a number beyond "
            "the float range."
        ) from err
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a pair (lower, upper) of numbers or arrays.") from err
    if d is not None:
        try:
            lo = np.broadcast_to(lo, (d,)).astype(float)
            hi = np.broadcast_to(hi, (d,)).astype(float)
        except ValueError as err:
            raise ValueError(
                f"{name} must be scalars or arrays of length d={d}; got shapes {lo.shape} and {hi.shape}."
            ) from err
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        raise ValueError(f"{name} must be finite numbers.")
    if (hi <= lo).any():
        raise ValueError(
            f"{name} are inverted or empty: each lower bound must be below its upper bound."
        )
    check_width(lo, hi, name)
    return lo, hi


def check_width(lo: Any, hi: Any, name: str = "bounds") -> None:
    """Reject a range whose ends, width or squared width would overflow or underflow.

    The limits (:data:`dpcore.limits.MAX_ABS_VALUE`, ``MAX_BOUND_WIDTH``, ``MIN_BOUND_WIDTH``) keep
    every sensitivity, its square (a Gaussian variance) and sums of ``MAX_CELLS`` clipped values
    finite and nonzero.
    """
    lo_, hi_ = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    top = float(max(np.abs(lo_).max(), np.abs(hi_).max()))
    if top > limits.MAX_ABS_VALUE:
        raise ValueError(
            f"{name} reach {top:.3g} in magnitude, above the limit of {limits.MAX_ABS_VALUE:g} "
            "(dpcore.limits: squared widths would overflow); rescale the data and its bounds."
        )
    width = hi_ - lo_
    if (width < limits.MIN_BOUND_WIDTH).any():
        raise ValueError(
            f"{name} are narrower than {limits.MIN_BOUND_WIDTH:g} (dpcore.limits; smallest width "
            f"{float(np.min(width)):.3g}); rescale the data and its bounds."
        )


def warn_bounds_from_data(what: str = "bounds") -> None:
    """Warn that a parameter was read off the private data (a privacy leak)."""
    warnings.warn(
        f"{what} were computed from the data itself; this leaks private information. "
        "Pass bounds known in advance, or estimate them privately with part of the budget.",
        PrivacyLeakWarning,
        stacklevel=3,
    )
