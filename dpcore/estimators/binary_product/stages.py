"""The stages of the binary product pipeline (docs/estimators/binary-product.md §2.4): the public
radii, the truncated mean, the row split, and the flip, partition, heavy and final stages on their
disjoint row blocks. :func:`dpcore.estimators.binary_product.run_pde` composes them; the privacy
argument is in that package's docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import sparse

from dpcore import mechanisms
from dpcore._validation import check_probability
from dpcore.estimate import (
    Diagnostics,
)
from dpcore.estimators.binary_product.kernels import permuted_rows
from dpcore.privacy import Ledger

Bound = Literal["chernoff", "paper"]
Noise = Literal["laplace", "gaussian"]

#: Label shown wherever the heavy stage is drawn: it is not the paper's subroutine.
HEAVY_SUBSTITUTE_LABEL = (
    "joint Laplace (substitute for the paper's DPSGLearner of HKMN22, "
    "which has no practical implementation; costs up to a √K factor)"
)


# --------------------------------------------------------------------------------------------
# input and public radii


def chernoff_radius(mu: float, log_inv: float) -> float:
    """``chern(μ, L) = μ + (L + sqrt(L² + 8μL))/2``: a sum of independent Bernoullis with total mean
    at most ``μ`` exceeds it with probability at most ``e^{-L}`` (multiplicative Chernoff bound,
    paper Lemma 2.6, solved exactly; spec §2.4)."""
    return float(mu + 0.5 * (log_inv + math.sqrt(log_inv**2 + 8.0 * mu * log_inv)))


def partition_radius(
    u: float, size: int, m: int, R: int, beta: float, bound: Bound = "chernoff"
) -> float:
    """Clip radius ``B_r`` of a partition round, from public values only (spec §2.4 step 2).

    ``bound="paper"`` is the paper's ``3 u|S| ln(mR/β)``."""
    mu, L = u * size, math.log(m * R / beta)
    return 3.0 * mu * L if bound == "paper" else chernoff_radius(mu, L)


def final_radius(
    u_final: float, size: int, m1: int, beta: float, bound: Bound = "chernoff"
) -> float:
    """Clip radius ``B_F`` of the final round (spec §2.4 step 5); ``bound="paper"`` is ``4 ln(m1/β)``."""
    L = math.log(m1 / beta)
    return 4.0 * L if bound == "paper" else chernoff_radius(u_final * size, L)


def heavy_radius(bucket_sizes: Any, bucket_us: Any, m0: int, beta: float) -> float:
    """Bernstein clip radius ``B_Z`` of the rescaled heavy rows (spec §2.4 step 3).

    With weights ``w = 1/√u_i``: ``E Σ w_j x_j <= μ_Z = Σ_i |T_i| √u_i``, variance <= K, each term
    <= M = max w; ``B_Z = μ_Z + M L/3 + sqrt((M L/3)² + 2 K L)`` with ``L = ln(m0/β)``."""
    sizes = np.asarray(bucket_sizes, float)
    us = np.asarray(bucket_us, float)
    K, M, L = float(sizes.sum()), float(np.max(1.0 / np.sqrt(us))), math.log(m0 / beta)
    mu = float(np.sum(sizes * np.sqrt(us)))
    return mu + M * L / 3.0 + math.sqrt((M * L / 3.0) ** 2 + 2.0 * K * L)


def heavy_l2_radius(K: int, m0: int, beta: float) -> float:
    """ℓ2 clip radius of the rescaled heavy rows for the zCDP variant: ``sqrt(chern(K, ln(m0/β)))``,
    since ``E Σ_j x_j/u_j <= K`` (spec §3 B3)."""
    return math.sqrt(chernoff_radius(float(K), math.log(m0 / beta)))


def tmean_l1_sensitivity(radius: float, k: int, m: int) -> float:
    """ℓ1 substitution sensitivity of the ℓ1-truncated mean of ``m`` binary rows over ``k`` columns:
    ``min(2B, k)/m`` (spec §2.1, corrected from the paper's ``B/m``)."""
    return min(2.0 * radius, float(k)) / m


def tmean_l2_sensitivity(radius: float, k: int, m: int) -> float:
    """ℓ2 substitution sensitivity of the same truncated mean: ``sqrt(2 min(B, k))/m`` (truncated
    rows are non-negative with squared norm <= ℓ1 norm <= min(B, k); spec §3 B3)."""
    return math.sqrt(2.0 * min(radius, float(k))) / m


def truncate_rows(rows: np.ndarray, radius: float) -> np.ndarray:
    """``trunc_B`` applied to each row of a dense array: scale rows with ℓ1 norm above ``radius``
    onto the ℓ1 ball (spec §2.1). Used by tests and teaching; the estimator works on sparse data."""
    r = np.asarray(rows, float)
    w = np.abs(r).sum(axis=-1, keepdims=True)
    return r * np.where(w > radius, radius / np.maximum(w, 1e-300), 1.0)


# --------------------------------------------------------------------------------------------
# the truncated mean on (possibly flipped, possibly sparse) binary rows


def _clipped_mean(
    block: Any,
    coef: np.ndarray,
    radius: float,
    sign: np.ndarray,
    flip: np.ndarray,
    norm: Literal["l1", "l2"] = "l1",
) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the rows ``coef * x'`` clipped to the ``norm`` ball of ``radius``, where ``x'`` is
    the row with the bits in ``flip`` inverted. Returns the mean (length d; zero where coef is 0)
    and the mask of clipped rows. Works on dense arrays and CSR matrices without densifying."""
    m = block.shape[0]
    c = coef if norm == "l1" else coef**2  # binary entries: ℓ2² = Σ coef² x'
    weights = np.asarray(block @ (c * sign)).ravel() + float(c @ flip)
    norms = weights if norm == "l1" else np.sqrt(np.maximum(weights, 0.0))
    hit = norms > radius
    factor = np.where(hit, radius / np.maximum(norms, 1e-300), 1.0)
    colsum = sign * np.asarray(block.T @ factor).ravel() + flip * factor.sum()
    return coef * colsum / m, hit


@dataclass(kw_only=True)
class BinaryProductDiagnostics(Diagnostics):
    """PDE's specifics (Singhal's PureDPPDE practical variant; spec §2, §8).

    Attributes
    ----------
    group, group_label : arrays (d,)
        Each coordinate's group: r for heavy bucket T_r, 0 for the final (light) stage, and its label.
    flipped : bool array (d,)
        Coordinates flipped to ``1 - x`` by the flip stage.
    flip_estimate : array (d,)
        The flip stage's noisy mean.
    rounds : list of dict
        One row per sorting round (round, u, radius, size, scale, noisy, noiseless, separation, ...).
    stages : list of dict
        One row per mechanism (stage, rows, ε or ρ, sensitivity, radius, scale).
    row_sets : dict
        Row indices each stage read.
    R : int
        Cap on the number of sorting rounds.
    u_final : float
        Upper bound on the light coordinates' p after the last round.
    light : bool array (d,)
        Coordinates left for the final stage.
    buckets : list of (int, float, array)
        Heavy buckets ``(r, u_r, T_r)``.
    stage_sizes : dict
        Rows per stage.
    block_size, heavy_rows : int
        Rows per sorting round and rows of the heavy stage.
    unclipped : array (d,)
        The estimate before clipping to [0, 1] (flipped back).
    noise : str
        ``"laplace"`` or ``"gaussian"``.
    heavy_method : str
        Label of the heavy-stage mechanism.
    """

    group: np.ndarray
    group_label: np.ndarray
    flipped: np.ndarray
    flip_estimate: np.ndarray | None
    rounds: list[dict[str, Any]]
    stages: list[dict[str, Any]]
    row_sets: dict[str, np.ndarray]
    R: int
    u_final: float
    light: np.ndarray
    buckets: list[tuple[int, float, np.ndarray]]
    stage_sizes: dict[str, int]
    block_size: int
    heavy_rows: int
    unclipped: np.ndarray
    noise: str
    heavy_method: str


@dataclass(frozen=True)
class StageMechanism:
    """Laplace (ε, ℓ1) or Gaussian (ρ, ℓ2) release with the stage bookkeeping."""

    noise: Noise
    budget: float

    @property
    def unit(self) -> str:
        return "ε" if self.noise == "laplace" else "ρ"

    def release(
        self, value: np.ndarray, sensitivity: float, rng: Any
    ) -> tuple[np.ndarray, float, float]:
        """Return (noisy value, scale, per-coordinate noise std).

        Drawn by :func:`dpcore.mechanisms.laplace` (``b = Δ1/ε``) or
        :func:`dpcore.mechanisms.gaussian` (``σ = Δ2/√(2ρ)``), charged to the active stage; the
        line's note gives the sensitivity and the scale.
        """
        if self.noise == "laplace":
            b = mechanisms.laplace_scale(sensitivity, self.budget)
            note = f"ℓ1 sensitivity {sensitivity:.4g}, Laplace scale b = {b:.4g}"
            rel = mechanisms.laplace(value, sensitivity, self.budget, rng=rng, scale=b, note=note)
            return np.asarray(rel.value), rel.scale, math.sqrt(2.0) * rel.scale
        sd = mechanisms.gaussian_std(sensitivity, self.budget)
        note = f"ℓ2 sensitivity {sensitivity:.4g}, Gaussian σ = {sd:.4g}"
        rel = mechanisms.gaussian(value, sensitivity, self.budget, rng=rng, scale=sd, note=note)
        return np.asarray(rel.value), rel.scale, rel.scale


def _check_fraction(v: float, name: str) -> float:
    return check_probability(v, name)


@dataclass(frozen=True)
class RowSplit:
    """The public sample split (depends on n, d and the fractions only; spec §2.4)."""

    R: int  # cap on the sorting rounds
    flip_rows: int  # m_f
    block: int  # m, rows per sorting round
    heavy_rows: int  # m_0
    final_rows: int  # m_1 before recycling
    rest: int  # n - m_f


def split_rows(
    n: int,
    d: int,
    *,
    flip: bool,
    flip_fraction: float,
    partition_fraction: float,
    heavy_fraction: float,
) -> RowSplit:
    """Stage 0: cut the rows into the flip block, R sorting blocks, the heavy block and the final block.

    Raises a ``ValueError`` naming the n needed when a stage would get no rows.

    References
    ----------
    Singhal, PureDPPDE (sample split); docs/estimators/binary-product.md §2.4.
    """
    R = max(0, math.ceil(math.log2(d)) - 1)
    mf = int(math.floor(flip_fraction * n)) if flip else 0
    n_rest = n - mf
    if R == 0:
        m = m0 = 0
        m1 = n_rest
    else:
        m = int(math.floor(partition_fraction * n_rest / R))
        m0 = int(math.floor(heavy_fraction * n_rest))
        m1 = n_rest - R * m - m0
    if (flip and mf < 1) or (R > 0 and min(m, m0) < 1) or m1 < 1:
        need = 20 * (R + 2)
        raise ValueError(
            f"n = {n} rows is too small for d = {d}: every stage (flip, {R} partition "
            f"blocks, heavy, final) needs its own rows; use n >= {need}."
        )
    return RowSplit(R, mf, m, m0, m1, n_rest)


@dataclass(frozen=True)
class StageRelease:
    """One mechanism's output: the noiseless and noisy statistic, its sensitivity, scale and std."""

    noiseless: np.ndarray
    noisy: np.ndarray
    sensitivity: float
    scale: float
    std: float
    clipped: np.ndarray


def truncated_mean_release(
    block: Any,
    coords: np.ndarray,
    radius: float,
    sign: np.ndarray,
    flipped: np.ndarray,
    mech: StageMechanism,
    rng: np.random.Generator,
) -> StageRelease:
    """Stages 1-2 and 4-5: the truncated mean of ``block`` on the columns ``coords`` (bool mask), released.

    Rows (after the flip) are clipped to the ℓ1 ball of ``radius`` on the selected columns; the
    substitution sensitivity is ``min(2B, k)/m`` in ℓ1 (Laplace) or its ℓ2 analogue (Gaussian), with
    ``k`` the number of columns and ``m`` the block's rows (spec §2.1). Returns the values on
    ``coords`` only.

    References
    ----------
    Singhal, PureDPPDE lines 1-2 and 4-5; docs/estimators/binary-product.md §2.1, §2.4.
    """
    m, k = block.shape[0], int(coords.sum())
    a, hit = _clipped_mean(block, coords.astype(float), radius, sign, flipped.astype(float))
    sens = (
        tmean_l1_sensitivity(radius, k, m)
        if mech.noise == "laplace"
        else tmean_l2_sensitivity(radius, k, m)
    )
    noisy, scale, std = mech.release(a[coords], sens, rng)
    return StageRelease(a[coords], noisy, sens, scale, std, hit)


def row_slice(X: Any, lo: int, hi: int) -> Any:
    """Rows ``lo:hi`` of a dense array or CSR matrix as a view sharing its arrays (scipy's row
    slice copies them); the same matrix, so every sum over it is the same to the bit."""
    if not sparse.issparse(X):
        return X[lo:hi]
    a, b = X.indptr[lo], X.indptr[hi]
    return sparse.csr_matrix(
        (X.data[a:b], X.indices[a:b], X.indptr[lo : hi + 1] - a),
        shape=(hi - lo, X.shape[1]),
        copy=False,
    )


class _Pipeline:
    """The running state of one PDE run: rows (permuted), flip signs, outputs and the bookkeeping."""

    def __init__(
        self, X: Any, perm: np.ndarray | None, rest0: int, mech: StageMechanism, ledger: Ledger
    ) -> None:
        """``perm=None``: the rows in their own order (no copy of ``X``)."""
        n, d = X.shape
        self.perm: np.ndarray = np.arange(n) if perm is None else perm
        self.Xp = X if perm is None else permuted_rows(X, perm)
        self.rest0, self.mech, self.ledger = rest0, mech, ledger
        self.sign, self.flipped = np.ones(d), np.zeros(d, dtype=bool)
        self.stages: list[dict[str, Any]] = []
        self.row_sets: dict[str, np.ndarray] = {}
        self.clipped_rows = np.zeros(n, dtype=bool)
        self.noise_std, self.q, self.noiseless = np.zeros(d), np.zeros(d), np.zeros(d)

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Original row indices of positions ``[lo, hi)`` after the flip block."""
        return self.perm[self.rest0 + lo : self.rest0 + hi]

    def block(self, lo: int, hi: int) -> Any:
        """Rows of positions ``[lo, hi)`` after the flip block (a view: stages only read them)."""
        return row_slice(self.Xp, self.rest0 + lo, self.rest0 + hi)

    def blocks(self, ranges: list[tuple[int, int]]) -> Any:
        """The rows of positions ``[lo, hi)`` of every range, stacked in order (row slices, not a
        fancy index: the same rows in the same order, without a gather)."""
        parts = [self.block(lo, hi) for lo, hi in ranges]
        if len(parts) == 1:
            return parts[0]
        return sparse.vstack(parts, format="csr") if sparse.issparse(self.Xp) else np.vstack(parts)

    def stage(self, stage: str, rows: np.ndarray, note: str) -> Any:
        """The ledger stage of one release on ``rows`` (inside the run's parallel composition, so
        its line adds 0; the note says what it releases and on how many rows)."""
        mech = self.mech
        return mechanisms.stage(
            self.ledger,
            stage,
            note=f"{mech.unit} = {mech.budget:g} on its own {rows.size} rows (adds 0: "
            f"parallel composition); {note}",
        )

    def record(
        self,
        stage: str,
        rows: np.ndarray,
        k: int,
        radius: float | None,
        sens: float,
        scale: float,
        truncated: int,
    ) -> None:
        """One stage in ``stages`` and ``row_sets`` (the diagnostics; the ledger line is written by
        the mechanism inside :meth:`stage`)."""
        mech, budget = self.mech, self.mech.budget
        kind = "ℓ1" if mech.noise == "laplace" else "ℓ2"
        self.stages.append(
            {
                "stage": stage,
                "rows": int(rows.size),
                "coords": int(k),
                "radius": radius,
                "sensitivity": sens,
                "norm": kind,
                "scale": scale,
                "budget": budget,
                "truncated": int(truncated),
            }
        )
        self.row_sets[stage] = rows


def _flip_stage(p: _Pipeline, mf: int, rng: np.random.Generator) -> np.ndarray:
    """Stage F: the noisy untruncated mean of the flip block; coordinates above 1/2 are flipped."""
    d = p.Xp.shape[1]
    mean_w = np.asarray(row_slice(p.Xp, 0, mf).mean(axis=0)).ravel()
    sens = d / mf if p.mech.noise == "laplace" else math.sqrt(d) / mf
    with p.stage("flip", p.perm[:mf], "untruncated mean of binary rows"):
        nu, scale, _ = p.mech.release(mean_w, sens, rng)
    p.flipped = nu > 0.5
    p.sign = np.where(p.flipped, -1.0, 1.0)
    p.record("flip", p.perm[:mf], d, None, sens, scale, 0)
    return nu


@dataclass
class _Partition:
    light: np.ndarray
    group: np.ndarray
    rounds: list[dict[str, Any]]
    buckets: list[tuple[int, float, np.ndarray]]
    u_final: float


def _partition_rounds(
    p: _Pipeline, split: RowSplit, beta: float, bound: Bound, rng: np.random.Generator
) -> _Partition:
    """Stages 1-2: sorting rounds r = 1..R; coordinates whose noisy mean clears τ_r join bucket T_r."""
    d, m = p.Xp.shape[1], split.block
    S = np.ones(d, dtype=bool)
    u, tau, r = 0.5, 3.0 / 16.0, 1
    group = np.zeros(d, dtype=int)
    rounds: list[dict[str, Any]] = []
    buckets: list[tuple[int, float, np.ndarray]] = []
    while r <= split.R and u * S.sum() >= 1:
        size = int(S.sum())
        B = partition_radius(u, size, m, split.R, beta, bound)
        rows = p.rows((r - 1) * m, r * m)
        with p.stage(f"round {r}", rows, f"truncated mean over |S| = {size} columns"):
            rel = truncated_mean_release(
                p.block((r - 1) * m, r * m), S, B, p.sign, p.flipped, p.mech, rng
            )
        idx = np.flatnonzero(S)
        T = idx[rel.noisy >= tau]
        p.clipped_rows[rows] = rel.clipped
        p.record(f"round {r}", rows, size, B, rel.sensitivity, rel.scale, int(rel.clipped.sum()))
        rounds.append(
            {
                "round": r,
                "u": u,
                "tau": tau,
                "size": size,
                "radius": B,
                "sensitivity": rel.sensitivity,
                "scale": rel.scale,
                "promoted": int(T.size),
                "rows": m,
                "truncated": int(rel.clipped.sum()),
                "separation": tau / rel.scale,
                "coords": idx,
                "noiseless": rel.noiseless,
                "noisy": rel.noisy,
            }
        )
        if T.size:
            buckets.append((r, u, T))
            group[T] = r
            S[T] = False
        u, tau, r = u / 2.0, tau / 2.0, r + 1
    return _Partition(S, group, rounds, buckets, u)


def _heavy_stage(
    p: _Pipeline,
    split: RowSplit,
    buckets: list[tuple[int, float, np.ndarray]],
    beta: float,
    rng: np.random.Generator,
) -> None:
    """Stage 3 (substitute for DPSGLearner): one joint release of the heavy coordinates rescaled by 1/√u_r."""
    d, R, m, m0 = p.Xp.shape[1], split.R, split.block, split.heavy_rows
    K = int(sum(T.size for _, _, T in buckets))
    w = np.zeros(d)
    for _, ui, T in buckets:  # loop over at most R buckets
        w[T] = 1.0 / math.sqrt(ui)
    TP = w > 0
    z_rows = p.rows(R * m, R * m + m0)
    Z = p.block(R * m, R * m + m0)
    fl = p.flipped.astype(float)
    if p.mech.noise == "laplace":
        BZ = heavy_radius([T.size for _, _, T in buckets], [ui for _, ui, _ in buckets], m0, beta)
        gmean, hit = _clipped_mean(Z, w, BZ, p.sign, fl, "l1")
        sens = min(2.0 * BZ, float(w.sum())) / m0
    else:
        BZ = heavy_l2_radius(K, m0, beta)
        gmean, hit = _clipped_mean(Z, w, BZ, p.sign, fl, "l2")
        sens = math.sqrt(2.0 * min(BZ**2, float((w**2).sum()))) / m0
    with p.stage("heavy", z_rows, "rescaled heavy coordinates, " + HEAVY_SUBSTITUTE_LABEL):
        noisy, scale, std = p.mech.release(gmean[TP], sens, rng)
    p.q[TP] = noisy / w[TP]
    p.noiseless[TP] = gmean[TP] / w[TP]
    p.noise_std[TP] = std / w[TP]
    p.clipped_rows[z_rows] = hit
    p.record("heavy", z_rows, K, BZ, sens, scale, int(hit.sum()))


def _final_stage(
    p: _Pipeline,
    light: np.ndarray,
    u_final: float,
    final_ranges: list[tuple[int, int]],
    beta: float,
    bound: Bound,
    rng: np.random.Generator,
) -> None:
    """Stages 4-5: the truncated mean of the light coordinates on the final (and recycled) rows
    (positions ``[lo, hi)`` of each of ``final_ranges``, in order)."""
    sizeF = int(light.sum())
    rows = np.concatenate([p.rows(lo, hi) for lo, hi in final_ranges])
    BF = final_radius(u_final, sizeF, int(rows.size), beta, bound)
    with p.stage("final", rows, f"truncated mean over the {sizeF} light columns"):
        rel = truncated_mean_release(
            p.blocks(final_ranges), light, BF, p.sign, p.flipped, p.mech, rng
        )
    p.q[light] = rel.noisy
    p.noiseless[light] = rel.noiseless
    p.noise_std[light] = rel.std
    p.clipped_rows[rows] = rel.clipped
    p.record("final", rows, sizeF, BF, rel.sensitivity, rel.scale, int(rel.clipped.sum()))


def _run_stages(
    pipe: _Pipeline,
    sp: RowSplit,
    flip: bool,
    beta: float,
    bound: Bound,
    recycle: bool,
    g: Any,
) -> tuple[np.ndarray | None, _Partition, list[tuple[int, int]]]:
    """Stages F to 5 on their disjoint row blocks: the flip estimate, the partition and the final
    row ranges (which blocks are recycled depends on released outputs only)."""
    R, mf, m, m0, n_rest = sp.R, sp.flip_rows, sp.block, sp.heavy_rows, sp.rest
    # ---- F. private flip ----
    nu = _flip_stage(pipe, mf, g) if flip else None
    # ---- 1-2. partition rounds ----
    part = _partition_rounds(pipe, sp, beta, bound, g)
    rounds_run = len(part.rounds)
    # ---- 3. heavy stage (substitute for DPSGLearner) ----
    if part.buckets:
        _heavy_stage(pipe, sp, part.buckets, beta, g)
        # recycle: the unused partition blocks Y^{r*+1..R} join Y^F
        final_ranges = (
            [(rounds_run * m, R * m), (R * m + m0, n_rest)] if recycle else [(R * m + m0, n_rest)]
        )
    else:  # recycle: nothing promoted, so Z and the unused blocks join Y^F
        final_ranges = [(rounds_run * m, n_rest)] if recycle else [(R * m + m0, n_rest)]
    # ---- 4-5. final round on the light coordinates ----
    final_ranges = [(lo, hi) for lo, hi in final_ranges if hi > lo]
    if part.light.any():
        _final_stage(pipe, part.light, part.u_final, final_ranges, beta, bound, g)
    return nu, part, final_ranges
