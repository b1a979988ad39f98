"""The guarantee of one release or of several together, and what it means as odds.

One object, :class:`Guarantee`, is printed by a release's certificate, charged by the odometer
(:mod:`dpcore.odometer`) and read by the plain-language box, so the three cannot disagree. It holds
the pure ε (``inf`` when the release is not ε-DP for any ε, as a zCDP release is not) and the ρ of
zCDP it also gives (a pure ε release gives ε²/2). Releases compose by adding both (basic
composition of pure DP; Bun–Steinke Lemma 2.3 for zCDP). As odds: a pure guarantee is read at its
ε with δ = 0; otherwise ρ is read as (ε, δ)-DP at the δ shown (Canonne–Kamath–Steinke).

References
----------
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016 (Prop. 1.4, Lemma 2.3).
Canonne, Kamath and Steinke. "The Discrete Gaussian for Differential Privacy." NeurIPS 2020.
docs/release.md (the certificate, the odometer and the box read one guarantee).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dpcore.privacy import Budget, zcdp_to_approx

__all__ = ["Guarantee"]


@dataclass(frozen=True)
class Guarantee:
    """A differential-privacy guarantee: pure ``epsilon`` (``inf``: none) and ``rho``-zCDP.

    Examples
    --------
    >>> g = Guarantee.pure(1.0).compose(Guarantee.pure(1.0))
    >>> g.notion, g.epsilon, g.rho, round(g.odds_factor(1e-6), 3)
    ('pure', 2.0, 1.0, 7.389)
    >>> z = Guarantee.pure(1.0).compose(Guarantee.zcdp(0.5))
    >>> z.notion, z.rho
    ('zcdp', 1.0)
    """

    epsilon: float
    rho: float

    @classmethod
    def pure(cls, epsilon: float) -> Guarantee:
        """ε-DP, which also gives ε²/2-zCDP."""
        e = float(epsilon)
        return cls(e, e * e / 2.0)

    @classmethod
    def zcdp(cls, rho: float) -> Guarantee:
        """ρ-zCDP only (no pure ε)."""
        return cls(math.inf, float(rho))

    @classmethod
    def of_notion(cls, notion: str, amount: float) -> Guarantee:
        """``Guarantee.pure(amount)`` for ``"pure"``, ``Guarantee.zcdp(amount)`` for ``"zcdp"``."""
        if notion == "pure":
            return cls.pure(amount)
        if notion == "zcdp":
            return cls.zcdp(amount)
        raise ValueError(f"a guarantee is 'pure' or 'zcdp'; got {notion!r}.")

    @classmethod
    def none(cls) -> Guarantee:
        """Nothing released yet."""
        return cls(0.0, 0.0)

    @classmethod
    def from_certificate(cls, cert: dict[str, Any]) -> Guarantee:
        """The guarantee a certificate's ``"guarantee"`` section states."""
        g = cert["guarantee"]
        return cls.pure(g["epsilon"]) if "epsilon" in g else cls.zcdp(g["rho"])

    @property
    def notion(self) -> str:
        """``"pure"`` when ε is finite, else ``"zcdp"``."""
        return "pure" if math.isfinite(self.epsilon) else "zcdp"

    @property
    def budget(self) -> Budget:
        """As a budget in its notion."""
        return Budget.pure(self.epsilon) if self.notion == "pure" else Budget.zcdp(self.rho)

    def compose(self, *others: Guarantee) -> Guarantee:
        """All of them together: the ε's add and the ρ's add."""
        return Guarantee.total((self, *others))

    @staticmethod
    def total(guarantees: Iterable[Guarantee]) -> Guarantee:
        """The composition of ``guarantees`` (:meth:`none` for none)."""
        gs = list(guarantees)
        return Guarantee(
            math.fsum(g.epsilon for g in gs) if gs else 0.0, math.fsum(g.rho for g in gs)
        )

    def amount(self, notion: str) -> float:
        """What it costs an odometer counting in ``notion`` (``ValueError``: it cannot count it)."""
        if notion == "zcdp":
            return self.rho
        if notion == "pure" and self.notion == "pure":
            return self.epsilon
        raise ValueError(
            f"a ρ = {self.rho:.4g}-zCDP release is not ε-DP for any ε, so a pure ε budget cannot "
            "count it; choose a pure-DP estimator, or keep this data's budget in ρ."
        )

    def at(self, delta: float) -> tuple[float, float]:
        """``(ε, δ)``: ``(ε, 0)`` when pure, else ρ read at ``delta`` (Canonne–Kamath–Steinke)."""
        if self.notion == "pure":
            return self.epsilon, 0.0
        if self.rho == 0.0:
            return 0.0, 0.0
        return zcdp_to_approx(self.rho, delta, "cks"), float(delta)

    def odds_factor(self, delta: float) -> float:
        """``e^ε`` at ``delta``: the most an attacker's odds about one person can grow."""
        e = self.at(delta)[0]
        return math.exp(e) if e < 700 else math.inf

    def numbers(self, delta: float) -> dict[str, Any]:
        """The certificate's numbers: notion, ε or ρ, the (ε, δ) implied, and the odds factor."""
        if self.notion == "pure":
            return {
                "notion": "pure ε-DP",
                "epsilon": self.epsilon,
                "odds_factor": self.odds_factor(delta),
            }
        eps, d = self.at(delta)
        return {
            "notion": "ρ-zCDP",
            "rho": self.rho,
            "implies_epsilon": eps,
            "at_delta": d,
            "odds_factor": self.odds_factor(delta),
        }

    def words(self, relation_words: str, delta: float) -> str:
        """The guarantee in one sentence."""
        if self.notion == "pure":
            return (
                f"ε-differential privacy with ε = {self.epsilon:.4g}: {relation_words} changes the "
                f"probability of any released result by at most a factor e^ε ≈ "
                f"{self.odds_factor(delta):.3g}"
            )
        eps, d = self.at(delta)
        return (
            f"ρ-zero-concentrated differential privacy with ρ = {self.rho:.4g} (which implies "
            f"(ε = {eps:.3g}, δ = {d:g})-differential privacy) against {relation_words}"
        )
