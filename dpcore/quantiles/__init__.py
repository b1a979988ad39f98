"""Private quantiles: binary search, exponential mechanism, unbounded (AboveThreshold)."""

from dpcore.quantiles._common import MAX_GRID_SIZE, Bounds
from dpcore.quantiles.binary_search import (
    BinarySearchTrace,
    binary_search_quantile,
    binary_search_trace,
    rank_error_bound,
)
from dpcore.quantiles.exponential import (
    LOG_GRID_RATIO,
    LOG_GRID_SPAN,
    exponential_quantile,
    exponential_quantile_probabilities,
    log_grid_quantile,
    log_grid_rank_error,
    log_grid_size,
)
from dpcore.quantiles.unbounded import (
    UnboundedQuantile,
    grid_size,
    premature_stop_risk,
    unbounded_quantile,
)

__all__ = [
    "LOG_GRID_RATIO",
    "LOG_GRID_SPAN",
    "MAX_GRID_SIZE",
    "BinarySearchTrace",
    "Bounds",
    "UnboundedQuantile",
    "binary_search_quantile",
    "binary_search_trace",
    "exponential_quantile",
    "exponential_quantile_probabilities",
    "grid_size",
    "log_grid_quantile",
    "log_grid_rank_error",
    "log_grid_size",
    "premature_stop_risk",
    "rank_error_bound",
    "unbounded_quantile",
]
