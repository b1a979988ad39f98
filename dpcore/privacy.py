"""Privacy budgets, conversions between privacy notions, and the privacy ledger.

Three notions appear in the papers this project implements:

* pure ``epsilon``-DP (Laplace, exponential mechanism, AboveThreshold);
* approximate ``(epsilon, delta)``-DP (what most practitioners quote);
* ``rho``-zero-concentrated DP (zCDP; Gaussian mechanism; PLAN and IOME).

Conversions used (each records a one-line statement of what was applied, shown in the app):

* ``epsilon``-DP  ⇒  ``epsilon**2 / 2``-zCDP (Bun & Steinke 2016, Prop. 1.4).
* ``rho``-zCDP  ⇒  ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP (Bun & Steinke 2016, Prop. 1.3;
  PLAN paper Lemma 2.3, docs/estimators/plan.md §1), or the tighter Canonne–Kamath–Steinke bound
  (CKS 2020, Cor. 13): ``epsilon = inf_{a>1} a rho + (ln(1/delta) + (a-1) ln(1-1/a) - ln a)/(a-1)``.
* ``(epsilon, delta)`` ⇒ ``rho``: the largest ``rho`` whose conversion gives at most ``epsilon`` at
  this ``delta`` (closed form for the standard bound, root finding for CKS).

References
----------
Bun, M. and Steinke, T. "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
Bounds." TCC 2016.
Canonne, C., Kamath, G. and Steinke, T. "The Discrete Gaussian for Differential Privacy." NeurIPS 2020.
docs/estimators/plan.md §1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy import optimize

from dpcore import limits

Notion = Literal["pure", "approx", "zcdp"]
NativeNotion = Literal["pure", "zcdp", "none"]
#: The app's budget units: pure ε, (ε, δ) and ρ (:meth:`Budget.from_unit`, :attr:`Budget.unit`).
BudgetUnit = Literal["eps", "eps_delta", "rho"]
ConversionMethod = Literal["cks", "standard"]

_UNIT = {"pure": "ε", "approx": "(ε, δ)", "zcdp": "ρ", "none": "-"}


def _as_real(value: object, name: str, what: str) -> float:
    """``value`` as a float; a bool or a string is an error (``True`` is not a budget of 1)."""
    if isinstance(value, bool | np.bool_ | str | bytes):
        raise ValueError(
            f"{name} must be a number ({what}), not {type(value).__name__} {value!r}; "
            f"pass e.g. {name}=0.5."
        )
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a number ({what}); got {value!r}.") from err


def _check_eps(epsilon: float | None, name: str = "epsilon") -> float:
    """A positive, finite ``epsilon`` or ``rho`` inside the ranges of :mod:`dpcore.limits`."""
    e = _as_real(epsilon, name, "a positive privacy budget")
    top = limits.MAX_RHO if name.startswith("rho") else limits.MAX_EPSILON
    if not math.isfinite(e) or e <= 0:
        raise ValueError(
            f"{name} must be a positive finite number (a budget of 0 releases nothing); got {e:g}."
        )
    if not limits.MIN_BUDGET <= e <= top:
        raise ValueError(
            f"{name} must be between {limits.MIN_BUDGET:g} and {top:g} (dpcore.limits: beyond "
            f"these the conversions overflow and no release is meaningful); got {e:g}."
        )
    return e


def _check_delta(delta: float | None) -> float:
    dl = _as_real(delta, "delta", "in (0, 1)")
    if not (0 < dl < 1):
        raise ValueError(
            f"delta must be strictly between 0 and 1 (typically below 1/n); got {delta!r}."
        )
    if dl < limits.MIN_DELTA:
        raise ValueError(
            f"delta must be at least {limits.MIN_DELTA:g} (dpcore.limits: smaller values "
            f"are below double precision in the conversions); got {delta!r}."
        )
    return dl


# --------------------------------------------------------------------------------------------
# conversions


def pure_to_zcdp(epsilon: float) -> float:
    """``epsilon``-DP implies ``epsilon**2 / 2``-zCDP (Bun & Steinke 2016, Prop. 1.4)."""
    e = _check_eps(epsilon)
    return e * e / 2.0


def zcdp_to_approx(rho: float, delta: float, method: ConversionMethod = "cks") -> float:
    """Return the ``epsilon`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    Parameters
    ----------
    rho : float
        zCDP parameter, > 0.
    delta : float
        Target delta in (0, 1).
    method : {"cks", "standard"}
        ``"standard"``: ``rho + 2 sqrt(rho ln(1/delta))`` (Lemma 2.3 of the PLAN paper).
        ``"cks"``: the tighter Canonne–Kamath–Steinke (2020, Cor. 13) bound, minimised over the
        Rényi order numerically. Never larger than the standard bound.

    Examples
    --------
    >>> round(zcdp_to_approx(0.01, 1e-6, method="standard"), 4)
    0.7534
    """
    r = _check_eps(rho, "rho")
    dl = _check_delta(delta)
    if method not in ("cks", "standard"):
        raise ValueError(f"method must be 'cks' or 'standard'; got {method!r}.")
    return _zcdp_eps(r, math.log(1.0 / dl), method)


def _zcdp_eps(r: float, log_inv: float, method: ConversionMethod) -> float:
    """:func:`zcdp_to_approx` on checked values (``r`` may lie below the input range here)."""
    standard = r + 2.0 * math.sqrt(r * log_inv)
    if method == "standard":
        return standard

    def eps_at(log_a_minus_1: float) -> float:
        a = 1.0 + math.exp(log_a_minus_1)
        return a * r + (log_inv + (a - 1.0) * math.log1p(-1.0 / a) - math.log(a)) / (a - 1.0)

    # The objective is convex in a; search over log(a - 1) on a wide bracket.
    res = optimize.minimize_scalar(
        eps_at, bounds=(-20.0, 20.0), method="bounded", options={"xatol": 1e-10}
    )
    return float(min(max(res.fun, 0.0), standard))


def approx_to_zcdp(epsilon: float, delta: float, method: ConversionMethod = "cks") -> float:
    """Return the largest ``rho`` such that ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    The inverse of :func:`zcdp_to_approx`: closed form for ``"standard"``
    (``rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))**2``), root finding for ``"cks"``.
    """
    e = _check_eps(epsilon)
    dl = _check_delta(delta)
    log_inv = math.log(1.0 / dl)
    standard = (e / (math.sqrt(log_inv + e) + math.sqrt(log_inv))) ** 2  # no cancellation at tiny e
    if method == "standard":
        return standard
    if method != "cks":
        raise ValueError(f"method must be 'cks' or 'standard'; got {method!r}.")
    # eps(rho) is increasing in rho; the CKS rho is at least the standard one.
    lo = standard
    hi = standard * 2.0
    while _zcdp_eps(hi, log_inv, "cks") < e:
        hi *= 2.0
    # a relative tolerance: an absolute one would swamp the tiny rho of a tiny epsilon
    r = float(
        optimize.brentq(
            lambda r: _zcdp_eps(r, log_inv, "cks") - e, lo, hi, xtol=lo * 1e-13, rtol=1e-12
        )
    )
    # The numerical minimum over the Renyi order jitters at ~1e-8 relative, so the root can land a
    # hair above the target: step down until the conversion meets epsilon (never below standard).
    while r > lo and _zcdp_eps(r, log_inv, "cks") > e:
        r = max(lo, r * (1.0 - 1e-7))
    return r


# --------------------------------------------------------------------------------------------
# budgets


@dataclass(frozen=True)
class Conversion:
    """A budget expressed in an estimator's native notion, with the rule that produced it.

    ``meets_budget`` is ``True`` when an estimator run at ``value`` satisfies the user's budget by a
    valid implication. It is ``False`` only for :meth:`Budget.implied_zcdp` on a pure budget: the
    zCDP level that ε-DP *implies* is a weaker guarantee than ε-DP, and ``guarantee`` then states
    the (ε', δ)-DP the estimator does give. Callers must never rank such a run with ones that meet
    the budget.
    """

    value: float
    notion: NativeNotion
    rule: str
    meets_budget: bool = True
    guarantee: str = ""

    @property
    def kwargs(self) -> dict[str, float]:
        """Keyword arguments for the estimator (``{"epsilon": v}`` or ``{"rho": v}``)."""
        if self.notion == "pure":
            return {"epsilon": self.value}
        if self.notion == "zcdp":
            return {"rho": self.value}
        return {}


_UNIT_OF_NOTION: dict[str, BudgetUnit] = {"pure": "eps", "approx": "eps_delta", "zcdp": "rho"}


@dataclass(frozen=True)
class Budget:
    """A privacy budget in one of three notions.

    Build it with :meth:`pure`, :meth:`approx` or :meth:`zcdp` (or :meth:`from_unit`).

    Examples
    --------
    >>> Budget.zcdp(0.5).to_native("zcdp").value
    0.5
    >>> Budget.pure(1.0).meets("zcdp")
    False
    >>> c = Budget.pure(1.0).implied_zcdp()
    >>> c.value, c.meets_budget
    (0.5, False)
    """

    notion: Notion
    epsilon: float | None = None
    delta: float | None = None
    rho: float | None = None

    def __post_init__(self) -> None:
        if self.notion == "pure":
            object.__setattr__(self, "epsilon", _check_eps(self.epsilon))
            if self.delta not in (None, 0, 0.0):
                raise ValueError(
                    "A pure-DP budget has delta = 0; use Budget.approx(epsilon, delta)."
                )
            object.__setattr__(self, "delta", None)
        elif self.notion == "approx":
            object.__setattr__(self, "epsilon", _check_eps(self.epsilon))
            object.__setattr__(self, "delta", _check_delta(self.delta))
        elif self.notion == "zcdp":
            object.__setattr__(self, "rho", _check_eps(self.rho, "rho"))
        else:
            raise ValueError(f"notion must be 'pure', 'approx' or 'zcdp'; got {self.notion!r}.")

    @classmethod
    def pure(cls, epsilon: float) -> Budget:
        """Pure ``epsilon``-DP."""
        return cls("pure", epsilon=epsilon)

    @classmethod
    def approx(cls, epsilon: float, delta: float) -> Budget:
        """Approximate ``(epsilon, delta)``-DP."""
        return cls("approx", epsilon=epsilon, delta=delta)

    @classmethod
    def zcdp(cls, rho: float) -> Budget:
        """``rho``-zCDP."""
        return cls("zcdp", rho=rho)

    @classmethod
    def from_unit(cls, unit: str, value: float, delta: float | None = None) -> Budget:
        """Build from the app's unit names ``"eps"``, ``"eps_delta"`` or ``"rho"``."""
        if unit == "eps":
            return cls.pure(value)
        if unit == "eps_delta":
            return cls.approx(value, 1e-6 if delta is None else delta)
        if unit == "rho":
            return cls.zcdp(value)
        raise ValueError(f"unit must be 'eps', 'eps_delta' or 'rho'; got {unit!r}.")

    @property
    def unit(self) -> BudgetUnit:
        """The app's unit name of this budget (the inverse of :meth:`from_unit`).

        >>> Budget.approx(1.0, 1e-6).unit
        'eps_delta'
        """
        return _UNIT_OF_NOTION[self.notion]

    def _field(self, name: str) -> float:
        value = getattr(self, name)
        if value is None:
            raise ValueError(
                f"a {self.notion} budget ({self}) has no {name}; read it through "
                "to_native(...) or to_approx(...) instead."
            )
        return float(value)

    @property
    def epsilon_value(self) -> float:
        """``epsilon`` of a pure or approximate budget as a float (``ValueError`` for a ρ budget)."""
        return self._field("epsilon")

    @property
    def delta_value(self) -> float:
        """``delta`` of an approximate budget as a float (``ValueError`` for a pure or ρ budget)."""
        return self._field("delta")

    @property
    def rho_value(self) -> float:
        """``rho`` of a zCDP budget as a float (``ValueError`` for an ε or (ε, δ) budget)."""
        return self._field("rho")

    def __str__(self) -> str:
        if self.notion == "pure":
            return f"ε = {self.epsilon:g} (pure DP)"
        if self.notion == "approx":
            return f"(ε, δ) = ({self.epsilon:g}, {self.delta:g})"
        return f"ρ = {self.rho:g} (zCDP)"

    def meets(self, notion: NativeNotion) -> bool:
        """Whether an estimator native to ``notion`` can meet this budget by a valid implication.

        Everything meets every budget except a zCDP estimator under a pure ε budget: nothing turns
        ρ-zCDP into ε-DP (docs/architecture.md, "Budgets are comparable across notions only through a stated
        implication").
        """
        return not (self.notion == "pure" and notion == "zcdp")

    def to_native(self, notion: NativeNotion, method: ConversionMethod = "cks") -> Conversion:
        """Express this budget in an estimator's native notion.

        Rules (each is a valid implication, so the estimator run at the returned value satisfies
        the guarantee stated on the right):

        * to ``"zcdp"``: (ε, δ) ⇒ the largest ρ whose conversion gives (ε, δ) (``method``, CKS by
          default); ρ ⇒ ρ. A pure ε budget raises ``ValueError``: ε-DP implies ε²/2-zCDP, but no
          ρ-zCDP mechanism is ε-DP (the Gaussian mechanism is not ε-DP for any ε). Use
          :meth:`implied_zcdp` to run a zCDP estimator at the level ε-DP implies, labelled with
          the weaker guarantee it gives.
        * to ``"pure"``: ε ⇒ ε; (ε, δ) ⇒ ε (pure ε-DP implies (ε, δ)-DP); ρ ⇒ ε = sqrt(2ρ) (since
          ε-DP implies ε²/2 = ρ-zCDP).
        * to ``"none"``: the non-private reference; nothing is spent.

        Raises
        ------
        ValueError
            ``notion="zcdp"`` under a pure budget, or an unknown ``notion``.
        """
        if notion == "none":
            return Conversion(0.0, "none", "non-private reference: no privacy, nothing spent")
        if notion == "zcdp":
            if self.notion == "zcdp":
                return Conversion(self.rho_value, "zcdp", f"ρ = {self.rho:g} used as given")
            if self.notion == "pure":
                raise ValueError(
                    f"a pure ε = {self.epsilon:g} budget cannot be met by a zCDP estimator: ε-DP implies "
                    "ε²/2-zCDP, never the other way round. Choose a pure-DP estimator, give the budget as "
                    "(ε, δ) or ρ, or call Budget.implied_zcdp() to run it at the zCDP level ε-DP implies "
                    "(labelled: it does NOT give ε-DP)."
                )
            r = approx_to_zcdp(self.epsilon_value, self.delta_value, method)
            name = "Canonne–Kamath–Steinke" if method == "cks" else "ρ + 2√(ρ ln(1/δ))"
            return Conversion(
                r, "zcdp", f"(ε, δ) = ({self.epsilon:g}, {self.delta:g}) ⇒ ρ = {r:.4g} ({name})"
            )
        if notion == "pure":
            if self.notion == "pure":
                return Conversion(self.epsilon_value, "pure", f"ε = {self.epsilon:g} used as given")
            if self.notion == "approx":
                return Conversion(
                    self.epsilon_value,
                    "pure",
                    f"ε = {self.epsilon:g} pure DP (stronger than the ({self.epsilon:g}, {self.delta:g}) asked for)",
                )
            e = math.sqrt(2.0 * self.rho_value)
            return Conversion(
                e, "pure", f"ρ = {self.rho:g} ⇒ ε = √(2ρ) = {e:.4g} (ε-DP implies ε²/2-zCDP)"
            )
        raise ValueError(f"notion must be 'pure', 'zcdp' or 'none'; got {notion!r}.")

    def implied_zcdp(self, delta: float = 1e-6, method: ConversionMethod = "cks") -> Conversion:
        """The zCDP level this budget implies, for running a zCDP estimator *beside* (never ranked
        with) estimators that meet the budget.

        For a ρ or (ε, δ) budget this is :meth:`to_native` ``("zcdp")`` (it meets the budget). For a
        pure ε budget it is ρ = ε²/2, the zCDP level ε-DP implies (Bun–Steinke 2016, Prop. 1.4): an
        estimator run there is ρ-zCDP, hence (ε', ``delta``)-DP with ε' from :func:`zcdp_to_approx`,
        but it is **not** ε-DP. The returned conversion has ``meets_budget=False`` and states that
        in ``rule`` and ``guarantee``.

        References
        ----------
        Bun & Steinke (2016), Prop. 1.3 and 1.4; Canonne, Kamath & Steinke (2020), Cor. 13.
        docs/architecture.md, "Budgets are comparable across notions only through a stated implication".
        """
        if self.notion != "pure":
            return self.to_native("zcdp", method)
        r = pure_to_zcdp(self.epsilon_value)
        eps_dp = zcdp_to_approx(r, delta, method)
        guarantee = f"ρ = {r:.4g}-zCDP ⇒ ({eps_dp:.3g}, {delta:g})-DP; NOT ε = {self.epsilon:g}-DP"
        return Conversion(
            r,
            "zcdp",
            f"ε = {self.epsilon:g} ⇒ run at ρ = ε²/2 = {r:.4g}, the zCDP level ε-DP "
            f"implies. This does NOT meet the ε-DP budget: it gives {guarantee.split(';')[0]}.",
            meets_budget=False,
            guarantee=guarantee,
        )

    def to_approx(
        self, delta: float = 1e-6, method: ConversionMethod = "cks"
    ) -> tuple[float, float]:
        """Return ``(epsilon, delta)`` implied by this budget."""
        if self.notion == "approx":
            return self.epsilon_value, self.delta_value
        if self.notion == "pure":
            return self.epsilon_value, 0.0
        return zcdp_to_approx(self.rho_value, delta, method), float(_check_delta(delta))


# --------------------------------------------------------------------------------------------
# ledger


@dataclass(frozen=True)
class Charge:
    """One mechanism call's spend, in the estimator's native unit.

    Written by :mod:`dpcore.mechanisms` only (the mechanism that drew the noise records what it
    drew): ``mechanism`` names it, ``sensitivity`` and ``scale`` are the values it used (the largest
    per-coordinate value where they vary), and ``ratio`` is the noise drawn over the noise that
    ``amount`` requires (1 for a correctly calibrated draw; :func:`dpcore.audit.calibration`).
    """

    stage: str
    amount: float
    notion: NativeNotion
    note: str = ""
    mechanism: str = ""
    sensitivity: float | None = None
    scale: float | None = None
    ratio: float | None = None


@dataclass
class Ledger:
    """The privacy spend of one estimate, stage by stage.

    Both pure DP and zCDP compose additively (basic composition; Bun–Steinke Lemma 2.3 for zCDP),
    so :meth:`total` is the sum of the charges. A ledger holds one notion only.
    """

    notion: NativeNotion
    charges: list[Charge] = field(default_factory=list)

    def charge(self, stage: str, amount: float, note: str = "", **drawn: Any) -> float:
        """Record ``amount`` spent by ``stage`` and return it.

        Only :mod:`dpcore.mechanisms` calls this (with ``drawn``: the mechanism, its sensitivity,
        scale and calibration ratio); estimators open a :func:`dpcore.mechanisms.stage` and let the
        mechanism that draws the noise write the line (tests/core/test_mechanisms.py checks the source).
        """
        a = float(amount)
        if not math.isfinite(a) or a < 0:
            raise ValueError(
                f"a ledger charge must be finite and >= 0; got {amount!r} for {stage!r}."
            )
        self.charges.append(Charge(stage, a, self.notion, note, **drawn))
        return a

    def absorb(self, other: Ledger) -> None:
        """Append ``other``'s charges (an inner estimator's ledger, same notion) as they are."""
        if other.notion != self.notion:
            raise ValueError(
                f"cannot absorb a {other.notion} ledger into a {self.notion} ledger; convert first."
            )
        self.charges.extend(other.charges)

    def total(self) -> float:
        """Total spend by (additive) composition."""
        return float(math.fsum(c.amount for c in self.charges))

    def by_stage(self) -> dict[str, float]:
        """Spend summed per stage name, in order of first appearance."""
        out: dict[str, float] = {}
        for c in self.charges:
            out[c.stage] = out.get(c.stage, 0.0) + c.amount
        return out

    def unit(self) -> str:
        return _UNIT[self.notion]

    def to_records(self) -> list[dict[str, object]]:
        """Rows for a table or a DataFrame."""
        return [
            {"stage": c.stage, "spent": c.amount, "unit": _UNIT[c.notion], "note": c.note}
            for c in self.charges
        ]


def split_budget(total: float, fractions: Mapping[str, float]) -> dict[str, float]:
    """Split ``total`` into parts by ``fractions``, the parts summing to ``total`` exactly.

    Each part is ``total * fraction`` rounded to a multiple of ``q = math.ulp(total)``, except the
    last one with a positive fraction, which takes the remainder ``total - fsum(others)``. Every
    part is then a multiple of ``q`` below ``total``, so each sum is exact and
    ``math.fsum(parts.values()) == total`` (the sum :meth:`Ledger.total` takes) holds always, not
    just to within an ulp: every other part moves by at most ``q / 2`` from ``total * fraction``,
    the last by their roundings together and the fractions' own rounding (at most
    ``(k - 1) q / 2 + total |1 - sum(fractions)|`` for ``k`` parts: a few ``q``, which is a larger
    share of a small last part). A fraction of 0 gets ``0.0``. Every budget split of a multi-stage
    estimator (PLAN's four stages, IOME's centre, radius and noise) goes through here, so a ledger
    never sums to an ulp over its budget.

    Parameters
    ----------
    total : float
        The budget to split (finite, ``>= 0``).
    fractions : mapping of str to float
        The share of each part, in order: finite, ``>= 0``, summing to 1 (to within ``1e-9``).

    Returns
    -------
    dict
        The part of each key of ``fractions``, in the same order; ``math.fsum`` of the values is
        ``total`` exactly.

    Privacy
    -------
    Public values only (the total budget and the public shares).

    Examples
    --------
    >>> parts = split_budget(0.3, {"center": 0.0625, "variance": 0.1875, "radius": 0.1875,
    ...                            "noise": 0.5625})
    >>> math.fsum(parts.values()) == 0.3
    True
    >>> split_budget(1.0, {"a": 0.25, "b": 0.0, "c": 0.75})
    {'a': 0.25, 'b': 0.0, 'c': 0.75}
    """
    t = float(total)
    fr = np.array(list(fractions.values()), dtype=float)
    if not math.isfinite(t) or t < 0:
        raise ValueError(f"the budget to split must be a finite number >= 0; got {total!r}.")
    if (
        fr.size == 0
        or np.any(~np.isfinite(fr))
        or np.any(fr < 0)
        or not math.isclose(float(fr.sum()), 1.0, rel_tol=1e-9)
    ):
        raise ValueError(f"budget fractions must be >= 0 and sum to 1; got {dict(fractions)}.")
    q = math.ulp(t)
    out = {k: round(t * float(v) / q) * q if v > 0 else 0.0 for k, v in fractions.items()}
    last = [k for k, v in fractions.items() if v > 0][-1]
    out[last] = 0.0
    out[last] = t - math.fsum(out.values())  # exact: every term is a multiple of q below t
    if out[last] < 0:
        raise ValueError(f"budget fractions must be >= 0 and sum to 1; got {dict(fractions)}.")
    return out
