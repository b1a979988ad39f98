"""The Compare page's view: every registered estimator that applies to the data, at the same
budget, over a sweep of the budget, n, d or the skew.

Three steps, each a pure function of plain values:

- :func:`options`: the page's widget choices for the sidebar's data, a story (preset) or an
  uploaded config, and the peer-library switch;
- :func:`config`: the experiment a :class:`CompareSettings` record asks for (what to run);
- :func:`view`: that experiment run by the engine (:func:`dpcore.experiments.run`, whose streams
  are ``SeedSequence(config.seed, spawn_key=...)`` children, one per dataset and estimator) and
  everything the page shows of it, as a :class:`CompareView`.

The page runs the sweep on the shared worker pool with a progress bar, a first result and a
background refinement (``pages/_compare_run.py``), then hands the finished frame and its
:func:`sweep_views` to :func:`present`, the part of :func:`view` after the run: the page and
:func:`view` show the same numbers for the same record. References: ``docs/architecture.md``
(Data flow).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from dpcore import limits, registry
from dpcore.data import DISTRIBUTIONS
from dpcore.experiments import (
    FAILURE_MULTIPLE,
    ExperimentConfig,
    cost,
    plan_tasks,
    run,
    tail_table,
)
from dpcore.experiments.cost import check_app_limits
from dpcore.experiments.plain import PlainWords, sweep_words
from dpcore.experiments.presets import (
    PRESETS,
    check_claim,
    estimator_choices,
    sidebar_config,
    with_choices,
)
from dpcore.experiments.progressive import FIRST_VIEW_REPS, before_run_warning, first_config
from dpcore.experiments.questions import Question, lowest_error_question
from dpcore.figures.compare import (
    compare_views,
    far_off_view,
    outliers_note,
    round_target,
    target_views,
)
from dpcore.glossary import define
from dpcore.report import build_report, ledger_table
from dpcore.views.settings import DataSettings
from dpcore.views.tables import Ranking, rankings

__all__ = [
    "AXES",
    "FAILURE_MULTIPLE",
    "PRESETS",
    "PRESET_LABEL",
    "CompareOptions",
    "CompareSettings",
    "CompareView",
    "Views",
    "axes",
    "config",
    "first_reps",
    "options",
    "peer_seconds",
    "present",
    "question",
    "report",
    "shown_config",
    "sweep_views",
    "target",
    "view",
]

#: The stories, by key, with "custom" for the sidebar's own settings.
PRESET_LABEL = {"custom": "Your sidebar settings", **{k: p.label for k, p in PRESETS.items()}}
#: The axes a comparison sweeps, with their labels.
AXES = {"budget": "the budget", "n": "n (rows)", "d": "d (dimension)", "skew": "skew α"}
#: The axes "what does each estimator need" answers on.
TARGET_AXES = ("budget", "n")


def question(preset: str) -> str:
    """What the comparison asks, in words, above its controls (presenter mode's first slide).

    Examples
    --------
    >>> question("custom").startswith("**The question:**")
    True
    """
    story = (
        f" This story, “{PRESET_LABEL[preset]}”, sets the data and the budget for you."
        if preset in PRESETS
        else " The data and the budget are your sidebar's."
    )
    return (
        "**The question:** every estimator gets the same data and the same privacy budget. "
        "**Which one lands closest to the true average, and does the answer change as the budget "
        f"(or the data) changes?**{story}"
    )


#: One sweep's views: chart dict, its data, sentence, regret table, summary, far-off table.
Views = tuple[dict, pd.DataFrame, str, pd.DataFrame, pd.DataFrame, pd.DataFrame]


@dataclass(frozen=True)
class CompareSettings:
    """Compare's controls as plain values (the page's record; the notebook's too).

    ``x``, ``metric``, ``repetitions`` and ``estimators`` left at ``None`` take the story's (or
    the uploaded config's) own; ``shown_repetitions`` is the first result's count while the
    full sweep is refined or offered (``None``: all of them); ``target`` is the target error of
    "what does each estimator need" (``None``: a round value near the medians).

    Examples
    --------
    >>> s = CompareSettings(DataSettings(n=300, d=2), x="budget", estimators=("empirical",))
    >>> config(s).estimators, config(s).n
    (['empirical'], 300)
    """

    data: DataSettings = field(default_factory=DataSettings)
    preset: str = "custom"
    upload: str | None = None
    x: str | None = None
    metric: str | None = None
    repetitions: int | None = None
    estimators: tuple[str, ...] | None = None
    peers: bool = False
    shown_repetitions: int | None = None
    target: float | None = None


@dataclass(frozen=True, eq=False)
class CompareOptions:
    """The page's widget choices before the run: the base config of the story or the upload and
    what each control may take, with its default."""

    base: ExperimentConfig
    x_default: str
    metrics: tuple[str, ...]
    metric_default: str
    metric_help: str | None
    repetitions_range: tuple[int, int]
    repetitions_default: int
    estimators: tuple[str, ...]
    estimators_default: tuple[str, ...]
    labels: dict[str, str]
    estimators_label: str
    upload_info: str | None
    upload_left: str | None
    preset_changed: str | None


def _base(data: DataSettings, preset: str, upload: str | None) -> ExperimentConfig:
    if upload is not None:
        return check_app_limits(ExperimentConfig.from_json(upload))
    return sidebar_config(
        None if preset == "custom" else preset,
        distribution=data.distribution,
        n=int(data.n),
        d=int(data.d),
        skew=float(data.skew),
        budget=data.budget,
        delta=float(data.delta),
        seed=int(data.seed),
    )


def _entry_text(entry: dict) -> str:
    """An uploaded config's estimator entry as text: its name and public parameters."""
    params = ", ".join(f"{k}={v!r}" for k, v in entry["params"].items())
    return f"{entry['name']} ({params})" if params else entry["name"]


def _preset_changed(data: DataSettings, preset: str) -> str | None:
    """How the sidebar differs from ``preset``'s own settings, in words (``None``: it does not)."""
    if preset not in PRESETS:
        return None
    differ = {k: v for k, v in PRESETS[preset].sidebar().items() if getattr(data, k) != v}
    if not differ:
        return None
    return (
        "Changed from the preset: "
        + ", ".join(
            f"{k.replace('_value', '')} {getattr(data, k)!r} (preset {v!r})"
            for k, v in differ.items()
        )
        + ". The story was told at the preset's values."
    )


def options(
    data: DataSettings, preset: str = "custom", upload: str | None = None, peers: bool = False
) -> CompareOptions:
    """The page's choices for the sidebar's ``data``, a ``preset`` (or ``"custom"``), an uploaded
    config's JSON (``upload``, which wins over the preset) and the peer libraries' switch.

    Raises ``ValueError`` (with the fix) for a broken upload or an impossible budget.

    Examples
    --------
    >>> o = options(DataSettings(n=300, d=2))
    >>> o.x_default, o.metrics, o.repetitions_default
    ('budget', ('l2', 'l1', 'linf'), 10)
    """
    base = _base(data, preset, upload)
    metrics = ("l2", "l1", "linf") + (("tv",) if base.kind == "binary" else ())
    names, chosen = estimator_choices(base, peers)
    left = sorted({e["name"] for e in base.estimator_entries()} - set(names))
    reps = limits.APP_REPETITIONS
    return CompareOptions(
        base=base,
        x_default=base.x_axis(),
        metrics=metrics,
        metric_default=base.headline_metric,
        metric_help="TV: " + define("TV") if "tv" in metrics else None,
        repetitions_range=(int(reps[0]), int(reps[1])),
        repetitions_default=int(limits.clamp(base.repetitions, *reps)),
        estimators=tuple(names),
        estimators_default=tuple(chosen),
        labels={e.name: e.label for e in registry.all_estimators()},
        estimators_label=(
            f"Estimators ({len(names)} apply to {base.kind.replace('real', 'real-valued')} data)"
        ),
        upload_info=None
        if upload is None
        else (
            f"Using the uploaded config **{base.name}**: its estimators "
            f"({', '.join(_entry_text(e) for e in base.estimator_entries())}) replace the "
            "estimator choice below (remove the file in the sidebar to go back)."
        ),
        upload_left=None
        if upload is None or not left
        else (
            f"The uploaded config's {', '.join(left)} cannot run here "
            f"({'turn on the peer libraries' if not peers else 'not applicable to this data'})."
        ),
        preset_changed=_preset_changed(data, preset),
    )


def config(settings: CompareSettings, o: CompareOptions | None = None) -> ExperimentConfig:
    """The full experiment ``settings`` ask for (every repetition), within the app's limits
    (``o``: :func:`options` of ``settings`` when the caller has them).

    Raises ``ValueError`` (with the fix) when no estimator is chosen or the run is too large.
    """
    if o is None:
        o = options(settings.data, settings.preset, settings.upload, settings.peers)
    chosen = list(o.estimators_default if settings.estimators is None else settings.estimators)
    if not chosen:
        raise ValueError("Pick at least one estimator.")
    x, metric = axes(settings, o)
    return check_app_limits(
        with_choices(
            o.base,
            chosen,
            repetitions=int(settings.repetitions or o.repetitions_default),
            metric=metric,
            x=x,
        )
    )


def axes(settings: CompareSettings, o: CompareOptions | None = None) -> tuple[str, str]:
    """The x axis and the error norm ``settings`` ask for (the story's own when left ``None``)."""
    if o is None:
        o = options(settings.data, settings.preset, settings.upload, settings.peers)
    return settings.x or o.x_default, settings.metric or o.metric_default


def first_reps(settings: CompareSettings) -> int:
    """Repetitions per point of the first result of ``settings`` (the full sweep refines it): a
    story's own ``first_reps`` (the fewest at which its claim holds at every seed checked), else
    :data:`~dpcore.experiments.progressive.FIRST_VIEW_REPS`.

    Examples
    --------
    >>> first_reps(CompareSettings())
    1
    """
    if settings.preset in PRESETS and settings.upload is None:
        return PRESETS[settings.preset].first_reps
    return FIRST_VIEW_REPS


def shown_config(
    settings: CompareSettings, full: ExperimentConfig | None = None
) -> ExperimentConfig:
    """The experiment the page shows: :func:`config` (``full``, when the caller has it) with
    ``shown_repetitions`` when set."""
    full = config(settings) if full is None else full
    if settings.shown_repetitions is None:
        return full
    return first_config(full, int(settings.shown_repetitions))


def run_size(cfg: ExperimentConfig) -> str:
    """The size of ``cfg``'s sweep in words (datasets, estimators, repetitions, n and d)."""
    return (
        f"{len(plan_tasks(cfg)[0])} datasets, {len(cfg.estimators)} estimators, {cfg.repetitions} "
        f"repetitions per point at n = {cfg.n:,}, d = {cfg.d}"
    )


def before_run(cfg: ExperimentConfig) -> str | None:
    """The warning to show before ``cfg`` runs, from public values only (``None``: none)."""
    risk = before_run_warning(cfg)
    return None if risk is None else "**Before the run:** " + risk


def peer_seconds(config_json: str, floor: float) -> float | None:
    """The time budget of a sweep with a peer library in it (``None`` without one): at least
    ``floor`` and three times the predicted time of the sweep."""
    cfg = ExperimentConfig.from_json(config_json)
    names = {e if isinstance(e, str) else e.get("name") for e in cfg.estimators}
    peers = {e.name for e in registry.all_estimators() if e.family == registry.PEERS}
    if not names & peers:
        return None
    return max(float(floor), 3.0 * cost.estimate_seconds(cfg))


def sweep_views(frame: pd.DataFrame, config_json: str, x: str, metric: str) -> Views:
    """:func:`~dpcore.figures.compare.compare_views` of one finished sweep (the chart as
    ``st.plotly_chart`` sends it) and its far-off table: picklable in and out, so the page runs
    it in a worker of the shared pool."""
    made = compare_views(frame, config_json, x, metric, drawn=True)
    return (*made, tail_table(frame, metric))


@dataclass(frozen=True, eq=False)
class CompareView:
    """Everything the Compare page shows of one finished sweep (``eq=False``: it holds frames)."""

    settings: CompareSettings
    config: ExperimentConfig
    shown: ExperimentConfig
    datasets: int
    frame: pd.DataFrame
    figure: dict
    data: pd.DataFrame
    sentence: str
    table: pd.DataFrame
    summary: pd.DataFrame
    tails: pd.DataFrame
    far_off: pd.DataFrame
    skipped: tuple[str, ...]
    failed: str | None
    claim: tuple[str, str] | None
    note: str | None
    question: Question | None
    words: PlainWords | None
    rankings: tuple[Ranking, ...]
    mixed_guarantees: bool
    far_off_intro: str
    targetable: bool
    default_target: float
    target: tuple[dict, pd.DataFrame, str] | None
    chart_code: str
    regret_code: str
    title: str
    subtitle: str
    footer: str


def _claim(
    settings: CompareSettings, cfg: ExperimentConfig, frame: pd.DataFrame, x: str, metric: str
) -> tuple[str, str] | None:
    """The story's check as (kind, text): "success", "warning" or "caption"; ``None`` off a story."""
    if settings.preset == "custom" or settings.upload is not None:
        return None
    claim = PRESETS[settings.preset].claim
    if x != "budget" or not set(claim.contenders) <= {e["name"] for e in cfg.estimator_entries()}:
        return (
            "caption",
            "The preset's story is checked on its own budget sweep with "
            + ", ".join(registry.get(c).label for c in claim.contenders)
            + " selected.",
        )
    result = check_claim(frame, claim, x=x, metric=metric, unit=cfg.unit)
    narrow = result.close and claim.kind == "wins"  # a win inside the run-to-run spread
    shown = int(frame["rep"].nunique())
    run = (
        f"this first result (seed {cfg.seed}, {shown} of {cfg.repetitions} repetitions per point; "
        "the full sweep replaces it)"
        if shown < cfg.repetitions
        else f"this run (seed {cfg.seed})"
    )
    head = (
        "The story holds" + (" only narrowly" if narrow else "") + f" in {run}. "
        if result.holds
        else (f"In {run}: " if shown < cfg.repetitions else f"Seed {cfg.seed}: ")
    )
    return ("success" if result.holds else "warning", head + result.sentence)


def _point(data: DataSettings, cfg: ExperimentConfig) -> dict[str, str]:
    """The Side by side page's query at the comparison's base point."""
    return {
        **data.to_query(),
        "distribution": cfg.distribution,
        "n": str(cfg.n),
        "d": str(cfg.d),
        "skew": repr(float(cfg.base_skew())),
        "budget_value": repr(float(cfg.budget)),
        "unit": cfg.unit,
        "delta": repr(float(cfg.delta)),
    }


def _failed(frame: pd.DataFrame) -> str | None:
    failing = frame["failed"].to_numpy(object) != ""
    if not failing.any():  # the usual case: no filtered copy of the frame
        return None
    failed = frame[failing]
    first = failed.iloc[0]
    return (
        f"{len(failed)} of {len(frame)} runs failed and are left out, e.g. {first['label']}: "
        f"{first['failed']}"
    )


def _far_off_intro(frame: pd.DataFrame) -> str:
    published = "plan_as_published" in set(frame["estimator"])
    return (
        f"**Far-off runs.** A run is far off when its error is more than **{FAILURE_MULTIPLE:g}×** "
        "the median of the same estimator at the same point; the table counts them over the sweep."
        + (
            " “As published” PLAN spends 9× its centring budget (1.5 ρ in all), as the authors' "
            "code does; the honest estimators spend ρ."
            if published
            else ""
        )
    )


def _words(
    frame: pd.DataFrame,
    table: pd.DataFrame,
    cfg: ExperimentConfig,
    x: str,
    metric: str,
    delta: float,
) -> PlainWords | None:
    if table.empty:
        return None
    try:
        return sweep_words(frame, table, cfg, x, metric, delta=delta)
    except ValueError:  # no ranked private estimator ran at the sidebar's point: no box
        return None


def code(settings: CompareSettings) -> str:
    """The notebook lines that rebuild this view: ``v = view(CompareSettings(...))``."""
    return (
        "import plotly.graph_objects as go\n\n"
        "from dpcore.views.compare import CompareSettings, view\n"
        "from dpcore.views.settings import DataSettings\n\n"
        f"v = view({settings!r})\n"
    )


def present(settings: CompareSettings, frame: pd.DataFrame, views: Views) -> CompareView:
    """The view of a finished sweep: ``frame`` is :func:`dpcore.experiments.run` of
    :func:`shown_config` and ``views`` its :func:`sweep_views` (the target view is left to
    :func:`target` once the page knows its target)."""
    o = options(settings.data, settings.preset, settings.upload, settings.peers)
    cfg = config(settings, o)
    shown = shown_config(settings, cfg)
    x, metric = axes(settings, o)
    figure, data, sentence, table, summary, tails = views
    words = _words(frame, table, cfg, x, metric, float(settings.data.delta))
    names = dict(zip(frame["estimator"], frame["name"], strict=False))
    finite = summary["median"][np.isfinite(summary["median"]) & summary["private"]]
    subtitle = cfg.description or DISTRIBUTIONS[cfg.distribution].label
    return CompareView(
        settings=settings,
        config=cfg,
        shown=shown,
        datasets=len(plan_tasks(shown)[0]),
        frame=frame,
        figure=figure,
        data=data,
        sentence=sentence,
        table=table,
        summary=summary,
        tails=tails,
        far_off=far_off_view(tails),
        skipped=tuple(frame.attrs.get("skipped", {}).values()),
        failed=_failed(frame),
        claim=_claim(settings, cfg, frame, x, metric),
        note=outliers_note(cfg, data),
        question=None if table.empty else lowest_error_question(frame, x, metric, unit=cfg.unit),
        words=words,
        rankings=rankings(
            table, names, _point(settings.data, cfg), None if words is None else words.method
        ),
        mixed_guarantees=bool(not table.empty and table["guarantee"].nunique() > 1),
        far_off_intro=_far_off_intro(frame),
        targetable=x in TARGET_AXES,
        default_target=round_target(finite),
        target=None,
        chart_code=code(settings) + "fig, data = go.Figure(v.figure), v.data\n",
        regret_code=cfg.code()
        + f"from dpcore.experiments import regret_table\nregret_table(frame, {metric!r})",
        title=f"Compare estimators: {PRESET_LABEL.get(settings.preset, cfg.name)}",
        subtitle=subtitle,
        footer=(
            f"{subtitle} · n = {cfg.n:,}, d = {cfg.d}, seed {cfg.seed}, "
            f"{cfg.repetitions} repetitions per point"
            + (f" · {cfg.notes}" if cfg.notes else "")
            + "."
        ),
    )


def target(v: CompareView, value: float) -> tuple[dict, pd.DataFrame, str]:
    """ "What does each estimator need" for a median error of ``value``: the chart (as drawn), its
    data and its sentence. Raises ``ValueError`` as
    :func:`~dpcore.experiments.summaries.needed_for_target` does."""
    x, metric = axes(v.settings)
    return target_views(v.frame, v.summary, x, float(value), metric, v.config.unit)


def target_code(settings: CompareSettings) -> str:
    """The notebook lines that rebuild the target chart at ``settings.target``."""
    return code(settings) + "print(v.target[2])\nfig, data = go.Figure(v.target[0]), v.target[1]\n"


def view(settings: CompareSettings) -> CompareView:
    """Compare's view of ``settings``: the sweep run here (no pool), its chart, tables, words and,
    on a budget or n axis, the target view at ``settings.target`` (or the default target).

    Raises ``ValueError`` (with the fix) for settings that cannot run.
    """
    shown = shown_config(settings)
    frame = run(shown)
    x, metric = axes(settings)
    v = present(settings, frame, sweep_views(frame, shown.to_json(indent=None), x, metric))
    if not v.targetable:
        return v
    value = v.default_target if settings.target is None else float(settings.target)
    return replace(v, target=target(v, value))


def report(v: CompareView) -> bytes:
    """The view as one self-contained HTML report (the chart, the ranking, the ledger, the code)."""
    cfg = v.config
    x, metric = axes(v.settings)
    return build_report(
        title=f"Compare estimators: {cfg.name}",
        settings={**cfg.to_dict(), "x axis": x, "metric": metric},
        figures=[(v.figure, v.sentence)],
        tables=[("Ranking by regret", v.table)],
        ledger=ledger_table(v.frame),
        code=cfg.code(),
        notes=["Noise from a seeded NumPy generator: a simulation, not a secure release."],
    ).encode()
