"""The Free lunch (simplex) page's view (dpcore.views.simplex): a pure function of its settings
record, every sample its own stream, the notebook code rebuilding the same view, no Streamlit."""

import subprocess
import sys

import numpy as np
import pytest

from dpcore.experiments.studies.simplex import sample_at
from dpcore.views.settings import DataSettings
from dpcore.views.simplex import SimplexSettings, view

SMALL = SimplexSettings(DataSettings(n=300, d=1, seed=4), mech="laplace")


def _numbers(v) -> np.ndarray:
    return np.concatenate(
        [v.geometry_x, v.triangle_z.ravel(), v.releases.m1, v.sim.mse, v.counts["count"]]
    )


@pytest.fixture(scope="module")
def small():
    return view(SMALL)


def test_the_same_record_gives_the_same_view_and_another_seed_other_numbers(small):
    np.testing.assert_allclose(_numbers(view(SMALL)), _numbers(small), rtol=1e-12)
    other = view(SimplexSettings(DataSettings(n=300, d=1, seed=5), mech="laplace"))
    assert not np.allclose(other.geometry_x, small.geometry_x)
    assert not np.allclose(other.releases.m1, small.releases.m1)
    assert other.ledger_sentence != small.ledger_sentence


def test_each_sample_comes_from_its_own_stream_not_the_seed(small):
    """The old page drew every sample from default_rng(seed): the 40 geometry records and the
    page's n records started from one generator state."""
    streams = SMALL.data.streams
    mine = sample_at(0.65, 40, 1.0, rng=streams.rng("sample:geometry"))
    np.testing.assert_allclose(small.geometry_x, mine)
    assert not np.allclose(small.geometry_x, sample_at(0.65, 40, 1.0, rng=SMALL.data.seed))
    assert not np.allclose(mine, sample_at(0.65, 40, 1.0, rng=streams.rng("sample:records")))


def test_replace_one_has_no_free_count_and_no_extra_count():
    v = view(SimplexSettings(DataSettings(n=300, d=1), relation="replace-one", count_fraction=0.3))
    assert v.counts is None and v.unknown_n_sentence is None and v.weight is None
    assert v.count_fraction == 0.0 and list(v.ledger.estimator.unique()) == ["Simplex (known n)"]


def test_the_notebook_code_rebuilds_the_same_view(small):
    scope: dict = {}
    exec(SMALL.code(), scope)  # noqa: S102 - the page's own notebook snippet
    np.testing.assert_allclose(_numbers(scope["v"]), _numbers(small))


def test_the_view_needs_no_streamlit():
    code = "import sys, dpcore.views.simplex; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
