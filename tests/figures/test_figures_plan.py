"""The figure builders of the "PLAN step by step" page draw exactly what the estimator did.

Every check is exact (floating-point tolerance only): the pictures are deterministic functions of
one run's diagnostics, so there is nothing statistical to tolerate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.data import generate
from dpcore.estimators.gaussian import gaussian_private_radius
from dpcore.estimators.iome import IomeDiagnostics, iome_paper
from dpcore.estimators.plan import PlanDiagnostics, plan
from dpcore.experiments.studies import display_sample, subsample
from dpcore.figures.plan import (
    error_split_frame,
    exponent_curve,
    exponent_noise_std,
    noise_figure,
    noise_shapes_figure,
    plan_steps_figure,
    step_summary,
)
from dpcore.figures.style import error_split_chart
from dpcore.metrics import error_split
from dpcore.theory import plan as theory

TOL = 1e-9


@pytest.fixture(scope="module")
def data2():
    return generate("gaussian", 1500, 2, 2.0, rng=1)  # sigma = (2, 1): the paper's Figure 1 shape


@pytest.fixture(scope="module")
def data16():
    return generate("gaussian", 3000, 16, 2.0, rng=2)


def _run(ds, **kw):
    kw.setdefault("variances", "oracle")
    return plan(ds.x, rho=0.5, bounds=ds.bounds, sigma=ds.true_std, rng=0, **kw)


def _part(df, panel, role):
    return df[(df.panel == panel) & (df.role == role)]


@pytest.mark.parametrize("p", [1.0, 2.0])
def test_clip_ellipse_semi_axes_are_C_sigma_to_the_2_over_p_plus_2(data16, p):
    est = _run(data16, p=p)
    coords = (0, 5)
    _, df = plan_steps_figure(data16.x, est, coords, true_mean=data16.true_mean)
    C = est.diagnostics.clip_radius
    sig = data16.true_std[list(coords)]  # the oracle uses sigma as it is (no regularisation)
    semi = C * sig ** (2.0 / (p + 2.0))
    c = est.diagnostics.center[list(coords)]
    for panel in ("a", "d"):
        ell = _part(df, panel, "clip ellipse (original space)")[["x", "y"]].to_numpy()
        assert len(ell) > 100
        np.testing.assert_allclose(((ell - c) / semi) ** 2 @ np.ones(2), 1.0, atol=TOL)
        # the outline reaches the semi-axes (not just lies on some ellipse)
        np.testing.assert_allclose(np.abs(ell - c).max(axis=0), semi, rtol=1e-9)
    assert step_summary(est, coords, data16.x)["semi_axes"] == pytest.approx(list(semi), rel=1e-12)


@pytest.mark.parametrize("exponent", [0.0, 0.1, 0.5])
def test_clip_ellipse_semi_axes_are_C_over_s_for_any_exponent(data16, exponent):
    est = _run(data16, variances="private", scale_exponent=exponent)
    coords = (2, 9)
    _, df = plan_steps_figure(data16.x, est, coords, true_mean=data16.true_mean)
    semi = est.diagnostics.clip_radius / est.diagnostics.scale[list(coords)]
    np.testing.assert_allclose(
        semi,
        est.diagnostics.clip_radius
        * est.diagnostics_as(PlanDiagnostics).sigma_hat[list(coords)] ** (2 * exponent),
        rtol=1e-12,
    )
    ell = _part(df, "d", "clip ellipse (original space)")[["x", "y"]].to_numpy()
    np.testing.assert_allclose(
        (((ell - est.diagnostics.center[list(coords)]) / semi) ** 2).sum(axis=1), 1.0, atol=TOL
    )


def test_two_dimensional_clipped_points_lie_on_the_circle_and_the_picture_averages_to_the_estimate(
    data2,
):
    est = _run(data2)
    dg = est.diagnostics
    assert dg.clipped.sum() > 5
    _, df = plan_steps_figure(data2.x, est, (0, 1), true_mean=data2.true_mean)
    C = dg.clip_radius
    pulled = _part(df, "c", "clipped: pulled onto the ball")
    before = _part(df, "c", "clipped: before")
    assert len(pulled) == dg.clipped.sum()
    np.testing.assert_allclose(np.hypot(pulled.x, pulled.y), C, rtol=1e-12)
    assert np.all(np.hypot(before.x, before.y) > C)
    # pulled radially: same direction as before
    np.testing.assert_allclose(
        np.arctan2(pulled.y, pulled.x), np.arctan2(before.y, before.x), atol=1e-12
    )
    kept = _part(df, "c", "kept")
    assert np.all(np.hypot(kept.x, kept.y) <= C)
    np.testing.assert_allclose(
        kept[["x", "y"]].to_numpy(),
        (data2.x[kept.row.to_numpy()] - dg.center) * dg.scale,
        rtol=1e-12,
    )
    ball = _part(df, "c", "clip ball (scaled space)")
    np.testing.assert_allclose(np.hypot(ball.x, ball.y), C, rtol=1e-12)
    # panel (d) holds exactly the rows PLAN averaged: their mean is the noiseless estimate
    back = _part(df, "d", "as averaged (pulled rows mapped back)")[["x", "y"]].to_numpy()
    np.testing.assert_allclose(back.mean(axis=0), dg.noiseless_mean, rtol=1e-12)
    mark = _part(df, "d", "private mean")[["x", "y"]].to_numpy()[0]
    np.testing.assert_array_equal(mark, est.mean)


def test_high_dimensional_slice_colours_by_the_estimators_mask(data16):
    est = _run(data16)
    dg = est.diagnostics
    coords = (0, 3)
    _, df = plan_steps_figure(data16.x, est, coords, true_mean=data16.true_mean)
    C = dg.clip_radius
    pulled = _part(df, "c", "clipped: pulled onto the ball")
    # pulled onto the d-dimensional sphere of radius C; the 2-D shadow lies on or inside the circle
    np.testing.assert_allclose(pulled.norm_scaled, C, rtol=1e-12)
    assert np.all(np.hypot(pulled.x, pulled.y) <= C * (1 + 1e-12))
    a = _part(df, "a", "data")
    np.testing.assert_array_equal(a.clipped.to_numpy(bool), dg.clipped[a.row.to_numpy()])
    np.testing.assert_array_equal(
        a[["x", "y"]].to_numpy(), data16.x[np.ix_(a.row.to_numpy(), coords)]
    )
    # no point outside the drawn circle escapes clipping; some clipped points sit inside it
    sc = _part(df, "b", "scaled")
    outside = np.hypot(sc.x, sc.y) > C
    assert np.all(sc.clipped[outside])
    sm = step_summary(est, coords, data16.x)
    assert sm["outside_drawn_kept"] == 0
    assert sm["clipped"] == int(dg.clipped.sum())
    assert 0 < sm["inside_drawn"] < sm["clipped"]
    # (b) shape: the spread ratio shrinks to its square root for p = 2 (oracle scaling sigma^(-1/2))
    assert sm["ratio_after"] == pytest.approx(
        sm["ratio_before"] / math.sqrt(data16.true_std[0] / data16.true_std[3]), rel=1e-12
    )


def test_iome_ball_overlay_is_the_rotated_ball_seen_in_original_space(data16):
    est = _run(data16)
    io = iome_paper(data16.x, rho=0.5, bounds=data16.bounds, rng=0)
    _, df = plan_steps_figure(data16.x, est, (1, 4), true_mean=data16.true_mean, iome=io)
    ball = _part(df, "d", "IOME clip ball (original space)")[["x", "y"]].to_numpy()
    centre = io.diagnostics_as(IomeDiagnostics).ball_center[[1, 4]]
    np.testing.assert_allclose(
        np.hypot(*(ball - centre).T), io.diagnostics_as(IomeDiagnostics).ball_radius, rtol=1e-12
    )


def test_subsample_is_seeded_uniform_and_keeps_the_mask():
    ds = generate("gaussian", 5000, 8, 1.0, rng=3)
    est = _run(ds)
    sample = display_sample(5000, max_points=700, rng=5)
    _, df1 = plan_steps_figure(ds.x, est, (0, 1), true_mean=ds.true_mean, sample=sample)
    again = display_sample(5000, max_points=700, rng=5)
    _, df2 = plan_steps_figure(ds.x, est, (0, 1), true_mean=ds.true_mean, sample=again)
    a = _part(df1, "a", "data")
    assert len(a) == 700 and a.row.is_unique
    np.testing.assert_array_equal(a.row, _part(df2, "a", "data").row)
    np.testing.assert_array_equal(a.row, subsample(5000, 700, 5))
    np.testing.assert_array_equal(
        a.clipped.to_numpy(bool), est.diagnostics.clipped[a.row.to_numpy()]
    )
    np.testing.assert_array_equal(subsample(10, 700), np.arange(10))
    with pytest.raises(ValueError, match="max_points"):
        subsample(10, 0)


def test_figure_uses_equal_axis_scaling(data16):
    fig, _ = plan_steps_figure(data16.x, _run(data16), (0, 1), true_mean=data16.true_mean)
    lay = fig.layout
    for k, ax in enumerate(("yaxis", "yaxis2", "yaxis3", "yaxis4")):
        assert lay[ax].scaleanchor == ("x" if k == 0 else f"x{k + 1}")
        assert lay[ax].scaleratio == 1
    # the equal aspect shrinks the drawing area, never the ranges: widened ranges lengthened the
    # tick labels, which moved the margin, and Plotly redrew panel (d) up to twelve times
    for ax in ("xaxis", "yaxis", "xaxis2", "yaxis2", "xaxis3", "yaxis3", "xaxis4", "yaxis4"):
        assert lay[ax].constrain == "domain"
    # toward the panel's title: on a tall phone screen the blank goes below the picture
    assert all(lay[ax].constraintoward == "top" for ax in ("yaxis", "yaxis2", "yaxis3", "yaxis4"))


def test_one_coordinate_mode_draws_intervals():
    ds = generate("gaussian", 800, 1, 0.0, rng=4)
    est = _run(ds)
    dg = est.diagnostics
    _, df = plan_steps_figure(ds.x, est, (0,), true_mean=ds.true_mean)
    ball = _part(df, "c", "clip ball (scaled space)").x.dropna()
    assert set(np.round(ball, 12)) == {round(-dg.clip_radius, 12), round(dg.clip_radius, 12)}
    ell = _part(df, "a", "clip ellipse (original space)").x.dropna().to_numpy()
    np.testing.assert_allclose(
        np.unique(ell), dg.center[0] + np.array([-1, 1]) * dg.clip_radius / dg.scale[0]
    )
    _fig, ndf = noise_figure(
        [("PLAN", "#08519c", est)], (0,), true_mean=ds.true_mean, empirical_mean=ds.x.mean(0)
    )
    assert ndf.std_x.iloc[0] == dg.noise_std[0]


def test_bad_coordinates_and_estimates_raise(data16):
    est = _run(data16)
    with pytest.raises(ValueError, match="coords"):
        plan_steps_figure(data16.x, est, (0, 16), true_mean=data16.true_mean)
    with pytest.raises(ValueError, match="coords"):
        plan_steps_figure(data16.x, est, (), true_mean=data16.true_mean)
    bare = gaussian_private_radius(data16.x, rho=0.5, bounds=data16.bounds, rng=0)
    bare.diagnostics.scale = None
    with pytest.raises(ValueError, match="PLAN estimate"):
        plan_steps_figure(data16.x, bare, (0, 1), true_mean=data16.true_mean)


# ----------------------------------------------------------------------------------------------
# noise ellipse, noise shapes, error split
# ----------------------------------------------------------------------------------------------


def test_noise_ellipse_stds_equal_the_diagnostics(data16):
    est = _run(data16, variances="private")
    io = iome_paper(data16.x, rho=0.5, bounds=data16.bounds, rng=0)
    coords = (0, 7)
    _, df = noise_figure(
        [("PLAN", "#08519c", est), ("IOME", "#cb181d", io)],
        coords,
        true_mean=data16.true_mean,
        empirical_mean=data16.x.mean(axis=0),
    )
    for label, e in (("PLAN", est), ("IOME", io)):
        sd = e.diagnostics.noise_std[list(coords)]
        part = df[df.estimator == label]
        np.testing.assert_array_equal(part[["std_x", "std_y"]].iloc[0].to_numpy(), sd)
        nl = e.diagnostics.noiseless_mean[list(coords)]
        for m in (1, 2):
            ell = part[part.role == f"noise ellipse, {m} sd"][["x", "y"]].to_numpy()
            np.testing.assert_allclose((((ell - nl) / (m * sd)) ** 2).sum(axis=1), 1.0, atol=TOL)
        mean = part[part.role == "private mean"][["x", "y"]].to_numpy()[0]
        np.testing.assert_array_equal(mean, e.mean[list(coords)])
    # PLAN's ellipse is elongated along the wide coordinate, IOME's is a circle
    sd = est.diagnostics.noise_std
    assert sd[0] / sd[7] > 1.5
    assert io.diagnostics.noise_std[0] == io.diagnostics.noise_std[7]


def test_noise_shapes_frame_and_error_split(data16):
    est = _run(data16)
    io = iome_paper(data16.x, rho=0.5, bounds=data16.bounds, rng=0)
    ga = gaussian_private_radius(data16.x, rho=0.5, bounds=data16.bounds, rng=0)
    entries = [("PLAN", "#08519c", est), ("IOME", "#cb181d", io), ("Gaussian", "#a0522d", ga)]
    fig, df = noise_shapes_figure(entries, data16.true_std, data16.n)
    assert len(df) == 3 * 16
    for label, _, e in entries:
        np.testing.assert_array_equal(df[df.estimator == label].noise_std, e.diagnostics.noise_std)
    np.testing.assert_allclose(df.sampling_std, df.sigma / math.sqrt(data16.n), rtol=1e-15)
    assert [t.type for t in fig.data] == ["bar"] * 3 + ["scatter"]
    # PLAN (oracle, p = 2): noise std proportional to sigma^(1/2)
    r = df[df.estimator == "PLAN"].noise_std.to_numpy() / data16.true_std**0.5
    np.testing.assert_allclose(r, r[0], rtol=1e-12)
    split = error_split_frame(
        [(lab, e) for lab, _, e in entries], data16.x, data16.true_mean, p=2.0
    )
    for k, (_, _, e) in enumerate(entries):
        assert split.iloc[k][["sampling", "clipping", "noise", "total"]].to_dict() == error_split(
            e, data16.x, data16.true_mean, 2.0
        )
    assert len(error_split_chart(split).data) == 4


# ----------------------------------------------------------------------------------------------
# the scaling-exponent curve (Appendix C)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [1.0, 2.0])
def test_exponent_curve_matches_the_theory_reference_curves(p):
    sigma = generate("gaussian", 10, 64, 2.0, rng=0).true_std
    n, rho3 = 4000, 0.3
    _, df = exponent_curve(sigma, n, rho3, p, current=0.1)
    at = df.set_index("exponent")
    assert at.loc[0.0, "noise"] == pytest.approx(
        theory.gaussian_mechanism_noise_error(sigma, n, rho3, p), rel=1e-12
    )
    assert at.loc[1 / (p + 2), "noise"] == pytest.approx(
        theory.plan_noise_error(sigma, n, rho3, p), rel=1e-12
    )
    assert at.loc[0.5, "noise"] == pytest.approx(
        theory.equal_split_noise_error(sigma, n, rho3, p), rel=1e-12
    )
    # the minimum is PLAN's exponent (Appendix C), and the named points are labelled
    assert df.exponent[df.noise.idxmin()] == pytest.approx(1 / (p + 2), abs=1e-12)
    assert set(df.point) - {""} == {
        "no scaling (e = 0)",
        f"PLAN (e = 1/{p + 2:g})",
        "equal split (e = 1/2)",
    }
    assert 0.1 in set(df.exponent)
    np.testing.assert_allclose(df.sampling, theory.sampling_error(sigma, n, p), rtol=1e-15)
    assert np.all(df.total >= np.maximum(df.noise, df.sampling) - 1e-15)
    if p == 2.0:
        # symmetric about 1/4: (sum sigma^(2-4e)) (sum sigma^(4e)) is invariant under e -> 1/2 - e
        np.testing.assert_allclose(df.noise.to_numpy(), df.noise.to_numpy()[::-1], rtol=1e-9)
        np.testing.assert_allclose(df.total**2, df.noise**2 + df.sampling**2, rtol=1e-12)


def test_exponent_curve_is_flat_without_skew_and_survives_a_constant_column():
    _, df = exponent_curve(np.ones(32), 1000, 0.5, 2.0)
    np.testing.assert_allclose(df.noise, df.noise.iloc[0], rtol=1e-12)
    _, df = exponent_curve(np.r_[np.ones(7), 0.0], 1000, 0.5, 2.0)
    assert np.all(np.isfinite(df[["noise", "total"]].to_numpy()))


@pytest.mark.parametrize("exponent", [0.0, 0.25, 0.4])
def test_idealised_noise_std_is_the_estimators_at_its_own_margin(data16, exponent):
    """With margin = C / typical scaled norm, the Appendix C std is exactly diagnostics.noise_std."""
    est = _run(data16, scale_exponent=exponent)
    dg = est.diagnostics_as(PlanDiagnostics)
    sig = data16.true_std
    margin = dg.clip_radius / math.sqrt(float(np.sum((sig * dg.scale) ** 2)))
    sd = exponent_noise_std(sig, data16.n, dg.budgets["noise"], exponent, margin=margin)
    np.testing.assert_allclose(sd, dg.noise_std, rtol=1e-12)


def test_jitter_moves_only_the_drawn_points_and_keeps_the_frame_exact():
    ds = generate("binary_plan", 1000, 8, 0.5, rng=6)
    est = plan(ds.x, rho=0.5, bounds=ds.bounds, variances="binary", p=1.0, rng=0)
    fig0, df0 = plan_steps_figure(ds.x, est, (0, 1), true_mean=ds.true_mean)
    fig1, df1 = plan_steps_figure(
        ds.x, est, (0, 1), true_mean=ds.true_mean, sample=display_sample(ds.n, jitter=0.03)
    )
    assert df0.equals(df1)
    span = np.ptp(ds.x[:, :2], axis=0)
    for t0, t1 in zip(fig0.data, fig1.data, strict=True):
        assert t0.name == t1.name
        dx = np.abs(np.asarray(t1.x, float) - np.asarray(t0.x, float))
        dy = np.abs(np.asarray(t1.y, float) - np.asarray(t0.y, float))
        if t0.name in ("row kept as it is", "row clipped (in d dimensions)") and t0.xaxis == "x":
            assert (
                np.nanmax(dx, initial=0) <= 0.03 * span[0]
                and np.nanmax(dy, initial=0) <= 0.03 * span[1]
            )
            assert len(dx) == 0 or np.nanmax(dx) > 0
        if t0.name in (
            "clip ball, radius C",
            "clip ball mapped back (ellipse)",
            "true mean",
            "private mean",
        ):
            assert np.nanmax(dx) == 0 and np.nanmax(dy) == 0


def test_the_true_mean_says_on_the_picture_why_it_may_sit_outside_the_ellipses(data16):
    """The ellipses sit around the noiseless (clipped) means: the star's label says so on the
    chart, pointing at the star, not only in the sentence under it."""
    est = _run(data16)
    fig, _ = noise_figure(
        [("PLAN", "#08519c", est)],
        (0, 1),
        true_mean=data16.true_mean,
        empirical_mean=data16.x.mean(0),
    )
    notes = [a for a in fig.layout.annotations if "not noise" in (a.text or "")]
    assert len(notes) == 1 and notes[0].showarrow
    assert (notes[0].x, notes[0].y) == (data16.true_mean[0], data16.true_mean[1])
