"""Worst-case neighbouring data sets for an estimator's declared relation, on a grid of n, d and boxes.

A privacy guarantee must hold for every pair of neighbours, every ``n``, every ``d`` and every
public box, so the audit tries a grid of them (:func:`pair_grid`). In each pair the changed row
moves **every coordinate** from one end of the box to the other, where clipping bites least and the
release moves most:

* **replace-one** (``n`` public): ``D`` has ``n`` rows at the lower corner ``L``; ``D′`` replaces
  its last row by the upper corner ``U`` (``"replace-low"``), the mirror pair (``"replace-high"``),
  and ``D′`` replacing the last row by a row **outside the box**, ten box widths from ``L``
  (``"replace-outside"``): an estimator that clamps treats it as ``U``, one that forgets to clamp
  moves ten times as far.
* **add-remove** (``n`` private): ``D`` has ``n`` rows at ``L``; ``D′`` adds one row at ``U``
  (``"add-high"``), one more at ``L`` (``"add-same"``: the sum does not move, only ``n`` does, which
  exposes a mean divided by the true ``n``), one outside the box (``"add-outside"``), and the mirror
  pair at ``U`` (``"add-low"``).

The ``n`` ladder (``n0``, 20, 200) catches code paths that change with ``n`` (an estimator that
releases the exact mean once ``n >= 20`` is private on two rows only); ``d`` in {1, 4, 16} with every
coordinate moved catches a budget that is not split over coordinates; a box other than ``[0, 1]``
catches constants that assume the unit box. For binary data the rows are 0/1 vectors, the box is
``[0, 1]`` and there is no outside row.

References
----------
Jagielski, M., Ullman, J. and Oprea, A. "Auditing Differentially Private Machine Learning: How
Private is Private SGD?" NeurIPS 2020.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpcore.estimate import EstimatorSpec

#: Smallest n tried for each estimator (an estimator may need more rows to run at all).
N_LADDER = (2, 3, 5, 10, 20, 50)
#: The n ladder above the smallest n, and the dimensions and boxes of the default grid.
GRID_N = (20, 200)
GRID_D = (1, 4, 16)
UNIT_BOX = (0.0, 1.0)
OTHER_BOX = (-2.0, 3.0)
#: How far outside the box the "outside" row sits, in box widths from the lower corner.
OUTSIDE_WIDTHS = 10.0


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring data sets ``D`` and ``D′`` under ``relation``.

    Attributes
    ----------
    key : str
        Short stable identifier of the kind of pair (``"replace-low"``, ``"add-outside"``, ...).
    label : str
        One line for the app ("2 rows at 0 in d = 1; D′ replaces the last by 1").
    x, x_prime : array, shape (n, d) and (n or n + 1, d)
        The data sets.
    relation : {"replace-one", "add-remove"}
        The relation under which they are neighbours.
    bounds : (float, float)
        The public box the rows sit in (the outside row excepted).
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

    @property
    def n(self) -> int:
        return int(self.x.shape[0])

    @property
    def d(self) -> int:
        return int(self.x.shape[1])

    @property
    def cell(self) -> str:
        """Where on the grid: ``"n=20, d=4, box [0, 1]"``."""
        lo, hi = self.bounds
        return f"n={self.n}, d={self.d}, box [{lo:g}, {hi:g}]"


def _fmt(v: float) -> str:
    return f"{v:g}"


def pairs_for(
    relation: str,
    *,
    n: int,
    d: int = 1,
    bounds: tuple[float, float] = UNIT_BOX,
    outside: bool = True,
) -> list[NeighbourPair]:
    """The worst-case pairs for ``relation`` with ``n`` rows in ``d`` dimensions.

    Parameters
    ----------
    relation : {"replace-one", "add-remove"}
        The declared neighbouring relation.
    n : int
        Rows of ``D`` (``D′`` has ``n`` or ``n + 1``).
    d : int
        Dimension; every coordinate of the changed row moves.
    bounds : (float, float)
        Public lower and upper bound, the same for every coordinate.
    outside : bool
        Include the pair whose changed row lies outside the box (not for binary data).

    Returns
    -------
    list of NeighbourPair

    Raises
    ------
    ValueError
        If ``n < 1``, ``d < 1``, the bounds are not ``lower < upper`` or the relation is unknown.

    Examples
    --------
    >>> [p.key for p in pairs_for("replace-one", n=2)]
    ['replace-low', 'replace-high', 'replace-outside']
    """
    if int(n) < 1 or int(d) < 1:
        raise ValueError(f"n and d must be at least 1; got n = {n}, d = {d}.")
    lo, hi = float(bounds[0]), float(bounds[1])
    if not lo < hi:
        raise ValueError(f"bounds must satisfy lower < upper; got {bounds!r}.")
    if relation not in ("replace-one", "add-remove"):
        raise ValueError(f"relation must be 'replace-one' or 'add-remove'; got {relation!r}.")
    n, d = int(n), int(d)
    far = lo + OUTSIDE_WIDTHS * (hi - lo)
    low, high = np.full((n, d), lo), np.full((n, d), hi)
    row = {v: np.full((1, d), v) for v in (lo, hi, far)}
    where = f"{n} rows at {_fmt(lo)} in d = {d}"
    where_hi = f"{n} rows at {_fmt(hi)} in d = {d}"
    b = (lo, hi)
    if relation == "replace-one":
        out = [
            ("replace-low", f"{where}; D′ replaces the last by {_fmt(hi)}", low, hi),
            ("replace-high", f"{where_hi}; D′ replaces the last by {_fmt(lo)}", high, lo),
        ]
        if outside:
            out.append(
                (
                    "replace-outside",
                    f"{where}; D′ replaces the last by {_fmt(far)} (outside the box)",
                    low,
                    far,
                )
            )
        return [
            NeighbourPair(k, lab, x, np.vstack([x[:-1], row[v]]), relation, b)
            for k, lab, x, v in out
        ]
    adds = [
        ("add-high", f"{where}; D′ adds a row at {_fmt(hi)}", low, hi),
        ("add-same", f"{where}; D′ adds one more at {_fmt(lo)} (only n changes)", low, lo),
        ("add-low", f"{where_hi}; D′ adds a row at {_fmt(lo)}", high, lo),
    ]
    if outside:
        adds.append(("add-outside", f"{where}; D′ adds a row at {_fmt(far)} (outside)", low, far))
    return [NeighbourPair(k, lab, x, np.vstack([x, row[v]]), relation, b) for k, lab, x, v in adds]


def is_binary(spec: EstimatorSpec) -> bool:
    """Whether ``spec`` takes 0/1 data only (its pairs are 0/1 vectors, no outside row)."""
    return spec.data_kinds == frozenset({"binary"})


def audit_dimension(spec: EstimatorSpec) -> int:
    """Smallest dimension used for ``spec``: 2 for binary-only estimators, else 1."""
    return 2 if is_binary(spec) else 1


def grid_dimensions(spec: EstimatorSpec, ds: Sequence[int] = GRID_D) -> tuple[int, ...]:
    """The dimensions of the grid ``spec`` applies to (1 only for a scalar estimator)."""
    if spec.needs_dimension == "scalar":
        return (1,)
    low = audit_dimension(spec)
    return tuple(sorted({max(int(d), low) for d in ds}))


def pair_grid(
    spec: EstimatorSpec,
    relation: str,
    *,
    n0: int,
    ns: Sequence[int] = GRID_N,
    ds: Sequence[int] = GRID_D,
    other_box: bool = True,
) -> list[NeighbourPair]:
    """Pairs on the grid ``n ∈ {n0} ∪ ns``, ``d ∈ ds``, the unit box, and (at ``n0`` and the two
    smallest ``d``) the box :data:`OTHER_BOX` when the estimator takes real or bounded data."""
    binary = is_binary(spec)
    dims = grid_dimensions(spec, ds)
    out: list[NeighbourPair] = []
    for n in sorted({int(n0), *(int(v) for v in ns if int(v) >= int(n0))}):
        for d in dims:
            out += pairs_for(relation, n=n, d=d, bounds=UNIT_BOX, outside=not binary)
    if other_box and not binary:
        for d in dims[:2]:
            out += pairs_for(relation, n=n0, d=d, bounds=OTHER_BOX)
    return out
