"""The words of the Your data page that read its runs or its file: the cells that make a column
non-numeric, the plain box measured as the chart measures, and why estimators miss narrow columns
when the columns are in different units. Teaching only (the exploration is a simulation).

References: ``docs/architecture.md`` (Data flow).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from dpcore.experiments.plain import PlainWords, frame_words, number, plus_minus
from dpcore.figures.your_data import is_money
from dpcore.privacy import Budget

__all__ = ["box_words", "non_numeric_cells", "units_note"]


def non_numeric_cells(df: pd.DataFrame, shown: int = 3) -> tuple[str, ...]:
    """One line per mostly numeric column that a few cells made non-numeric, naming the column,
    the rows (counted from the first data row, the header not counted) and the values.

    Examples
    --------
    >>> non_numeric_cells(pd.DataFrame({"age": ["34", "forty", "29"], "city": ["a", "b", "c"]}))
    ("age: 1 non-numeric value (row 2: 'forty'); fix or blank it to use the column.",)
    """
    out = []
    for name in df.columns:
        col = df[name]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        given = col.dropna()
        given = given[given.astype(str).str.strip() != ""]
        bad = given[pd.to_numeric(given, errors="coerce").isna()]
        if given.empty or bad.empty or len(bad) * 2 > len(given):
            continue  # all numbers, or a text column
        cells = ", ".join(
            f"row {df.index.get_loc(i) + 1}: {str(v)!r}" for i, v in bad.iloc[:shown].items()
        )
        more = f" and {len(bad) - shown:,} more" if len(bad) > shown else ""
        s = "" if len(bad) == 1 else "s"
        out.append(
            f"{name}: {len(bad):,} non-numeric value{s} ({cells}{more}); fix or blank "
            f"{'it' if len(bad) == 1 else 'them'} to use the column."
        )
    return tuple(out)


def box_words(
    frame: pd.DataFrame, column: str | None, budget: Budget, delta: float, shift: float = 0.0
) -> PlainWords:
    """The plain box over the runs ``frame``, measured as the chart measures and ranks them
    (:func:`dpcore.experiments.studies.your_data.summary`), so it names the chart's winner:
    ``column`` None, each run's error as a share of each column's range (root mean square over
    columns) from the mean of the clipped data; else ``|estimate − clipped mean|`` in the
    column's units, and how far clipping moved the mean (``shift``) apart from the noise."""
    if column is None:
        share = (frame["error_clipped"] / frame["width"]) ** 2
        per_run = share.groupby([frame["estimator"], frame["run"]], sort=False).mean() ** 0.5
        rows = per_run.rename("error").reset_index()
        return frame_words(
            budget,
            rows,
            by="estimator",
            error="error",
            delta=delta,
            what="the column averages of the clipped data",
            distance=" (as a share of each column's range)",
        )
    rows = frame[frame["column"] == str(column)]
    if rows.empty:
        raise ValueError(f"no run estimated the column {column!r}; choose one of the columns run.")
    money = is_money(column)
    words = frame_words(
        budget,
        rows,
        by="estimator",
        error="error_clipped",
        delta=delta,
        what=f"the average {column} of the data clipped to your bounds",
        distance=" (in dollars)" if money else "",
    )
    # the bias and the noise in one unit and to one decimal place (the noise's), as the release
    # tables print a value and its ± ("$520" beside "± 756.9" read as two different units)
    bias, noise = plus_minus(abs(shift), words.typical_error, money)
    moved = (
        f" Clipping to your bounds moved the mean of {column} by {bias} (a bias no budget "
        f"removes); the noise adds about ±{noise}."
        if shift
        else f" No {column} value lies outside your bounds, so clipping did not move its mean; "
        f"the noise adds about ±{noise}."
    )
    first = words.sentences[0].rstrip()
    return replace(words, sentences=(first + moved, words.sentences[1]))


def units_note(frame: pd.DataFrame, bounds: tuple[list[float], list[float]]) -> str | None:
    """Why some estimators miss narrow columns by a large share of their range when the columns'
    ranges differ tenfold or more (columns in different units), and what to pick instead; None
    otherwise.

    An estimator's share of range per column is its median ``|estimate − clipped mean| / width``
    over the runs; one whose worst column is three times its best, and over 5% of that range,
    uses one scale for all columns (noise sized for the widest range lands on every column)."""
    lo, hi = (np.asarray(b, dtype=float) for b in bounds)
    width = hi - lo
    if width.size < 2 or width.max() < 10 * width.min():
        return None
    share = (
        (frame["error_clipped"].abs() / frame["width"])
        .groupby([frame["estimator"], frame["column"]], sort=False)
        .median()
        .unstack()
    )
    worst, best = share.max(axis=1), share.min(axis=1).clip(lower=1e-12)
    one_scale = worst[(worst > 3 * best) & (worst > 0.05)].sort_values(ascending=False)
    if one_scale.empty:
        return None
    narrow = str(share.columns[share.loc[one_scale.index[0]].argmax()])
    per_column = worst.drop(one_scale.index).nsmallest(3)
    pick = (
        "pick one that scales each column to its own range, here "
        + ", ".join(f"{e} (at most {100 * w:.2g}%)" for e, w in per_column.items())
        if len(per_column)
        else "average columns in different units separately"
    )
    return (
        f"**Columns in different units** (ranges from {number(width.min())} to "
        f"{number(width.max())}): "
        + ", ".join(
            f"{e} ({100 * w:,.0f}% of {narrow}'s range)" for e, w in one_scale.head(4).items()
        )
        + (f" and {len(one_scale) - 4} more" if len(one_scale) > 4 else "")
        + " use one scale for all columns, so the narrow columns get noise sized for the widest. "
        f"For columns in different units, {pick}."
    )
