"""Animated figures (plotly frames with a play button): PLAN's steps (a)→(d) on one run, and the
scaling-exponent sweep. No streamlit here; these draw a run they are given and closed forms.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Figure 1, Algorithm 1 and Appendix C;
docs/estimators/plan.md §2, §6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.estimate import Estimate
from dpcore.estimators.iome import IomeDiagnostics
from dpcore.estimators.plan import PlanDiagnostics
from dpcore.figures.dict_figure import DictFigure, styled, typed
from dpcore.figures.plan import PANEL_TITLES, exponent_noise_std
from dpcore.figures.style import style, trace

STEP_KEYS = ("a", "b", "c", "d")
_CIRCLE = np.linspace(0.0, 2.0 * np.pi, 121)
#: the rows' colours: blue kept, orange clipped
_CLIP_COLOURS = [[0.0, "#0072b2"], [0.5, "#0072b2"], [0.5, "#d55e00"], [1.0, "#d55e00"]]


def _play_buttons(duration: int) -> list[dict]:
    return [
        dict(
            type="buttons",
            direction="left",
            x=0.0,
            y=-0.18,
            xanchor="left",
            yanchor="top",
            showactive=False,
            buttons=[
                dict(
                    label="▶ play",
                    method="animate",
                    args=[
                        None,
                        {
                            "frame": {"duration": duration, "redraw": True},
                            "fromcurrent": True,
                            "transition": {"duration": duration // 2, "easing": "cubic-in-out"},
                        },
                    ],
                ),
                dict(
                    label="❚❚ pause",
                    method="animate",
                    args=[[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}],
                ),
            ],
        )
    ]


def _slider(labels: Sequence[str], names: Sequence[str], prefix: str) -> list[dict]:
    return [
        dict(
            active=0,
            x=0.22,
            y=-0.12,
            len=0.78,
            currentvalue=dict(prefix=prefix, font=dict(size=13)),
            steps=[
                dict(
                    label=lab,
                    method="animate",
                    args=[[nm], {"frame": {"duration": 0, "redraw": True}, "mode": "immediate"}],
                )
                for lab, nm in zip(labels, names, strict=True)
            ],
        )
    ]


def plan_steps_animation(
    x: np.ndarray,
    estimate: Estimate,
    coords: Sequence[int],
    *,
    true_mean: np.ndarray,
    rows: np.ndarray | None = None,
    duration: int = 1200,
    drawn: bool = False,
) -> tuple[Any, pd.DataFrame]:
    """PLAN's four steps on one run, as frames: (a) raw rows, (b) centred and scaled ``(x − μ̃)·s``,
    (c) clipped to the ball of radius ``C`` (by each row's **full** ``d``-dimensional scaled norm),
    (d) back in original space ``μ̃ + y/s`` with the release.

    ``x`` is the whole data (n, d); ``rows`` the subsample to draw (default: all). The estimate must
    be a PLAN estimate (diagnostics ``center``, ``scale``, ``clip_radius`` and ``norms``).
    ``drawn``: the figure as plotly's dict (a :class:`~dpcore.figures.dict_figure.DictFigure` on
    the house layout kept per process, no validation pass), else a ``go.Figure``.
    """
    steps = _animation_steps(x, estimate, coords, true_mean, rows)
    frames = [
        {"data": steps.traces(k), "name": k, "layout": {"title": {"text": PANEL_TITLES[k]}}}
        for k in STEP_KEYS
    ]
    fig: Any = DictFigure(*steps.traces("a")) if drawn else go.Figure(steps.traces("a"))
    if not drawn:
        fig.frames = frames
    lo, hi = steps.extent()
    pad = (hi - lo) * 0.05
    cs = steps.cs
    fig.update_xaxes(range=[lo[0] - pad[0], hi[0] + pad[0]], title=f"coordinate {cs[0] + 1}")
    fig.update_yaxes(range=[lo[1] - pad[1], hi[1] + pad[1]], title=f"coordinate {cs[1] + 1}")
    styled(fig, title=PANEL_TITLES["a"], height=560)
    fig.update_layout(
        updatemenus=_play_buttons(duration),
        sliders=_slider(
            [PANEL_TITLES[k].split(")")[0] + ")" for k in STEP_KEYS], list(STEP_KEYS), "step "
        ),
        margin=dict(b=140),
    )
    if drawn:
        # the rows' arrays stay NumPy arrays (typed arrays in plotly's JSON, as a figure's)
        fig = fig.to_dict() | {
            "frames": [typed(f) | {"data": [typed(t) for t in f["data"]]} for f in frames]
        }
    df = pd.concat(
        [
            pd.DataFrame(
                {"step": k, "row": steps.idx, "x": v[:, 0], "y": v[:, 1], "clipped": steps.clipped}
            )
            for k, v in steps.positions.items()
        ],
        ignore_index=True,
    )
    return fig, df


@dataclass
class _AnimationSteps:
    """Where the drawn rows, the clip ball and the marked mean sit at each step (a)-(d)."""

    cs: list[int]
    idx: np.ndarray
    positions: dict[str, np.ndarray]
    ball: dict[str, np.ndarray | None]
    marks: dict[str, np.ndarray]
    clipped: np.ndarray

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """Lowest and highest drawn point over every step (the fixed axis ranges)."""
        balls = (v for v in self.ball.values() if v is not None)
        allp = np.vstack([*self.positions.values(), *balls])
        return np.nanmin(allp, axis=0), np.nanmax(allp, axis=0)

    def traces(self, k: str) -> list[go.Scatter]:
        """Step ``k``'s rows (orange: clipped), clip ball or ellipse, and true or private mean."""
        outline = self.ball[k]
        b = outline if outline is not None else np.full((2, 2), np.nan)
        return [
            trace(
                go.Scatter,
                x=self.positions[k][:, 0],
                y=self.positions[k][:, 1],
                mode="markers",
                name="rows (orange: clipped)",
                # 0 / 1 on a two-colour scale: the colours of a list of colour names, as one
                # number array (plotly checks a list of names one by one: most of the figure's time)
                marker=dict(
                    size=4,
                    color=self.clipped.astype(np.int8),
                    colorscale=_CLIP_COLOURS,
                    cmin=0,
                    cmax=1,
                    opacity=0.6,
                ),
            ),
            trace(
                go.Scatter,
                x=b[:, 0],
                y=b[:, 1],
                mode="lines",
                # a frame lists only what it draws: no outline before the clip (a, b)
                name="clip ball" if k == "c" else "clip ellipse",
                showlegend=outline is not None,
                line=dict(color="#1d2733", width=2, dash="dash"),
            ),
            trace(
                go.Scatter,
                x=[self.marks[k][0]],
                y=[self.marks[k][1]],
                mode="markers",
                name="true mean" if k != "d" else "private mean",
                marker=dict(
                    symbol="star",
                    size=16,
                    color="#1d2733" if k != "d" else "#cc79a7",
                    line=dict(color="white", width=1),
                ),
            ),
        ]


def _animation_steps(
    x: np.ndarray,
    estimate: Estimate,
    coords: Sequence[int],
    true_mean: np.ndarray,
    rows: np.ndarray | None,
) -> _AnimationSteps:
    """Recentre, scale, clip (by the full d-dimensional norm) and map back the drawn rows."""
    dg = estimate.diagnostics
    if (
        not isinstance(dg, PlanDiagnostics | IomeDiagnostics)
        or dg.center is None
        or dg.scale is None
        or dg.clip_radius is None
    ):
        raise ValueError(
            "plan_steps_animation needs a PLAN estimate (PlanDiagnostics: center, scale, "
            "clip_radius, norms)."
        )
    cs = [int(c) for c in coords]
    if len(cs) != 2 or cs[0] == cs[1]:
        raise ValueError(f"coords must be two different coordinates; got {list(coords)}.")
    idx = np.arange(x.shape[0]) if rows is None else np.asarray(rows)
    pts = np.asarray(x, float)[np.ix_(idx, np.asarray(cs))]
    c, s, C = dg.center[cs], dg.scale[cs], float(dg.clip_radius)
    norms = np.asarray(dg.norms, float)[idx]
    y = (pts - c) * s
    yc = y * np.minimum(1.0, C / np.maximum(norms, 1e-300))[:, None]
    circle = np.column_stack([C * np.cos(_CIRCLE), C * np.sin(_CIRCLE)])
    ellipse = np.column_stack(
        [c[0] + C / s[0] * np.cos(_CIRCLE), c[1] + C / s[1] * np.sin(_CIRCLE)]
    )
    truth = np.asarray(true_mean, float)[cs]
    return _AnimationSteps(
        cs=cs,
        idx=idx,
        positions={"a": pts, "b": y, "c": yc, "d": c + yc / s},
        ball={"a": None, "b": circle, "c": circle, "d": ellipse},
        marks={"a": truth, "b": (truth - c) * s, "c": (truth - c) * s, "d": estimate.mean[cs]},
        clipped=norms > C,
    )


def sweep_grid(p: float = 2.0) -> list[float]:
    """The exponents :func:`exponent_sweep_animation` draws: 0 to 1/2 by 0.05, and ``1/(p+2)``."""
    return sorted(set(np.round(np.linspace(0.0, 0.5, 11), 4)) | {round(1.0 / (p + 2.0), 4)})


def best_exponent(sigma: np.ndarray, n: int, rho_noise: float, p: float = 2.0) -> float:
    """The exponent of :func:`sweep_grid` whose idealised noise std has the smallest ``ℓ2`` norm
    (the one the sweep's frame titles show smallest), without building the figure."""
    sig = np.asarray(sigma, float)
    grid = sweep_grid(p)
    totals = [float(np.sum(exponent_noise_std(sig, n, rho_noise, e) ** 2)) for e in grid]
    return float(grid[int(np.argmin(totals))])


def exponent_sweep_animation(
    sigma: np.ndarray,
    n: int,
    rho_noise: float,
    *,
    exponents: Sequence[float] | None = None,
    p: float = 2.0,
    duration: int = 500,
) -> tuple[go.Figure, pd.DataFrame]:
    """Per-coordinate noise std of PLAN's release as the scaling exponent ``e`` (``s = σ^(−2e)``) runs
    from 0 (no scaling: the same noise everywhere) through ``1/(p+2)`` (PLAN) to 1/2 (equal split),
    one frame per exponent, against the sampling spread ``σᵢ/√n``. Idealised (Appendix C):
    :func:`dpcore.figures.plan.exponent_noise_std`; the frame title gives ``||noise std||₂``.
    """
    sig = np.asarray(sigma, float)
    grid = sweep_grid(p) if exponents is None else [float(e) for e in exponents]
    coord = np.arange(1, sig.size + 1)
    stds = {e: exponent_noise_std(sig, n, rho_noise, e) for e in grid}
    top = max(float(np.max(v)) for v in stds.values())
    floor = sig / np.sqrt(n)
    low = max(min(float(np.min(v)) for v in stds.values()), 1e-12)

    names = [f"{e:g}" for e in grid]
    fig = go.Figure(
        data=_sweep_traces(coord, floor, stds[grid[0]]),
        frames=[
            go.Frame(
                data=_sweep_traces(coord, floor, stds[e]),
                name=nm,
                layout=dict(title_text=_sweep_title(e, p, stds[e])),
            )
            for e, nm in zip(grid, names, strict=True)
        ],
    )
    fig.update_xaxes(title="coordinate (1 = most spread)")
    fig.update_yaxes(
        type="log",
        title="standard deviation",
        range=[
            np.log10(min(low, float(floor.min()))) - 0.1,
            np.log10(max(top, float(floor.max()))) + 0.1,
        ],
    )
    style(fig, title=_sweep_title(grid[0], p, stds[grid[0]]), height=480)
    fig.update_layout(
        updatemenus=_play_buttons(duration),
        sliders=_slider([f"{e:g}" for e in grid], names, "e = "),
        margin=dict(b=140),
    )
    df = pd.DataFrame(
        [
            {"exponent": e, "coordinate": int(i), "noise_std": float(v), "sampling": float(f)}
            for e in grid
            for i, v, f in zip(coord, stds[e], floor, strict=True)
        ]
    )
    return fig, df


def _sweep_title(e: float, p: float, std: np.ndarray) -> str:
    """A frame's title: the exponent, its name (no scaling, PLAN, equal split) and ``||std||₂``."""
    named = {0.0: "no scaling", round(1.0 / (p + 2.0), 4): "PLAN", 0.5: "equal split"}
    label = f"e = {e:g}" + (f" ({named[e]})" if e in named else "")
    return f"Noise per coordinate at {label}: ‖noise std‖₂ = {float(np.linalg.norm(std)):.3g}"


def _sweep_traces(coord: np.ndarray, floor: np.ndarray, std: np.ndarray) -> list[go.Scatter]:
    """A frame's two lines: the sampling spread ``σᵢ/√n`` and the noise std per coordinate."""
    return [
        trace(
            go.Scatter,
            x=coord,
            y=floor,
            mode="lines",
            name="sampling spread σᵢ/√n",
            line=dict(color="#7f7f7f", width=2, dash="dot"),
        ),
        trace(
            go.Scatter,
            x=coord,
            y=std,
            mode="lines+markers",
            name="noise std (idealised)",
            line=dict(color="#0072b2", width=3),
            marker=dict(size=5, symbol="circle"),
        ),
    ]
