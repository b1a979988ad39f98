"""The exponential-mechanism quantile of a block of columns drawn without a sort (simulations).

:func:`envelope_pick` is what :func:`dpcore.quantiles.exponential.exponential_quantile_fast` runs
for a block that would otherwise be sorted in full, when
:data:`dpcore.quantiles.exponential.ENVELOPE_MEDIANS` is set (the default) and the call holds at
least :data:`dpcore.quantiles.exponential.ENVELOPE_MIN_VALUES` values: the draw of
:func:`dpcore.mechanisms.exponential_by_envelope` (rejection from a histogram envelope of public
bins, at most :data:`ENVELOPE_ROUNDS` proposals per column, then the full-sort draw for the
columns none was accepted in). The same distribution as the sorted path, other draws
(docs/speed.md, "PLAN, round 6" and "PLAN, round 8").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcore import mechanisms

#: Proposals per column before a column falls back to the full sort.
ENVELOPE_ROUNDS = 8
#: Envelope bins per rank of ``c · n`` (:func:`envelope_bins`) and their range.
ENVELOPE_BINS_PER_RANK = 16.0
ENVELOPE_MIN_BINS = 64
ENVELOPE_MAX_BINS = 2048


def envelope_bins(n: int, c: float) -> int:
    """Bins of the histogram envelope of :func:`envelope_pick`, from public ``n`` and ``c``: the
    power of two at or above :data:`ENVELOPE_BINS_PER_RANK` ``· c · n`` (were the values spread
    evenly over a sixteenth of the range, a bin would hold ``1 / c`` of them, and the density
    would fall by ``e`` across it), between :data:`ENVELOPE_MIN_BINS` and
    :data:`ENVELOPE_MAX_BINS`, at most the power of two at or above ``2 n``."""
    want = max(ENVELOPE_MIN_BINS, ENVELOPE_BINS_PER_RANK * c * n)
    bins = 1 << max(0, math.ceil(math.log2(want)))
    return max(1, min(bins, ENVELOPE_MAX_BINS, 1 << max(0, math.ceil(math.log2(2 * n)))))


def envelope_pick(
    rows: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    log_u: np.ndarray,
    c: float,
    g: Any,
    charge: dict[str, Any],
    gaps: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool], None],
) -> np.ndarray:
    """The point the mechanism draws in each row of ``rows`` (``(m, n)``, one column of data per
    row), without a sort: :func:`dpcore.mechanisms.exponential_by_envelope` with ``log_u`` the
    utility part ``-c |i - q n|`` and ``charge`` the keyword arguments of the ledger line
    (sensitivity, epsilon, coefficient, columns, note). The rows it falls back on are padded with
    their bounds and passed to ``gaps(z, w, lo, hi, False)``, which sorts them and writes the
    log-lengths of their gaps (the sorted path's own code)."""
    n = rows.shape[1]

    def exact(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z, w = np.empty((idx.size, n + 2)), np.empty((idx.size, n + 1))
        z[:, 0], z[:, -1], z[:, 1:-1] = lo[idx], hi[idx], rows[idx]
        gaps(z, w, lo[idx], hi[idx], False)
        return z, w

    values, _ = mechanisms.exponential_by_envelope(
        rows,
        lo,
        hi,
        log_u,
        exact,
        rng=g,
        bins=envelope_bins(n, c),
        rounds=ENVELOPE_ROUNDS,
        **charge,
    )
    return np.asarray(values, dtype=float)
