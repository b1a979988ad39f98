"""Data: the Dataset record, synthetic generators, bundled real data sets, CSV parsing."""

from dpcore.data.bundled import (
    ASSETS,
    BUNDLED,
    BundledInfo,
    bundled_frame,
    load_bundled,
    manifest,
    sample_bundled,
    spread_columns,
)
from dpcore.data.csv import (
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    data_bounds,
    describe_columns,
    from_dataframe,
    infer_kind,
    parse_csv,
)
from dpcore.data.dataset import Dataset
from dpcore.data.synthetic import (
    DISTRIBUTIONS,
    DistributionSpec,
    binary_product,
    bounded,
    contaminated,
    correlated_gaussian,
    gaussian,
    generate,
    lognormal,
    student_t,
    zipf_std,
)

__all__ = ['ASSETS', 'BUNDLED', 'BundledInfo', 'DISTRIBUTIONS', 'Dataset', 'DistributionSpec', 'MAX_COLUMNS', 'MAX_ROWS', 'MAX_UPLOAD_BYTES', 'binary_product', 'bounded', 'bundled_frame', 'contaminated', 'correlated_gaussian', 'data_bounds', 'describe_columns', 'from_dataframe', 'gaussian', 'generate', 'infer_kind', 'load_bundled', 'lognormal', 'manifest', 'parse_csv', 'sample_bundled', 'spread_columns', 'student_t', 'zipf_std']
