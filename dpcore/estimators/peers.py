"""The means of the libraries people would use instead, run through those libraries' own APIs.

Nothing here re-implements a library: each estimator builds the library's own mean and lets the
library add the noise. They register in the opt-in group ``family="peers"`` (listed by
:func:`dpcore.registry.applicable` only with ``peers=True``) and only when the library imports;
enable them with ``pip install -e '.[peers]'`` (:data:`ENABLE_HINT`).

- **OpenDP** (``opendp``): ``vector_domain(atom_domain(float), size=n)`` under
  ``symmetric_distance`` ``>> then_clamp(bounds) >> then_mean() >> then_laplace(scale)`` (output
  measure ``max_divergence``, pure ε-DP) or ``>> then_gaussian(scale)``
  (``zero_concentrated_divergence``, ρ-zCDP). The size ``n`` is part of the input domain (public),
  so the only neighbours are datasets of the same size at symmetric distance 2: one record
  *replaced* (replace-one, ``d_in = 2``). The noise scale is the one OpenDP's own privacy map
  accepts: :func:`opendp_measurement` is checked with ``meas.map(2) <= budget`` before it runs
  (:func:`opendp_scale`). OpenDP's mean is a scalar statistic, so a ``d``-dimensional mean runs one
  measurement per coordinate, each at ``budget / d`` (basic composition of ε-DP; zCDP composes
  additively, Bun & Steinke 2016, Lemma 2.3). OpenDP draws from its own cryptographically secure
  generator, which cannot be seeded: these estimators ignore ``rng`` and are marked
  ``seeded=False``.
- **diffprivlib** (IBM, ``diffprivlib.tools.mean`` with ``bounds``): clips to the bounds and adds
  truncated Laplace noise (``LaplaceTruncated``) with sensitivity ``(upper - lower) / n``, i.e.
  pure ε-DP for one record replaced with ``n`` public (replace-one; the library's docs call this
  the ε-DP mean "where sensitivity is calculated using bounds"). With ``axis=0`` it splits ε
  equally over the ``d`` coordinates itself. It is seeded through its ``random_state``
  (a ``numpy.random.RandomState`` drawn from our ``rng``), so the same ``rng`` gives the same mean.

Our budget reaches them by the same rules as every estimator: :meth:`EstimatorSpec.run` converts
it with :meth:`dpcore.privacy.Budget.to_native` to the library's native notion (``epsilon`` for
the Laplace means, ``rho`` for OpenDP's Gaussian mean).

Google's ``python-dp`` and Tumult Analytics are not included: see the README ("Peer libraries").

References
----------
OpenDP Library, ``make_mean`` / ``make_laplace`` / ``make_gaussian`` and their privacy maps
(https://docs.opendp.org). Holohan et al., "Diffprivlib: The IBM Differential Privacy Library"
(2019), ``diffprivlib.tools.mean``. docs/architecture.md ("Budgets are comparable across notions only
through a stated implication"); docs/estimators/plan.md §5c (the clipped-mean baseline these match).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from dpcore import limits, mechanisms
from dpcore._validation import RngLike, check_bounds, check_data, check_positive
from dpcore.estimate import PEERS, Cost, Diagnostics, Estimate
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.privacy import Ledger

#: How to install the peer libraries.
ENABLE_HINT = "pip install -e '.[peers]'"

#: The distribution names of the peer libraries.
LIBRARIES = ("opendp", "diffprivlib")

#: The neighbouring distance OpenDP is asked about: one record replaced at known size.
OPENDP_D_IN = 2

Mechanism = Literal["laplace", "gaussian"]


@dataclass(kw_only=True)
class PeerDiagnostics(Diagnostics):
    """What another library's mean reports.

    Attributes
    ----------
    scale : array (d,)
        Each coordinate's noise scale as the library's own map accepted it.
    library, version : str
        Which library ran (``"opendp"`` or ``"diffprivlib"``) and its installed version.
    privacy_map : array or None
        OpenDP only: each coordinate's privacy map at ``d_in = 2``.
    """

    scale: np.ndarray
    library: str
    version: str | None
    privacy_map: np.ndarray | None = None


@functools.cache
def library_version(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or ``None`` when it does not import.

    Asked once per process: the lookups take the import lock and read package metadata, on every
    Compare view otherwise; a library installed later needs a restart to be used anyway.
    """
    module = {"diffprivlib": "diffprivlib", "opendp": "opendp"}.get(dist, dist)
    if importlib.util.find_spec(module) is None:
        return None
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def available() -> dict[str, str | None]:
    """``{library: version or None}`` for every peer library."""
    return {lib: library_version(lib) for lib in LIBRARIES}


# --------------------------------------------------------------------------------------------
# OpenDP


def _opendp() -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")  # make_mean, make_clamp and the float mechanisms are "contrib"
    return dp


def opendp_measurement(
    n: int, lower: float, upper: float, scale: float, mechanism: Mechanism
) -> Any:
    """OpenDP's clamp → mean → noise measurement on ``n`` floats (replace-one, ``d_in = 2``).

    Parameters
    ----------
    n : int
        Public dataset size (part of OpenDP's input domain).
    lower, upper : float
        Public clamping bounds.
    scale : float
        Noise scale handed to ``then_laplace`` or ``then_gaussian``.
    mechanism : {"laplace", "gaussian"}
        Laplace (``max_divergence``: pure ε) or Gaussian (``zero_concentrated_divergence``: ρ).

    Returns
    -------
    opendp.mod.Measurement
        Call it on a float array; ``meas.map(2)`` is its ε or ρ for one record replaced.

    References
    ----------
    OpenDP ``make_clamp``, ``make_mean``, ``make_laplace``, ``make_gaussian``.
    """
    dp = _opendp()
    space = (
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=int(n)),
        dp.symmetric_distance(),
    )
    noise = dp.m.then_laplace(scale) if mechanism == "laplace" else dp.m.then_gaussian(scale)
    return space >> dp.t.then_clamp((float(lower), float(upper))) >> dp.t.then_mean() >> noise


@functools.lru_cache(maxsize=1024)
def _unit_scale(n: int, budget: float, mechanism: Mechanism) -> float:
    dp = _opendp()
    return float(
        dp.binary_search_param(
            lambda s: opendp_measurement(n, 0.0, 1.0, s, mechanism), d_in=OPENDP_D_IN, d_out=budget
        )
    )


#: Doublings of the noise scale tried before :func:`opendp_scale` gives up (2**1100 spans floats).
MAX_DOUBLINGS = 1100
#: Bisection steps after the bracket (the bracket's relative width halves each step).
MAX_BISECTIONS = 80
#: Relative width of the final bracket: the scale returned is within this of the smallest one.
SCALE_RTOL = 1e-12


def _accepted(
    n: int, lower: float, upper: float, scale: float, budget: float, mechanism: Mechanism
) -> Any:
    """OpenDP's measurement at ``scale`` when its map meets ``budget``, else ``None``."""
    if not math.isfinite(scale) or scale <= 0.0:
        return None
    try:
        meas = opendp_measurement(n, lower, upper, scale, mechanism)
        ok = meas.map(OPENDP_D_IN) <= budget
    except Exception:  # noqa: BLE001 - OpenDP refuses a scale it cannot represent
        return None
    return meas if ok else None


@functools.lru_cache(maxsize=4096)
def _search_scale(n: int, lower: float, upper: float, budget: float, mechanism: Mechanism) -> float:
    start = _unit_scale(n, budget, mechanism) * (upper - lower)
    if not math.isfinite(start) or start <= 0.0:
        raise ValueError(
            f"no OpenDP noise scale for bounds [{lower:g}, {upper:g}] at n = {n}: the range "
            "gives a scale of zero or infinity."
        )
    if _accepted(n, lower, upper, start, budget, mechanism) is not None:
        return start
    low, high = start, start * 2.0
    for _ in range(MAX_DOUBLINGS):
        if _accepted(n, lower, upper, high, budget, mechanism) is not None:
            break
        low, high = high, high * 2.0
    else:
        high = math.inf
    if not math.isfinite(high):
        raise ValueError(
            f"OpenDP's privacy map accepts no finite noise scale for bounds [{lower:g}, "
            f"{upper:g}] at n = {n} and budget {budget:g} (the range is too narrow for its offset "
            "in floating point); use wider or centred bounds."
        )
    for _ in range(MAX_BISECTIONS):
        if high - low <= SCALE_RTOL * high:
            break
        mid = 0.5 * (low + high)
        if _accepted(n, lower, upper, mid, budget, mechanism) is not None:
            high = mid
        else:
            low = mid
    return high


def opendp_scale(
    n: int, lower: float, upper: float, budget: float, mechanism: Mechanism
) -> tuple[Any, float]:
    """The smallest noise scale OpenDP's privacy map accepts for ``budget``, and its measurement.

    ``dp.binary_search_param`` finds the scale on the unit range once per ``(n, budget)``; the
    scale for ``[lower, upper]`` starts from it times the width and is *checked* with OpenDP's own
    map (``meas.map(2) <= budget``). When the map refuses it (OpenDP adds the floating-point error
    of its sum, large for a range narrow for its offset), the scale is doubled until the map
    accepts it (at most :data:`MAX_DOUBLINGS` times), then bisected to a relative
    :data:`SCALE_RTOL` (at most :data:`MAX_BISECTIONS` steps): at most about 1,200 calls of the map.

    Returns
    -------
    (measurement, scale)
        OpenDP's measurement at the scale returned, whose map meets ``budget``.

    Raises
    ------
    ValueError
        When no finite scale is accepted (bounds one ulp wide far from zero, say).

    References
    ----------
    OpenDP ``binary_search_param`` and ``Measurement.map``.

    Examples
    --------
    >>> _, scale = opendp_scale(100, 0.0, 1.0, 1.0, "laplace")
    >>> round(scale, 6)
    0.01
    """
    n, lower, upper, budget = int(n), float(lower), float(upper), float(budget)
    scale = _search_scale(n, lower, upper, budget, mechanism)
    meas = _accepted(n, lower, upper, scale, budget, mechanism)
    if meas is None:  # the map is deterministic: a cached scale is accepted again
        raise ValueError(f"OpenDP's privacy map refused the scale {scale:g} it accepted before.")
    return meas, scale


def _sensitivity(n: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Replace-one sensitivity of the clamped mean per coordinate: ``(upper - lower) / n``."""
    return (hi - lo) / n


def _record(
    ledger: Ledger,
    stage_name: str,
    budget: float,
    *,
    sens: np.ndarray,
    scales: np.ndarray,
    per: float,
    mechanism: Mechanism,
    note: str,
) -> None:
    """One ledger line for a peer library's release (the coordinate with the least noise to spare).

    ``ratio`` per coordinate is the scale used over the scale the budget requires (``Δ/ε`` for
    Laplace, ``Δ/√(2ρ)`` for Gaussian); the line records the smallest, which is ``>= 1``.
    """
    required = sens / per if mechanism == "laplace" else sens / math.sqrt(2.0 * per)
    ratios = scales / required
    j = int(np.argmin(ratios))
    with mechanisms.stage(ledger, stage_name):
        mechanisms.external(
            budget,
            notion="pure" if mechanism == "laplace" else "zcdp",
            mechanism=mechanism,
            sensitivity=float(sens[j]),
            scale=float(scales[j]),
            ratio=float(ratios[j]),
            note=note,
        )


def _opendp_mean(x: Any, bounds: Any, budget: float, mechanism: Mechanism) -> Estimate:
    arr = check_data(x, ndim=2, min_rows=2)
    n, d = arr.shape
    lo, hi = check_bounds(bounds, d)
    if budget < limits.MIN_PEER_BUDGET:
        raise ValueError(
            f"the OpenDP peers need a budget of at least {limits.MIN_PEER_BUDGET:g} "
            f"(dpcore.limits.MIN_PEER_BUDGET: OpenDP's scale search takes minutes below it); "
            f"got {budget:g}. Use a larger budget."
        )
    per = budget / d
    means = np.empty(d)
    scales = np.empty(d)
    maps = np.empty(d)
    # One OpenDP measurement per coordinate (its mean is scalar); cached scales make this cheap.
    for j in range(d):
        meas, scales[j] = opendp_scale(n, float(lo[j]), float(hi[j]), per, mechanism)
        maps[j] = meas.map(OPENDP_D_IN)
        means[j] = meas(
            np.array(arr[:, j], dtype=float)
        )  # a writable copy (OpenDP rejects read-only arrays)
    unit = "ε" if mechanism == "laplace" else "ρ"
    ledger = Ledger("pure" if mechanism == "laplace" else "zcdp")
    _record(
        ledger,
        f"OpenDP mean ({mechanism})",
        budget,
        sens=_sensitivity(n, lo, hi),
        scales=scales,
        per=per,
        mechanism=mechanism,
        note=f"{d} coordinate(s) at {unit} = {per:.6g} each (OpenDP map at d_in = 2); composed",
    )
    clipped = (arr < lo) | (arr > hi)
    noise_std = scales * (math.sqrt(2.0) if mechanism == "laplace" else 1.0)
    return Estimate(
        mean=means,
        ledger=ledger,
        diagnostics=PeerDiagnostics(
            noiseless_mean=np.clip(arr, lo, hi).mean(axis=0),
            clip_interval=(lo, hi),
            clipped=clipped,
            noise_std=noise_std,
            scale=scales,
            privacy_map=maps,
            library="opendp",
            version=library_version("opendp"),
        ),
    )


# --------------------------------------------------------------------------------------------
# diffprivlib


def _diffprivlib_mean(x: Any, bounds: Any, epsilon: float, rng: RngLike) -> Estimate:
    """``diffprivlib.tools.mean(x, epsilon, bounds, axis=0)`` (see :class:`PeerOptions`)."""
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.tools import mean as dpl_mean

    eps = check_positive(epsilon, "epsilon")
    arr = check_data(x, ndim=2, min_rows=2)
    n, d = arr.shape
    lo, hi = check_bounds(bounds, d)
    g = mechanisms.generator(rng)
    state = (  # diffprivlib's API; a release backend leaves diffprivlib its own generator
        None
        if getattr(g, "is_release_backend", False)
        else np.random.RandomState(int(g.integers(2**32)))  # noqa: NPY002
    )
    means = np.atleast_1d(
        np.asarray(
            dpl_mean(
                arr,
                epsilon=eps,
                bounds=(lo, hi),
                axis=0,
                random_state=state,
                accountant=BudgetAccountant(),
            ),
            dtype=float,
        )
    )
    scales = (hi - lo) / (n * eps / d)
    ledger = Ledger("pure")
    _record(
        ledger,
        "diffprivlib mean",
        eps,
        sens=_sensitivity(n, lo, hi),
        scales=scales,
        per=eps / d,
        mechanism="laplace",
        note=f"{d} coordinate(s) at ε = {eps / d:.6g} each (split by diffprivlib)",
    )
    return Estimate(
        mean=means,
        ledger=ledger,
        diagnostics=PeerDiagnostics(
            noiseless_mean=np.clip(arr, lo, hi).mean(axis=0),
            clip_interval=(lo, hi),
            clipped=(arr < lo) | (arr > hi),
            noise_std=math.sqrt(2.0) * scales,
            scale=scales,
            library="diffprivlib",
            version=library_version("diffprivlib"),
        ),
    )


# --------------------------------------------------------------------------------------------
# the options records and their registration (only for the libraries that import)


@dataclass(frozen=True, kw_only=True)
class PeerOptions(EstimatorOptions):
    """A peer library's mean of each coordinate, called as ``opendp_laplace_mean(x, epsilon=...,
    bounds=...)``, ``opendp_gaussian_mean(x, rho=..., bounds=...)`` or
    ``diffprivlib_mean(x, epsilon=..., bounds=..., rng=...)``.

    Attributes
    ----------
    library : {"opendp", "diffprivlib"}
        OpenDP's clamp → ``make_mean`` → ``make_laplace`` / ``make_gaussian`` per coordinate at
        budget/d, or ``diffprivlib.tools.mean(x, epsilon, bounds, axis=0)`` (ε/d per coordinate).
    notion : {"pure", "zcdp"}
        The budget, ``epsilon`` (Laplace) or ``rho`` (OpenDP's Gaussian), split equally over the
        ``d`` coordinates.

    A call also takes ``x`` of shape (n, d) (clamped to ``bounds`` by the library), ``bounds =
    (lower, upper)``, public scalars or length-``d`` arrays, and ``rng``: ignored by OpenDP, which
    draws from its own unseedable secure generator; diffprivlib's ``random_state`` is seeded from
    it (a ``RandomState`` from one 32-bit draw).

    Returns
    -------
    Estimate
        ``diagnostics.scale`` holds the noise scales: those OpenDP's privacy map accepted (about
        ``(upper - lower) / (n ε/d)`` for Laplace, ``(upper - lower) / (n sqrt(2 ρ/d))`` for
        Gaussian; ``diagnostics.privacy_map`` the map's value per coordinate), or the Laplace
        scale ``(upper - lower) / (n ε/d)`` diffprivlib's sensitivity implies (its noise is then
        truncated to the bounds).

    Privacy
    -------
    One record replaced, ``n`` public: ε-DP (Laplace) or ρ-zCDP (Gaussian), the library's own
    calibration; the ledger records it per coordinate.

    References
    ----------
    OpenDP ``make_mean``, ``make_laplace`` and ``make_gaussian``; Holohan et al. (2019),
    ``diffprivlib.tools.mean`` and ``LaplaceTruncated``; module docstring.
    """

    library: Literal["opendp", "diffprivlib"] = "opendp"
    notion: Literal["pure", "zcdp"] = "pure"
    fixed: tuple[str, ...] = field(default=("library", "notion"), compare=False)

    def run(self, x: Any, *, rng: RngLike, bounds: Any = None, **budget: Any) -> Estimate:
        """The library's mean; ``budget`` is ``epsilon=`` or ``rho=``."""
        if self.library == "diffprivlib":
            return _diffprivlib_mean(x, bounds, budget["epsilon"], rng)
        if self.notion == "pure":
            return _opendp_mean(x, bounds, check_positive(budget["epsilon"], "epsilon"), "laplace")
        return _opendp_mean(x, bounds, check_positive(budget["rho"], "rho"), "gaussian")


opendp_laplace_mean = PeerOptions(name="opendp_laplace_mean")
opendp_gaussian_mean = PeerOptions(notion="zcdp", name="opendp_gaussian_mean")
diffprivlib_mean = PeerOptions(library="diffprivlib", name="diffprivlib_mean")

#: The opt-in group of other libraries' means.
PEER_FAMILY = Family(
    family=PEERS,
    data_kinds=frozenset({"real", "bounded"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)

_OPENDP = library_version("opendp")
_DIFFPRIVLIB = library_version("diffprivlib")

if _OPENDP is not None:
    PEER_FAMILY.register(
        "peer_opendp_laplace",
        "OpenDP mean (Laplace)",
        500,
        opendp_laplace_mean,
        color="#8c510a",
        detail=f"OpenDP {_OPENDP} mean (Laplace)",
        seeded=False,
        description=(
            "OpenDP's clamp → make_mean → Laplace per coordinate at ε/d; ε-DP under symmetric "
            "distance 2 with n known (one record replaced); noise scale from OpenDP's privacy "
            "map. Not seedable (OpenDP's own secure generator)."
        ),
    )
    PEER_FAMILY.register(
        "peer_opendp_gauss",
        "OpenDP mean (Gaussian)",
        510,
        opendp_gaussian_mean,
        color="#bf812d",
        detail=f"OpenDP {_OPENDP} mean (Gaussian)",
        seeded=False,
        description=(
            "OpenDP's clamp → make_mean → Gaussian per coordinate at ρ/d; ρ-zCDP under symmetric "
            "distance 2 with n known (one record replaced); noise scale from OpenDP's privacy "
            "map. Not seedable (OpenDP's own secure generator)."
        ),
    )
if _DIFFPRIVLIB is not None:
    PEER_FAMILY.register(
        "peer_diffprivlib",
        "diffprivlib mean",
        520,
        diffprivlib_mean,
        color="#01665e",
        detail=f"diffprivlib {_DIFFPRIVLIB} tools.mean",
        description=(
            "IBM diffprivlib's mean with bounds: clip, then truncated Laplace with sensitivity "
            "(upper − lower)/n per coordinate at ε/d; ε-DP, one record replaced, n public. "
            "Seeded through random_state."
        ),
    )
