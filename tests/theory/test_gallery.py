"""dpcore.theory.gallery (with the runs in dpcore.experiments.studies): each family's region and
noise shape in two coordinates is read from the run's own
diagnostics (same radius, centre, box), and the stated probabilities are exact."""

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.data import generate
from dpcore.estimators.iome import IomeDiagnostics
from dpcore.experiments import studies
from dpcore.privacy import Budget
from dpcore.registry import get
from dpcore.theory import gallery

COORDS = (0, 7)
BUDGET = Budget.zcdp(0.5)


@pytest.fixture(scope="module")
def real_entries():
    ds = generate("gaussian", 1000, 8, 2.0, rng=3)
    names = [
        "plan",
        "plan_noscale",
        "iome_paper",
        "gaussian_public",
        "gaussian_private",
        "pmwm_zcdp",
        "pmwm",
        "clipped_laplace",
    ]
    entries, skipped = studies.run_gallery(ds, BUDGET, names, COORDS, seed=11)
    assert not skipped
    return ds, {e.name: e for e in entries}


def test_plan_ellipse_is_the_clip_radius_over_the_scale_around_the_centre(real_entries):
    _, by = real_entries
    e = by["plan"]
    dg = e.estimate.diagnostics
    assert e.region.kind == "ellipse"
    np.testing.assert_allclose(e.region.center, dg.center[list(COORDS)], rtol=0, atol=0)
    np.testing.assert_allclose(
        e.region.semi_axes, dg.clip_radius / dg.scale[list(COORDS)], rtol=1e-15
    )
    # every outline point is exactly on ||(x - c) * s|| = C in these two coordinates
    u = (e.region.outline - e.region.center) * dg.scale[list(COORDS)]
    np.testing.assert_allclose(np.linalg.norm(u, axis=1), dg.clip_radius, rtol=1e-12)
    # the skewed data give different semi-axes (coordinate 1 spreads more than coordinate 8)
    assert e.region.semi_axes[0] > 1.5 * e.region.semi_axes[1]


@pytest.mark.parametrize("name", ["gaussian_public", "gaussian_private", "plan_noscale"])
def test_gaussian_mechanism_ball_has_the_run_radius_and_centre(real_entries, name):
    _, by = real_entries
    e = by[name]
    dg = e.estimate.diagnostics
    assert e.region.kind == "disk"
    np.testing.assert_array_equal(e.region.center, dg.center[list(COORDS)])
    np.testing.assert_allclose(e.region.semi_axes, [dg.clip_radius] * 2, rtol=1e-15)


def test_public_gaussian_ball_is_the_box_half_diagonal(real_entries):
    ds, by = real_entries
    lo, hi = ds.bounds
    e = by["gaussian_public"]
    np.testing.assert_allclose(e.region.semi_axes[0], np.linalg.norm((hi - lo) / 2), rtol=1e-12)
    np.testing.assert_allclose(e.region.center, ((lo + hi) / 2)[list(COORDS)])


def test_iome_ball_is_the_rotated_ball_cut_by_the_data_subspace():
    # d = 8 is a power of two: no padding, the drawn radius is C itself
    ds = generate("gaussian", 1000, 8, 2.0, rng=3)
    (e,), _ = studies.run_gallery(ds, BUDGET, ["iome_paper"], COORDS, seed=1)
    dg = e.estimate.diagnostics
    np.testing.assert_allclose(e.region.semi_axes, [dg.clip_radius] * 2, rtol=1e-12)
    np.testing.assert_array_equal(e.region.center, dg.center[list(COORDS)])
    # d = 6 pads to 8: the radius shrinks to sqrt(C^2 - ||padding of R^T c||^2) < C
    ds6 = generate("gaussian", 1000, 6, 2.0, rng=3)
    (e6,), _ = studies.run_gallery(ds6, BUDGET, ["iome_paper"], (0, 5), seed=1)
    d6 = e6.estimate.diagnostics_as(IomeDiagnostics)
    assert e6.region.semi_axes[0] == pytest.approx(d6.ball_radius, rel=1e-15)
    assert e6.region.semi_axes[0] < d6.clip_radius


@pytest.mark.parametrize("name", ["pmwm_zcdp", "pmwm", "clipped_laplace"])
def test_winsorized_box_is_the_private_interval_pair(real_entries, name):
    _, by = real_entries
    e = by[name]
    lo, hi = (np.asarray(v, float) for v in e.estimate.diagnostics.clip_interval)
    assert e.region.kind == "box"
    np.testing.assert_array_equal(e.region.lower, lo[list(COORDS)])
    np.testing.assert_array_equal(e.region.upper, hi[list(COORDS)])


def test_noise_shapes_use_the_run_noise_std_and_the_right_family(real_entries):
    _, by = real_entries
    for name in ("plan", "iome_paper", "pmwm_zcdp"):
        e = by[name]
        std = e.estimate.diagnostics.noise_std[list(COORDS)]
        assert e.noise.kind == "gaussian"
        np.testing.assert_allclose(e.noise.scale, std, rtol=1e-15)
        np.testing.assert_array_equal(
            e.noise.center, e.estimate.diagnostics.noiseless_mean[list(COORDS)]
        )
    for name in ("pmwm", "clipped_laplace"):
        e = by[name]
        assert e.noise.kind == "laplace"
        np.testing.assert_allclose(
            e.noise.scale, e.estimate.diagnostics.noise_std[list(COORDS)] / math.sqrt(2)
        )
    # PLAN's noise is smaller in the low-variance coordinate; IOME's is the same in both
    assert by["plan"].noise.scale[1] < by["plan"].noise.scale[0]
    assert by["iome_paper"].noise.scale[0] == by["iome_paper"].noise.scale[1]


def test_simplex_region_is_the_box_cut_by_the_l1_radius():
    ds = generate("bounded", 500, 4, 0.0, rng=0)
    spec = get("simplex_laplace")
    est = spec.run(ds, Budget.pure(1.0), rng=0, radius=1.5)
    e = gallery.entry(spec, est, (0, 1))
    assert e.region.kind == "polygon"
    lo = np.asarray(est.diagnostics.clip_interval[0])[:2]
    z = e.region.outline - lo
    assert np.all(z.sum(axis=1) <= 1.5 + 1e-12) and np.isclose(z.sum(axis=1).max(), 1.5)
    assert np.all(z >= -1e-12) and np.all(z <= 1 + 1e-12)


@pytest.mark.parametrize("prob", [0.5, 0.9, 0.95, 0.99])
def test_stated_probabilities_are_exact(prob):
    r = gallery.gaussian_radius(prob)
    assert stats.chi2.cdf(r * r, 2) == pytest.approx(prob, abs=1e-12)
    q = gallery.laplace_radius(prob)
    assert stats.gamma.cdf(q, 2) == pytest.approx(prob, abs=1e-12)


def test_release_lands_inside_the_gaussian_shape_at_the_stated_rate():
    """Monte Carlo of the final noise step: 4000 draws with the run's std; the fraction inside the
    95% ellipse is within 5 binomial sds of 0.95, and a 30% smaller std would fail."""
    ds = generate("gaussian", 400, 4, 1.0, rng=0)
    (e,), _ = studies.run_gallery(ds, BUDGET, ["gaussian_public"], (0, 1), seed=0)
    g = np.random.default_rng(5)
    m = 4000
    noise = g.standard_normal((m, 2)) * e.noise.scale
    inside = np.linalg.norm(noise / e.noise.scale, axis=1) <= e.noise.radius
    sd = math.sqrt(0.95 * 0.05 / m)
    assert abs(inside.mean() - 0.95) < 5 * sd
    inside_small = np.linalg.norm(noise / (0.7 * e.noise.scale), axis=1) <= e.noise.radius
    assert abs(inside_small.mean() - 0.95) > 5 * sd


def test_bad_input_names_the_argument():
    ds = generate("gaussian", 200, 3, 0.0, rng=0)
    with pytest.raises(ValueError, match="coords"):
        studies.run_gallery(ds, BUDGET, ["plan"], (0, 0))
    with pytest.raises(ValueError, match="prob"):
        gallery.gaussian_radius(1.0)
    with pytest.raises(ValueError, match="reps"):
        studies.release_draws("plan", ds, BUDGET, reps=0)


def test_zcdp_estimators_are_skipped_under_a_pure_budget():
    ds = generate("gaussian", 200, 3, 0.0, rng=0)
    entries, skipped = studies.run_gallery(ds, Budget.pure(1.0), ["plan", "pmwm"], (0, 1))
    assert [e.name for e in entries] == ["pmwm"] and "plan" in skipped


def test_release_draws_are_reproducible_and_spread():
    ds = generate("gaussian", 300, 3, 0.0, rng=0)
    a = studies.release_draws("gaussian_public", ds, BUDGET, reps=20, rng=4)
    b = studies.release_draws("gaussian_public", ds, BUDGET, reps=20, rng=4)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (20, 3) and np.all(a.std(axis=0) > 0)


def test_figures_draw_the_data_regions_and_share_one_scale(real_entries):
    from dpcore.figures.gallery import gallery_figure

    ds, by = real_entries
    entries = list(by.values())
    pts = ds.x[:200][:, list(COORDS)]
    truth = ds.true_mean[list(COORDS)]
    fig, frame = gallery_figure(entries, pts, truth, COORDS, view="small", zoom="clip")
    assert any(t.name == "data (sample of rows)" and len(t.x) == 200 for t in fig.data)
    ranges = {tuple(fig.layout[k].range) for k in fig.layout if k.startswith("xaxis")}
    assert len(ranges) == 1  # one shared scale
    # the default: every whole region (top row) above every noise shape (bottom row, zoomed in)
    both, _ = gallery_figure(entries, pts, truth, COORDS)
    k = len(entries)
    top = {tuple(both.layout["xaxis" + (str(c) if c > 1 else "")].range) for c in range(1, k + 1)}
    low = {tuple(both.layout[f"xaxis{c}"].range) for c in range(k + 1, 2 * k + 1)}
    assert len(top) == len(low) == 1 and top != low
    (x0, x1), (n0, n1) = next(iter(top)), next(iter(low))
    assert n1 - n0 < (x1 - x0) / 5  # the noise row is zoomed in
    for e in entries:  # every whole region fits the top row, every noise shape the bottom one
        for shape, (lo, hi) in ((e.region, (x0, x1)), (e.noise, (n0, n1))):
            if shape.outline.size:
                assert lo <= shape.outline[:, 0].min() and shape.outline[:, 0].max() <= hi
    assert set(frame["shape"]) == {"clip region", "noise shape", "release", "true mean"}
    fig2, _ = gallery_figure(entries, pts, truth, COORDS, view="overlay", zoom="noise")
    assert not any(t.name == "data (sample of rows)" for t in fig2.data)
