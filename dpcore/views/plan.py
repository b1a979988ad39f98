"""The view of "PLAN step by step": one run of PLAN, IOME and the Gaussian mechanism on the
sidebar's data, and everything the page shows about it (readouts, sentences, the error split and
the notebook code).

The page reads its widgets into :class:`PlanSettings`, calls :func:`view` and draws the
:class:`PlanView` with :mod:`dpcore.figures.plan`. Streams (:mod:`dpcore.streams`): ``"data"``,
``"noise:<entry>"`` for PLAN's entry and each baseline, ``"display:rows"`` for the drawn rows.
Spec: ``docs/estimators/plan.md`` §2, §6, §8.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from dpcore.data import DISTRIBUTIONS, Dataset
from dpcore.estimate import Estimate
from dpcore.estimators.iome import IomeDiagnostics
from dpcore.estimators.plan import PlanDiagnostics, thin_budget_risk
from dpcore.experiments.cost import seconds_plan_page
from dpcore.experiments.plain import PlainWords, split_words
from dpcore.experiments.studies import baseline_runs, display_sample, plan_entry, plan_run
from dpcore.figures.plan import error_split_frame, step_summary
from dpcore.figures.plan.exponent import exponent_frame
from dpcore.figures.style import plain
from dpcore.glossary import define
from dpcore.registry import get
from dpcore.views.settings import DataSettings, dataset

__all__ = [
    "EXPONENTS",
    "JITTER",
    "MAX_POINTS",
    "Metric",
    "PlanOptions",
    "PlanSettings",
    "PlanView",
    "before_run",
    "exp_label",
    "is_exponent",
    "nearest_exponent",
    "options",
    "plan_exponent",
    "seconds",
    "view",
]

MAX_POINTS = 2000
#: display-only spread for 0/1 data, whose rows sit on the four corners of a square
JITTER = 0.1
#: the slider's exponents e in s = σ̂^(−2e): steps of 1/20 and PLAN's 1/3 for p = 1
EXPONENTS = sorted({round(k * 0.05, 2) for k in range(11)} | {1 / 3})
#: the charts of the page, in order (their names on screen, in the report and the slides)
CHARTS = (
    "plan_steps",
    "plan_noise_ellipse",
    "plan_exponent",
    "plan_noise_shapes",
    "plan_error_split",
)
#: the predicted seconds of the page's runs at (n, d), for the long-run confirmation
seconds = seconds_plan_page


@dataclass(frozen=True)
class PlanSettings:
    """The page's controls and the sidebar's data (the view's cache key).

    ``source`` is ``"private"`` or ``"oracle"`` (the true σ, a teaching device); ``i``, ``j`` the
    two coordinates drawn, counted from 1; ``max_points`` the rows a scatter draws.
    """

    data: DataSettings = field(default_factory=DataSettings)
    p: int = 2
    source: str = "private"
    exponent: float = 0.25
    i: int = 1
    j: int = 4
    max_points: int = MAX_POINTS

    @property
    def variances(self) -> str:
        """The PLAN entry's source of variances: ``"oracle"``, ``"binary"`` or ``"private"``."""
        if self.source == "oracle":
            return "oracle"
        return "binary" if self.data.kind == "binary" else "private"


@dataclass(frozen=True)
class PlanOptions:
    """The widgets' choices and labels for data of one kind."""

    p: tuple[int, ...]
    default_p: int
    source: dict[str, str]
    source_help: str
    exponents: tuple[float, ...]


def options(data: DataSettings) -> PlanOptions:
    """The page's choices: ℓ1 by default on 0/1 data, ℓ2 otherwise.

    >>> options(DataSettings()).default_p, options(DataSettings(distribution="binary_plan")).default_p
    (2, 1)
    """
    binary = data.kind == "binary"
    return PlanOptions(
        p=(1, 2),
        default_p=1 if binary else 2,
        source={
            "private": "private (noisy frequencies)" if binary else "private (Algorithm 2)",
            "oracle": "known σ (oracle, teaching)",
        },
        source_help="Private: PLAN spends part of its budget estimating σ̂ and regularises it "
        "(σ̂ + ‖σ̂‖₁/d). Known: the true σ is used as it is and nothing is spent on it. "
        + define("oracle"),
        exponents=tuple(EXPONENTS),
    )


def exp_label(e: float) -> str:
    """The slider's label of exponent ``e``.

    >>> exp_label(0.25), exp_label(0.35)
    ('1/4 · PLAN for p = 2', '7/20')
    """
    names = {
        0.0: "0 · no scaling",
        0.25: "1/4 · PLAN for p = 2",
        1 / 3: "1/3 · PLAN for p = 1",
        0.5: "1/2 · equal split",
    }
    return names.get(e, str(Fraction(e).limit_denominator(100)) if e else "0")


def plan_exponent(p: float) -> float:
    """PLAN's own scaling exponent for the ℓp error, ``1/(p+2)``: the slider's default."""
    return 1 / (float(p) + 2)


def is_exponent(e: float) -> bool:
    """Whether ``e`` is one of the slider's :data:`EXPONENTS` (a link's value, checked)."""
    return any(abs(float(e) - x) < 1e-9 for x in EXPONENTS)


def nearest_exponent(raw: str) -> float:
    """The slider's exponent nearest to a link's value ``raw``."""
    return min(EXPONENTS, key=lambda e: abs(e - float(raw)))


def _short(e: float) -> str:
    return exp_label(e).split(" ")[0]


def before_run(settings: PlanSettings) -> str | None:
    """The warning shown before the run when PLAN's centre budget is thin for the range (public
    values only: n, d, ρ and the public bounds), else ``None``; never on 0/1 data."""
    data = dataset(settings.data)
    if data.kind == "binary":
        return None
    width = float(np.max(np.asarray(data.bounds[1]) - np.asarray(data.bounds[0])))
    rho = settings.data.checked().implied_zcdp().value
    return thin_budget_risk(data.n, data.d, rho, width)


@dataclass(frozen=True)
class Metric:
    """One readout above the pictures."""

    label: str
    value: str
    help: str | None = None
    delta: str | None = None


@dataclass(frozen=True)
class PlanView:
    """Everything the page shows. ``entries`` are ``(label, colour, estimate)`` of PLAN, IOME and
    the Gaussian mechanism; ``coords`` the 0-based coordinates drawn (one when the picture cannot
    have two, said in ``coords_note`` as ``(kind, text)``, kind ``"info"`` or ``"warning"``);
    ``steps``, ``noise``, ``curve`` and ``shapes`` the arguments of
    :func:`dpcore.figures.plan.plan_steps_figure`, :func:`~dpcore.figures.plan.noise_figure`,
    :func:`~dpcore.figures.plan.exponent_curve` and
    :func:`~dpcore.figures.plan.noise_shapes_figure`; ``code`` the notebook code that rebuilds
    this view, followed by each chart's own line in ``codes``."""

    settings: PlanSettings
    data: Dataset
    rho: float
    plan: Estimate
    iome: Estimate
    gauss: Estimate
    entries: tuple[tuple[str, str, Estimate], ...]
    plan_label: str
    warnings: tuple[str, ...]
    metrics: tuple[Metric, ...]
    coords: tuple[int, ...]
    coords_note: tuple[str, str] | None
    sample: pd.DataFrame
    steps: dict[str, Any]
    noise: dict[str, Any]
    shapes: dict[str, Any]
    intro: str
    jitter_note: str | None
    curve: dict[str, Any]
    split: pd.DataFrame
    split_words: PlainWords
    sentences: dict[str, str]
    code: str
    codes: dict[str, str]
    report_settings: dict[str, Any]
    ledger: pd.DataFrame
    spent: str
    subtitle: str

    @property
    def curve_key(self) -> tuple:
        """What the exponent curve is drawn from (the data's spreads, n, PLAN's noise budget, p and
        the slider's exponent): no seed in it, so one drawing serves every seed."""
        return tuple(sorted(self.curve.items()))


def _coords(d: int, i: int, j: int) -> tuple[tuple[int, ...], tuple[str, str] | None]:
    if d == 1:
        return (0,), (
            "info",
            "The picture needs **two coordinates** and this data has one (set d ≥ 2 in the "
            "sidebar). In one dimension scaling does nothing: any sᵢ only changes the units, the "
            "clip 'ball' is the interval [−C, C]. Below is the one-dimensional version; points are "
            "spread up and down at random so they do not overlap (the vertical axis means nothing).",
        )
    if i == j:
        return (i - 1,), (
            "warning",
            "Pick two **different** coordinates for the two axes; meanwhile this is coordinate "
            f"{i} on its own (the vertical axis is a random spread with no meaning).",
        )
    return (i - 1, j - 1), None


def _intro(n: int, d: int, max_points: int) -> str:
    if d == 2:
        return (
            "Here the data has two coordinates, so the drawn circle is the whole clip ball: "
            "clipped rows land exactly on it."
        )
    if d < 2:
        return ""
    sub = (
        f" To keep the page fast, {max_points:,} of the {n:,} rows are drawn (a seeded random "
        "subsample); the numbers count all rows."
        if n > max_points
        else ""
    )
    return (
        f"The clip ball lives in **{d} dimensions**: a row is clipped when its *whole* scaled vector "
        "is longer than C, so in this two-coordinate slice a point **inside the drawn circle may "
        "still be clipped** (the rest of its length is in the other coordinates), while no point "
        "outside it escapes clipping. Points are coloured by what the estimator actually did." + sub
    )


def _metrics(
    dg: PlanDiagnostics, n: int, p: int, err: float, rho: float, rule: str | None
) -> tuple[Metric, ...]:
    return (
        Metric(
            "Clip radius C (scaled space)",
            f"{dg.clip_radius:.4g}",
            help=f"Private {dg.clip_quantile:.3f}-quantile of the n scaled norms (rank slack k = "
            f"{dg.rank_slack:.1f}).",
        ),
        Metric(
            f"Rows clipped (of {n:,})",
            f"{int(np.sum(np.asarray(dg.clipped))):,} ({dg.fraction_clipped:.1%})",
        ),
        Metric(f"ℓ{p} error of the private mean", f"{err:.3g}"),
        Metric("Budget", f"ρ = {rho:.4g}", delta=rule),
    )


def _shape_sentence(sc: np.ndarray, sm: dict[str, Any], exponent: float) -> str:
    if len(sc) < 2:
        return ""
    if abs(np.log(sc[0] / sc[1])) < 0.01:
        return "Both coordinates got the same factor, so their shape does not change. "
    if exponent == 0:
        return "No scaling: the cloud keeps its shape. "
    ratio = (
        f"The two coordinates' spread ratio goes from {plain(sm['ratio_before'], 2)} in (a) to "
        f"{plain(sm['ratio_after'], 2)} in (b): "
    )
    if abs(exponent - 0.5) < 1e-12:
        return ratio + "whitened (sᵢ = 1/σ̂ᵢ). "
    return ratio + "rounder, but not round (whitening would need sᵢ = 1/σ̂ᵢ). "


def _steps_sentence(v: dict[str, Any], sm: dict[str, Any]) -> str:
    dg, coords, n, d, p = v["dg"], v["coords"], v["data"].n, v["data"].d, v["p"]
    sc = dg.scale[list(coords)]
    mapped = (
        f"an ellipse with semi-axes {', '.join(f'{a:.3g}' for a in sm['semi_axes'])} (C/sᵢ) around μ̃"
        if len(coords) == 2
        else f"the interval μ̃ ± {sm['semi_axes'][0]:.3g} (C/s)"
    )
    inside = (
        f" {sm['inside_drawn']} of them lie inside the drawn circle: they were clipped because of "
        f"the other {d - len(coords)} coordinates."
        if d > len(coords) and sm["clipped"]
        else ""
    )
    over = f" (ℓ{p} over all {d} coordinates)" if d > 1 else ""
    iome_r = v["iome"].diagnostics_as(IomeDiagnostics).ball_radius
    return (
        f"PLAN multiplied coordinate {coords[0] + 1} by s = {sc[0]:.3g}"
        + (f" and coordinate {coords[1] + 1} by s = {sc[1]:.3g}. " if len(coords) == 2 else ". ")
        + _shape_sentence(sc, sm, v["exponent"])
        + f"The clip radius is C = {sm['C']:.4g} in scaled space: {sm['clipped']:,} of {n:,} rows "
        f"({sm['clipped'] / n:.1%}) were pulled onto the ball.{inside} Mapped back to original space "
        f"the ball is {mapped}; IOME's ball, after its rotation, has radius {iome_r:.3g}. The private "
        f"mean lands {v['err']:.3g} from the true mean{over}."
    )


def _noise_sentence(v: dict[str, Any]) -> str:
    dg, coords, n = v["dg"], v["coords"], v["data"].n
    nsd = dg.noise_std[list(coords)]
    return (
        f"PLAN's noise has standard deviation {nsd[0]:.3g} on coordinate {coords[0] + 1}"
        + (f" and {nsd[1]:.3g} on coordinate {coords[1] + 1}" if len(coords) == 2 else "")
        + f": it adds noise of the same std {dg.noise_std_scaled / n:.3g} to every coordinate in "
        "scaled space and divides coordinate i by sᵢ on the way back. IOME's noise has std "
        f"{v['iome'].diagnostics.noise_std[0]:.3g} and the Gaussian mechanism's "
        f"{v['gauss'].diagnostics.noise_std[0]:.3g} on every coordinate. Open circles: each estimator "
        "without its final noise; crosses: what it released. "
        + (
            "The shaded ellipse holds the released mean with probability 39% (one standard "
            "deviation), the dotted one 86% (two)."
            if len(coords) == 2
            else "The thick bar holds the released mean with probability 68% (±1 sd), the thin one "
            "95% (±2 sd)."
        )
    )


def _curve_numbers(df: pd.DataFrame, p: int, exponent: float) -> dict[str, float]:
    pts = df[df.point != ""].set_index("exponent")
    plan_e = 1 / (p + 2)
    v0, vp, vh = (
        (float(pts.loc[e, "noise"]) for e in (0.0, plan_e, 0.5)) if len(pts) == 3 else (np.nan,) * 3
    )
    return {
        "v0": v0,
        "vp": vp,
        "vh": vh,
        "current": float(df.loc[np.isclose(df.exponent, exponent), "noise"].iloc[0]),
        "best": float(df.exponent[df.noise.idxmin()]),
        "sampling": float(df.sampling.iloc[0]),
    }


def _exponent_sentence(c: dict[str, float], p: int, d: int, exponent: float) -> str:
    v0, vp, vh = c["v0"], c["vp"], c["vh"]
    if np.isclose(v0, vp, rtol=1e-9):
        return f"Every exponent gives the same expected noise ({vp:.3g}): " + (
            "in one dimension scaling only changes units."
            if d == 1
            else "all coordinates have the same spread, so scaling changes nothing (try a skewed "
            "distribution)."
        )
    return (
        f"Expected ℓ{p} noise: {vp:.3g} at PLAN's e = {_short(1 / (p + 2))}, against {v0:.3g} with "
        f"no scaling ({v0 / vp:.2f}×) and {vh:.3g} with the equal split ({vh / vp:.2f}×); the "
        f"slider's e = {_short(exponent)} gives {c['current']:.3g}. The minimum of the curve is at "
        f"e = {c['best']:.3g}. "
        + (
            "For ℓ2 the curve is symmetric about 1/4: no scaling and the equal split cost exactly "
            "the same. "
            if p == 2
            else ""
        )
        + f"The expected sampling error {c['sampling']:.3g} (root-mean-square over data sets) is a "
        "floor no estimator beats; the noise only adds to it. Expected values here: averages over "
        "draws of the data and the noise, with σ known and an idealised radius."
    )


def _shapes_sentence(v: dict[str, Any]) -> str:
    dg, d, entries = v["dg"], v["data"].d, v["entries"]
    l2 = [float(np.sqrt(np.sum(np.asarray(e.diagnostics.noise_std) ** 2))) for _, _, e in entries]
    return (
        f"{entries[0][0]}'s noise std runs from {dg.noise_std.max():.3g} to "
        f"{dg.noise_std.min():.3g} across the {d} coordinates (following "
        f"σ̂ᵢ^{2 * v['exponent']:.2g}), while IOME puts {v['iome'].diagnostics.noise_std[0]:.3g} and "
        f"the Gaussian mechanism {v['gauss'].diagnostics.noise_std[0]:.3g} on every one. Expected ℓ2 "
        f"size of the noise vector: PLAN {l2[0]:.3g}, IOME {l2[1]:.3g}, Gaussian mechanism "
        f"{l2[2]:.3g} (this run's noise, from its private variances and radius; the idealised curve "
        "above assumes σ known and an idealised radius, so it need not match). The dashed line is "
        "each coordinate's sampling std σᵢ/√n."
    )


def _split_sentence(df: pd.DataFrame, c: dict[str, float], label: str, p: int) -> str:
    row = df.iloc[0]
    return (
        f"In this run {label} misses the true mean by {row.total:.3g} (ℓ{p}): sampling error "
        f"{row.sampling:.3g} (the empirical mean's own miss), clipping bias {row.clipping:.3g}, DP "
        f"noise {row.noise:.3g}. IOME misses by {df.total.iloc[1]:.3g}, the Gaussian mechanism by "
        f"{df.total.iloc[2]:.3g}. (The three parts are vectors that add up to the error, so their "
        "lengths need not add up to the total.) These are **one draw** of the data and the noise; "
        "the exponent chart above shows **expected** values (root-mean-square over draws, σ known, "
        f"an idealised radius): sampling error {c['sampling']:.3g} expected against "
        f"{row.sampling:.3g} in this run, DP noise {c['current']:.3g} expected against "
        f"{row.noise:.3g}. One draw can land well above or below its expectation; the Compare page "
        "averages over many."
    )


def _codes(settings: PlanSettings, rho: float, stream: str) -> tuple[str, dict[str, str]]:
    """The notebook code: build this view, then each chart from its record."""
    s = settings
    code = (
        "from dpcore.views.plan import PlanSettings, view\n"
        "from dpcore.views.settings import DataSettings\n"
        f"v = view({s!r})\n"
        "data, est, iome_est, gauss_est = v.data, v.plan, v.iome, v.gauss\n"
        f"# PLAN's run in the view: est = plan(data.x, rho={rho!r}, bounds=data.bounds, "
        f"sigma=data.true_std, variances={s.variances!r}, p={float(s.p)!r}, "
        f"scale_exponent={float(s.exponent)!r}, "
        f"rng=v.settings.data.streams.rng({stream!r}))\n"
    )
    codes = {
        "plan_steps": "from dpcore.figures.plan import plan_steps_figure\n"
        "fig, df = plan_steps_figure(**v.steps)  # v.sample: the rows drawn, stream 'display:rows'",
        "plan_noise_ellipse": "from dpcore.figures.plan import noise_figure\n"
        "fig, df = noise_figure(**v.noise)  # v.entries: (label, colour, estimate) of each run",
        "plan_exponent": "from dpcore.figures.plan import exponent_curve\n"
        "fig, df = exponent_curve(**v.curve)",
        "plan_noise_shapes": "from dpcore.figures.plan import noise_shapes_figure\n"
        "fig, df = noise_shapes_figure(**v.shapes)",
        "plan_error_split": "from dpcore.figures.style import error_split_chart\n"
        "df = v.split  # dpcore.figures.plan.error_split_frame of the three runs\n"
        "fig = error_split_chart(df)",
    }
    return code, {k: code + c for k, c in codes.items()}


def _entries(
    settings: PlanSettings, data: Dataset, rho: float
) -> tuple[tuple[str, str, Estimate], ...]:
    """``(label, colour, estimate)`` of PLAN (at the settings' exponent), IOME and the Gaussian
    mechanism, each run from its own stream ``"noise:<entry>"``."""
    from dpcore.privacy import Budget

    streams, p, exponent = settings.data.streams, int(settings.p), float(settings.exponent)
    spec = plan_entry(settings.variances, float(p))
    est = plan_run(
        data,
        Budget.zcdp(rho),
        variances=settings.variances,
        p=float(p),
        exponent=exponent,
        rng=streams.rng("noise:" + spec.name),
    )
    iome, gauss = baseline_runs(data, Budget.zcdp(rho), streams=streams)
    label = (
        "PLAN"
        if abs(exponent - 1 / (p + 2)) < 1e-12
        else f"PLAN scaled with e = {_short(exponent)}"
    )
    return (
        (label, spec.color, est),
        (get("iome_paper").label, get("iome_paper").color, iome),
        (get("gaussian_private").label, get("gaussian_private").color, gauss),
    )


def _figures(
    data: Dataset,
    entries: tuple,
    coords: tuple[int, ...],
    sample: pd.DataFrame,
    p: int,
    exponent: float,
) -> dict[str, dict[str, Any]]:
    """The keyword arguments of each figure of the page."""
    est, iome = entries[0][2], entries[1][2]
    rho_noise = float(est.diagnostics_as(PlanDiagnostics).budgets["noise"])
    return {
        "steps": {"x": data.x, "estimate": est, "coords": coords, "true_mean": data.true_mean}
        | {"iome": iome, "sample": sample},
        "noise": {"entries": entries, "coords": coords, "true_mean": data.true_mean}
        | {"empirical_mean": data.x.mean(axis=0)},
        # plain floats: the curve is seed-free, and the page keys its figure on these (curve_key)
        "curve": {"sigma": tuple(float(v) for v in data.true_std), "n": data.n}
        | {"rho_noise": rho_noise, "p": float(p), "current": exponent},
        "shapes": {"entries": entries, "sigma": data.true_std, "n": data.n},
    }


@functools.lru_cache(maxsize=64)
def _curve_frame(
    sigma: tuple[float, ...], n: int, rho_noise: float, p: float, current: float
) -> pd.DataFrame:
    """:func:`exponent_frame` of the page's curve, kept for the process: a closed form without a
    seed, the same for every seed at the same data settings and budget (only read)."""
    return exponent_frame(np.asarray(sigma), n, rho_noise, p, current=current)


def _sentences(parts: dict[str, Any], split: pd.DataFrame, curve: dict[str, Any]) -> dict[str, str]:
    p, exponent, data = parts["p"], parts["exponent"], parts["data"]
    numbers = _curve_numbers(_curve_frame(**curve), p, exponent)
    return {
        "plan_steps": _steps_sentence(
            parts, step_summary(parts["entries"][0][2], parts["coords"], data.x)
        ),
        "plan_noise_ellipse": _noise_sentence(parts),
        "plan_exponent": _exponent_sentence(numbers, p, data.d, exponent),
        "plan_noise_shapes": _shapes_sentence(parts),
        "plan_error_split": _split_sentence(split, numbers, parts["entries"][0][0], p),
    }


def view(settings: PlanSettings) -> PlanView:
    """The page's numbers, sentences and figure inputs at ``settings`` (a pure function).

    >>> v = view(PlanSettings(DataSettings(n=300, d=4)))
    >>> v.plan_label, len(v.entries), v.coords
    ('PLAN', 3, (0, 3))
    """
    s, p, exponent = settings, int(settings.p), float(settings.exponent)
    conv = s.data.checked().implied_zcdp()
    rho, data = float(conv.value), dataset(s.data)
    entries = _entries(s, data, rho)
    (plan_label, _, est), (_, _, iome), (_, _, gauss) = entries
    dg = est.diagnostics_as(PlanDiagnostics)
    coords, note = _coords(data.d, int(s.i), int(s.j))
    binary = data.kind == "binary"
    sample = display_sample(
        data.n,
        max_points=int(s.max_points),
        one_d=len(coords) == 1,
        jitter=JITTER if binary else 0.0,
        rng=s.data.streams.rng("display:rows"),
    )
    figures = _figures(data, entries, coords, sample, p, exponent)
    split = error_split_frame(
        [(lab, e) for lab, _, e in entries], data.x, data.true_mean, p=float(p)
    )
    err = float(np.sum(np.abs(est.mean - data.true_mean) ** p) ** (1 / p))
    parts = {"dg": dg, "coords": coords, "data": data, "p": p, "exponent": exponent}
    parts |= {"iome": iome, "gauss": gauss, "entries": entries, "err": err}
    code, codes = _codes(s, rho, "noise:" + plan_entry(s.variances, float(p)).name)
    return PlanView(
        settings=s,
        data=data,
        rho=rho,
        plan=est,
        iome=iome,
        gauss=gauss,
        entries=entries,
        plan_label=plan_label,
        warnings=tuple(dg.warnings),
        metrics=_metrics(dg, data.n, p, err, rho, conv.rule if s.data.unit != "rho" else None),
        coords=coords,
        coords_note=note,
        sample=sample,
        **figures,
        intro=_intro(data.n, data.d, int(s.max_points)),
        jitter_note=_JITTER_NOTE if binary else None,
        split=split,
        split_words=split_words(split, rho, float(p), delta=s.data.delta),
        sentences=_sentences(parts, split, figures["curve"]),
        code=code,
        codes=codes,
        report_settings={**asdict(s.data), "variances": s.variances}
        | {"p": float(p), "scale exponent": exponent},
        ledger=pd.DataFrame(est.ledger.to_records()),
        spent=_spent(est, plan_label, s.source),
        subtitle=f"{DISTRIBUTIONS[s.data.distribution].label}, n = {data.n:,}, d = {data.d}, "
        f"ρ = {rho:.4g}, seed {s.data.seed}; coordinates {coords[0] + 1} and {coords[-1] + 1}.",
    )


_JITTER_NOTE = (
    f"0/1 data: every row sits on one of four corners, so each drawn point is moved by a small "
    f"random offset (up to {JITTER:.0%} of the panel's width) to show how many there are. The "
    "downloaded data hold the exact positions."
)


def _spent(est: Estimate, label: str, source: str) -> str:
    return (
        f"{label} spent: "
        + "; ".join(f"{k} ρ = {v:.4g}" for k, v in est.ledger.by_stage().items())
        + f" — total ρ = {est.ledger.total():.4g}."
        + (
            " The true σ was used (oracle): a teaching device, not a private release."
            if source == "oracle"
            else ""
        )
    )
