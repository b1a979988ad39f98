"""What the PLAN step-by-step pictures draw: the runs of PLAN and its two baselines through the
registry (:func:`plan_run`, :func:`baseline_runs`), a seeded subsample of the rows and their
display-only offsets (figures only draw; their random choices are made here)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from dpcore._validation import RngLike, as_generator
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.privacy import Budget
from dpcore.registry import get
from dpcore.streams import Streams

#: The registered PLAN entry for each source of the variances the page offers.
PLAN_ENTRIES = {"private": "plan", "oracle": "plan_oracle", "binary": "plan_l1"}
#: The baselines the page draws beside PLAN, at the same budget.
BASELINES = ("iome_paper", "gaussian_private")


def plan_entry(variances: str, p: float) -> EstimatorSpec:
    """The registered PLAN entry for ``variances`` (``"private"``, ``"oracle"`` or ``"binary"``),
    targeting the ℓp error: the entry itself when its ``p`` is ``p``, else the same stages with
    that ``p`` (``dataclasses.replace`` on its spec).

    >>> plan_entry("private", 2.0).name, plan_entry("private", 1.0).func.p
    ('plan', 1.0)
    """
    if variances not in PLAN_ENTRIES:
        raise ValueError(f"variances must be one of {sorted(PLAN_ENTRIES)}; got {variances!r}.")
    spec = get(PLAN_ENTRIES[variances])
    func: Any = spec.func
    if float(func.p) == float(p):
        return spec
    return dataclasses.replace(spec, func=dataclasses.replace(func, p=float(p)))


def plan_run(
    data: Any, budget: Budget, *, variances: str, p: float, exponent: float, rng: RngLike
) -> Estimate:
    """One run of PLAN (:func:`plan_entry`) on ``data`` at ``budget`` with the scaling exponent
    ``exponent`` (``s = sigma^^(-2 exponent)``; PLAN's own is ``1/(p+2)``)."""
    return plan_entry(variances, p).run(data, budget, rng=rng, scale_exponent=float(exponent))


def baseline_runs(
    data: Any, budget: Budget, *, rng: RngLike = None, streams: Streams | None = None
) -> tuple[Estimate, ...]:
    """One run of each of :data:`BASELINES` (IOME, the Gaussian mechanism) at ``budget``.

    With ``streams`` (a view's :class:`dpcore.streams.Streams`) each baseline draws from its own
    stream ``"noise:<name>"``; otherwise each starts from ``rng`` as given (an integer seeds both
    alike).
    """
    return tuple(
        get(name).run(data, budget, rng=rng if streams is None else streams.rng("noise:" + name))
        for name in BASELINES
    )


def subsample(n: int, max_points: int, rng: RngLike = 0) -> np.ndarray:
    """Sorted row indices of a seeded uniform subsample of at most ``max_points`` rows (all if
    ``n`` fits).

    >>> subsample(5, 10).tolist()
    [0, 1, 2, 3, 4]
    """
    if max_points < 1:
        raise ValueError(f"max_points must be >= 1; got {max_points!r}.")
    if n <= max_points:
        return np.arange(n)
    return np.sort(as_generator(rng).choice(n, size=max_points, replace=False))


def display_sample(
    n: int,
    *,
    max_points: int = 2000,
    one_d: bool = False,
    jitter: float = 0.0,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """The rows a scatter picture draws and their display-only offsets, for
    :func:`dpcore.figures.plan.plan_steps_figure` (``sample=``).

    From ``rng``, in this order: the seeded uniform subsample (:func:`subsample`), the 1-D heights
    (``one_d``: the meaningless vertical axis, uniform on [-1, 1]) and the display jitter (uniform
    on ``[-jitter, jitter]`` in units of each panel's spread, so that discrete rows on a few corners
    do not hide one another). Nothing here touches the data's values: a figure draws the exact
    positions and moves only the shown markers.

    Returns
    -------
    DataFrame
        One row per drawn data row: ``row`` (index into the data), ``height`` (NaN in 2-D),
        ``dx``, ``dy`` (0 without jitter).
    """
    g = as_generator(rng)
    rows = subsample(n, max_points, g)
    heights = g.uniform(-1.0, 1.0, rows.size) if one_d else np.full(rows.size, np.nan)
    offsets = (
        g.uniform(-1.0, 1.0, (rows.size, 2)) * float(jitter) if jitter else np.zeros((rows.size, 2))
    )
    return pd.DataFrame({"row": rows, "height": heights, "dx": offsets[:, 0], "dy": offsets[:, 1]})
