"""The view of "Side by side": one real run of each chosen estimator on the sidebar's data, its
clipping region and noise shape in two coordinates, PLAN's steps and scaling exponent in motion,
and (on request, :func:`releases`) 100 releases of one estimator.

The page reads its widgets into :class:`SideBySideSettings`, calls :func:`view` and draws the
:class:`SideBySideView` with :mod:`dpcore.figures.gallery` and :mod:`dpcore.figures.motion`.
Streams (:mod:`dpcore.streams`): ``"data"``; ``"noise:<name>"`` for each estimator's one run
(PLAN's motion charts show the gallery's run of PLAN); ``"releases:<name>"`` for the 100
releases; ``"display:rows"`` for the rows drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore.data import DISTRIBUTIONS, Dataset
from dpcore.estimate import Estimate
from dpcore.estimators.plan import PlanDiagnostics
from dpcore.experiments import default_estimators, studies
from dpcore.experiments.plain import PlainWords, release_words
from dpcore.figures.gallery import ZOOMS, releases_figure, shapes_headline
from dpcore.figures.motion import best_exponent
from dpcore.figures.style import plain
from dpcore.registry import applicable, get
from dpcore.theory.gallery import GalleryEntry
from dpcore.views.settings import DataSettings, dataset

__all__ = [
    "GALLERY_HEIGHTS",
    "MAX_POINTS",
    "REPS",
    "ReleasesView",
    "SideBySideOptions",
    "SideBySideSettings",
    "SideBySideView",
    "options",
    "releases",
    "view",
]

MAX_POINTS = 1500
REPS = 100
#: the gallery's height: two rows (regions above noise), on a presenter slide (what 1280x720 leaves
#: a chart), or one row; each estimator's column is a figure of its own, about 275 px wide on a
#: laptop and a phone's width on a phone
GALLERY_HEIGHTS = {"both": 520, "slide": 450, "one row": 320}


@dataclass(frozen=True)
class SideBySideOptions:
    """The widgets' choices and labels for the sidebar's data."""

    estimators: tuple[str, ...]
    defaults: tuple[str, ...]
    labels: dict[str, str]
    views: dict[str, str]
    zooms: dict[str, str]
    probs: tuple[float, ...] = (0.5, 0.9, 0.95, 0.99)


def options(data: DataSettings) -> SideBySideOptions:
    """Every applicable estimator but the (non-private) empirical mean, the defaults among them,
    and the labels of every control.

    >>> o = options(DataSettings(d=4))
    >>> "plan" in o.defaults and "empirical" not in o.estimators
    True
    """
    names = tuple(spec.name for spec in applicable(data.kind, data.d) if spec.name != "empirical")
    return SideBySideOptions(
        estimators=names,
        defaults=tuple(
            nm for nm in default_estimators(data.kind, data.unit, data.d) if nm in names
        ),
        labels={nm: get(nm).label for nm in names},
        views={"small": "small multiples", "overlay": "overlay"},
        zooms=dict(
            zip(
                ZOOMS,
                ("regions and noise", "the data", "every whole region", "zoom on the noise"),
                strict=True,
            )
        ),
    )


def opened_from(data: DataSettings, name: str) -> str:
    """The caption when a link (from Compare) opens the page at estimator ``name``."""
    return (
        f"Opened at **{get(name).label}** (from Compare), at that point's data and budget: "
        f"n = {data.n:,}, d = {data.d}, {data.budget}."
    )


@dataclass(frozen=True)
class SideBySideSettings:
    """The page's controls and the sidebar's data (the view's cache key). ``i``, ``j``: the two
    coordinates, counted from 1 and different; ``layout``: ``"small"`` or ``"overlay"``;
    ``presenting``: presenter mode (a slide's height)."""

    data: DataSettings = field(default_factory=DataSettings)
    names: tuple[str, ...] = ("plan", "iome_paper", "gaussian_private")
    i: int = 1
    j: int = 2
    layout: str = "small"
    zoom: str = "both"
    prob: float = 0.95
    max_points: int = MAX_POINTS
    presenting: bool = False

    @property
    def coords(self) -> tuple[int, int]:
        """The two coordinates, counted from 0."""
        return int(self.i) - 1, int(self.j) - 1


@dataclass(frozen=True)
class SideBySideView:
    """Everything the page shows (``plan``: PLAN's run, ``None`` when no estimator could run).
    ``gallery`` holds the keyword arguments of
    :func:`dpcore.figures.gallery.gallery_figure`; ``steps`` those of
    :func:`dpcore.figures.motion.plan_steps_animation` and ``sweep`` those of
    :func:`dpcore.figures.motion.exponent_sweep_animation`; each chart's sentence and notebook code
    are under its name."""

    settings: SideBySideSettings
    data: Dataset
    entries: tuple[GalleryEntry, ...]
    skipped: tuple[str, ...]
    rows: np.ndarray
    truth: np.ndarray
    gallery: dict[str, Any]
    words: PlainWords
    regions: tuple[str, ...]
    plan: Estimate | None
    plan_note: str | None
    steps: dict[str, Any]
    sweep: dict[str, Any]
    sentences: dict[str, str]
    codes: dict[str, str]
    subtitle: str

    @property
    def sweep_key(self) -> tuple:
        """What the exponent sweep is drawn from (the data's spreads, n, PLAN's noise budget): no
        seed in it, so one drawing serves every seed at the same settings."""
        return tuple(sorted(self.sweep.items()))


def _plan_name(data: Dataset) -> str:
    return "plan_l1" if data.kind == "binary" else "plan"


def _region_line(e: GalleryEntry) -> str:
    kind = e.noise.kind
    noise = (
        "no noise"
        if kind == "none"
        else f"{'Gaussian' if kind == 'gaussian' else 'Laplace'} noise, per-coordinate "
        f"{'std' if kind == 'gaussian' else 'scale b'} {plain(e.noise.scale[0])}, "
        f"{plain(e.noise.scale[1])}"
    )
    return f"- **{e.label}**: clips to the {e.region.note}; {noise}."


def _setup_code(settings: SideBySideSettings) -> str:
    return (
        "from dpcore.views.settings import DataSettings\n"
        "from dpcore.views.side_by_side import SideBySideSettings, view\n"
        f"v = view({settings!r})\n"
        "data, entries = v.data, v.entries  # one run each, stream 'noise:<name>'\n"
    )


def _codes(settings: SideBySideSettings) -> dict[str, str]:
    setup = _setup_code(settings)
    return {
        "side-by-side": setup + "from dpcore.figures.gallery import gallery_figure\n"
        "fig, frame = gallery_figure(**v.gallery)\n",
        "plan-steps-animation": setup + "from dpcore.figures.motion import plan_steps_animation\n"
        "fig, frame = plan_steps_animation(**v.steps)  # v.plan: PLAN's run, v.rows: the rows drawn\n",
        "exponent-sweep": setup + "from dpcore.figures.motion import exponent_sweep_animation\n"
        "fig, frame = exponent_sweep_animation(**v.sweep)  # rho_noise: PLAN's noise stage\n",
    }


def _plan_run(settings: SideBySideSettings, data: Dataset, entries: list[GalleryEntry]) -> Estimate:
    """PLAN's run for the motion charts: the gallery's when it drew PLAN, else the same stream."""
    name = _plan_name(data)
    drawn = [e.estimate for e in entries if e.name == name]
    if drawn:
        return drawn[0]
    budget = settings.data.checked()
    rng = settings.data.streams.rng("noise:" + name)
    return get(name).run(data, budget, rng=rng, at_implied_level=True)


def _motion(
    plan_est: Estimate, data: Dataset, settings: SideBySideSettings, rows: np.ndarray
) -> tuple[dict, dict, dict[str, str]]:
    steps = {"x": data.x, "estimate": plan_est, "coords": settings.coords}
    steps |= {"true_mean": data.true_mean, "rows": rows}
    rho_noise = float(plan_est.diagnostics_as(PlanDiagnostics).budgets["noise"])
    # plain floats (a tuple, not an array): the sweep is seed-free, and the page keys its figure
    # on these values for every seed (sweep_key)
    sweep: dict[str, Any] = {"sigma": tuple(float(v) for v in data.true_std), "n": data.n}
    sweep["rho_noise"] = rho_noise
    best = best_exponent(np.asarray(sweep["sigma"]), data.n, rho_noise)
    sentences = {
        "plan-steps-animation": f"PLAN clipped {plan_est.diagnostics.fraction_clipped:.1%} of the "
        f"{data.n:,} rows at scaled radius C = {plain(float(plan_est.diagnostics.clip_radius or 0.0))}; step (d) "
        "shows the release.",
        "exponent-sweep": "As the exponent e grows from 0, noise moves from the low-spread "
        "coordinates to the high-spread ones; the total noise (ℓ2) is smallest near "
        f"e = {best:g} on this data (PLAN uses 1/4 for ℓ2 error).",
    }
    return steps, sweep, sentences


def view(settings: SideBySideSettings) -> SideBySideView:
    """The page's runs, readouts and figure inputs at ``settings`` (a pure function).

    >>> v = view(SideBySideSettings(DataSettings(n=300, d=4), names=("gaussian_private",)))
    >>> [e.name for e in v.entries], v.gallery["coords"]
    (['gaussian_private'], (0, 1))
    """
    s = settings
    if s.i == s.j:
        raise ValueError("Pick two different coordinates for the two axes.")
    budget, data, streams = s.data.checked(), dataset(s.data), s.data.streams
    coords = s.coords
    entries, skipped = studies.run_gallery(
        data, budget, s.names, coords, prob=s.prob, streams=streams
    )
    rows = studies.subsample(data.n, int(s.max_points), rng=streams.rng("display:rows"))
    truth = np.asarray(data.true_mean, float)[list(coords)]
    height = GALLERY_HEIGHTS["one row" if s.zoom != "both" else "slide" if s.presenting else "both"]
    gallery = {"entries": entries, "points": data.x[rows][:, list(coords)], "true_mean": truth}
    gallery |= {"coords": coords, "view": s.layout, "zoom": s.zoom}
    gallery |= {"columns": len(entries), "height": height}
    what = f"the means of coordinates {coords[0] + 1} and {coords[1] + 1}"
    words = release_words(
        budget,
        {e.label: e.release for e in entries},
        truth,
        delta=s.data.delta,
        what=what,
        rank=False,
    )
    plan_est = _plan_run(s, data, entries) if entries else None
    steps, sweep, sentences = _motion(plan_est, data, s, rows) if plan_est else ({}, {}, {})
    conv = None if plan_est is None else plan_est.conversion
    return SideBySideView(
        settings=s,
        data=data,
        entries=tuple(entries),
        skipped=tuple(skipped.values()),
        rows=rows,
        truth=truth,
        gallery=gallery,
        words=words,
        regions=tuple(_region_line(e) for e in entries),
        plan=plan_est,
        plan_note=(
            "PLAN is ρ-zCDP: under a pure ε budget it runs here at the implied level and does "
            f"**not** give ε-DP. {conv.rule}"
            if conv is not None and not conv.meets_budget
            else None
        ),
        steps=steps,
        sweep=sweep,
        sentences={"side-by-side": shapes_headline(entries, coords), **sentences}
        if entries
        else {},
        codes=_codes(s),
        subtitle=f"{DISTRIBUTIONS[s.data.distribution].label}, n = {data.n:,}, d = {data.d}, "
        f"{budget}, seed {s.data.seed}; coordinates {coords[0] + 1} and {coords[1] + 1}.",
    )


@dataclass(frozen=True)
class ReleasesView:
    """``REPS`` releases of one estimator of the gallery on the same data, in the two coordinates
    (``draws``), with the readouts under their chart."""

    name: str
    label: str
    draws: np.ndarray
    entry: GalleryEntry
    truth: list[float]
    coords: tuple[int, int]
    sentence: str
    code: str


def releases(settings: SideBySideSettings, name: str) -> ReleasesView:
    """``REPS`` reruns of estimator ``name`` (one of the gallery's) on the view's data, each from a
    child of the stream ``"releases:<name>"``."""
    s, coords = settings, settings.coords
    budget, data, streams = s.data.checked(), dataset(s.data), s.data.streams
    # the gallery's run of this estimator (same stream): the noise shape the releases are held to
    run, skipped = studies.run_gallery(data, budget, [name], coords, prob=s.prob, streams=streams)
    if not run:
        raise ValueError(skipped.get(name, f"{name!r} cannot run on this data."))
    e = run[0]
    truth = [float(t) for t in np.asarray(data.true_mean, float)[list(coords)]]
    seq = streams.seq("releases:" + name)
    draws = studies.release_draws(name, data, budget, reps=REPS, rng=seq)[:, list(coords)]
    frac = float(np.mean(releases_figure(draws, e, truth, coords)[1]["inside_shape"]))
    dist = np.linalg.norm(draws - np.asarray(truth), axis=1)
    sentence = (
        f"Of {REPS} releases of **{e.label}**, {frac:.0%} land inside the {e.noise.prob:.0%} noise "
        "shape of the first run (centre, scale and radius are redrawn every time, so more can fall "
        f"outside); in these two coordinates the median release is {plain(np.median(dist))} from "
        f"the true mean and the farthest {plain(dist.max())}."
    )
    code = (
        "from dpcore.views.settings import DataSettings\n"
        "from dpcore.views.side_by_side import SideBySideSettings, releases\n"
        f"r = releases({settings!r}, {name!r})\n"
        "from dpcore.figures.gallery import releases_figure\n"
        "fig, frame = releases_figure(r.draws, r.entry, r.truth, r.coords)\n"
    )
    return ReleasesView(name, e.label, draws, e, truth, coords, sentence, code)
