"""The Binary product page's view (dpcore.views.binary_product): a pure function of its settings
record, the single run's draws each from their own stream, the sweeps from the study's streams
whatever the sidebar's seed, the notebook code rebuilding the same view, no Streamlit."""

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from dpcore.data.binary import profile
from dpcore.data.binary_rows import sample_binary_rows
from dpcore.experiments.studies import binary_single_run, product_tv_many
from dpcore.privacy import Budget
from dpcore.streams import Streams
from dpcore.views.binary_product import BinaryProductSettings, view
from dpcore.views.settings import DataSettings

PURE = dict(unit="eps", budget_value=1.0)
SMALL = BinaryProductSettings(DataSettings(**PURE, seed=2), "dense", d=64, n=10_000, flip=True)


@pytest.fixture(scope="module")
def small():
    return view(SMALL)


def test_the_same_record_gives_the_same_view_and_another_seed_other_numbers(small):
    again = view(SMALL)
    assert again.tv == pytest.approx(small.tv, rel=1e-12)
    np.testing.assert_allclose(again.ladder.noise_std_pde, small.ladder.noise_std_pde)
    other = view(replace(SMALL, data=replace(SMALL.data, seed=3)))
    assert other.tv["pde"] != pytest.approx(small.tv["pde"], rel=1e-9)
    # the sweeps study the estimators: the same at every sidebar seed
    np.testing.assert_allclose(other.sweep_n.tv_mean, small.sweep_n.tv_mean)
    np.testing.assert_allclose(other.sweep_d.tv_mean, small.sweep_d.tv_mean)


def test_the_single_run_draws_each_part_from_its_own_stream():
    """The old single run seeded p with the seed, the rows with seed + 1 and the noises with
    seed + 2, + 3, + 4: seed 1's noise was seed 2's rows (integers reused for two generators)."""
    streams = Streams(2)
    one = binary_single_run("skewed", 64, 10_000, Budget.pure(1.0), streams, False)
    p = profile("skewed", 64, rng=streams.rng("sample:profile"))
    np.testing.assert_allclose(one["p"], p)
    assert not np.allclose(one["p"], profile("skewed", 64, rng=2))
    rows = sample_binary_rows(p, 10_000, rng=streams.rng("data"))  # the page's sampler
    xbar = np.asarray(rows.mean(axis=0)).ravel()
    (tv,) = product_tv_many(p, [xbar], rng=streams.rng("sample:tv"))
    assert one["tv"]["empirical"] == pytest.approx(float(tv), rel=1e-12)


def test_the_n_and_d_sweeps_use_different_streams(small):
    """Both sweeps took rng=0 before: their first points drew from the same children."""
    assert Streams(0).seq("study:tv_n").spawn_key != Streams(0).seq("study:tv_d").spawn_key
    assert len(small.n_grid) >= 2 and len(small.d_grid) >= 2


def test_the_notebook_code_rebuilds_the_same_view(small):
    scope: dict = {}
    exec(SMALL.code(), scope)  # noqa: S102 - the page's own notebook snippet
    assert scope["v"].tv == pytest.approx(small.tv, rel=1e-12)


def test_the_view_needs_no_streamlit():
    code = "import sys, dpcore.views.binary_product; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_sweeps_summaries_and_words_are_kept_across_seeds(small):
    """They depend on the study's public settings only: a new seed reuses them (the same
    objects), and the words are those of the summaries."""
    other = view(replace(SMALL, data=replace(SMALL.data, seed=5)))
    assert other.sweep_n is small.sweep_n and other.sweep_d is small.sweep_d
    assert other.words_n == small.words_n and other.words_d == small.words_d


def test_the_ladder_sentence_counts_the_final_round_as_a_groupby_does(small):
    assert small.ladder_sentence.startswith("No coordinate reached the final round; ")
    skewed = view(replace(SMALL, profile="skewed", d=128, n=100_000, flip=False))
    lad = skewed.ladder
    final = lad[lad["group"] == "final"]
    assert len(final) > 0
    assert f"The {len(final)} light coordinates share noise std" in skewed.ladder_sentence
    assert f"{final['noise_std_pde'].median():.2g}, against" in skewed.ladder_sentence
