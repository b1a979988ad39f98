"""What the PLAN step-by-step pictures draw: a seeded subsample of the rows and their display-only
offsets (figures only draw; their random choices are made here)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore._validation import RngLike, as_generator


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
