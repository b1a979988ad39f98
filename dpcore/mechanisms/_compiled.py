"""A compiled step of the exponential mechanism's inverse-CDF draw (numba, imported on first use).

:func:`cumulative_pick` does, per row, what :func:`dpcore.mechanisms.noisy_max._inverse_cdf` did
with numpy after the weights were formed: the cumulative sum of the row (``numpy.cumsum`` adds
left to right; so does this, the same additions in the same order, so the same doubles) and the
halving search for the first index whose cumulative weight exceeds ``u * total`` (the same
comparisons, the same index). NumPy's ``cumsum`` over a ``(rows, m)`` block runs at about 3 ns a
value and the vectorised search makes some 80 small calls; one compiled pass per row reads the
row once. The weights themselves (``exp`` of the shifted log-weights) stay NumPy's: its ``exp``
is not the C library's in the last bits. The uniforms are drawn by the caller, as before.

Like :mod:`dpcore._kernels`, numba is imported the first time the kernel runs (``cache=True``);
the caller uses it only on blocks of at least :data:`COMPILED_FROM` weights.
"""

from __future__ import annotations

import numpy as np

from dpcore._kernels import exact_compiled

#: Smallest block of weights (values) for which the inverse-CDF draw uses :func:`cumulative_pick`.
COMPILED_FROM = 1 << 16


@exact_compiled
def cumulative_pick(w: np.ndarray, u: np.ndarray, steps: int, out: np.ndarray) -> None:
    """Replace each row of ``w`` (``(rows, m)``, C order) by its cumulative sum and write into
    ``out[i]`` the number of entries of row ``i`` at or below ``u[i] * w[i, -1]`` (capped at
    ``m - 1``), found by ``steps`` halvings exactly as the NumPy search of the caller finds it."""
    rows, m = w.shape
    for i in range(rows):
        acc = w[i, 0]
        for j in range(1, m):
            acc += w[i, j]
            w[i, j] = acc
        value = u[i] * w[i, m - 1]
        lo, hi = 0, m
        for _ in range(steps):
            mid = (lo + hi) // 2
            if lo < hi:
                if w[i, min(mid, m - 1)] <= value:
                    lo = mid + 1
                else:
                    hi = mid
        out[i] = min(lo, m - 1)
