"""What the quantile tests share: the goodness-of-fit thresholds, one call for each routine and
the pooled chi-square test.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpcore.quantiles import binary_search_quantile, exponential_quantile, unbounded_quantile

P_OK = 1e-4  # false-alarm rate of each goodness-of-fit test
P_REJECT = 1e-6  # a 30% mis-scaled reference must be rejected at least this strongly


def _call(kind: str, x, q, bounds, budget=1.0, rng=0):
    """Call one of the three quantiles with a total budget ``budget``."""
    if kind == "binary":
        return binary_search_quantile(x, q, bounds, rho=budget, steps=12, rng=rng)
    if kind == "binary_top":
        return binary_search_quantile(x, q, bounds, rho=budget, steps=12, rng=rng, return_top=True)
    if kind == "em_eps":
        return exponential_quantile(x, q, bounds, epsilon=budget, rng=rng)
    if kind == "em_rho":
        return exponential_quantile(x, q, bounds, rho=budget, rng=rng)
    if kind == "uq_eps":
        return unbounded_quantile(
            x, q, bounds, epsilon_threshold=budget, epsilon_query=budget, rng=rng
        ).value
    if kind == "uq_rho":
        return unbounded_quantile(
            x, q, bounds, rho_threshold=budget, rho_query=budget, rng=rng
        ).value
    raise AssertionError(kind)


KINDS = ["binary", "binary_top", "em_eps", "em_rho", "uq_eps", "uq_rho"]


def _chisquare_p(counts: np.ndarray, probs: np.ndarray, min_expected: float = 5.0) -> float:
    """Pearson chi-square p-value; cells with expected count < 5 are pooled into one cell."""
    expected = probs * counts.sum()
    small = expected < min_expected
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    assert obs[~keep].sum() == 0, "an outcome of probability 0 occurred"
    return float(stats.chisquare(obs[keep], exp[keep]).pvalue)
