"""The records every estimator shares: ``Diagnostics``, ``Estimate``, ``EstimatorSpec`` (one
registered estimator: its guarantee, its names and its place in lists) and :func:`register`, which
the estimator modules call; :mod:`dpcore.registry` reads what they registered.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np

from dpcore._validation import RngLike, check_flag
from dpcore.privacy import (
    Budget,
    BudgetUnit,
    Conversion,
    ConversionMethod,
    Ledger,
    NativeNotion,
)

DataKind = Literal["real", "bounded", "binary"]


Neighbouring = Literal["replace-one", "add-remove", "none"]


#: Budget units an estimator of each native notion meets by a valid implication (a zCDP estimator
#: never meets a pure ε budget). Registrations declare ``units`` with one of these.
PURE_UNITS: frozenset[BudgetUnit] = frozenset({"eps", "eps_delta", "rho"})
ZCDP_UNITS: frozenset[BudgetUnit] = frozenset({"eps_delta", "rho"})
ANY_UNIT: frozenset[BudgetUnit] = PURE_UNITS  # the non-private reference spends nothing

#: Longest :attr:`EstimatorSpec.label` (a legend entry on one line, a phone-width selector).
LABEL_MAX = 24

#: Neighbouring relations (``EstimatorSpec.relations``).
REPLACE_ONE: frozenset[Neighbouring] = frozenset({"replace-one"})
ADD_REMOVE: frozenset[Neighbouring] = frozenset({"add-remove"})
NO_RELATION: frozenset[Neighbouring] = frozenset({"none"})


@dataclass(frozen=True)
class Default:
    """Where an estimator sits in the default selection of Compare, Your data and Side by side.

    Attributes
    ----------
    rank : int
        Order in the selection (lower first).
    kinds : frozenset of data kinds, optional
        Data kinds for which it is selected (``None``: every kind it applies to).
    units : frozenset of budget units, optional
        Budget units under which it is selected (``None``: every unit it supports).
    """

    rank: int
    kinds: frozenset[str] | None = None
    units: frozenset[BudgetUnit] | None = None


#: The opt-in group of other libraries' means (:mod:`dpcore.estimators.peers`).
PEERS = "peers"


@dataclass(frozen=True)
class Cost:
    """An estimator's entry in the run-time model of :mod:`dpcore.experiments.cost`.

    One run on ``n`` rows and ``d`` columns takes about ``overhead_ms`` milliseconds plus
    ``per_value_us`` microseconds per value (``n * d``), before the model's calibration factor.
    Every registered estimator declares one (:func:`register` refuses an entry without it).

    Attributes
    ----------
    per_value_us : float
        Microseconds per value.
    overhead_ms : float
        Milliseconds of fixed cost per run (private quantile searches, bookkeeping).
    """

    per_value_us: float
    overhead_ms: float


#: A pre-run warning: ``(n, d, rho, width) -> sentence or None``, from public values only (the
#: sample size, the dimension, the zCDP budget and the width of the data's public range).
PrerunWarning = Callable[[int, int, float, float], "str | None"]


def units_of(notion: NativeNotion) -> frozenset[BudgetUnit]:
    """The budget units an estimator of native ``notion`` meets (zCDP: never a pure ε budget)."""
    return ZCDP_UNITS if notion == "zcdp" else PURE_UNITS


@dataclass
class Diagnostics:
    """What an estimator did, for the pictures and the error split.

    The fields every estimator shares; each family returns a typed subclass with its own fields
    (``PlanDiagnostics``, ``IomeDiagnostics``, ``WinsorizedDiagnostics``, ``SimplexDiagnostics``,
    ...), read with :meth:`Estimate.diagnostics_as`.

    Attributes
    ----------
    noiseless_mean : array
        The estimate with the privacy noise of the final release removed but the same centre,
        scale and clipping (so ``mean - noiseless_mean`` is the final noise and
        ``noiseless_mean - empirical mean`` is the clipping bias).
    center : array or None
        The (private) centre used before clipping.
    scale : array or None
        Per-coordinate multipliers mapping centred original space to scaled space.
    clip_radius : float or None
        l2 clip radius in scaled space.
    clip_interval : (array, array) or None
        Per-coordinate clip interval ``(lower, upper)`` for interval clipping.
    clipped : bool array or None
        Which rows (or entries, shape ``(n, d)``) were changed by clipping.
    noise_std : array or None
        Per-coordinate standard deviation of the final noise, in original space.
    warnings : list of str
        Anything the user should know (fallbacks, parameters outside the theory's range). Part of
        what an estimator releases: a warning may depend on public values and on the private output
        only, never on the data directly (no counts of clamped rows, no private n, no number of
        failed groups).
    private_bounds : (array, array) or None
        The privately chosen bounds when the estimator ran inside
        :func:`dpcore.estimators.private_bounds.run_with_private_bounds` (their cost is in the ledger).
    nonprivate : dict
        **Not private, for teaching only**: data-dependent quantities (rows clamped, the true n
        under add/remove, failed groups, ...). Never part of a release; a page may show them only
        under a "non-private diagnostics" label.
    """

    noiseless_mean: np.ndarray
    center: np.ndarray | None = None
    scale: np.ndarray | None = None
    clip_radius: float | None = None
    clip_interval: tuple[np.ndarray, np.ndarray] | None = None
    clipped: np.ndarray | None = None
    noise_std: np.ndarray | None = None
    warnings: list[str] = field(default_factory=list)
    private_bounds: tuple[np.ndarray, np.ndarray] | None = None
    nonprivate: dict[str, Any] = field(default_factory=dict)

    @property
    def fraction_clipped(self) -> float | None:
        """Fraction of rows (or entries) changed by clipping."""
        if self.clipped is None:
            return None
        return float(np.mean(self.clipped))


D = TypeVar("D", bound=Diagnostics)


@dataclass
class Estimate:
    """A private mean with its privacy ledger and diagnostics."""

    mean: np.ndarray
    ledger: Ledger
    diagnostics: Diagnostics
    estimator: str = ""
    conversion: Conversion | None = None

    def diagnostics_as(self, kind: type[D]) -> D:
        """The diagnostics as the family's typed class ``kind`` (a ``ValueError`` naming it otherwise).

        >>> from dpcore.estimators.winsorized import WinsorizedDiagnostics, winsorized_mean
        >>> est = winsorized_mean([1.0, 2.0, 3.0, 4.0], epsilon=1.0, bounds=(0, 10), rng=0)
        >>> est.diagnostics_as(WinsorizedDiagnostics).tau > 0
        True
        """
        if not isinstance(self.diagnostics, kind):
            raise ValueError(
                f"estimate needs {kind.__name__} (from the matching estimator family); got "
                f"{type(self.diagnostics).__name__} from {self.estimator or 'an unnamed estimator'!r}."
            )
        return self.diagnostics


@functools.lru_cache(maxsize=256)
def _signature(func: Callable[..., Any]) -> frozenset[str]:
    """Parameter names of ``func`` (inspect.signature is slow and :meth:`EstimatorSpec.accepts` is
    asked once per estimator run)."""
    return frozenset(inspect.signature(func).parameters)


@dataclass(frozen=True, kw_only=True)
class EstimatorSpec:
    """One registered estimator.

    Attributes
    ----------
    name : str
        Stable identifier (used in configs, URLs and data frames).
    label : str
        Short display name (a registered one has at most :data:`LABEL_MAX` characters) for legends, selectors and
        tables: every chart shows this one. A trailing "(ε)" marks a pure ε-DP entry and "(ρ)" a
        ρ-zCDP one where the family has both; the words it uses are defined in
        :mod:`dpcore.glossary`.
    detail : str
        The full name, with what sets the entry apart from its siblings (parameters, mechanism,
        guarantee, library version): for hover text, the glossary and the release certificate.
    order : int or None
        Place in every list of estimators (:func:`dpcore.registry.all_estimators` sorts by it,
        so the order never depends on which module was imported first). Every registered entry
        needs one, unique among the registered entries; ``None`` only for a spec that is never
        registered.
    color : str
        Fixed colour used in every chart.
    notion : {"pure", "zcdp", "none"}
        Native privacy notion; budgets are converted to it by :meth:`Budget.to_native`.
    data_kinds : frozenset of {"real", "bounded", "binary"}
        Data the estimator applies to.
    neighbouring : {"replace-one", "add-remove", "none"}
        Neighbouring relation its headline guarantee holds for (rankings group by it).
    units : frozenset of {"eps", "eps_delta", "rho"}
        Budget units it meets (:data:`PURE_UNITS`, :data:`ZCDP_UNITS` or :data:`ANY_UNIT`);
        :meth:`run` refuses a budget in any other unit. Left empty, the units ``notion`` meets
        (:func:`units_of`).
    relations : frozenset of {"replace-one", "add-remove", "none"}
        Neighbouring relations its guarantee holds for at the given budget (contains
        ``neighbouring``); :meth:`run` refuses ``relation=`` outside them. Left empty,
        ``{neighbouring}``.
    func : callable
        The estimator function.
    params : mapping
        Default keyword parameters passed to ``func``.
    family : str
        Group name for the app (``"PLAN"``, ``"baseline"``, ...).
    description : str
        One sentence for the app.
    needs_dimension : {"any", "scalar", "vector"}
        Dimensions it applies to.
    uses_oracle : bool
        True when the estimator is handed a value that is not private (e.g. the true variances):
        a teaching reference, never ranked or starred as the best private estimator.
    spend_factor : float
        How many times the given budget the estimator really spends (1 for every honest estimator).
        Reproductions of published code that overspend (``plan_as_published`` spends 1.5 ρ: its
        centre medians run on tripled data) say so here and in their ledger; they do not
        meet the budget they are given, so they are never ranked with the honest estimators.
    seeded : bool
        ``False`` when the same ``rng`` does not give the same estimate (a peer library drawing
        from its own unseedable generator, as OpenDP does); reproducibility tests skip it.
    default : Default or None
        Its place in the default selection of the pages (:func:`is_default`); ``None``: not
        selected by default.
    cost : Cost or None
        Its entry in the run-time model (:mod:`dpcore.experiments.cost`); required to register.
    prerun_warning : callable or None
        ``(n, d, rho, width) -> str | None``: a warning to show before a zCDP run from public values
        only (PLAN's thin centre budget, :func:`dpcore.estimators.plan.thin_budget_risk`).
    batched : callable or None
        A vectorised ``(x, reps=, rng=, **params) -> (reps, d)`` version of ``func`` (its randomness
        is one batched release on fixed data), used by the experiment engine when only the noise is
        resampled; ``None`` when the estimator has none.
    """

    name: str
    label: str
    color: str
    notion: NativeNotion
    data_kinds: frozenset[str]
    neighbouring: Neighbouring
    func: Callable[..., Estimate]
    units: frozenset[BudgetUnit] = frozenset()
    relations: frozenset[Neighbouring] = frozenset()
    detail: str = ""
    order: int | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    family: str = "baseline"
    description: str = ""
    needs_dimension: Literal["any", "scalar", "vector"] = "any"
    seeded: bool = True
    uses_oracle: bool = False
    spend_factor: float = 1.0
    default: Default | None = None
    cost: Cost | None = None
    prerun_warning: PrerunWarning | None = None
    batched: Callable[..., np.ndarray] | None = None

    def __post_init__(self) -> None:
        if not self.units:
            object.__setattr__(self, "units", units_of(self.notion))
        if not self.relations:
            object.__setattr__(self, "relations", frozenset({self.neighbouring}))
        if self.neighbouring not in self.relations:
            raise ValueError(
                f"{self.name}: relations {sorted(self.relations)} must contain its neighbouring "
                f"relation {self.neighbouring!r}."
            )
        meets = {u for u in PURE_UNITS if Budget.from_unit(u, 1.0).meets(self.notion)}
        if not self.units or not self.units <= meets:
            raise ValueError(
                f"{self.name}: units {sorted(self.units)} must be a non-empty subset of the units a "
                f"{self.notion} estimator can meet, {sorted(meets)}."
            )

    def is_default(self, kind: str, unit: str) -> bool:
        """Whether the pages select this estimator by default for data of ``kind`` under a budget
        in ``unit`` (it must apply to ``kind`` and support ``unit``)."""
        d = self.default
        return (
            d is not None
            and kind in (self.data_kinds if d.kinds is None else d.kinds)
            and unit in (self.units if d.units is None else d.units)
            and kind in self.data_kinds
            and unit in self.units
        )

    @property
    def private(self) -> bool:
        """Whether the estimate is differentially private at the budget it is given: a privacy
        notion, no oracle input and no overspend (``spend_factor == 1``). Only private estimators
        are ranked, starred or headlined as "best private"."""
        return self.notion != "none" and not self.uses_oracle and self.spend_factor == 1.0

    @property
    def guarantee(self) -> tuple[str, str]:
        """The (notion, neighbouring relation) pair; rankings compare estimators only within one."""
        if self.spend_factor != 1.0:
            return (f"{self.notion}, spends {self.spend_factor:g}× the budget", self.neighbouring)
        return (self.notion, self.neighbouring)

    def public_keywords(self) -> frozenset[str]:
        """Keywords a caller may set freely: public tuning, which never changes the guarantee.

        Everything ``func`` names except the data, the budget and the guarantee-defining
        keywords (:meth:`locked_keywords`). The data set's public ``bounds``, ``sigma`` and
        ``true_mean`` are public: the estimator clamps to the bounds it is given, so any public
        value keeps the guarantee.
        """
        return _signature(self.func) - self.locked_keywords() - _NOT_KEYWORDS

    def locked_keywords(self) -> frozenset[str]:
        """Keywords that define the guarantee: the registered ``params`` (a different value is a
        different registered entry) and every :data:`GUARANTEE_KEYWORDS` that ``func`` names."""
        return frozenset(self.params) | (_signature(self.func) & GUARANTEE_KEYWORDS)

    def check_overrides(self, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """``overrides`` checked against the contract, or a ``ValueError`` naming the fix.

        A budget keyword is refused (pass a :class:`~dpcore.privacy.Budget`); an unknown keyword is
        refused with the public ones listed; a guarantee-defining keyword with a value other than
        the registered one is refused with the entry that has that behaviour, if any; a flag (a
        keyword whose default is ``True`` or ``False``) must be a bool.

        >>> from dpcore import registry
        >>> try:
        ...     registry.get("simplex_laplace").check_overrides({"known_n": True})
        ... except ValueError as err:
        ...     print(str(err).split("; ")[1])
        use the registered entry 'simplex_known_n_laplace_replace', which has that behaviour.
        """
        out = dict(overrides)
        for key, value in out.items():
            if key in BUDGET_KEYWORDS:
                raise ValueError(
                    f"{key}= is set by the budget; pass Budget.pure/zcdp/approx(...) as the budget "
                    f"instead of {key}={value!r}."
                )
            registered = self.params.get(key, _default_of(self.func, key))
            if key in self.locked_keywords():
                if not _same(value, registered):
                    raise ValueError(self._locked_message(key, value, registered))
            elif key not in _signature(self.func):
                raise ValueError(
                    f"{self.name} has no parameter {key!r}; its public tuning parameters are "
                    f"{', '.join(sorted(self.public_keywords())) or 'none'}."
                )
            elif isinstance(registered, bool):
                out[key] = check_flag(value, key)  # a flag is a bool, never read by truthiness
        return out

    def _locked_message(self, key: str, value: Any, registered: Any) -> str:
        other = [
            s.name
            for s in _REGISTRY.values()
            if _same_kind(s.func, self.func)
            and s.notion == self.notion
            and key in s.locked_keywords()
            and _same(s.params.get(key, _default_of(s.func, key)), value)
        ]
        fix = (
            f"use the registered entry {other[0]!r}, which has that behaviour."
            if other
            else "no registered entry has that behaviour (it would void the declared guarantee)."
        )
        return (
            f"{key}={value!r} changes the privacy guarantee of {self.name!r} (registered: "
            f"{key}={registered!r}); {fix}"
        )

    def accepts(self, keyword: str) -> bool:
        """Whether ``func`` names ``keyword`` (a ``**params`` catch-all does not count: :meth:`run`
        passes a data set's ``bounds``, ``sigma`` and ``true_mean`` only to functions naming them)."""
        return keyword in _signature(self.func)

    def meets(self, budget: Budget) -> bool:
        """Whether this estimator can meet ``budget`` by a valid implication (not a zCDP estimator
        under a pure ε budget; see :meth:`dpcore.privacy.Budget.meets`)."""
        return budget.meets(self.notion) and self.spend_factor == 1.0

    def run(
        self,
        data: Any,
        budget: Budget,
        *,
        rng: RngLike = None,
        method: ConversionMethod = "cks",
        at_implied_level: bool = False,
        relation: Neighbouring | None = None,
        conversion: Conversion | None = None,
        **overrides: Any,
    ) -> Estimate:
        """Run on a :class:`~dpcore.data.dataset.Dataset` (or a bare array) with ``budget`` converted to
        this estimator's native notion. ``overrides`` replace the default ``params``.

        A zCDP estimator under a pure ε budget raises ``ValueError`` (nothing turns zCDP into ε-DP)
        unless ``at_implied_level=True``: it then runs at ρ = ε²/2 and ``est.conversion`` has
        ``meets_budget=False`` and the (ε', δ)-DP it gives (:meth:`Budget.implied_zcdp`).

        A budget in a unit outside ``units``, or a ``relation`` outside ``relations``, raises
        ``ValueError`` (the declaration is what ``run`` accepts; tests/core/test_registry.py checks it).

        ``conversion`` is ``budget.to_native(self.notion, method)`` computed by the caller once
        for many runs (the experiment engine: once per estimator and setting); it must be in this
        estimator's notion.
        """
        _check_budget(budget)
        if relation is not None and relation not in self.relations:
            raise ValueError(
                f"{self.name} is private under {', '.join(sorted(self.relations))} neighbours, not "
                f"{relation!r}; choose an estimator registered for {relation!r}."
            )
        overrides = self.check_overrides(overrides)
        if relation is not None and self.accepts("neighbouring"):
            overrides["neighbouring"] = relation
        implied = at_implied_level and self.notion == "zcdp" and budget.unit == "eps"
        if budget.unit not in self.units and not implied and budget.meets(self.notion):
            # (a zCDP estimator under a pure ε budget: Budget.to_native says why, below)
            raise ValueError(
                f"{self.name} does not meet a budget in {budget.unit!r} ({budget}); it supports "
                f"{', '.join(sorted(self.units))}. Give the budget in one of those units"
                + (" or pass at_implied_level=True." if self.notion == "zcdp" else ".")
            )
        conv = self._conversion(budget, method, at_implied_level, conversion)
        kwargs: dict[str, Any] = {**self.params, **overrides, **conv.kwargs}
        x = getattr(data, "x", data)
        self._data_values(data, kwargs)
        est = self.func(x, rng=rng, **kwargs)
        est.estimator = self.name
        est.conversion = conv
        return est

    def _conversion(
        self,
        budget: Budget,
        method: ConversionMethod,
        at_implied_level: bool,
        conversion: Conversion | None,
    ) -> Conversion:
        """The budget in this estimator's notion for :meth:`run`: the caller's ``conversion``, the
        implied zCDP level, or ``budget.to_native``; marked as not meeting the budget for a variant
        that overspends."""
        if conversion is not None and not at_implied_level:
            if conversion.notion != self.notion:
                raise ValueError(
                    f"{self.name} runs in {self.notion}; the conversion given is in "
                    f"{conversion.notion}. Pass budget.to_native({self.notion!r}) or none."
                )
            conv = conversion
        elif at_implied_level and self.notion == "zcdp":
            conv = budget.implied_zcdp(method=method)
        else:
            conv = budget.to_native(self.notion, method)
        if self.spend_factor != 1.0:
            conv = dataclasses.replace(
                conv,
                meets_budget=False,
                guarantee=f"spends {self.spend_factor:g}× the budget it is given (as published)",
            )
        return conv

    def _data_values(self, data: Any, kwargs: dict[str, Any]) -> None:
        """Add a data set's ``bounds``, ``sigma`` (its ``true_std``) and ``true_mean`` to ``kwargs``
        for :meth:`run` where the function names them and the caller gave none; a data-derived
        standard deviation is refused as a known sigma."""
        std_from_data = bool(getattr(data, "params", {}).get("std_from_data", False))
        for key in ("bounds", "sigma", "true_mean"):
            value = getattr(data, key, None) if key != "sigma" else getattr(data, "true_std", None)
            if value is None or key in kwargs or not self.accepts(key):
                continue
            if key == "sigma" and std_from_data:
                # A data set's own empirical standard deviation is not public: never hand it to an
                # estimator as "known" sigma.
                if self.accepts("sigma"):
                    raise ValueError(
                        f"{self.name} needs a public sigma (known standard deviations), but this data set's "
                        "true_std is its own empirical standard deviation, a data-derived value whose use is a "
                        "privacy leak. Pass sigma= (a public value chosen without the data) explicitly, or "
                        "use an estimator that estimates the variances privately."
                    )
                continue
            kwargs[key] = value


#: Keywords that define a guarantee wherever an estimator function names them: the neighbouring
#: relation, the use of n, the sensitivity, the mechanism, the walk's accounting, the overspend of a
#: published variant, and n as side information. Locked at the registered value.
GUARANTEE_KEYWORDS = frozenset(
    {
        "neighbouring",
        "known_n",
        "side_information",
        "walk",
        "mechanism",
        "center_spread",
        "sensitivity",
        "utility_sensitivity",
        "notion",
        "centred",
    }
)
#: Budget keywords: set from the ``Budget`` by :meth:`EstimatorSpec.run`, never by a caller.
BUDGET_KEYWORDS = frozenset({"epsilon", "rho", "delta", "budget"})
_NOT_KEYWORDS = BUDGET_KEYWORDS | {"x", "data", "rng", "self"}


def check_direct_call(func: Callable[..., Any], keywords: Mapping[str, Any]) -> None:
    """Hold a direct call of a registered estimator function to the registry's locks.

    ``keywords`` are the guarantee-defining keywords of the call with their values. The call is
    refused, with the registry's message (:meth:`EstimatorSpec.check_overrides`), unless a
    registered entry of ``func`` has them all; a function no entry registers is not checked. For
    an options record, the entries of its class that lock all of ``keywords`` are asked.

    Raises
    ------
    ValueError
        A value no registered entry of ``func`` has (it would void the declared guarantee).
    """
    for spec in (s for s in _REGISTRY.values() if s.func is func):  # its own entries first
        if spec.locked_keywords() >= set(keywords) and _accepts(spec, keywords):
            return  # a run with an entry's own locked values (every registered run) stops here
    refused: ValueError | None = None
    specs = [
        s
        for s in _REGISTRY.values()
        if s.func is func or (_same_kind(s.func, func) and set(keywords) <= s.locked_keywords())
    ]
    for spec in specs:
        try:
            spec.check_overrides({k: v for k, v in keywords.items() if k in spec.locked_keywords()})
            return
        except ValueError as err:
            refused = refused or err
    if refused is not None:
        raise refused


def _accepts(spec: EstimatorSpec, keywords: Mapping[str, Any]) -> bool:
    """Whether ``spec`` locks ``keywords`` at these values (:meth:`EstimatorSpec.check_overrides`)."""
    try:
        spec.check_overrides(dict(keywords))
    except ValueError:
        return False
    return True


def _same_kind(f: Callable[..., Any], g: Callable[..., Any]) -> bool:
    """One estimator function, or two options records of one class (two variants of a family)."""
    return f is g or (dataclasses.is_dataclass(f) and type(f) is type(g))


def _default_of(func: Callable[..., Any], key: str) -> Any:
    p = inspect.signature(func).parameters.get(key)
    return None if p is None or p.default is inspect.Parameter.empty else p.default


def _same(a: Any, b: Any) -> bool:
    """Equal values of one kind (``True`` is not ``1``; ``0`` is ``0.0``)."""
    if a is b:
        return True
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if not numbers and type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _check_budget(budget: Any) -> None:
    if not isinstance(budget, Budget):
        raise TypeError(
            f"budget must be a dpcore.privacy.Budget, not {type(budget).__name__} {budget!r}; "
            "pass Budget.pure(epsilon), Budget.zcdp(rho) or Budget.approx(epsilon, delta)."
        )


_REGISTRY: dict[str, EstimatorSpec] = {}


def register(spec: EstimatorSpec) -> EstimatorSpec:
    """Add ``spec`` to the registry: its name must be new, its ``order`` set and not taken by
    another registered entry, its ``label`` short, its ``cost`` declared (a ``ValueError`` naming
    the fix otherwise)."""
    if spec.name in _REGISTRY and _REGISTRY[spec.name].func is not spec.func:
        raise ValueError(f"an estimator named {spec.name!r} is already registered.")
    if spec.order is None:
        raise ValueError(f"{spec.name}: a registered estimator needs order= (its place in lists).")
    if spec.cost is None:
        raise ValueError(
            f"{spec.name}: a registered estimator needs cost=Cost(per_value_us, overhead_ms), its "
            "entry in the run-time model (measure it with benchmarks/cost_model.py); declare it on "
            "the spec or on its family's defaults."
        )
    if len(spec.label) > LABEL_MAX:
        raise ValueError(
            f"{spec.name}: label {spec.label!r} has {len(spec.label)} characters; keep it to "
            f"{LABEL_MAX} and put the rest in detail=."
        )
    taken = [s.name for s in _REGISTRY.values() if s.order == spec.order and s.name != spec.name]
    if taken:
        raise ValueError(
            f"{spec.name}: order={spec.order} is already {taken[0]!r}'s; choose a free number."
        )
    _REGISTRY[spec.name] = spec
    return spec
