"""The fast figure paths draw byte-identical JSON to plotly's validated ones.

:func:`dpcore.figures.style.set_template` sets the house template without re-validating it, and
:func:`dpcore.figures.style.as_figure` wraps a figure's dict for ``st.plotly_chart`` without a
second validation. Each test builds real figures both ways and compares the JSON (the template: as
strings, byte for byte; a fast path that dropped, reordered or un-coerced anything would show).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dpcore.data import generate
from dpcore.estimators.plan import plan
from dpcore.experiments import ExperimentConfig, run
from dpcore.figures import style as style_mod
from dpcore.figures.compare import error_figure
from dpcore.figures.plan import error_split_frame, plan_steps_figure
from dpcore.figures.style import as_figure, epsilon_delta_curve, error_split_chart


def _validated_template(fig: go.Figure) -> go.Figure:
    """The assignment :func:`set_template` replaces: plotly validates the whole template."""
    fig.update_layout(template=style_mod.HOUSE_TEMPLATE)
    return fig


def _validated_style(fig: go.Figure, *, title: str | None = None, height: int = 420) -> go.Figure:
    """:func:`style` as it was: one validated ``update_layout`` with the template."""
    fig.update_layout(
        template=style_mod.HOUSE_TEMPLATE,
        font=style_mod.FONT,
        height=height,
        margin=dict(l=60, r=20, t=60 if title else 30, b=50),
        title=dict(text=title, x=0.0, xanchor="left") if title else None,
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0),
    )
    return fig


@pytest.fixture(scope="module")
def data():
    return generate("gaussian", 1200, 6, 2.0, rng=3)


def _builders(data):
    est = plan(data.x, rho=0.5, bounds=data.bounds, sigma=data.true_std, variances="oracle", rng=0)
    frame = run(
        ExperimentConfig(
            n=300,
            d=3,
            estimators=["empirical", "gaussian_private", "plan"],
            sweep={"budget": [0.25, 1.0]},
            repetitions=2,
            seed=5,
        )
    )
    split = error_split_frame([("PLAN", est)], data.x, data.true_mean, p=2.0)
    return {
        "epsilon_delta": lambda: epsilon_delta_curve(0.5)[0],
        "plan_steps": lambda: plan_steps_figure(data.x, est, (0, 3), true_mean=data.true_mean)[0],
        "error_figure": lambda: error_figure(frame, x="budget", metric="l2")[0],
        "error_split": lambda: error_split_chart(split),
    }


def test_fast_paths_give_the_validated_json_of_real_figures(data, monkeypatch):
    """PLAN's steps, Compare's error chart (both on a cached subplot grid and the house template)
    and two single charts: the same bytes as with make_subplots and the validated template."""
    from plotly.subplots import make_subplots

    from dpcore.figures import compare_layout as compare_figs
    from dpcore.figures.plan import steps as plan_figs

    builders = _builders(data)
    fast = {name: build().to_json() for name, build in builders.items()}
    monkeypatch.setattr(style_mod, "set_template", _validated_template)

    def made_subplots(*, styled=False, **kwargs):  # styled: only skips the default template
        return make_subplots(**kwargs)

    for module in (plan_figs, compare_figs):
        monkeypatch.setattr(module, "subplots", made_subplots)
    for module in (style_mod, plan_figs, compare_figs):
        monkeypatch.setattr(module, "style", _validated_style)
    compare_figs._laid_out.cache_clear()  # Compare's layout is kept per process: lay it out again
    slow = {name: build().to_json() for name, build in builders.items()}
    for name in builders:  # the same JSON object (the key order of a copied grid may differ)
        assert json.loads(fast[name]) == json.loads(slow[name]), name
        assert json.loads(fast[name])["layout"]["template"]["layout"]["plot_bgcolor"] == "white"


def test_set_template_replaces_the_template_and_keeps_validation_on():
    fig = style_mod.style(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), title="t")
    assert fig.layout.template.layout.plot_bgcolor == "white"
    with pytest.raises(ValueError):  # later edits are still validated
        fig.update_layout(not_a_property=1)
    other = style_mod.style(go.Figure())
    other.layout.template.layout.plot_bgcolor = "black"  # each figure owns its copy
    assert fig.layout.template.layout.plot_bgcolor == "white"


def test_as_figure_sends_the_json_of_the_figure_it_came_from(data):
    """A page that caches ``fig.to_dict()`` sends, through ``as_figure``, the JSON object that
    ``st.plotly_chart(fig)`` sends (same keys and values; layout keys come in plotly's constructor
    order, as after the validated round trip), without the second validation ``st.plotly_chart``
    gave a dict (``Figure(**d).to_dict()``, which also dropped an empty ``layout.title``)."""
    import plotly.io as pio
    import plotly.tools

    def sent(f):  # what st.plotly_chart (Streamlit 1.67) puts in its proto's spec
        return pio.to_json(plotly.tools.return_figure_from_figure_or_data(f, True), validate=False)

    for build in _builders(data).values():
        fig = build()  # what st.plotly_chart makes of the dict itself
        assert json.loads(sent(as_figure(fig.to_dict()))) == json.loads(sent(fig.to_dict()))
    fig = go.Figure()
    assert as_figure(fig) is fig


def test_a_prepared_figure_sends_the_same_bytes_without_copying(data, monkeypatch):
    """``prepared(drawn_dict(fig))`` is what the pages hand to ``st.plotly_chart`` for a chart kept
    in a cache or sent back by a worker: the same JSON string as the ``as_figure`` route (and the
    same object as ``st.plotly_chart(fig)`` sends), the kept dict handed over as it is (no copy,
    left unchanged), and no per-view ``to_dict`` of a whole figure."""
    import copy

    import plotly.io as pio
    import plotly.tools

    def sent(f):  # what st.plotly_chart (Streamlit 1.67) puts in its proto's spec
        return pio.to_json(plotly.tools.return_figure_from_figure_or_data(f, True), validate=False)

    for name, build in _builders(data).items():
        fig = build()
        kept = style_mod.drawn_dict(fig)
        before = copy.deepcopy(kept)
        fast = style_mod.prepared(kept)
        assert isinstance(fast, style_mod.PreparedFigure) and fast.to_dict() is kept, name
        assert json.loads(sent(fast)) == json.loads(sent(fig)), name
        assert json.dumps(kept, sort_keys=True, default=str) == json.dumps(
            before, sort_keys=True, default=str
        ), name
    assert style_mod.prepared(fig) is fig


@pytest.mark.parametrize(
    "data",
    [
        np.array([0.5, 2.0, np.nan, -1.0, np.inf]),
        np.arange(7),
        np.array([[1, 2], [3, 4]], dtype=np.int32),
        np.array([True, False]),
        [1, True, 2.5, "a", None],
        (3, 4.0),
        np.array(["2024-01-01"], dtype="datetime64[D]"),
    ],
)
def test_tidy_log_axes_reads_the_same_numbers_vectorised(data):
    """The per-point test it replaces: ints and floats, never bools, strings or dates."""
    old = [
        float(v)
        for v in np.asarray(data, dtype=object).ravel()
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    ]
    new = style_mod._numbers(data)
    np.testing.assert_array_equal(np.array(new, dtype=float), np.array(old, dtype=float))
    assert all(type(v) is float for v in new)


def test_add_shapes_is_add_hline_batched(monkeypatch):
    """The Binary product ladder's thresholds: one assignment, the JSON of one add_hline per round."""
    from dpcore.data.binary import profile, sample_binary_product
    from dpcore.estimators.binary_baselines import naive_laplace
    from dpcore.estimators.binary_product import BinaryProductDiagnostics, pure_dp_pde
    from dpcore.figures import binary_product as bp_figs

    p = profile("skewed", 64, rng=1)
    X = sample_binary_product(p, 60_000, rng=2)
    pde = pure_dp_pde(X, epsilon=1.0, rng=3)
    rounds = pde.diagnostics_as(BinaryProductDiagnostics).rounds
    assert len(rounds) >= 2
    df = bp_figs.ladder_frame(p, pde, naive_laplace(X, epsilon=1.0, rng=4))
    fast = bp_figs.ladder_figure(df, rounds).to_json()

    def one_by_one(fig, shapes):  # the code add_shapes replaced
        for s in shapes:
            fig.add_hline(
                y=s["y0"], line={"color": "#999", "dash": "dot", "width": 1}, row=1, col=1
            )
        return fig

    monkeypatch.setattr(bp_figs, "add_shapes", one_by_one)
    assert fast == bp_figs.ladder_figure(df, rounds).to_json()
    assert len(json.loads(fast)["layout"]["shapes"]) == len(rounds)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(rows=2, cols=2, subplot_titles=["a<br>b", "c", "d", "e"], horizontal_spacing=0.14),
        dict(rows=1, cols=3, subplot_titles=["x", "y", "z"], shared_yaxes=False),
        dict(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, subplot_titles=("p", "q")),
        dict(rows=1, cols=2, subplot_titles=None),
    ],
)
def test_subplots_is_make_subplots(kwargs):
    """The cached grid gives make_subplots' JSON, before and after traces, axes and annotations are
    added by row and column, and each figure owns its layout."""
    from plotly.subplots import make_subplots

    def draw(fig):
        rows, cols = kwargs["rows"], kwargs["cols"]
        for r in range(1, rows + 1):
            for c in range(1, cols + 1):
                fig.add_trace(go.Scatter(x=np.arange(3), y=np.ones(3) * r * c), row=r, col=c)
                fig.update_xaxes(title_text=f"x{r}{c}", row=r, col=c)
        fig.add_hline(y=1.0, row=1, col=1)
        fig.add_annotation(text="note", x=0, y=0, showarrow=False)
        return style_mod.style(fig, title="t")

    def same(
        a, b
    ):  # the same JSON object (a copied grid may list its layout keys in another order)
        return json.loads(a.to_json()) == json.loads(b.to_json())

    assert same(style_mod.subplots(**kwargs), make_subplots(**kwargs))
    first = draw(style_mod.subplots(**kwargs))
    assert same(first, draw(make_subplots(**kwargs)))
    again = style_mod.subplots(**kwargs)  # untouched by the edits made to the first copy
    assert same(again, make_subplots(**kwargs))


@pytest.mark.parametrize("title", ["A title", None])
@pytest.mark.parametrize("preset", [{}, {"legend": {"traceorder": "reversed"}}, {"height": 300}])
def test_style_is_the_validated_update(title, preset):
    """Copied settings on a fresh layout, plotly's merge when the builder set one of them first."""

    def build(styler):
        fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
        fig.update_layout(xaxis_title="x", **preset)
        return styler(fig, title=title, height=500).to_json()

    assert build(style_mod.style) == build(_validated_style)


@pytest.mark.parametrize(
    ("value", "digits", "want"),
    [
        (9690.4, 3, "9,690"),  # was "9.69e+03" in the Side by side sentence
        (543.21, 3, "543"),
        (6.6178, 3, "6.62"),
        (1.0, 3, "1"),
        (0.000123456, 3, "0.000123"),
        (-2345.6, 3, "-2,350"),
        (31_415.9, 2, "31,000"),
        (2.5e17, 3, "about 10^17"),
        (float("inf"), 3, "∞"),
    ],
)
def test_plain_numbers_are_never_in_scientific_notation(value, digits, want):
    from dpcore.figures.style import plain, times

    assert plain(value, digits) == want
    assert times(value, digits) == want + "×"


def test_wrap_label_keeps_the_whole_label():
    from dpcore.figures.style import wrap_label

    label = "IOME (PLAN paper's parameters, robust centre and radius)"
    lines = wrap_label(label, 30).split("<br>")
    assert " ".join(lines) == label and all(len(x) <= 30 for x in lines) and len(lines) == 2
    assert wrap_label("PLAN", 30) == "PLAN"


def _steps_frame_by_concat(geo, iome):
    """The frame of the PLAN steps figure as it was built before the fast paths: one small frame per
    part, concatenated (the reference for the numpy-built one)."""
    from dpcore.figures.plan import geometry as plan_figs

    frames = []
    for panel, role, xy, row, clip, norm in plan_figs._steps_parts(geo, iome)[0]:
        if geo.one_d and xy.shape[1] == 1:
            xy = np.column_stack([xy[:, 0], np.zeros(len(xy))])
        frames.append(
            pd.DataFrame(
                {
                    "panel": panel,
                    "role": role,
                    "row": row,
                    "x": xy[:, 0],
                    "y": xy[:, 1],
                    "clipped": clip,
                    "norm_scaled": norm,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("coords", [(0, 3), (2,)])
def test_steps_frame_is_the_concatenation_of_its_parts(data, coords):
    """The PLAN steps frame (the chart's CSV), built from numpy columns at once, is the frame the
    per-part frames concatenated to: same values, dtypes and Python objects (bools and None in
    ``clipped``), in two and in one dimension."""
    from dpcore.estimators.iome import iome_paper
    from dpcore.experiments.studies import display_sample
    from dpcore.figures.plan import geometry as plan_figs

    est = plan(data.x, rho=0.5, bounds=data.bounds, sigma=data.true_std, variances="private", rng=1)
    iome = iome_paper(data.x, rho=0.5, bounds=data.bounds, rng=1)
    sample = display_sample(data.n, max_points=300, one_d=len(coords) == 1, rng=2)
    geo = plan_figs._steps_geometry(data.x, est, coords, data.true_mean, sample=sample)
    fast, has_iome = plan_figs._steps_frame(geo, iome)
    assert has_iome
    reference = _steps_frame_by_concat(geo, iome)
    pd.testing.assert_frame_equal(fast, reference, check_exact=True)
    assert list(map(type, fast.clipped)) == list(map(type, reference.clipped))
    assert fast.to_csv(index=False) == reference.to_csv(index=False)


@pytest.mark.parametrize("title", [None, "t"])
def test_a_styled_figure_skips_only_the_default_template(title):
    """``figure(styled=True)`` starts without plotly's default template; once styled it is the same
    bytes as a ``go.Figure()`` styled, and the same as with validation on."""
    line = dict(
        x=np.arange(4), y=np.arange(4.0) ** 2, mode="lines", line=dict(width=2, color="red")
    )
    reference = style_mod.style(go.Figure(go.Scatter(**line)), title=title).to_json()
    fast = style_mod.figure(style_mod.trace(go.Scatter, **line), styled=True)
    assert style_mod.style(fast, title=title).to_json() == reference
    plain = style_mod.figure(style_mod.trace(go.Scatter, **line))
    assert plain.layout.template.layout.colorway  # unstyled: plotly's default template, as before


def test_the_round_thresholds_labels_do_not_stack():
    """τ₁…τ_R sit close together on the log axis in late rounds: each label gets its own place
    left of the panel's right edge, a label's width (px) a round (before, all stood on one another)."""
    from dpcore.figures import binary_product as bp_figs

    rounds = [{"tau": 2.0**-r} for r in range(1, 8)]
    fig = go.Figure()
    bp_figs._thresholds(fig, rounds)
    labels = [a for a in fig.layout.annotations if a.text.startswith("τ")]
    assert len(labels) == 7
    shifts = sorted(a.xshift or 0 for a in labels)
    assert len(set(shifts)) == 7 and all(a.x == 1 for a in labels), shifts
    assert min(b - a for a, b in itertools.pairwise(shifts)) >= bp_figs.TAU_LABEL_STEP > 0
