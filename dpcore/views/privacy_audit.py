"""The Privacy audit page's view: an estimator's black-box audit on worst-case neighbouring data
sets, its native claim, the stage audits and the white-box calibration check.

The audit builds its own tiny data sets (the sidebar's data settings do not apply); its draws come
from the stream ``"audit"`` of the sidebar's seed. The calibration check runs once on a public
data set at its own fixed seed (:func:`dpcore.audit.calibration`).

References: ``docs/architecture.md`` (Data flow); the audit's method is in
:mod:`dpcore.audit.estimate_loss`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import pandas as pd

from dpcore import registry
from dpcore.audit import (
    VARIANT_LABELS,
    AuditResult,
    audit,
    calibration,
    likelihood_ratio,
    pairs_for,
    variants_for,
)
from dpcore.audit.explain import calibration_lines, calibration_verdict, claim_lines, parts_table
from dpcore.audit.low_bits import LowBitLesson, lesson, lesson_sentences
from dpcore.audit.neighbours import audit_dimension, is_binary
from dpcore.experiments.plain import PlainWords, audit_words
from dpcore.figures.audit import clearly_outside
from dpcore.figures.risk import audit_points
from dpcore.privacy import Budget
from dpcore.streams import Streams
from dpcore.views._snippet import view_call
from dpcore.views.settings import DataSettings
from dpcore.views.tables import sig3

__all__ = [
    "CONFIDENCES",
    "DRAWS",
    "GRID_LABELS",
    "VARIANT_LABELS",
    "AuditOptions",
    "AuditSettings",
    "AuditView",
    "LessonSettings",
    "LessonView",
    "lesson_view",
    "options",
    "private_estimators",
    "view",
]

#: the draws per data set the page offers, and its confidence levels
DRAWS = (500, 1000, 2000, 5000)
CONFIDENCES = (0.9, 0.95, 0.99)
GRID_LABELS = {
    "quick": "one cell (smallest n, d = 1)",
    "small": "n up to 20, d = 1 and 4",
    "default": "the full grid: n up to 200, d up to 16, two boxes",
}


def private_estimators() -> dict[str, str]:
    """Every registered estimator with a privacy claim: name -> label, in registry order."""
    return {s.name: s.label for s in registry.all_estimators() if s.notion != "none"}


@dataclass(frozen=True)
class AuditOptions:
    """The choices the page offers for one estimator."""

    neighbouring: str
    pair_labels: dict[str, str]
    variants: tuple[str, ...]


def options(name: str) -> AuditOptions:
    """The neighbouring pairs (``"worst"`` first: the audit picks) and the broken variants of
    estimator ``name``."""
    spec = registry.get(name)
    pairs = pairs_for(spec.neighbouring, n=2, d=audit_dimension(spec), outside=not is_binary(spec))
    labels = {"worst": "let the audit pick the worst pair"}
    for p in pairs:
        head = p.label.replace("2 rows", "n rows").split(" in d = ")[0]
        labels[p.key] = head + ", " + p.label.split("; ", 1)[1]
    return AuditOptions(spec.neighbouring, labels, tuple(variants_for(name)))


@dataclass(frozen=True)
class AuditSettings:
    """The sidebar's budget and seed (``data``) and the page's controls."""

    data: DataSettings = field(default_factory=DataSettings)
    estimator: str = "clipped_laplace"
    pair: str = "worst"
    draws: int = 2000
    confidence: float = 0.95
    grid: str = "small"
    variant: str = "honest"

    def code(self) -> str:
        """The notebook lines that rebuild this view as ``v`` (``r = v.result``)."""
        return view_call(self) + "r = v.result\nprint(r.summary())\n"


@dataclass(frozen=True)
class AuditView:
    """Everything the page shows."""

    settings: AuditSettings
    budget: Budget
    result: AuditResult
    claim: str
    conversion: str
    measure: str
    words: PlainWords
    parts: pd.DataFrame | None
    calibration: tuple[str, ...]
    verdict: str
    distributions_sentence: str
    ratio_sentence: str | None
    points: pd.DataFrame | None
    tradeoff_sentence: str | None
    summary: pd.DataFrame


def _ratio_sentence(r: AuditResult) -> str:
    bins = pd.DataFrame(likelihood_ratio(r.t_d, r.t_d_prime))  # the ratio figure's bins
    outside = int(clearly_outside(bins, r.claim.epsilon).sum())
    return (
        "Each dot is the log ratio of the two histograms in one bin: the claim allows it inside "
        f"the green band of width ±{r.claim.epsilon:.3g}"
        + (f" (up to δ = {r.claim.delta:g} of probability)" if r.claim.delta else "")
        + f". {outside} bins land outside it by more than two standard errors; single bins are "
        "noisy, so the verdict comes from the audited bound, not from the dots."
    )


def _tradeoff_sentence(r: AuditResult, points: pd.DataFrame) -> str:
    event = points.iloc[0]
    top = r.event.numerator
    bottom = "D′" if top == "D" else "D"
    return (
        f"Every test of D against D′ has error rates on or above the curve μ = "
        f"{r.claim.value:.3g} allows (up to sampling noise). Saying “{top}” when the audit's event "
        f"happens is wrong on **{event.alpha:.1%}** of the releases from {bottom} (false "
        f"positives) and misses **{event.beta:.1%}** of those from {top} (false negatives); the "
        "other dots are the same test at other thresholds."
    )


@functools.lru_cache(maxsize=64)
def _calibration(name: str, budget: Budget) -> tuple[tuple[str, ...], str]:
    """The calibration check's lines and verdict: one run on a public data set at its own fixed
    seed (:func:`dpcore.audit.calibration`), so a function of the estimator and the budget alone,
    kept per process for every seed."""
    cal = calibration(name, budget)
    return tuple(calibration_lines(cal)), calibration_verdict(cal)


def view(s: AuditSettings) -> AuditView:
    """Audit ``s.estimator`` at the sidebar's budget; a ``ValueError`` names the fix."""
    budget = s.data.budget
    r = audit(
        s.estimator,
        budget,
        variant=s.variant,
        draws=int(s.draws),
        confidence=float(s.confidence),
        pair_keys=None if s.pair == "worst" else [s.pair],
        grid=s.grid,
        calibrate=False,
        rng=s.data.streams.seq("audit"),
    )
    cal_lines, cal_verdict = _calibration(s.estimator, budget)
    first, second = claim_lines(registry.get(s.estimator), budget, r)
    hits_d, hits_dp = r.hits if r.event.numerator == "D" else r.hits[::-1]
    mu = r.claim.measure
    points = audit_points(r) if mu != "ε" else None
    return AuditView(
        settings=s,
        budget=budget,
        result=r,
        claim=first,
        conversion=second,
        measure=mu,
        words=audit_words(r, budget, delta=s.data.delta),
        parts=parts_table(r) if len(r.parts) > 1 else None,
        calibration=cal_lines,
        verdict=cal_verdict,
        distributions_sentence=f"Over {r.draws:,} fresh runs on each data set, the event "
        f"**T {r.event.op} {r.event.threshold:.3g}** (T = {r.event.statistic} of the release) "
        f"happened **{hits_d}** times on D and **{hits_dp}** times on D′: with "
        f"{s.confidence:.0%} confidence the privacy loss is **at least {mu} = {r.lower:.3f}**, "
        f"against a claim of **{r.claim.value:.3f}**.",
        ratio_sentence=_ratio_sentence(r) if mu == "ε" else None,
        points=points,
        tradeoff_sentence=None if points is None else _tradeoff_sentence(r, points),
        summary=pd.DataFrame({"value": {k: sig3(v) for k, v in r.summary().items()}}),
    )


@dataclass(frozen=True)
class LessonSettings:
    """The floating-point lesson's controls: the sidebar's seed and the releases per data set."""

    seed: int = 0
    draws: int = 2000

    def code(self) -> str:
        """The notebook lines that rebuild this view as ``lv`` (``out = lv.lesson``)."""
        return view_call(self, name="lv", function="lesson_view") + "out = lv.lesson\n"


@dataclass(frozen=True)
class LessonView:
    """The low-bit event's counts per sampler, and one sentence per sampler."""

    settings: LessonSettings
    lesson: LowBitLesson
    words: dict[str, str]


def lesson_view(s: LessonSettings) -> LessonView:
    """The low bits of ``s.draws`` releases on D and D′: NumPy's side from the stream
    ``"sample:float_lesson"`` of the seed, the safe sampler's from the OS CSPRNG (no seed)."""
    out = lesson(int(s.draws), seed=Streams(int(s.seed)).seq("sample:float_lesson"))
    return LessonView(s, out, lesson_sentences(out))
