"""dpcore.figures.motion: the animated PLAN steps follow the run's centre, scale and radius."""

import numpy as np
import pytest

from dpcore.data import generate
from dpcore.estimators.plan import PlanDiagnostics
from dpcore.figures.motion import exponent_sweep_animation, plan_steps_animation
from dpcore.figures.plan import exponent_noise_std
from dpcore.privacy import Budget
from dpcore.registry import get


def test_plan_steps_frames_follow_the_run():
    ds = generate("gaussian", 600, 6, 2.0, rng=0)
    est = get("plan").run(ds, Budget.zcdp(0.5), rng=1)
    fig, df = plan_steps_animation(ds.x, est, (0, 5), true_mean=ds.true_mean)
    assert [f.name for f in fig.frames] == ["a", "b", "c", "d"]
    dg = est.diagnostics_as(PlanDiagnostics)
    b = df[df.step == "b"][["x", "y"]].to_numpy()
    np.testing.assert_allclose(b, (ds.x[:, [0, 5]] - dg.center[[0, 5]]) * dg.scale[[0, 5]])
    c = df[df.step == "c"][["x", "y"]].to_numpy()
    # clipped rows shrink by C / (full norm); the rest do not move
    factor = np.minimum(1.0, dg.clip_radius / dg.norms)
    np.testing.assert_allclose(c, b * factor[:, None])
    assert df[df.step == "c"].clipped.sum() == int(dg.clipped.sum())
    with pytest.raises(ValueError, match="PLAN estimate"):
        plan_steps_animation(
            ds.x, get("pmwm_zcdp").run(ds, Budget.zcdp(0.5), rng=1), (0, 1), true_mean=ds.true_mean
        )


def test_exponent_sweep_frames_are_the_closed_form():
    sigma = np.array([4.0, 2.0, 1.0, 0.5])
    fig, df = exponent_sweep_animation(sigma, 1000, 0.3)
    assert len(fig.frames) == df.exponent.nunique()
    for e in (0.0, 0.25, 0.5):
        np.testing.assert_allclose(
            df[df.exponent == e].noise_std, exponent_noise_std(sigma, 1000, 0.3, e)
        )
    flat = df[df.exponent == 0.0].noise_std.to_numpy()
    assert np.allclose(flat, flat[0])  # no scaling: the same noise in every coordinate


def test_each_step_frame_lists_only_what_it_draws():
    """Frames (a) and (b) draw no clip outline, so their legend does not list one; (c) draws the
    ball, (d) the ellipse (the ball seen in original space)."""
    ds = generate("gaussian", 300, 4, 2.0, rng=0)
    est = get("plan").run(ds, Budget.zcdp(0.5), rng=1)
    fig, _ = plan_steps_animation(ds.x, est, (0, 1), true_mean=ds.true_mean)
    for frame in fig.frames:
        outline = frame.data[1]
        drawn = bool(np.isfinite(np.asarray(outline.x, dtype=float)).any())
        assert bool(outline.showlegend) == drawn, (frame.name, outline.showlegend)
    names = {f.name: f.data[1].name for f in fig.frames}
    assert names["c"] == "clip ball" and names["d"] == "clip ellipse"
    assert not fig.data[1].showlegend  # the first frame shown is (a)


def test_step_rows_are_coloured_by_clipping():
    """Each frame's rows: blue where kept, orange where clipped (a 0/1 colour on a two-colour
    scale, the same colours as a list of names)."""
    ds = generate("gaussian", 400, 4, 2.0, rng=0)
    est = get("plan").run(ds, Budget.zcdp(1.0), rng=1)
    fig, df = plan_steps_animation(ds.x, est, (0, 1), true_mean=ds.true_mean)
    clipped = df[df.step == "a"].clipped.to_numpy()
    assert clipped.any() and not clipped.all()
    for frame in fig.frames:
        m = frame.data[0].marker
        scale = dict(m.colorscale)
        colours = [scale[0.0] if c < 0.5 else scale[1.0] for c in np.asarray(m.color)]
        assert (m.cmin, m.cmax) == (0, 1)
        assert colours == ["#d55e00" if c else "#0072b2" for c in clipped]
