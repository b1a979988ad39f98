"""``Dataset`` (moved from ``data.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Dataset:
    """A sample with the truth it was drawn from.

    Attributes
    ----------
    x : ndarray, shape (n, d)
        The sample (rows are people).
    true_mean : ndarray, shape (d,)
        The population mean (for bundled data: the full data's empirical mean).
    true_std : ndarray, shape (d,)
        Population per-coordinate standard deviations.
    kind : {"real", "bounded", "binary"}
        Which estimators apply.
    bounds : (ndarray, ndarray)
        A public prior range per coordinate, chosen without looking at the sample.
    name, description : str
        For labels.
    """

    x: np.ndarray
    true_mean: np.ndarray
    true_std: np.ndarray
    kind: str
    bounds: tuple[np.ndarray, np.ndarray]
    name: str = ""
    description: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.x.shape[0])

    @property
    def d(self) -> int:
        return int(self.x.shape[1])
