"""Pure ε-DP estimator for binary product distributions ("PureDPPDE"), practical variant.

Spec: docs/estimators/binary-product.md §2.4 (the practical variant of the paper's Algorithm 1,
§2.2). Pseudocode, as this module runs it::

    F. flip   : on the first 10% of the rows release ν = mean + Lap(d/(m_f ε));  Flip = {j: ν_j > ½};
                every later stage reads the flipped bits 1 − x_j for j in Flip (so all p_j ≲ ½).
    0. split  : R = max(0, ⌈log2 d⌉ − 1) partition blocks of m rows, Z (m0 rows), Y^F (the rest).
    1. rounds : S = [d], u = ½, τ = 3/16;  while r <= R and u|S| >= 1:
                  B = chern(u|S|, ln(mR/β));  q_r = tmean_B(Y^r[:, S]) + Lap(min(2B, |S|)/(mε));
                  T_r = {j in S: q_r[j] >= τ};  S -= T_r;  u /= 2;  τ /= 2
    3. heavy  : (SUBSTITUTE for the paper's DPSGLearner, which has no practical implementation)
                rescale bucket T_i by w = 1/√u_i, ℓ1-truncate at the Bernstein radius B_Z,
                g = tmean + Lap(min(2B_Z, Σw)/(m0 ε));  q[T_i] = g / w = √u_i · g.
    4. recycle: unused partition blocks (and Z when no coordinate was promoted) join Y^F.
    5. final  : B_F = chern(u_F|S_F|, ln(m1/β));  q[S_F] = tmean_{B_F}(Y^F[:, S_F]) + Lap(min(2B_F, |S_F|)/(m1 ε)).
    6. output : q = clip(q, 0, 1);  q[Flip] = 1 − q[Flip].

Privacy
-------
* Neighbouring relation: **substitution** of one row, ``n`` public (paper Def. 2.9; spec §8.12).
  Add/remove neighbours are not supported.
* Every stage reads its own disjoint block of rows (blocks are cut by row index after a
  data-independent permutation), and each is ε-DP, so by parallel composition (paper Prop. 3.2)
  the whole pipeline is ε-DP: a substituted row changes the input of exactly one mechanism. Which
  blocks are recycled into the final stage depends only on released outputs. Every release is
  drawn by :mod:`dpcore.mechanisms` inside :func:`dpcore.mechanisms.parallel`, so the ledger
  records one ε for "parallel composition" and lists every stage at 0 extra, with its own ε, ℓ1
  sensitivity, Laplace scale and calibration ratio (and in ``diagnostics.stages``).
* Sensitivities (ℓ1, substitution; spec §2.1, §2.4):
  flip ``d/m_f`` (untruncated mean of binary rows); truncated mean ``min(2B, k)/m`` — **the paper's
  ``B/m`` is wrong for substitution** (two rows of weight >= B with disjoint supports differ by 2B
  after truncation), and its pseudocode's scale ``B_r/ε`` also drops the ``1/m`` (spec §8.1; the
  printed scale would give 2ε, not ε); heavy stage ``min(2B_Z, Σ_j w_j)/m0`` (rows are non-negative
  and coordinate j lies in [0, w_j]).
* Every clip radius is a function of public values only (``u``, set sizes, block sizes, ``R``,
  ``β``): see :func:`partition_radius`, :func:`heavy_radius`, :func:`final_radius`.
* Floating-point Laplace sampling from numpy is open to Mironov-style attacks: a teaching demo,
  not a production release.

References
----------
V. Singhal, "A Polynomial Time, Pure Differentially Private Estimator for Binary Product
Distributions", arXiv:2304.06787v4 (2024), Algorithm 1, Theorem 3.1, Prop. 3.2, Lemma 3.5,
Lemma 3.11. docs/estimators/binary-product.md §2.1 (corrected sensitivity), §2.4 (practical
variant), §8 (ambiguities and resolutions).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_flag, check_positive
from dpcore.estimate import Cost, Default, Estimate
from dpcore.estimators._options import META_FIELDS, EstimatorOptions, Family
from dpcore.estimators.binary_product import stages
from dpcore.estimators.binary_product.checked import CheckedBinary, check_binary
from dpcore.estimators.binary_product.stages import (
    HEAVY_SUBSTITUTE_LABEL,
    BinaryProductDiagnostics,
    Bound,
    Noise,
    RowSplit,
    StageMechanism,
    StageRelease,
    _check_fraction,
    _Partition,
    _Pipeline,
    _run_stages,
    chernoff_radius,
    final_radius,
    heavy_l2_radius,
    heavy_radius,
    partition_radius,
    row_slice,
    split_rows,
    tmean_l1_sensitivity,
    tmean_l2_sensitivity,
    truncate_rows,
    truncated_mean_release,
)
from dpcore.estimators.binary_product.stages import (
    _clipped_mean as _clipped_mean,  # re-exported for the tests
)
from dpcore.privacy import Ledger


def _check_options(
    beta: float,
    flip_fraction: float,
    partition_fraction: float,
    heavy_fraction: float,
    bound: str,
    heavy: str,
) -> tuple[float, float, float, float]:
    """The public options of :func:`run_pde` checked (a ``ValueError`` naming the fix)."""
    beta = _check_fraction(beta, "beta")
    flip_fraction = _check_fraction(flip_fraction, "flip_fraction")
    partition_fraction = _check_fraction(partition_fraction, "partition_fraction")
    heavy_fraction = _check_fraction(heavy_fraction, "heavy_fraction")
    if partition_fraction + heavy_fraction >= 1:
        raise ValueError(
            "partition_fraction + heavy_fraction must be below 1 so the final round gets rows; "
            f"got {partition_fraction} + {heavy_fraction}."
        )
    if bound not in ("chernoff", "paper"):
        raise ValueError(f"bound must be 'chernoff' or 'paper'; got {bound!r}.")
    if heavy != "joint_laplace":
        raise ValueError(
            f"heavy must be 'joint_laplace' (the only implemented heavy stage; the paper's "
            f"HKMN22 learner has no practical implementation); got {heavy!r}."
        )
    return beta, flip_fraction, partition_fraction, heavy_fraction


def _output(
    pipe: _Pipeline,
    part: _Partition,
    sp: RowSplit,
    nu: np.ndarray | None,
    final_ranges: list[tuple[int, int]],
    *,
    n: int,
    clip: bool,
    noise: Noise,
) -> tuple[np.ndarray, BinaryProductDiagnostics]:
    """Stage 6: clip to [0, 1] and unflip (post-processing), and the diagnostics of the run."""
    R, m = sp.R, sp.block
    rounds_run, SF = len(part.rounds), part.light
    warnings: list[str] = []
    if part.u_final * SF.sum() >= 1 and SF.any():
        warnings.append(
            f"the partition stopped at its cap R = {R} with u_F|S_F| = "
            f"{part.u_final * SF.sum():.3g} >= 1."
        )
    unclipped = pipe.q.copy()
    q = np.clip(pipe.q, 0.0, 1.0) if clip else pipe.q
    q = np.where(pipe.flipped, 1.0 - q, q)
    noiseless = np.where(pipe.flipped, 1.0 - pipe.noiseless, pipe.noiseless)
    stage_sizes = {
        "flip": sp.flip_rows,
        "partition": rounds_run * m,
        "partition_unused": (R - rounds_run) * m,
        "heavy": sp.heavy_rows if part.buckets else 0,
        "final": sum(hi - lo for lo, hi in final_ranges),
        "total": n,
    }
    diag = BinaryProductDiagnostics(
        noiseless_mean=noiseless,
        clipped=pipe.clipped_rows,
        noise_std=pipe.noise_std,
        warnings=warnings,
        group=part.group,
        group_label=np.array([f"T{v}" if v else "final" for v in part.group], dtype=object),
        flipped=pipe.flipped,
        flip_estimate=nu,
        rounds=part.rounds,
        stages=pipe.stages,
        row_sets=pipe.row_sets,
        R=R,
        u_final=part.u_final,
        light=SF.copy(),
        buckets=[(ri, ui, T) for ri, ui, T in part.buckets],
        stage_sizes=stage_sizes,
        block_size=m,
        heavy_rows=sp.heavy_rows,
        unclipped=unclipped,
        noise=noise,
        heavy_method=HEAVY_SUBSTITUTE_LABEL,
    )
    return q, diag


def run_pde(
    x: Any,
    *,
    noise: Noise,
    budget: float,
    rng: RngLike = None,
    beta: float = 0.1,
    flip: bool = True,
    flip_fraction: float = 0.10,
    partition_fraction: float = 0.30,
    heavy_fraction: float = 0.35,
    bound: Bound = "chernoff",
    heavy: str = "joint_laplace",
    recycle: bool = True,
    clip: bool = True,
    shuffle: bool = True,
) -> Estimate:
    """The §2.4 pipeline with Laplace (pure ε-DP) or Gaussian (ρ-zCDP) noise.

    ``pure_dp_pde`` runs it with ``noise="laplace"``; the zCDP analogue
    (``dpcore.estimators.binary_baselines.klsu_style_zcdp``) with ``noise="gaussian"``
    (:class:`PdeOptions`).
    See the module docstring for the pseudocode and the privacy argument.
    """
    X = check_binary(x)
    n, d = X.shape
    budget = check_positive(budget, "epsilon" if noise == "laplace" else "rho")
    flip, recycle, clip, shuffle = (
        check_flag(v, k)
        for v, k in ((flip, "flip"), (recycle, "recycle"), (clip, "clip"), (shuffle, "shuffle"))
    )
    fractions = _check_options(
        beta, flip_fraction, partition_fraction, heavy_fraction, bound, heavy
    )
    beta, flip_fraction, partition_fraction, heavy_fraction = fractions
    g = mechanisms.generator(rng)
    mech = StageMechanism(noise, budget)
    ledger = Ledger("pure" if noise == "laplace" else "zcdp")

    # ---- 0. sample split (public: depends on n, d and the fractions only) ----
    sp = split_rows(
        n,
        d,
        flip=flip,
        flip_fraction=flip_fraction,
        partition_fraction=partition_fraction,
        heavy_fraction=heavy_fraction,
    )
    pipe = _Pipeline(X, g.permutation(n) if shuffle else None, sp.flip_rows, mech, ledger)
    # ---- F, 1-5. the stages, each on its own rows ----
    with mechanisms.parallel(
        ledger,
        "parallel composition",
        "each row feeds exactly one stage below (disjoint row blocks, substitution "
        f"neighbours); every stage is {mech.unit} = {budget:g}-DP on its own rows, so the "
        f"pipeline is {mech.unit} = {budget:g}-DP (paper Prop. 3.2)",
    ):
        nu, part, final_ranges = _run_stages(pipe, sp, flip, beta, bound, recycle, g)
    # ---- 6. output ----
    q, diag = _output(pipe, part, sp, nu, final_ranges, n=n, clip=clip, noise=noise)
    return Estimate(mean=q, ledger=ledger, diagnostics=diag)


@dataclass(frozen=True, kw_only=True)
class PdeOptions(EstimatorOptions):
    """The options of the §2.4 pipeline (:func:`run_pde`); the registered variants are instances:
    ``pure_dp_pde`` (Laplace noise, pure ε-DP, the practical variant of Singhal's PureDPPDE) and
    ``klsu_style_zcdp`` (Gaussian noise, ρ-zCDP: KLSU-style, **not the exact KLSU19 algorithm**),
    called as ``pure_dp_pde(x, epsilon=..., rng=..., **options)``.

    A call takes ``x``, an array or scipy.sparse matrix of shape (n, d) with 0/1 entries (sparse
    input, CSR, is used without densifying); the budget, ``epsilon`` or ``rho``, not split: each
    stage spends all of it on its own rows (parallel composition); and ``rng``, the randomness
    (row permutation and noise).

    Attributes
    ----------
    notion : {"pure", "zcdp"}
        Laplace noise (pure ε-DP) or Gaussian noise (ρ-zCDP). The Gaussian pipeline's flip has ℓ2
        sensitivity ``sqrt(d)/m_f``; its partition and final rounds ``σ = sqrt(min(B, |S|)/ρ)/m``,
        from the ℓ2 sensitivity ``sqrt(2 min(B, k))/m`` of the truncated mean; its heavy stage
        ℓ2-clips the rescaled rows at ``C = sqrt(chern(K, ln(m0/β)))`` with ``σ = C/(m0 sqrt(ρ))``
        (non-negative rows: ℓ2 sensitivity ``sqrt(2) C``).
    beta : float
        Failure probability used by the clip radii (accuracy only, never privacy).
    flip : bool
        Run the private flip step first (removes the paper's assumption ``p_j <= 1/2``, spec §8.8).
    flip_fraction, partition_fraction, heavy_fraction : float
        Sample split: flip rows; partition rows (cut into R blocks); heavy rows Z (of the rest).
    bound : {"chernoff", "paper"}
        Clip radii: exact Chernoff (default) or the paper's ``3μL`` and ``4L``.
    heavy : {"joint_laplace"}
        Heavy stage. Only the labelled substitute exists (the paper's DPSGLearner is impractical).
    recycle : bool
        Give unused partition blocks (and Z when nothing is heavy) to the final round.
    clip : bool
        Clip the output to [0, 1] (post-processing).
    shuffle : bool
        Cut blocks after a data-independent random permutation of the rows.

    Returns
    -------
    Estimate
        ``mean`` in [0, 1]^d. ``diagnostics.group`` holds each coordinate's group (r for
        bucket T_r, 0 for the final round), ``["rounds"]`` the round table, ``["stages"]`` every
        release's rows, radius, sensitivity and scale, ``["row_sets"]`` the rows each stage used.
        Each round's dict also holds its columns (``coords``, in flipped orientation) and their
        noiseless and noisy block means. ``diagnostics.noise_std`` is each coordinate's final noise
        std (``√2 b``; heavy bucket i:
        ``√2 √u_i Δ_Z/ε``).

    Notes
    -----
    Neighbouring relation: substitution, n public. Noise scales follow the spec's corrections:
    ``min(2B, k)/(mε)`` where the paper prints ``B/ε`` (and proves with ``B/(εm)``, which would be
    2ε-DP under substitution).

    References
    ----------
    Singhal, arXiv:2304.06787v4, Algorithm 1 and Theorem 3.1; docs/estimators/binary-product.md
    §2.4, §8. Kamath, Li, Singhal, Ullman, COLT 2019; docs/estimators/binary-product.md §3 B3.
    """

    notion: Literal["pure", "zcdp"] = "pure"
    beta: float = 0.1
    flip: bool = True
    flip_fraction: float = 0.10
    partition_fraction: float = 0.30
    heavy_fraction: float = 0.35
    bound: Bound = "chernoff"
    heavy: str = "joint_laplace"
    recycle: bool = True
    clip: bool = True
    shuffle: bool = True
    name: str = field(default="pure_dp_pde", compare=False)
    fixed: tuple[str, ...] = field(default=("notion",), compare=False)

    takes_bounds: ClassVar[bool] = False

    def run(self, x: Any, *, rng: RngLike, **budget: float) -> Estimate:
        """The pipeline with these options; ``budget`` is ``epsilon=`` or ``rho=``."""
        options = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("notion", *META_FIELDS):
            options.pop(key)
        pure = self.notion == "pure"
        noise: Noise = "laplace" if pure else "gaussian"
        return run_pde(
            x, noise=noise, budget=budget["epsilon" if pure else "rho"], rng=rng, **options
        )


#: Pure ε-DP mean of binary product data, the practical variant of Singhal's PureDPPDE.
pure_dp_pde = PdeOptions()

#: What the binary-product estimators share.
BINARY = Family(
    family="binary product",
    data_kinds=frozenset({"binary"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)

BINARY.register(
    "binary_pde",
    "PureDPPDE (ε)",
    200,
    pure_dp_pde,
    color="#DDAA33",
    cost=Cost(per_value_us=0.07, overhead_ms=5.0),
    detail="PureDPPDE (practical, pure ε)",
    default=Default(rank=30),
    description="Private flip, sorting rounds on disjoint blocks, heavy groups rescaled (joint Laplace "
    "substitute for DPSGLearner), light coordinates at a tiny clip radius. Error metric: TV.",
)

__all__ = [
    "BINARY",
    "HEAVY_SUBSTITUTE_LABEL",
    "BinaryProductDiagnostics",
    "Bound",
    "CheckedBinary",
    "Noise",
    "PdeOptions",
    "RowSplit",
    "StageMechanism",
    "StageRelease",
    "check_binary",
    "chernoff_radius",
    "final_radius",
    "heavy_l2_radius",
    "heavy_radius",
    "partition_radius",
    "pure_dp_pde",
    "row_slice",
    "run_pde",
    "split_rows",
    "stages",
    "tmean_l1_sensitivity",
    "tmean_l2_sensitivity",
    "truncate_rows",
    "truncated_mean_release",
]
