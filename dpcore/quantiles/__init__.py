"""Private quantiles: binary search, exponential mechanism, unbounded (AboveThreshold).

Every routine draws its noise through :mod:`dpcore.mechanisms` and charges the caller's open ledger
stage (:func:`dpcore.mechanisms.stage`); none opens a stage of its own.
"""

from dpcore.quantiles._common import MAX_GRID_SIZE, Bounds
from dpcore.quantiles.binary_search import (
    BinarySearchTrace,
    binary_search_quantile,
    binary_search_trace,
    rank_error_bound,
)
from dpcore.quantiles.coordinate import (
    C2F_BAR,
    C2F_BINS,
    C2F_FIRST_BAR,
    C2F_HISTOGRAM_SHARE,
    C2F_LEVELS,
    QuantileMethod,
    coarse_to_fine_median,
    norm_quantile,
    private_quantile,
)
from dpcore.quantiles.exponential import (
    LOG_GRID_RATIO,
    LOG_GRID_SPAN,
    exponential_quantile,
    exponential_quantile_columns,
    exponential_quantile_fast,
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
    "C2F_BAR",
    "C2F_BINS",
    "C2F_FIRST_BAR",
    "C2F_HISTOGRAM_SHARE",
    "C2F_LEVELS",
    "LOG_GRID_RATIO",
    "LOG_GRID_SPAN",
    "MAX_GRID_SIZE",
    "BinarySearchTrace",
    "Bounds",
    "QuantileMethod",
    "UnboundedQuantile",
    "binary_search_quantile",
    "binary_search_trace",
    "coarse_to_fine_median",
    "exponential_quantile",
    "exponential_quantile_columns",
    "exponential_quantile_fast",
    "exponential_quantile_probabilities",
    "grid_size",
    "log_grid_quantile",
    "log_grid_rank_error",
    "log_grid_size",
    "norm_quantile",
    "premature_stop_risk",
    "private_quantile",
    "rank_error_bound",
    "unbounded_quantile",
]
