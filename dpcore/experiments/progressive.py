"""The progressive run of a comparison: what to show now, what to offer, what to refine next.

A sweep that takes long is drawn in stages. Its first result, ``first_reps`` repetitions at every
other point of the sweep (:func:`first_config`), is exactly those runs of the full sweep
(repetition streams depend neither on the number of repetitions nor on the other points), so a
first result is honest, only noisier and coarser. :func:`decide` is the whole decision, a
pure function of the config, its predicted cost, the limits and what is already computed or
approved; the page only draws what it returns and wires the buttons to the offers.

The rule:

* a sweep predicted to finish within ``limit`` seconds (or one already computed or approved) is
  wanted in full: it is drawn at once, or, when a first result is quicker and a background pool
  can refine, the first result is drawn and the full sweep refines behind it;
* a longer sweep draws its first result and *offers* the full one (with its time) and smaller
  settings whose full sweep fits the limit: fewer repetitions, a smaller n or d;
* when even the first result takes longer than ``ask_above`` seconds, nothing runs until the
  user picks one of the offers.

References
----------
docs/architecture.md, "App conventions" (a long run shows its time estimate first).

Examples
--------
>>> from dpcore.experiments import ExperimentConfig
>>> cfg = ExperimentConfig(distribution="gaussian", n=1000, d=8, estimators=["plan"], repetitions=10)
>>> d = decide(cfg, limit=25.0, ask_above=30.0, first_reps=3, background=True,
...            cost=lambda c: 6.0 * c.repetitions)  # 60 s in all, 18 s for a first result
>>> d.state, d.shown.repetitions, d.refine, [o.label for o in d.offers]
('offered', 3, False, ['Run all 10 repetitions', 'Use 4 repetitions'])
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dpcore.experiments import cost as cost_model
from dpcore.experiments.config import ExperimentConfig

#: What the page shows: ``"full"`` the whole sweep; ``"refining"`` the first result while the
#: full sweep runs in the background; ``"offered"`` the first result with the full sweep offered;
#: ``"ask"`` nothing yet (even the first result is long): the time and the offers only.
State = Literal["full", "refining", "offered", "ask"]


@dataclass(frozen=True)
class Offer:
    """One button the page draws.

    Attributes
    ----------
    label : str
        The button's words, without the time (``"Run all 10 repetitions"``, ``"Use n = 1,000"``).
    seconds : float
        The predicted time of what the button starts.
    action : {"approve", "repetitions", "n", "d"}
        ``"approve"``: run the config ``value`` (its JSON) although it is long; otherwise set the
        repetitions, the sidebar's n or its d to ``value``.
    value : str or int
    primary : bool
        The recommended button (approving the full sweep).
    """

    label: str
    seconds: float
    action: Literal["approve", "repetitions", "n", "d"]
    value: str | int
    primary: bool = False


@dataclass(frozen=True)
class Decision:
    """The outcome of :func:`decide`.

    Attributes
    ----------
    state : State
        What the page shows (see :data:`State`).
    full, first : ExperimentConfig
        The whole sweep and its first result (``first is full`` when the sweep has no more than
        ``first_reps`` repetitions).
    shown : ExperimentConfig or None
        The sweep to draw now (``None`` in state ``"ask"``).
    refine : bool
        Start the full sweep in the background (state ``"refining"``).
    offers : tuple of Offer
        The buttons to draw (states ``"offered"`` and ``"ask"``).
    predicted, first_seconds : float
        Predicted seconds of the whole sweep and of its first result.
    """

    state: State
    full: ExperimentConfig
    first: ExperimentConfig
    shown: ExperimentConfig | None
    refine: bool
    offers: tuple[Offer, ...]
    predicted: float
    first_seconds: float


#: Repetitions per point of the first result of a comparison that tells no story (the sidebar's
#: own settings or an uploaded config): one run per point, drawn in about a tenth of a CPU second
#: at Compare's defaults and replaced by the full sweep (docs/speed.md, "Compare's first result").
#: A story (preset) draws its own ``first_reps``, the fewest at which its claim holds at every
#: checked seed.
FIRST_VIEW_REPS = 1


def thin(values: Sequence[float]) -> list[float]:
    """Every other value of a sweep, both ends kept: what a first result draws of an axis of four
    or more points (its middle point too when the count is odd).

    Examples
    --------
    >>> thin([0.0625, 0.125, 0.25, 0.5, 1.0]), thin([1, 2, 3, 4]), thin([1, 2, 3])
    ([0.0625, 0.25, 1.0], [1, 3, 4], [1, 2, 3])
    """
    if len(values) < 4:
        return list(values)
    kept = list(values[::2])
    return kept if (len(values) - 1) % 2 == 0 else [*kept, values[-1]]


def first_config(config: ExperimentConfig, first_reps: int) -> ExperimentConfig:
    """The first result's config: ``config`` itself when it has at most ``first_reps``
    repetitions, else a copy with ``first_reps`` repetitions at every other point of each swept
    axis (:func:`thin`). Its rows are those of the full sweep at the same points and repetitions
    (every stream is addressed by content), so the full run takes them as they are
    (:func:`dpcore.experiments.run`'s ``reuse``)."""
    if config.repetitions <= first_reps:
        return config
    sweep = {k: thin(v) for k, v in config.sweep.items()}
    return ExperimentConfig.from_dict(
        {**config.to_dict(), "repetitions": int(first_reps), "sweep": sweep}
    )


def smaller_offers(
    config: ExperimentConfig,
    predicted: float,
    *,
    limit: float,
    first_reps: int,
    cost: Callable[[ExperimentConfig], float] | None = None,
    n_choices: Sequence[int] = (),
    d_choices: Sequence[int] = (),
) -> list[Offer]:
    """Cheaper settings whose full sweep fits in ``limit`` seconds: the largest smaller n of
    ``n_choices``, the largest smaller d of ``d_choices`` and the most repetitions (more than
    ``first_reps``, fewer than the config's; the time per repetition taken as constant).
    ``cost``: as for :func:`decide`."""
    cost = cost or cost_model.estimate_seconds
    out: list[Offer] = []
    for key, choices in (("n", n_choices), ("d", d_choices)):
        now = int(getattr(config, key))
        fits = [
            (c, s)
            for c in choices
            if c < now
            and (s := cost(ExperimentConfig.from_dict({**config.to_dict(), key: int(c)}))) <= limit
        ]
        if fits:
            c, s = fits[-1]
            shown = f"{c:,}" if key == "n" else f"{c}"
            out.append(Offer(f"Use {key} = {shown}", s, key, int(c)))  # type: ignore[arg-type]
    per_rep = predicted / config.repetitions
    fit = min(config.repetitions - 1, int(limit / max(per_rep, 1e-9)))
    if first_reps < fit:
        out.append(Offer(f"Use {fit} repetitions", per_rep * fit, "repetitions", fit))
    return out


def decide(
    config: ExperimentConfig,
    *,
    limit: float,
    ask_above: float,
    first_reps: int,
    background: bool,
    predicted: float | None = None,
    ready: Container[str] = (),
    approved: Container[str] = (),
    cost: Callable[[ExperimentConfig], float] | None = None,
    n_choices: Sequence[int] = (),
    d_choices: Sequence[int] = (),
) -> Decision:
    """What to show now, what to offer and what to refine for ``config``.

    Parameters
    ----------
    config : ExperimentConfig
        The sweep the user asked for.
    limit : float
        Seconds within which a full sweep runs without asking (in the background when
        ``background``, else in the page's own run).
    ask_above : float
        Seconds above which even the first result waits for a click.
    first_reps : int
        Repetitions per point of the first result.
    background : bool
        Whether a background pool can refine a first result into the full sweep.
    predicted : float, optional
        Predicted seconds of ``config`` (default: ``cost(config)``).
    ready, approved : containers of str
        Config JSONs (``to_json(indent=None)``) already computed, and those the user asked to run
        although they are long.
    cost : callable, optional
        Predicted seconds of a config (default:
        :func:`~dpcore.experiments.cost.estimate_seconds`, looked up at each call).
    n_choices, d_choices : sequences of int
        The smaller n and d the offers may suggest (ascending).

    Returns
    -------
    Decision
    """
    cost = cost or cost_model.estimate_seconds
    predicted = cost(config) if predicted is None else float(predicted)
    first = first_config(config, first_reps)
    first_seconds = predicted if first is config else cost(first)
    full_json, first_json = config.to_json(indent=None), first.to_json(indent=None)
    full_ready = full_json in ready
    want_full = full_ready or full_json in approved or predicted <= limit

    def smaller() -> tuple[Offer, ...]:
        return tuple(
            smaller_offers(
                config,
                predicted,
                limit=limit,
                first_reps=first_reps,
                cost=cost,
                n_choices=n_choices,
                d_choices=d_choices,
            )
        )

    run_all = Offer(
        f"Run all {config.repetitions} repetitions", predicted, "approve", full_json, True
    )
    if (
        not want_full
        and first_json not in ready
        and first_json not in approved
        and first_seconds > ask_above
    ):
        run_first = Offer(
            f"Run {first.repetitions} repetitions first", first_seconds, "approve", first_json
        )
        runs = (run_all,) if first is config else (run_all, run_first)
        return Decision(
            "ask", config, first, None, False, runs + smaller(), predicted, first_seconds
        )
    if full_ready or first is config or (want_full and not background):
        return Decision("full", config, first, config, False, (), predicted, first_seconds)
    if want_full:
        return Decision("refining", config, first, first, True, (), predicted, first_seconds)
    offers = (run_all, *smaller())
    return Decision("offered", config, first, first, False, offers, predicted, first_seconds)


def before_run_warning(config: ExperimentConfig) -> str | None:
    """The warnings to show before a zCDP sweep, from public values only (n, d, ρ and the data's
    public range): each selected estimator's ``spec.prerun_warning`` (PLAN's robust centre steps
    may get too thin a budget: :func:`dpcore.estimators.plan.thin_budget_risk`), each distinct
    one once. ``None`` when there is none.
    """
    import numpy as np

    from dpcore import registry
    from dpcore.experiments.engine import make_dataset

    names = [e if isinstance(e, str) else e.get("name") for e in config.estimators]
    checks: dict[Any, None] = {}
    for spec in (registry.get(str(name)) for name in names):
        if spec.prerun_warning is not None:
            checks.setdefault(spec.prerun_warning, None)
    if config.unit != "rho" or not checks:
        return None
    lo, hi = make_dataset(config, config.n, config.d, config.base_skew(), 0).bounds
    width = float(np.max(hi - lo))
    found = [w(config.n, config.d, config.budget, width) for w in checks]
    return " ".join(m for m in found if m) or None
