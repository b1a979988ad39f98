"""Tables as the views hand them to the pages: cells to three significant figures, Compare's
ranking split by guarantee with its drawn columns, their headers and help.

Styling (the highlighted row, ``st.column_config``) stays with the pages (``pages/_tables.py``);
what a table holds, which rows are marked and what each column means is decided here, so a
notebook or a test gets the same tables without Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pandas as pd

from dpcore.experiments import FAILURE_MULTIPLE
from dpcore.figures.style import plain

__all__ = [
    "RANKING_COLUMNS",
    "REGRET_FORMATS",
    "Ranking",
    "rankings",
    "sig3",
]


def sig3(x: Any) -> str:
    """A number to three significant figures with thousands separators and no exponent for
    everyday sizes; a flag as yes or no; text is left as it is.

    Examples
    --------
    >>> sig3(0.91876), sig3(1.6028), sig3(12345.6), sig3(0.000123456), sig3(float("nan")), sig3("a")
    ('0.919', '1.6', '12,346', '0.000123', '—', 'a')
    >>> sig3(True), sig3(3)
    ('yes', '3')
    """
    if isinstance(x, bool | np.bool_):
        return "yes" if x else "no"
    if not isinstance(x, int | float | np.integer | np.floating):
        return str(x)
    v = float(x)
    if not math.isfinite(v):
        return "—" if math.isnan(v) else ("∞" if v > 0 else "-∞")
    # counts and large sums whole (plain would round 12,346 to 12,300), the rest as sentences say them
    return f"{v:,.0f}" if abs(v) >= 1000 else plain(v)


def _times(v: Any) -> str:
    return f"{sig3(v)}×"


#: How Compare's ranking prints its regrets ("1.23×").
REGRET_FORMATS = {"mean_regret": _times, "worst_regret": _times}

#: Compare's ranking as drawn: column -> (header, help), in the order drawn (the help of "rank"
#: names the guarantee: ``{guarantee}``).
RANKING_COLUMNS: dict[str, tuple[str, str]] = {
    "rank": ("#", "Rank within {guarantee} (1 = best)."),
    "label": ("estimator", ""),
    "mean_regret": (
        "typical regret",
        "Typical regret (× best): the geometric mean over the sweep's points of this estimator's "
        "median error divided by the smallest median error of a private estimator with the same "
        "guarantee at the same point (1 = best).",
    ),
    "worst_regret": ("worst", "Worst regret: the largest of those ratios over the points."),
    "won": (
        "points won",
        "Points of the sweep at which this estimator had the smallest median error of its "
        "guarantee, of all the points.",
    ),
    "failure_rate": (
        "far-off runs",
        f"The share of this estimator's runs, over the whole sweep, more than "
        f"{FAILURE_MULTIPLE:g}× its median at their point.",
    ),
    "side by side": (
        "side by side",
        "Open the Side by side page at this point, with this estimator's clipping region and "
        "noise shape next to the others'.",
    ),
}


@dataclass(frozen=True, eq=False)
class Ranking:
    """One guarantee's part of Compare's regret table, as the page draws it.

    Attributes
    ----------
    guarantee : str
        The guarantee (privacy notion and neighbouring relation) ranked here.
    sentence : str
        Who ranks first, in words.
    table : DataFrame
        The rows, with the side-by-side link per row, "won" as "k of n" and the far-off share as
        a percentage (the raw table is the view's ``table``).
    closest : tuple of bool
        One per row: the estimator the box above the ranking names (closest at the sidebar's point).
    columns : tuple of str
        The columns drawn, in order (:data:`RANKING_COLUMNS`).
    """

    guarantee: str
    sentence: str
    table: pd.DataFrame
    closest: tuple[bool, ...]
    columns: tuple[str, ...]


def rankings(
    table: pd.DataFrame,
    names: Mapping[str, str],
    point: Mapping[str, str],
    closest: str | None,
) -> tuple[Ranking, ...]:
    """Compare's regret ``table`` split by guarantee, each part ready to draw.

    Parameters
    ----------
    table : DataFrame
        :func:`dpcore.experiments.regret_table` of the sweep.
    names : mapping
        The config's estimator id -> registry name (an uploaded config may rename).
    point : mapping
        The Side by side page's query at the comparison's base point (without the estimator).
    closest : str or None
        The label of the estimator the plain-words box names.
    """
    out = []
    for g, part in table.groupby("guarantee", sort=False):
        top = part.iloc[0]
        sentence = (
            f"**{g}** — **{top['label']}** ranks first: typically {top['mean_regret']:.2f}× the "
            f"best median (at worst {top['worst_regret']:.2f}×), winning {int(top['wins'])} of "
            f"{int(top['settings'])} points."
        )
        links = [
            "side_by_side?" + urlencode({**point, "estimator": names.get(e, e)})
            for e in part["estimator"]
        ]
        # fits the page without a horizontal scroll: the guarantee heads this table (kept in the
        # data, not drawn), "points won" reads "4 of 5", the long names live in each column's help
        shown = part.assign(
            **{"side by side": links},
            won=[
                f"{int(w)} of {int(n)}" for w, n in zip(part["wins"], part["settings"], strict=True)
            ],
            failure_rate=[f"{v:.0%}" for v in part["failure_rate"]],
        )
        drawn = tuple(
            "won" if c == "wins" else c
            for c in shown.columns
            if c not in ("estimator", "guarantee", "settings", "won")
        )
        mask = tuple(bool(v) for v in (shown["label"] == closest))
        out.append(Ranking(str(g), sentence, shown, mask, drawn))
    return tuple(out)
