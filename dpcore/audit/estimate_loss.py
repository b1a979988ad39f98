"""A lower confidence bound on the privacy loss of an estimator, from its outputs.

How :func:`audit` works
-----------------------
1. **The claim** is the estimator's native guarantee at the budget (:func:`native_budget`): pure
   ``ε`` at ``δ = 0``, ``ρ``-zCDP through the ``(ε(δ), δ)`` curve it implies, or ``μ = √(2ρ)``-GDP
   for an entry whose every stage is a Gaussian mechanism (read off its ledger:
   :func:`gaussian_ledger`); see :mod:`dpcore.audit.bounds`.
2. **The pairs** are a grid of worst-case neighbours of the declared relation
   (:func:`dpcore.audit.neighbours.pair_grid`: rows at the corners and outside the box, ``n`` in
   ``{n0, 20, 200}``, ``d`` in ``{1, 4, 16}``, two boxes).
3. **Selection.** Each pair is run ``screen`` times on ``D`` and on ``D′`` through the public entry;
   every release is reduced to three statistics (one coordinate, the mean of the coordinates, the ℓ2
   distance from ``D``'s mean), and the pair, statistic, threshold event, direction and (for zCDP)
   ``δ`` with the largest bound over the claim on these draws are chosen.
4. **Evaluation** on ``draws`` *fresh* runs of the chosen pair: one event, exact Clopper–Pearson
   bounds, so no multiple-comparison correction is needed for the choices made in step 3.
5. **Multi-stage estimators** (:mod:`dpcore.audit.stages`): the chosen stage is also audited on its
   own with the other stages' outputs fixed, and the white-box calibration check with its
   sensitivity probe (:func:`dpcore.audit.calibration`) runs, for any estimator with a ledger
   (a custom spec too). The ``k`` statistical parts (whole entry,
   stages) share ``α``: each runs at ``α/k``, so the headline (the part with the largest bound
   over its claim) is valid at ``1 − α`` by a union bound.

A bound above the claim is evidence, at confidence ``1 − α``, that the claim is false. A bound below
it proves nothing: it only says this audit found no violation.

References
----------
Jagielski, M., Ullman, J. and Oprea, A. NeurIPS 2020; Nasr, M. et al. IEEE S&P 2021 and USENIX
Security 2023; Dong, Roth and Su, JRSS-B 2022; Canonne, Kamath and Steinke, NeurIPS 2020.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore._validation import RngLike, as_generator
from dpcore.audit.bounds import (
    Claim,
    Event,
    best_event,
    claims_for,
    cp_lower,
    cp_upper,
    evaluate,
    statistics,
)
from dpcore.audit.broken import (
    resolve,
    scaled_budget,
    variant_noise,
    variant_runner,
)
from dpcore.audit.neighbours import (
    GRID_D,
    GRID_N,
    N_LADDER,
    NeighbourPair,
    audit_dimension,
    pair_grid,
    pairs_for,
)
from dpcore.audit.runners import Runner, entry_runner, private_bounds_runner, releases
from dpcore.audit.stages import STAGE_D, STAGE_N, StageAudit, stage_amount, stage_budget, stages_for
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget

__all__ = [
    "AuditResult",
    "Claim",
    "Event",
    "audit",
    "audit_all",
    "cp_lower",
    "cp_upper",
    "gaussian_ledger",
    "likelihood_ratio",
    "minimal_n",
    "native_budget",
]

#: A stage audited alone gets this many times the evaluation draws (it costs far less than the
#: whole entry).
STAGE_FACTOR = 5
#: The grids: ``"default"`` (n ladder, d ∈ {1, 4, 16}, two boxes), ``"small"`` (the whole entry of
#: an estimator also audited stage by stage), ``"quick"`` (one cell: the smallest n, d = 1).
GRIDS: dict[str, dict[str, Any]] = {
    "default": {"ns": GRID_N, "ds": GRID_D, "other_box": True},
    "small": {"ns": (20,), "ds": (1, 4), "other_box": False},
    "quick": {"ns": (), "ds": (1,), "other_box": False},
}


@dataclass(frozen=True)
class AuditResult:
    """The outcome of one audit (its headline part, with the others in ``parts``).

    Attributes
    ----------
    estimator, variant, relation : str
        What was audited, the broken-on-purpose variant (or ``"honest"``), the relation.
    claim : Claim
        The guarantee checked (``claim.value`` is the ``ε`` or ``μ`` the bound is compared with).
    epsilon_lower : float
        The lower confidence bound on the loss, in the claim's measure (``ε``, or ``μ`` for a GDP
        claim; also :attr:`lower`).
    epsilon_point : float
        Plug-in value of the same on the evaluation draws (no confidence; for display).
    confidence : float
        ``1 − α`` for the whole audit.
    pair, event, hits, draws
        The pair and event of the bound, its hits (numerator, denominator) out of ``draws``.
    t_d, t_d_prime : arrays
        The chosen statistic on the evaluation draws under ``D`` and ``D′`` (for pictures).
    method : str
        ``"black box"`` (the whole entry) or the stage audited.
    parts : tuple of AuditResult
        Every statistical part run (the whole entry and each stage), this one among them.
    calibration : tuple of str or None
        What the white-box calibration check flags (empty: nothing), ``None`` when not run.
    pairs_tried, path, overrides
        How many pairs ran, ``"entry"`` or ``"private bounds"``, the public overrides passed.
    """

    estimator: str
    variant: str
    relation: str
    claim: Claim
    epsilon_lower: float
    epsilon_point: float
    confidence: float
    pair: NeighbourPair
    event: Event
    hits: tuple[int, int]
    draws: int
    t_d: np.ndarray = field(repr=False)
    t_d_prime: np.ndarray = field(repr=False)
    method: str = "black box"
    parts: tuple[AuditResult, ...] = field(default=(), repr=False)
    calibration: tuple[str, ...] | None = None
    pairs_tried: int = 0
    path: str = "entry"
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def lower(self) -> float:
        return self.epsilon_lower

    @property
    def margin(self) -> float:
        """Audited bound minus the claim (positive: violated)."""
        return self.epsilon_lower - self.claim.value

    @property
    def violated(self) -> bool:
        """True when the bound exceeds the claim: the claim is false at this confidence."""
        return self.epsilon_lower > self.claim.value

    @property
    def flagged(self) -> bool:
        """True when the calibration check flags a stage (a noise or a charge off its claim)."""
        return bool(self.calibration)

    @property
    def verdict(self) -> str:
        if self.violated:
            return "caught"
        return "calibration flags" if self.flagged else "no violation found"

    def summary(self) -> dict[str, Any]:
        """One row for a table."""
        return {
            "estimator": self.estimator,
            "variant": self.variant,
            "relation": self.relation,
            "method": self.method,
            "claim": self.claim.describe(),
            f"claimed {self.claim.measure}": self.claim.value,
            "δ": self.claim.delta,
            f"audited {self.claim.measure}̂ (lower bound)": self.epsilon_lower,
            "plug-in": self.epsilon_point,
            "confidence": self.confidence,
            "pair": f"{self.pair.label} [{self.pair.cell}]",
            "event": self.event.describe(),
            "hits": f"{self.hits[0]} / {self.hits[1]} of {self.draws}",
            "pairs tried": self.pairs_tried,
            "calibration": "not run"
            if self.calibration is None
            else "; ".join(self.calibration) or "ratio 1 at every stage",
            "verdict": self.verdict,
        }


# --------------------------------------------------------------------------------------------
# draws


def _releases(runner: Runner, x: np.ndarray, draws: int, g: np.random.Generator) -> np.ndarray:
    """``draws`` releases of ``runner`` on ``x``, shape ``(draws, d)``
    (:func:`dpcore.audit.runners.releases`: one public call each, or one batch of the same
    draws)."""
    return releases(runner, x, draws, g)


def minimal_n(
    name: str | EstimatorSpec,
    *,
    relation: str | None = None,
    d: int | None = None,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> int:
    """The smallest ``n`` in :data:`N_LADDER` on which the estimator runs on the box pairs."""
    spec = resolve(name)
    rel = relation or spec.neighbouring
    d = d or audit_dimension(spec)
    budget = Budget.pure(1.0) if spec.notion == "pure" else Budget.zcdp(0.5)
    g = np.random.default_rng(0)
    for n in N_LADDER:
        try:
            for p in pairs_for(rel, n=n, d=d, bounds=bounds, outside=False):
                run = entry_runner(spec, budget, p)
                _releases(run, p.x, 1, g)
                _releases(run, p.x_prime, 1, g)
        except ValueError:
            continue
        return n
    raise ValueError(f"{spec.name!r} does not run on any n in {N_LADDER}; pass n= explicitly.")


def native_budget(spec: EstimatorSpec, budget: Budget) -> Budget:
    """The guarantee ``spec`` claims at ``budget``: the budget in its native notion, times its
    ``spend_factor`` (what an as-published reproduction really spends)."""
    v = budget.to_native(spec.notion).value * spec.spend_factor
    return Budget.pure(v) if spec.notion == "pure" else Budget.zcdp(v)


# --------------------------------------------------------------------------------------------
# one statistical part


@dataclass(frozen=True)
class _Part:
    method: str
    relation: str
    pairs: list[NeighbourPair]
    make: Callable[[NeighbourPair], Runner]
    claims: list[Claim]
    #: Draws multiplier: a stage alone is cheap to run, so it gets more draws (and more power).
    factor: int = 1


def _run_part(
    part: _Part, *, draws: int, screen: int, alpha: float, g: np.random.Generator
) -> dict[str, Any]:
    """Select on ``screen`` draws per pair, evaluate the choice on ``draws`` fresh ones."""
    best, tried, refused = None, 0, ""
    draws = draws * part.factor
    for p in part.pairs:
        run = part.make(p)
        try:
            a = _releases(run, p.x, screen, g)
            b = _releases(run, p.x_prime, screen, g)
        except ValueError as err:  # the entry refuses this pair (too few rows, data outside it)
            refused = refused or str(err)
            continue
        tried += 1
        choice = best_event(statistics(a, p.x), statistics(b, p.x), part.claims, alpha)
        if best is None or choice.score > best[0].score:
            best = (choice, p)
    if best is None:
        raise ValueError(
            f"{part.method}: the estimator ran on none of the {len(part.pairs)} pairs ({refused})"
        )
    choice, pair = best
    run = part.make(pair)
    t_d = statistics(_releases(run, pair.x, draws, g), pair.x)[choice.event.statistic]
    t_dp = statistics(_releases(run, pair.x_prime, draws, g), pair.x)[choice.event.statistic]
    lower, point, hits = evaluate(choice.event, choice.claim, t_d, t_dp, alpha)
    return {
        "relation": part.relation,
        "claim": choice.claim,
        "epsilon_lower": lower,
        "epsilon_point": point,
        "pair": pair,
        "event": choice.event,
        "hits": hits,
        "draws": draws,
        "t_d": t_d,
        "t_d_prime": t_dp,
        "method": part.method,
        "pairs_tried": tried,
    }


def _whole_part(
    spec: EstimatorSpec,
    budget: Budget,
    claims: list[Claim],
    *,
    variant: str,
    grid: str,
    n: int | None,
    pair_keys: Sequence[str] | None,
    overrides: dict[str, Any],
    path: str,
) -> _Part:
    relation: str
    make: Callable[[NeighbourPair], Runner]
    if path == "private bounds":
        relation = spec.neighbouring
        run_budget = budget
        if variant != "honest":
            run_budget = scaled_budget(spec, budget, variant_noise(variant))
        make = functools.partial(private_bounds_runner, spec, run_budget)
        method = "black box (private bounds, then the estimator)"
    else:
        relation, make = variant_runner(spec, variant, budget, **overrides)
        method = "black box"
    if n is not None:
        pairs = pair_grid(spec, relation, n0=int(n), ns=(), ds=GRIDS[grid]["ds"], other_box=False)
    else:
        n0 = minimal_n(spec, relation=relation)
        pairs = pair_grid(spec, relation, n0=n0, **GRIDS[grid])
    if pair_keys is not None:
        known = {p.key for p in pairs}
        if not set(pair_keys) <= known:
            raise ValueError(
                f"pair_keys must be among {sorted(known)} for {relation}; got {list(pair_keys)}."
            )
        pairs = [p for p in pairs if p.key in pair_keys]
    return _Part(method, relation, pairs, make, claims)


def _stage_parts(
    spec: EstimatorSpec, budget: Budget, variant: str, overrides: dict[str, Any], grid: str
) -> list[_Part]:
    out = []
    for st in stages_for(spec):
        amount = stage_amount(spec, st, budget, overrides)
        run_amount = stage_budget(st, amount, variant_noise(variant))
        claim_budget = Budget.pure(amount) if st.notion == "pure" else Budget.zcdp(amount)
        claims = claims_for(claim_budget, gaussian=st.gaussian)
        ns = (2,) if grid == "quick" else STAGE_N
        ds = (1,) if grid == "quick" else STAGE_D

        def make(p: NeighbourPair, st: StageAudit = st, a: float = run_amount) -> Runner:
            return st.runner(spec, p, a)

        pairs = st.grid(ns, ds)
        out.append(_Part(f"stage: {st.label}", "replace-one", pairs, make, claims, STAGE_FACTOR))
    return out


def gaussian_ledger(spec: EstimatorSpec, budget: Budget, overrides: dict[str, Any]) -> bool:
    """Whether every stage that charges ``spec``'s ledger at ``budget`` is a Gaussian mechanism
    of :mod:`dpcore.mechanisms` (read off one run on public data): the release is then exactly
    ``√(2ρ)``-GDP (Gaussian mechanisms compose to one of ``μ² = Σ μ_i²``), audited against that
    claim. A Gaussian another library drew (:func:`dpcore.mechanisms.external`, on its own
    grid) is not taken to be exactly GDP."""
    from dpcore import mechanisms
    from dpcore.audit._calibration import default_data

    if spec.notion != "zcdp":
        return False
    with mechanisms.recording_inputs() as drawn:
        est = spec.run(default_data(spec), budget, rng=0, **overrides)
    charged = [c for c in est.ledger.charges if c.amount > 0]
    ours = bool(drawn) and all(i.kind == "gaussian" for i in drawn)
    return ours and bool(charged) and all(c.mechanism == "gaussian" for c in charged)


def _calibration(
    spec: EstimatorSpec, budget: Budget, variant: str, overrides: dict[str, Any]
) -> tuple[str, ...]:
    """What the calibration check (and its sensitivity probe) flags for ``variant`` of the entry,
    claimed at ``budget`` (a variant run at a larger budget charges more than it claims: the
    check says so)."""
    from dpcore.audit._calibration import calibration, problems

    noise = variant_noise(variant)
    run_budget = budget if noise == 1.0 else scaled_budget(spec, budget, noise)

    def runner(x: Any, b: Budget, **kw: Any) -> Any:
        return spec.run(x, run_budget, **kw)

    try:
        return tuple(problems(calibration(spec, budget, runner=runner, **overrides)))
    except ValueError as err:
        return (f"the calibration check could not run: {err}",)


# --------------------------------------------------------------------------------------------
# the audit


def _check(spec: EstimatorSpec, draws: int, confidence: float, path: str, grid: str) -> None:
    if spec.notion == "none":
        raise ValueError(
            f"{spec.name!r} is the non-private reference: it claims nothing, so there is nothing "
            "to audit."
        )
    if int(draws) < 100:
        raise ValueError(f"draws must be at least 100 per data set; got {draws!r}.")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1), e.g. 0.99; got {confidence!r}.")
    if path not in ("entry", "private bounds"):
        raise ValueError(f"path must be 'entry' or 'private bounds'; got {path!r}.")
    if grid not in GRIDS:
        raise ValueError(f"grid must be one of {sorted(GRIDS)}; got {grid!r}.")


def audit(
    name: str | EstimatorSpec,
    budget: Budget,
    *,
    variant: str = "honest",
    draws: int = 2000,
    screen: int | None = None,
    confidence: float = 0.99,
    grid: str | None = None,
    n: int | None = None,
    pair_keys: Sequence[str] | None = None,
    overrides: dict[str, Any] | None = None,
    path: str = "entry",
    stages: bool = True,
    calibrate: bool = True,
    rng: RngLike = 0,
) -> AuditResult:
    """Audit an estimator's claim at ``budget`` on worst-case neighbours of its declared relation.

    Parameters
    ----------
    name : str or EstimatorSpec
        A registry name, a broken-on-purpose spec's name (:data:`dpcore.audit.broken.BROKEN_SPECS`)
        or a spec.
    budget : Budget
        The budget passed to the public entry; its native guarantee is the claim checked.
    variant : str
        ``"honest"`` or a broken-on-purpose variant (:func:`dpcore.audit.broken.variants_for`),
        audited under the honest claim.
    draws : int
        Fresh draws per data set for the bound, at least 100.
    screen : int, optional
        Draws per data set and pair for the selection (default ``max(200, draws // 5)``).
    confidence : float
        ``1 − α`` of the lower bound, in (0, 1).
    grid : {"default", "small", "quick"}, optional
        The pairs of the whole-entry audit (:data:`GRIDS`); default ``"default"``, or ``"small"``
        for an estimator that is also audited stage by stage.
    n : int, optional
        Audit at this ``n`` only (default: the n ladder from the smallest ``n`` it runs on).
    pair_keys : sequence of str, optional
        Restrict to these kinds of pair (``"replace-low"``, ``"add-outside"``, ...).
    overrides : dict, optional
        Public tuning passed to the entry (the registry refuses guarantee-defining ones).
    path : {"entry", "private bounds"}
        The entry as registered, or the Your data page's private-bounds release before it.
    stages : bool
        Also audit the stages of a multi-stage estimator (:mod:`dpcore.audit.stages`).
    calibrate : bool
        Run the white-box calibration check and its sensitivity probe on the estimator (any spec
        with a ledger; a variant run at a larger budget than it claims is flagged there too).
    rng : None, int or Generator

    Returns
    -------
    AuditResult
        The part with the largest bound over its claim; ``parts`` holds every part.

    Raises
    ------
    ValueError
        For the non-private reference, an unknown variant or pair, or bad arguments.

    Examples
    --------
    >>> from dpcore.privacy import Budget
    >>> r = audit("clipped_laplace", Budget.pure(1.0), draws=200, grid="quick", rng=0)
    >>> r.claim.describe(), r.violated
    ('ε = 1 at δ = 0 (pure DP)', False)
    """
    spec = resolve(name)
    overrides = dict(overrides or {})
    if hasattr(spec, "check_overrides"):
        overrides = spec.check_overrides(overrides)  # a guarantee-defining override raises here
    stage_list = stages_for(spec) if stages and path == "entry" else []
    grid = grid or ("small" if stage_list else "default")
    _check(spec, draws, confidence, path, grid)
    draws, alpha = int(draws), 1.0 - float(confidence)
    screen = int(screen) if screen is not None else max(200, draws // 5)
    parts = _parts(
        spec,
        budget,
        stage_list,
        variant=variant,
        grid=grid,
        n=n,
        pair_keys=pair_keys,
        overrides=overrides,
        path=path,
    )
    g = as_generator(rng)
    done = [_run_part(p, draws=draws, screen=screen, alpha=alpha / len(parts), g=g) for p in parts]
    cal = None
    stage_cut = variant == "noise_cut" and bool(stage_list)
    if calibrate and path == "entry" and not stage_cut:
        cal = _calibration(
            spec, budget, variant if variant != "data_derived_n" else "honest", overrides
        )
    common: dict[str, Any] = {
        "estimator": spec.name,
        "variant": variant,
        "confidence": float(confidence),
        "calibration": cal,
        "path": path,
        "overrides": overrides,
    }
    results = [AuditResult(**common, **d) for d in done]
    head = max(results, key=lambda r: r.margin)
    return dataclasses.replace(head, parts=tuple(results))


def _parts(
    spec: EstimatorSpec,
    budget: Budget,
    stage_list: list[StageAudit],
    *,
    variant: str,
    grid: str,
    n: int | None,
    pair_keys: Sequence[str] | None,
    overrides: dict[str, Any],
    path: str,
) -> list[_Part]:
    """What :func:`audit` checks: the whole entry (not for a noise cut of a staged estimator) and,
    with ``stage_list``, each stage."""
    native = native_budget(spec, budget)
    gaussian = path == "entry" and gaussian_ledger(spec, budget, overrides)
    parts: list[_Part] = []
    if not (variant == "noise_cut" and stage_list):
        parts.append(
            _whole_part(
                spec,
                budget,
                claims_for(native, gaussian=gaussian),
                variant=variant,
                grid=grid,
                n=n,
                pair_keys=pair_keys,
                overrides=overrides,
                path=path,
            )
        )
    if stage_list:
        variant_runner(spec, variant, budget)  # raises for a variant that does not apply
        parts += _stage_parts(spec, budget, variant, overrides, grid)
    return parts


def likelihood_ratio(
    t_d: np.ndarray, t_d_prime: np.ndarray, bins: int = 40, min_count: int = 5
) -> dict[str, np.ndarray]:
    """Histogram both samples on common bins and return the per-bin log ratio ``ln(p_D/p_D′)``.

    Bins with fewer than ``min_count`` draws on either side get ``nan`` (too noisy to show);
    ``se`` is the delta-method standard error ``sqrt(1/k + 1/k′)`` of each log ratio. This is a
    picture of the privacy loss, not a bound: the bound is :func:`audit`'s ``epsilon_lower``.
    """
    lo, hi = float(min(t_d.min(), t_d_prime.min())), float(max(t_d.max(), t_d_prime.max()))
    if not hi > lo:
        hi = lo + 1e-9
    edges = np.linspace(lo, hi, int(bins) + 1)
    ca, _ = np.histogram(t_d, edges)
    cb, _ = np.histogram(t_d_prime, edges)
    ok = (ca >= min_count) & (cb >= min_count)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.where(ok, np.log((ca / t_d.size) / (cb / t_d_prime.size)), np.nan)
        se = np.where(ok, np.sqrt(1.0 / ca + 1.0 / cb), np.nan)
    return {
        "left": edges[:-1],
        "right": edges[1:],
        "centre": 0.5 * (edges[:-1] + edges[1:]),
        "count_d": ca,
        "count_d_prime": cb,
        "log_ratio": lr,
        "se": se,
    }


def audit_all(
    budget_pure: Budget,
    budget_zcdp: Budget,
    *,
    draws: int = 2000,
    confidence: float = 0.99,
    rng: int = 0,
) -> list[AuditResult]:
    """Audit every private registered estimator (pure ones at ``budget_pure``, zCDP ones at
    ``budget_zcdp``) at the default settings; for a notebook or a report (long: see
    ``python -m dpcore.audit``)."""
    from dpcore import registry

    out = []
    for spec in registry.all_estimators():
        if spec.notion == "none":
            continue
        b = budget_pure if spec.notion == "pure" else budget_zcdp
        out.append(audit(spec.name, b, draws=draws, confidence=confidence, rng=rng))
    return out
