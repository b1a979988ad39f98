"""One seed, many streams: in the Side by side view the Gaussian mechanism's noise is independent
of the data it is added to.

The view draws the data from the seed's ``"data"`` stream and each estimator's run from its own
``"noise:<name>"`` stream (dpcore.streams). Before, the page generated the data with ``rng=seed``
and ran an estimator with ``rng=seed`` as well: two bit-identical ``default_rng(seed)`` streams,
so the Gaussian mechanism's first noise draw *was* the first data row's first draw, scaled
(correlation 1.0). :func:`_old_run` keeps that seeding to show the check catches it.

The estimator is the Gaussian mechanism with public bounds (``gaussian_public``): its only random
draw is the noise, so release minus its noiseless (clipped) mean is exactly that noise.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.data import generate
from dpcore.experiments import studies
from dpcore.registry import get
from dpcore.theory.gallery import GalleryEntry, entry
from dpcore.views.settings import DataSettings, dataset
from dpcore.views.side_by_side import SideBySideSettings, view

GAUSS = "gaussian_public"
SEEDS = range(300)
N, D = 20, 2
COORDS = (0, 1)
#: the bound on |correlation| over len(SEEDS) independent pairs: 4 standard errors of 1/sqrt(k)
BOUND = 4 / math.sqrt(len(SEEDS))


def _settings(seed: int) -> DataSettings:
    return DataSettings(n=N, d=D, seed=seed)


def _view_run(seed: int) -> tuple[np.ndarray, GalleryEntry]:
    """The data and the Gaussian mechanism's run as the Side by side view makes them."""
    s = _settings(seed)
    data = dataset(s)
    (e,), _ = studies.run_gallery(data, s.budget, [GAUSS], COORDS, streams=s.streams)
    return data.x, e


def _old_run(seed: int) -> tuple[np.ndarray, GalleryEntry]:
    """The old seeding: the data and the estimator's noise both from ``rng=seed``."""
    s = _settings(seed)
    data = generate(s.distribution, N, D, s.skew, rng=seed)
    spec = get(GAUSS)
    return data.x, entry(spec, spec.run(data, s.budget, rng=seed), COORDS, 0.95)


def _correlations(run) -> tuple[float, float]:
    """corr(noise coordinate 0, first row's coordinate 0) and corr(noise coordinate 0, the column
    mean of coordinate 0), over SEEDS."""
    noise, first, mean = [], [], []
    for seed in SEEDS:
        x, e = run(seed)
        noise.append(float(e.release[0] - e.noiseless[0]))
        first.append(float(x[0, 0]))
        mean.append(float(x[:, 0].mean()))
    return float(np.corrcoef(noise, first)[0, 1]), float(np.corrcoef(noise, mean)[0, 1])


def test_the_helper_runs_the_views_stream_layout():
    s = SideBySideSettings(_settings(5), names=(GAUSS,))
    (drawn,) = view(s).entries
    _, mine = _view_run(5)
    assert np.allclose(drawn.release, mine.release, rtol=1e-12, atol=0)
    assert np.allclose(drawn.noiseless, mine.noiseless, rtol=1e-12, atol=0)
    assert not np.allclose(drawn.release, drawn.noiseless)  # there is noise to correlate


def test_the_gaussian_noise_is_uncorrelated_with_the_data():
    first, mean = _correlations(_view_run)
    assert abs(first) < BOUND, f"corr(noise, first row) = {first:.3f}"
    assert abs(mean) < BOUND, f"corr(noise, column mean) = {mean:.3f}"


def test_the_old_seeding_fails_the_same_check():
    """Power: with data and noise both seeded by the integer, the check fails (correlation 1)."""
    first, _ = _correlations(_old_run)
    assert abs(first) > BOUND
    assert first > 0.999
