"""Every size and range limit of dpmean lab, stated in one place.

The library, the command line and the app enforce these with the same checks (the functions
below), so a visitor gets the same clear ``ValueError`` everywhere, and no single request can
exhaust the server's memory or a core. ``.streamlit/config.toml`` mirrors :data:`MAX_UPLOAD_MB`
(a test checks that the two agree).

Budget limits: ``epsilon`` and ``rho`` lie in ``[MIN_BUDGET, MAX_EPSILON]`` and
``[MIN_BUDGET, MAX_RHO]``; ``delta`` in ``[MIN_DELTA, 1)``. Outside them the conversions between
notions overflow or lose all precision (``exp(epsilon)`` overflows above ~709; ``epsilon**2/2``
overflows above ~1.3e154; a ``delta`` below ~1e-308 is subnormal), and no release is meaningful
there anyway: ``epsilon = 1000`` already makes any outcome up to ``e**1000`` times likelier.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Largest number of rows of one dataset (generated or uploaded).
MAX_N = 200_000
#: Largest number of columns (generated data; a Walsh-Hadamard rotation pads to a power of two).
MAX_D = 4096
#: Largest ``n * d`` of one dataset: 24 M floats = 192 MB per copy (the PLAN paper's largest
#: workload, Gaussian C at n = 10,000, d = 2048 = 20.5 M values, fits; was 16 M, which refused it).
MAX_CELLS = 24_000_000
#: Largest ``n * d`` on the interactive pages (each page caches a few datasets per visitor:
#: 2 M floats = 16 MB per copy). Larger runs belong to the command line.
MAX_APP_CELLS = 2_000_000
#: Largest number of repetitions of one experiment setting.
MAX_REPETITIONS = 10_000
#: Repetitions per point the Compare page offers (its slider); every preset fits in it.
APP_REPETITIONS = (2, 50)
#: Largest number of points of an experiment's sweep grid (the product of the sweep lengths).
MAX_GRID = 400
#: Largest number of estimators in one experiment config.
MAX_ESTIMATORS = 64
#: Largest number of tasks of one experiment (grid points × estimators × repetitions): each task
#: keeps one result row and its ledger (a few kB), so the count bounds memory even when ``n · d``
#: is tiny and :data:`MAX_WORK` is far away.
MAX_TASKS = 500_000
#: Largest number of tasks of one comparison on the Compare page (every preset grid with every
#: applicable estimator at the slider's 50 repetitions fits; about 200 MB of rows at most).
APP_TASKS = 40_000
#: Largest total work of one experiment: sum over the grid of repetitions * n * d * estimators.
MAX_WORK = 20_000_000_000
#: Largest upload the app accepts, in MB (``server.maxUploadSize`` in ``.streamlit/config.toml``).
MAX_UPLOAD_MB = 20
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024
#: Largest number of rows and columns of an uploaded CSV.
MAX_UPLOAD_ROWS = 200_000
MAX_COLUMNS = 512
#: Longest line of an uploaded CSV with quotes that is parsed to count its fields (a longer one
#: with more separators than :data:`MAX_COLUMNS` is refused unparsed).
MAX_LINE_CHARS = 1_000_000
#: Largest experiment config (JSON text) accepted, in characters.
MAX_CONFIG_CHARS = 200_000
#: Largest nesting depth of an uploaded JSON experiment config.
MAX_JSON_DEPTH = 8

#: Budget ranges (see the module docstring for why).
MIN_BUDGET = 1e-12
MAX_EPSILON = 100.0
MAX_RHO = 5000.0
MIN_DELTA = 1e-100
#: Largest noise scale (in rows) of a noisy count that resizes data (``resize_*``; the imputed
#: rows are summed in O(d), but the count must still fit an int64 and mean something).
MAX_COUNT_NOISE_SCALE = 1e12
#: Smallest budget (ε or ρ) of one OpenDP peer call (``peer_opendp_*``): below it OpenDP's own
#: scale search (``binary_search_param`` and its privacy map, once per coordinate) took minutes
#: (ρ = 1e-12 at d = 64: 106 s on a loaded machine), and no release at it says anything.
MIN_PEER_BUDGET = 1e-6
#: Largest number of steps of the iterative estimators (IOME's and PLAN's searches, the private
#: Gaussian's radius search: ``steps``); their defaults are 10-20. Each step is a pass over the
#: data, and ``steps`` sized arrays are kept: ``steps=10**9`` asked for 14.9 GiB.
MAX_STEPS = 1000
#: Largest number of disjoint pairs per group of PLAN's variance step (``pairs_per_group``);
#: a run also needs at least ``2 * pairs_per_group`` rows.
MAX_PAIRS_PER_GROUP = MAX_N // 2
#: The iterative estimators' usual number of steps: a run with more does ``steps / DEFAULT_STEPS``
#: times the work of one at the default (:func:`work_factor`).
DEFAULT_STEPS = 20
#: Longest predicted run of one comparison on the interactive pages, in seconds
#: (:func:`dpcore.experiments.cost.estimate_seconds`): every preset at 50 repetitions is under
#: 60 s, and every applicable estimator at the page's largest n · d, 50 repetitions and five
#: sweep points about 700 s; larger configs belong to ``python -m dpcore.experiments``.
MAX_APP_SECONDS = 1200.0
#: Largest magnitude of a data value or a bound: squares of widths summed over ``MAX_D``
#: coordinates, divided by the smallest budget, and sums of ``MAX_CELLS`` squared values all stay
#: finite (1e100**2 * 8e6 / 1e-12 < 1e308).
MAX_ABS_VALUE = 1e100
#: Smallest width ``upper - lower`` of public bounds (its square stays a normal double).
MIN_BOUND_WIDTH = 1e-100


def check_int(value: Any, name: str, lo: int, hi: int) -> int:
    """Return ``value`` as an int in ``[lo, hi]``, or raise a ``ValueError`` naming the limit."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if (
            isinstance(value, float | np.floating)
            and math.isfinite(value)
            and float(value).is_integer()
        ):
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer between {lo:,} and {hi:,}; got {value!r}.")
    if not lo <= value <= hi:
        raise ValueError(
            f"{name} = {value:,} is too {'large' if value > hi else 'small'}: {name} must be between "
            f"{lo:,} and {hi:,} (dpmean lab's limits are in dpcore.limits)."
        )
    return int(value)


def limit_hint(name: str) -> str:
    """The sentence that names a limit of this module, for a refusal's message.

    >>> limit_hint("MAX_STEPS")
    'The limit is dpcore.limits.MAX_STEPS = 1,000.'
    """
    return f"The limit is dpcore.limits.{name} = {globals()[name]:,}."


#: The public estimator parameters that scale a run's work, and the limit of each.
WORK_PARAMS = {"steps": "MAX_STEPS", "pairs_per_group": "MAX_PAIRS_PER_GROUP"}


def check_work_params(params: Mapping[str, Any]) -> None:
    """Refuse a parameter of :data:`WORK_PARAMS` above its limit (or not a whole number >= 1)
    before anything runs, naming the limit.

    >>> check_work_params({"steps": 10**9})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: steps = 1000000000 is refused: ... The limit is dpcore.limits.MAX_STEPS = 1,000.
    """
    for key, limit in WORK_PARAMS.items():
        if key not in params:
            continue
        value, top = params[key], globals()[limit]
        ok = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
        if not (ok and 1 <= value <= top):
            raise ValueError(
                f"{key} = {value!r:.40} is refused: {key} must be a whole number from 1 to "
                f"{top:,}. {limit_hint(limit)}"
            )


def work_factor(params: Mapping[str, Any] | None) -> float:
    """How many times the work of a run at the default steps a run with ``params`` does
    (``steps / DEFAULT_STEPS`` above the default, else 1).

    >>> work_factor({"steps": 200}), work_factor({}), work_factor(None)
    (10.0, 1.0, 1.0)
    """
    steps = (params or {}).get("steps")
    if isinstance(steps, bool) or not isinstance(steps, int | float | np.integer):
        return 1.0
    return max(1.0, float(steps) / DEFAULT_STEPS)


def check_size(n: int, d: int) -> tuple[int, int]:
    """Check ``n``, ``d`` and ``n * d`` against :data:`MAX_N`, :data:`MAX_D`, :data:`MAX_CELLS`."""
    n = check_int(n, "n", 2, MAX_N)
    d = check_int(d, "d", 1, MAX_D)
    if n * d > MAX_CELLS:
        raise ValueError(
            f"n * d = {n * d:,} is too large: above the limit of {MAX_CELLS:,} values; "
            f"use at most n = {MAX_CELLS // d:,} rows at d = {d}."
        )
    return n, d


def check_repetitions(reps: Any) -> int:
    """Check a number of repetitions against :data:`MAX_REPETITIONS`."""
    return check_int(reps, "repetitions", 1, MAX_REPETITIONS)


def check_tasks(points: int, estimators: int, repetitions: int, cap: int = MAX_TASKS) -> int:
    """Check ``points × estimators × repetitions`` against ``cap`` (:data:`MAX_TASKS`).

    >>> check_tasks(20, 4, 10)
    800
    >>> check_tasks(400, 64, 50)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the config asks for 1,280,000 runs (400 sweep points × 64 estimators × ...
    """
    tasks = int(points) * int(estimators) * int(repetitions)
    if tasks > cap:
        raise ValueError(
            f"the config asks for {tasks:,} runs ({points:,} sweep points × {estimators:,} "
            f"estimators × {repetitions:,} repetitions); the limit is {cap:,} (dpcore.limits). "
            "Sweep fewer points, or use fewer estimators or repetitions."
        )
    return tasks


_CONTROL = frozenset(
    [chr(c) for c in range(32)] + [chr(c) for c in range(0x7F, 0xA0)] + ["\u2028", "\u2029"]
)


def check_text(value: Any, name: str, max_chars: int = 200) -> str:
    """``value`` as a one-line name: a string of at most ``max_chars`` characters without control
    characters (line breaks, tabs, NUL, C1 controls), which would split CSV rows or hide text.

    >>> check_text("PLAN (tuned)", "id")
    'PLAN (tuned)'
    >>> check_text("a\\rb", "id")
    Traceback (most recent call last):
    ...
    ValueError: id must be one line of printable text; got 'a\\rb' (a control character at position 1).
    """
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string; got {value!r:.80}.")
    if len(value) > max_chars:
        raise ValueError(f"{name} has {len(value):,} characters; the limit is {max_chars:,}.")
    for i, ch in enumerate(value):
        if ch in _CONTROL:
            raise ValueError(
                f"{name} must be one line of printable text; got {value!r:.80} "
                f"(a control character at position {i})."
            )
    return value


def clamp(value: float, lo: float, hi: float) -> float:
    """``value`` clipped into ``[lo, hi]`` (for widgets that must show a valid value)."""
    return min(max(value, lo), hi)
