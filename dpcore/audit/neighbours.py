"""Worst-case neighbouring data sets for an estimator's declared relation.

The pairs are tiny on purpose (a privacy guarantee must hold for every ``n``, and one row weighs
most when ``n`` is small) and put the rows at the ends of the public box, where clipping bites
least and a mean moves most:

* **replace-one** (``n`` public): ``D`` has ``n`` rows at the lower bound ``L``; ``D′`` replaces its
  last row by the upper bound ``U`` (and the mirror pair, rows at ``U`` with the last one at ``L``).
* **add-remove** (``n`` private): ``D`` has ``n`` rows at ``L``; ``D′`` adds one row at ``U``
  (the sum moves most), or one more row at ``L`` (the sum does not move at all, so any difference
  between the two outputs comes from ``n`` alone; this is the pair that exposes a mean divided by
  the true ``n``), and the mirror pair at ``U``.

For binary data ``L = 0`` and ``U = 1`` coordinate-wise (0/1 vectors); for real or bounded data
the rows sit at the corners of the public box ``[L, U]^d``.

References
----------
Jagielski, M., Ullman, J. and Oprea, A. "Auditing Differentially Private Machine Learning: How
Private is Private SGD?" NeurIPS 2020. Issue 11 ("One audit, in dpcore and in the app").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcore.estimate import EstimatorSpec

#: Smallest n tried for each estimator (an estimator may need more rows to run at all).
N_LADDER = (2, 3, 5, 10, 20, 50)


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring data sets ``D`` and ``D′`` under ``relation``.

    Attributes
    ----------
    key : str
        Short stable identifier (``"replace-low"``, ``"add-high"``, ...).
    label : str
        One line for the app ("2 rows at 0; D′ replaces the last by 1").
    x, x_prime : array, shape (n, d) and (n or n + 1, d)
        The data sets.
    relation : {"replace-one", "add-remove"}
        The relation under which they are neighbours.
    bounds : (float, float)
        The public box the rows sit in.
    """

    key: str
    label: str
    x: np.ndarray
    x_prime: np.ndarray
    relation: str
    bounds: tuple[float, float]

    def __post_init__(self) -> None:
        rows, rows_p = self.x.shape[0], self.x_prime.shape[0]
        if self.relation == "replace-one":
            if rows != rows_p or int(np.sum(np.any(self.x != self.x_prime, axis=1))) > 1:
                raise ValueError("a replace-one pair must differ in exactly one row.")
        elif self.relation == "add-remove":
            if abs(rows - rows_p) != 1:
                raise ValueError("an add-remove pair must differ by one row added or removed.")
        else:
            raise ValueError(
                f"relation must be 'replace-one' or 'add-remove'; got {self.relation!r}."
            )


def _fmt(v: float) -> str:
    return f"{v:g}"


def pairs_for(
    relation: str, *, n: int, d: int = 1, bounds: tuple[float, float] = (0.0, 1.0)
) -> list[NeighbourPair]:
    """The worst-case pairs for ``relation`` with ``n`` rows in ``d`` dimensions.

    Parameters
    ----------
    relation : {"replace-one", "add-remove"}
        The declared neighbouring relation.
    n : int
        Rows of ``D`` (``D′`` has ``n`` or ``n + 1``).
    d : int
        Dimension; every coordinate of the changed row moves to the other end of the box.
    bounds : (float, float)
        Public lower and upper bound, the same for every coordinate.

    Returns
    -------
    list of NeighbourPair

    Raises
    ------
    ValueError
        If ``n < 1``, ``d < 1``, the bounds are not ``lower < upper`` or the relation is unknown.
    """
    if int(n) < 1 or int(d) < 1:
        raise ValueError(f"n and d must be at least 1; got n = {n}, d = {d}.")
    lo, hi = float(bounds[0]), float(bounds[1])
    if not lo < hi:
        raise ValueError(f"bounds must satisfy lower < upper; got {bounds!r}.")
    n, d = int(n), int(d)
    low = np.full((n, d), lo)
    high = np.full((n, d), hi)
    row_lo, row_hi = np.full((1, d), lo), np.full((1, d), hi)
    b = (lo, hi)
    if relation == "replace-one":
        return [
            NeighbourPair(
                "replace-low",
                f"{n} rows at {_fmt(lo)}; D′ replaces the last by {_fmt(hi)}",
                low,
                np.vstack([low[:-1], row_hi]),
                relation,
                b,
            ),
            NeighbourPair(
                "replace-high",
                f"{n} rows at {_fmt(hi)}; D′ replaces the last by {_fmt(lo)}",
                high,
                np.vstack([high[:-1], row_lo]),
                relation,
                b,
            ),
        ]
    if relation == "add-remove":
        return [
            NeighbourPair(
                "add-high",
                f"{n} rows at {_fmt(lo)}; D′ adds a row at {_fmt(hi)}",
                low,
                np.vstack([low, row_hi]),
                relation,
                b,
            ),
            NeighbourPair(
                "add-same",
                f"{n} rows at {_fmt(lo)}; D′ adds one more at {_fmt(lo)} (only n changes)",
                low,
                np.vstack([low, row_lo]),
                relation,
                b,
            ),
            NeighbourPair(
                "add-low",
                f"{n} rows at {_fmt(hi)}; D′ adds a row at {_fmt(lo)}",
                high,
                np.vstack([high, row_lo]),
                relation,
                b,
            ),
        ]
    raise ValueError(f"relation must be 'replace-one' or 'add-remove'; got {relation!r}.")


def audit_dimension(spec: EstimatorSpec) -> int:
    """Dimension used for ``spec``: 2 for binary-only estimators (0/1 vectors), else 1."""
    return 2 if spec.data_kinds == frozenset({"binary"}) else 1
