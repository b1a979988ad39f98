"""The experiment engine: a plain, serialisable config in, a tidy data frame of errors out.

An experiment is an :class:`ExperimentConfig` (JSON on disk): the data generator and its
parameters, the estimators and their parameters, one user budget and its unit, the sweep (over
``budget``, ``n``, ``d`` and/or ``skew``; several keys make a grid), the number of repetitions and
the seed. :func:`run` returns one row per (estimator, setting, repetition) with

* the error in every norm (``err_l1``, ``err_l2``, ``err_linf``; ``err_tv`` = ½ℓ1 for binary data),
* its split into sampling error, clipping bias and DP noise (``sampling_*``, ``clipping_*``,
  ``noise_*``; the identity of specs/plan.md §2, computed with :mod:`dpcore.metrics`),
* the budget in the user's unit, in the estimator's native unit (``native_budget``,
  ``native_unit``), the conversion rule applied (``conversion``) and the ledger total, and
* the time the estimator took (``seconds``).

Fair budgets
------------
One user budget (ε, (ε, δ) or ρ) is converted to each estimator's native notion by
:meth:`dpcore.privacy.Budget.to_native`; every conversion used is a valid implication, so each
estimator satisfies the user's guarantee (pure-DP estimators under a ρ budget run at
``ε = sqrt(2ρ)``, which implies ρ-zCDP). The rule is recorded in every row. Under a pure ε budget
(``unit="eps"``) zCDP estimators are skipped, with the reason in ``frame.attrs["skipped"]``: ε-DP
implies ε²/2-zCDP, but nothing turns a zCDP guarantee into ε-DP, so they cannot be run at "the same
budget" nor ranked with the ε-DP estimators (DESIGN.md).

Randomness and reproducibility
------------------------------
Every random stream is a child of ``SeedSequence(config.seed)`` addressed by *content*, not by
position: the dataset of repetition ``r`` is the child ``(0, key(data setting), r)`` and the noise
of estimator ``e`` at setting ``s`` in repetition ``r`` is ``(1, key(e), key(s), r)``, where
``key`` is a CRC-32 of a canonical JSON string. ``SeedSequence(seed, spawn_key=path)`` is exactly
the stream that repeated :meth:`numpy.random.SeedSequence.spawn` reaches along ``path``. Hence

* the same config and seed give the identical frame (all columns but ``seconds``), whatever the
  executor, the number of workers or the order in which tasks finish;
* adding or removing an estimator, or a sweep value, leaves every other row unchanged;
* all estimators see the same datasets (common random numbers), and so do all budgets of a
  budget sweep: the curves compare estimators, not luck.

Repetitions are vectorised where an estimator allows it: with ``resample="noise"`` (one dataset
per setting, repetitions redraw only the privacy noise) the simplex-family estimators release all
repetitions in one vectorised call of their ``*_draws`` function; everything else (and every
estimator under the default ``resample="data"``, a fresh dataset per repetition as in the PLAN
paper's experiments) runs once per repetition on its own child stream. The error norms are
computed for all rows of a task at once.

Parallel runs
-------------
``executor=`` takes any :class:`concurrent.futures.Executor` (threads, processes, or a Dask /
Ray executor). A task is one (dataset, repetition): it generates the data once and runs every
estimator at every budget on it. Tasks and results are plain picklable values; workers look the
estimators up by name in the registry (estimators registered only inside a notebook are not
visible to a fresh worker process).

Command line
------------
``python -m dpcore.experiments CONFIG.json --out DIR`` writes ``results.csv``, ``config.json``
(the config actually used), ``summary.csv`` and the figures (HTML always; PNG when static export
works), with a tqdm progress bar. Shipped configs: ``dpcore/configs/*.json`` (:func:`shipped_configs`).

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024,
Section 7, Table 1 (specs/plan.md §7); error identity specs/plan.md §2.
NumPy SPEC 7 and :class:`numpy.random.SeedSequence` (child streams).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, as_completed
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dpcore import limits, registry
from dpcore.data import DISTRIBUTIONS, Dataset, generate
from dpcore.export import to_csv
from dpcore.metrics import lp_error, tv_error
from dpcore.privacy import Budget

SWEEPABLE = ("budget", "n", "d", "skew")
NORMS = ("l1", "l2", "linf", "tv")
_P = {"l1": 1.0, "l2": 2.0, "linf": np.inf}
UNIT_LABEL = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}
NATIVE_UNIT = {"pure": "ε", "zcdp": "ρ", "none": "-"}

#: The main estimators per data kind (the page's default selection). ``None`` entries are
#: placeholders replaced by the winsorized mean in the user's notion (pure ε or zCDP).
MAIN_ESTIMATORS: dict[str, list[str]] = {
    "real": ["empirical", "plan", "iome_paper", "gaussian_private", "pmwm*"],
    "bounded": ["empirical", "plan", "iome_paper", "gaussian_private", "pmwm*", "simplex_known_n_gauss_replace"],
    "binary": ["empirical", "plan_l1", "iome_paper", "binary_pde", "binary_klsu_zcdp", "gaussian_private"],
}

#: The main estimators per data kind under a pure ε budget, which zCDP estimators cannot meet:
#: ε-DP estimators only.
MAIN_PURE_ESTIMATORS: dict[str, list[str]] = {
    "real": ["empirical", "pmwm", "clipped_laplace"],
    "bounded": ["empirical", "pmwm", "clipped_laplace", "simplex_laplace", "simplex_known_n_laplace_replace"],
    "binary": ["empirical", "binary_pde", "binary_naive_laplace", "binary_truncated_laplace"],
}

#: Columns of the frame :func:`run` returns, in order.
COLUMNS: tuple[str, ...] = (
    "estimator", "name", "label", "family", "notion", "neighbouring", "color",
    "setting", "distribution", "kind", "n", "d", "skew", "rep",
    "budget", "unit", "delta", "native_budget", "native_unit", "conversion", "ledger_total",
    *(f"{k}_{m}" for m in NORMS for k in ("err", "sampling", "clipping", "noise")),
    "fraction_clipped", "noise_std_l2", "warnings", "failed", "seconds",
)


def default_estimators(kind: str, unit: str = "rho", d: int | None = None) -> list[str]:
    """The page's default subset for data of ``kind``: the main estimators that apply.

    For real data: the empirical mean, PLAN, IOME as run in the PLAN paper, the Gaussian
    mechanism (private centre and radius) and the coordinate-wise winsorized mean (PMWM) in the
    user's notion (pure ε when the budget is in ε, its zCDP variant otherwise). Under a pure ε
    budget zCDP estimators are left out: they cannot meet it (:func:`zcdp_skip_reason`); the
    ε-DP estimators of :data:`MAIN_PURE_ESTIMATORS` are the default then.
    """
    main = MAIN_PURE_ESTIMATORS if unit == "eps" else MAIN_ESTIMATORS
    names = [("pmwm" if unit == "eps" else "pmwm_zcdp") if n == "pmwm*" else n
             for n in main.get(kind, ["empirical"])]
    ok = {s.name for s in registry.applicable(kind, d) if unit != "eps" or s.notion != "zcdp"}
    return [n for n in names if n in ok]


def zcdp_skip_reason(spec: registry.EstimatorSpec, unit: str) -> str | None:
    """Why ``spec`` is not run under a budget in ``unit``, or ``None`` when it can meet it.

    A zCDP estimator cannot meet a pure ε budget: ε-DP implies ε²/2-zCDP, never the reverse.
    """
    if unit != "eps" or spec.notion != "zcdp":
        return None
    return (f"{spec.label} skipped: it is ρ-zCDP, and a pure ε budget cannot be met by a zCDP estimator "
            "(ε-DP implies ε²/2-zCDP, not the other way round). At ρ = ε²/2 it would give only (ε′, δ)-DP, "
            "not ε-DP; give the budget as (ε, δ) or ρ to compare it.")


def default_metric(kind: str) -> str:
    """The PLAN paper's metric: ℓ2 for real data, ½ℓ1 (``tv``) for binary data (specs/plan.md §7)."""
    return "tv" if kind == "binary" else "l2"


# --------------------------------------------------------------------------------------------
# config


_JSON_NAME = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object"}
_NUM = (int, float)  # "an integer or a number": JSON has one number type
#: The JSON types each config field accepts (checked before anything else reads a value).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,), "description": (str,), "notes": (str,), "distribution": (str,), "unit": (str,),
    "conversion": (str,), "truth": (str,), "resample": (str,), "metric": (str, type(None)),
    "data_params": (dict,), "n": (int,), "d": (int,), "repetitions": (int,), "seed": (int,),
    "skew": (*_NUM, type(None)), "budget": _NUM, "delta": _NUM, "estimators": (list, tuple),
    "sweep": (dict,), "bounds": (dict, type(None)),
}


def _reject_constant(name: str) -> float:
    raise ValueError(f"the config holds {name}, which is not a number JSON allows; use a finite number.")


def _check_depth(text: str) -> None:
    """Reject JSON nested deeper than :data:`dpcore.limits.MAX_JSON_DEPTH` before parsing it
    (deep nesting would otherwise end in a ``RecursionError``)."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limits.MAX_JSON_DEPTH:
                raise ValueError(f"the config is nested more than {limits.MAX_JSON_DEPTH} levels deep; "
                                 "a config is a flat object of values, lists and small objects.")
        elif ch in "]}":
            depth -= 1


def _check_data_params(cfg: ExperimentConfig) -> None:
    """Try the generator's keyword arguments on a two-row sample, so a wrong one fails here, by name."""
    try:
        generate(cfg.distribution, 2, int(cfg.d), cfg.base_skew(), rng=0, **cfg.data_params)
    except (TypeError, ValueError, OverflowError, KeyError, IndexError) as err:
        raise ValueError(f"data_params {json.dumps(cfg.data_params)[:200]} do not suit the "
                         f"{cfg.distribution!r} generator: {err}") from None


@dataclass
class ExperimentConfig:
    """A plain, JSON-serialisable experiment.

    Attributes
    ----------
    name, description : str
        For file names and captions.
    distribution : str
        A key of :data:`dpcore.data.DISTRIBUTIONS`.
    data_params : dict
        Extra keyword arguments of the generator (e.g. ``{"mean": 0.0}``).
    n, d : int
        Rows and columns (base values; a sweep overrides them).
    skew : float or None
        The generator's skew α (``None``: the distribution's default).
    budget : float
        Base budget value in ``unit``.
    unit : {"rho", "eps", "eps_delta"}
        The user's privacy unit (``eps_delta`` uses ``delta``).
    delta : float
        δ for ``unit="eps_delta"``.
    conversion : {"cks", "standard"}
        (ε, δ) → ρ conversion rule.
    estimators : list of str or dict
        Registry names, or ``{"name": ..., "params": {...}, "id": ...}`` (``id`` names the row
        when one estimator appears twice with different parameters).
    sweep : dict
        ``{key: [values]}`` with keys in ``budget``, ``n``, ``d``, ``skew``; several keys form a grid.
    repetitions : int
        Runs per (estimator, setting).
    seed : int
        Root of every random stream.
    truth : {"population", "empirical"}
        Score against the population mean (default) or the sample mean (noise + clipping only, as
        the PLAN paper's Gaussian C).
    resample : {"data", "noise"}
        ``"data"``: a fresh dataset every repetition (the paper's protocol). ``"noise"``: one
        dataset per setting; repetitions redraw only the privacy noise.
    bounds : dict or None
        Public prior range replacing the generator's: ``{"half_width": h, "scale": s, "center": c}``
        with ``s`` in ``"1"``, ``"sqrt_d"`` (``h·sqrt(d)``, PLAN's Gaussian A) or
        ``"d_sqrt_max_sigma"`` (``h·d·sqrt(max σ)``, Gaussian B/C in the authors' code);
        ``center`` defaults to the generator's mean.
    metric : str or None
        The headline norm (``None``: ℓ2, or ``tv`` for binary data).
    notes : str
        Free text (e.g. how a shipped config departs from the paper).
    """

    name: str = "comparison"
    description: str = ""
    distribution: str = "gaussian"
    data_params: dict[str, Any] = field(default_factory=dict)
    n: int = 2000
    d: int = 32
    skew: float | None = 2.0
    budget: float = 0.5
    unit: str = "rho"
    delta: float = 1e-6
    conversion: str = "cks"
    estimators: list[Any] = field(default_factory=lambda: default_estimators("real"))
    sweep: dict[str, list[float]] = field(default_factory=lambda: {"budget": [0.0625, 0.125, 0.25, 0.5, 1.0]})
    repetitions: int = 10
    seed: int = 0
    truth: str = "population"
    resample: str = "data"
    bounds: dict[str, Any] | None = None
    metric: str | None = None
    notes: str = ""

    # ---- (de)serialisation -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain values only (what :meth:`to_json` writes)."""
        return json.loads(json.dumps(asdict(self)))

    def to_json(self, indent: int | None = 2) -> str:
        """The config as JSON (keys in a fixed order, so equal configs give equal strings)."""
        return json.dumps(asdict(self), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> ExperimentConfig:
        """Build from a mapping; unknown keys are an error (typos would silently do nothing)."""
        if not isinstance(values, Mapping):
            raise ValueError(f"an experiment config must be a JSON object; got {type(values).__name__}.")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown config key(s) {unknown}; allowed keys: {sorted(known)}.")
        cfg = cls(**dict(values))
        cfg.validate()
        return cfg

    @classmethod
    def from_json(cls, text: str | bytes) -> ExperimentConfig:
        """Parse a JSON config (a ``ValueError`` explains a malformed file)."""
        if isinstance(text, bytes | bytearray):
            try:
                text = bytes(text).decode("utf-8-sig")
            except UnicodeDecodeError as err:
                raise ValueError("the config is not UTF-8 text; save it as a .json text file.") from err
        if len(text) > limits.MAX_CONFIG_CHARS:
            raise ValueError(f"the config has {len(text):,} characters; the limit is {limits.MAX_CONFIG_CHARS:,} "
                             "(dpcore.limits). A config is a few kB of JSON.")
        _check_depth(text)
        try:
            values = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as err:
            raise ValueError(f"the config is not valid JSON ({err}); fix the file or download a fresh one.") from err
        return cls.from_dict(values)

    @classmethod
    def load(cls, path: str | Path) -> ExperimentConfig:
        """Read a config file."""
        return cls.from_json(Path(path).read_text(encoding="utf-8"))

    @classmethod
    def coerce(cls, config: ExperimentConfig | Mapping[str, Any] | str | Path) -> ExperimentConfig:
        """Accept a config, a mapping, a JSON string or a path."""
        if isinstance(config, cls):
            config.validate()
            return config
        if isinstance(config, Mapping):
            return cls.from_dict(config)
        if type(config).__name__ == cls.__name__ and hasattr(config, "to_dict"):  # same class, other module object
            return cls.from_dict(config.to_dict())
        if isinstance(config, Path) or (isinstance(config, str) and not config.lstrip().startswith("{")):
            return cls.load(config)
        if isinstance(config, str | bytes):
            return cls.from_json(config)
        raise ValueError(f"config must be an ExperimentConfig, a dict, JSON text or a path; got {type(config).__name__}.")

    # ---- validation ------------------------------------------------------------------------------

    def validate(self) -> None:
        """Raise ``ValueError`` naming the field and the fix (limits: :mod:`dpcore.limits`)."""
        for f in fields(self):
            allowed = _FIELD_TYPES[f.name]
            v = getattr(self, f.name)
            if isinstance(v, bool) and bool not in allowed or not isinstance(v, allowed):
                names = " or ".join("null" if t is type(None) else _JSON_NAME.get(t, t.__name__) for t in allowed)
                raise ValueError(f"{f.name} must be {names}; got {v!r:.80}.")
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"{f.name} must be a finite number; got {v!r}.")
        if self.distribution not in DISTRIBUTIONS:
            raise ValueError(f"distribution must be one of {list(DISTRIBUTIONS)}; got {self.distribution!r}.")
        if not isinstance(self.data_params, dict):
            raise ValueError("data_params must be a JSON object of generator keyword arguments.")
        for key in ("n", "d", "repetitions", "seed"):
            v = getattr(self, key)
            lo = {"n": 2, "d": 1, "repetitions": 1, "seed": 0}[key]
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < lo:
                raise ValueError(f"{key} must be an integer >= {lo}; got {v!r}.")
        limits.check_repetitions(self.repetitions)
        limits.check_int(self.seed, "seed", 0, 2**63 - 1)
        if self.unit not in UNIT_LABEL:
            raise ValueError(f"unit must be 'rho', 'eps' or 'eps_delta'; got {self.unit!r}.")
        if self.conversion not in ("cks", "standard"):
            raise ValueError(f"conversion must be 'cks' or 'standard'; got {self.conversion!r}.")
        if self.truth not in ("population", "empirical"):
            raise ValueError(f"truth must be 'population' or 'empirical'; got {self.truth!r}.")
        if self.resample not in ("data", "noise"):
            raise ValueError(f"resample must be 'data' (fresh data per repetition) or 'noise'; got {self.resample!r}.")
        if self.metric is not None and self.metric not in NORMS:
            raise ValueError(f"metric must be one of {list(NORMS)} or null; got {self.metric!r}.")
        if not isinstance(self.sweep, dict):
            raise ValueError("sweep must be a JSON object such as {\"budget\": [0.125, 0.25, 0.5]}.")
        for key, values in self.sweep.items():
            if key not in SWEEPABLE:
                raise ValueError(f"sweep keys must be among {list(SWEEPABLE)}; got {key!r}.")
            if not isinstance(values, list | tuple) or len(values) == 0:
                raise ValueError(f"sweep[{key!r}] must be a non-empty list of values.")
            for v in values:
                if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                    raise ValueError(f"sweep[{key!r}] must hold finite numbers; got {v!r:.80}.")
        grid = math.prod(len(v) for v in self.sweep.values())
        if grid > limits.MAX_GRID:
            raise ValueError(f"the sweep grid has {grid:,} points; the limit is {limits.MAX_GRID} "
                             "(dpcore.limits). Sweep fewer values.")
        if not isinstance(self.estimators, list | tuple) or not self.estimators:
            raise ValueError("estimators must be a non-empty list of registry names (see dpcore.registry.all_estimators()).")
        if len(self.estimators) > limits.MAX_ESTIMATORS:
            raise ValueError(f"a config runs at most {limits.MAX_ESTIMATORS} estimators; got {len(self.estimators)}.")
        entries = self.estimator_entries()
        for e in entries:
            registry.get(e["name"])  # an unknown name raises a ValueError listing the known ones
        ids = [e["id"] for e in entries]
        if len(set(ids)) != len(ids):
            raise ValueError(f"estimator ids must be unique; got {ids}. Give repeated estimators an 'id'.")
        spec = DISTRIBUTIONS[self.distribution]
        work = 0
        for s in self.settings():
            Budget.from_unit(self.unit, s["budget"], self.delta)  # raises on budget <= 0
            lo, hi = spec.skew_range
            if not lo <= s["skew"] <= hi:
                raise ValueError(f"skew for {spec.label} must be in [{lo:g}, {hi:g}]; got {s['skew']!r}.")
            for key, lo_ in (("n", 2), ("d", 1)):
                if s[key] < lo_ or s[key] != int(s[key]):
                    raise ValueError(f"sweep values of {key} must be integers >= {lo_}; got {s[key]!r}.")
            limits.check_size(s["n"], s["d"])
            work += self.repetitions * s["n"] * s["d"] * len(entries)
        if work > limits.MAX_WORK:
            raise ValueError(f"the config asks for {work:.3g} estimator-cell evaluations (repetitions × n × d × "
                             f"estimators, summed over the grid); the limit is {limits.MAX_WORK:.3g} "
                             "(dpcore.limits). Use fewer repetitions, a smaller grid or smaller n·d.")
        _check_data_params(self)
        if self.bounds is not None:
            if not isinstance(self.bounds, dict) or "half_width" not in self.bounds:
                raise ValueError("bounds must be null or {\"half_width\": h, \"scale\": \"1\"|\"sqrt_d\"|\"d_sqrt_max_sigma\"}.")
            if self.bounds.get("scale", "1") not in ("1", "sqrt_d", "d_sqrt_max_sigma"):
                raise ValueError(f"bounds.scale must be '1', 'sqrt_d' or 'd_sqrt_max_sigma'; got {self.bounds.get('scale')!r}.")
            h = self.bounds["half_width"]
            if isinstance(h, bool) or not isinstance(h, int | float) or not 0 < h <= limits.MAX_ABS_VALUE:
                raise ValueError(f"bounds.half_width must be a number in (0, {limits.MAX_ABS_VALUE:g}]; got {h!r:.80}.")
            c = self.bounds.get("center", 0.0)
            if isinstance(c, bool) or not isinstance(c, int | float) or not abs(c) <= limits.MAX_ABS_VALUE:
                raise ValueError(f"bounds.center must be a finite number; got {c!r:.80}.")

    # ---- derived --------------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """Data kind of the distribution (``real``, ``bounded`` or ``binary``)."""
        return DISTRIBUTIONS[self.distribution].kind

    @property
    def headline_metric(self) -> str:
        return self.metric or default_metric(self.kind)

    def base_skew(self) -> float:
        return float(DISTRIBUTIONS[self.distribution].default_skew if self.skew is None else self.skew)

    def estimator_entries(self) -> list[dict[str, Any]]:
        """Estimators as ``{"id", "name", "params"}`` dicts."""
        out = []
        for e in self.estimators:
            if isinstance(e, str):
                out.append({"id": e, "name": e, "params": {}})
            elif isinstance(e, Mapping) and "name" in e:
                unknown = set(e) - {"id", "name", "params"}
                if unknown:
                    raise ValueError(f"estimator entries take keys id, name, params; got {sorted(unknown)}.")
                out.append({"id": str(e.get("id", e["name"])), "name": str(e["name"]),
                            "params": dict(e.get("params", {}))})
            else:
                raise ValueError(f"each estimator must be a name or {{'name': ..., 'params': {{...}}}}; got {e!r}.")
        return out

    def settings(self) -> list[dict[str, Any]]:
        """Every point of the sweep grid, in order: ``{"n", "d", "skew", "budget"}``."""
        base = {"n": int(self.n), "d": int(self.d), "skew": self.base_skew(), "budget": float(self.budget)}
        keys = [k for k in SWEEPABLE if k in self.sweep]
        out = []
        for combo in itertools.product(*(self.sweep[k] for k in keys)):
            s = dict(base)
            for k, v in zip(keys, combo, strict=True):
                s[k] = int(v) if k in ("n", "d") else float(v)
            out.append(s)
        return out

    def x_axis(self) -> str:
        """The swept key drawn on the x axis by default (the first of budget, n, d, skew swept with > 1 value)."""
        multi = [k for k in self.sweep if len(self.sweep[k]) > 1]
        for k in SWEEPABLE:
            if k in multi:
                return k
        return next(iter(self.sweep), "budget")

    def code(self) -> str:
        """The dpcore calls that reproduce this experiment in a notebook."""
        return ("from dpcore.experiments import ExperimentConfig, run\n"
                f"config = ExperimentConfig.from_json({self.to_json(indent=None)!r})\n"
                "frame = run(config)  # one row per (estimator, setting, repetition)\n")


# --------------------------------------------------------------------------------------------
# seeds


def _key(*parts: Any) -> int:
    """A stable 32-bit key of plain values (CRC-32 of canonical JSON)."""
    return zlib.crc32(json.dumps(parts, sort_keys=True, default=str).encode())


def child_seed(seed: int, *path: int) -> np.random.SeedSequence:
    """The child of ``SeedSequence(seed)`` along ``path``: identical to calling
    ``.spawn(path[0] + 1)[path[0]].spawn(path[1] + 1)[path[1]]...`` on the root."""
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(p) for p in path))


def _data_key(cfg: ExperimentConfig, n: int, d: int, skew: float) -> int:
    return _key("data", cfg.distribution, cfg.data_params, cfg.bounds, int(n), int(d), float(skew))


def _setting_key(s: Mapping[str, Any], cfg: ExperimentConfig) -> int:
    return _key("setting", int(s["n"]), int(s["d"]), float(s["skew"]), float(s["budget"]), cfg.unit,
                cfg.delta if cfg.unit == "eps_delta" else None, cfg.conversion)


def make_dataset(cfg: ExperimentConfig, n: int, d: int, skew: float, rep: int) -> Dataset:
    """The dataset of repetition ``rep`` at ``(n, d, skew)`` (the same one every estimator sees).

    With ``resample="noise"`` the repetition index is ignored (one dataset per setting).
    """
    r = 0 if cfg.resample == "noise" else int(rep)
    rng = np.random.default_rng(child_seed(cfg.seed, 0, _data_key(cfg, n, d, skew), r))
    ds = generate(cfg.distribution, int(n), int(d), float(skew), rng=rng, **cfg.data_params)
    if cfg.bounds is not None:
        ds = replace(ds, bounds=public_bounds(cfg.bounds, ds))
    return ds


def public_bounds(spec: Mapping[str, Any], ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """The public range of ``spec`` (see :class:`ExperimentConfig` ``bounds``) for dataset ``ds``.

    Only the dimension and the generator's *parameters* (its mean and σ profile) are used, never
    the sample, so the range is public.
    """
    h = float(spec["half_width"])
    scale = spec.get("scale", "1")
    if scale == "sqrt_d":
        h *= math.sqrt(ds.d)
    elif scale == "d_sqrt_max_sigma":
        h *= ds.d * math.sqrt(float(np.max(ds.true_std)))
    center = float(spec.get("center", ds.params.get("mean", float(np.mean(ds.true_mean)))))
    return np.full(ds.d, center - h), np.full(ds.d, center + h)


# --------------------------------------------------------------------------------------------
# vectorised repetitions (resample="noise")


def _batched(spec: registry.EstimatorSpec) -> Callable[..., np.ndarray] | None:
    """A vectorised ``(x, reps=, rng=, **kw) -> (reps, d)`` version of ``spec``'s function, when
    the estimator has one (its randomness is one batched release on fixed data)."""
    from dpcore.estimators import simplex, simplex_baselines

    f = spec.func
    if f is simplex.simplex_mean:
        return simplex.simplex_mean_draws
    kinds = {simplex_baselines.noisy_sum_mean: "b1", simplex_baselines.centred_mean: "centred",
             simplex_baselines.resize_mean: "resize"}
    if f in kinds:
        return lambda x, **kw: simplex_baselines.baseline_draws(kinds[f], x, **kw)
    if f is simplex_baselines.plugin_mean:
        def plugin(x: Any, **kw: Any) -> np.ndarray:
            if kw.get("split") == "opendp":
                kw.pop("split")
                kw.pop("shift", None)
                return simplex_baselines.baseline_draws("opendp", x, **kw)
            return simplex_baselines.baseline_draws("plugin", x, **kw)
        return plugin
    return None


# --------------------------------------------------------------------------------------------
# one task: one dataset, every estimator at every budget


def _errors(stack: np.ndarray, kind: str) -> dict[str, np.ndarray]:
    """Norms of the four error vectors ``stack[..., k, :]`` (total, sampling, clipping, noise)."""
    out: dict[str, np.ndarray] = {}
    zero = np.zeros(stack.shape[-1])
    for m, p in _P.items():
        out[m] = np.asarray(lp_error(stack, zero, p))
    out["tv"] = np.asarray(tv_error(stack, zero)) if kind == "binary" else np.full(stack.shape[:-1], np.nan)
    return out


def _run_task(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one (dataset, repetition) task; returns plain row dicts (picklable)."""
    cfg = ExperimentConfig.from_dict(task["config"])
    n, d, skew = task["n"], task["d"], task["skew"]
    reps: list[int] = task["reps"]
    ds = make_dataset(cfg, n, d, skew, reps[0])
    xbar = ds.x.mean(axis=0)
    truth = xbar if cfg.truth == "empirical" else ds.true_mean
    rows: list[dict[str, Any]] = []
    vectors: list[np.ndarray] = []
    for setting_idx, budget_value in task["budgets"]:
        budget = Budget.from_unit(cfg.unit, budget_value, cfg.delta)
        skey = _setting_key({"n": n, "d": d, "skew": skew, "budget": budget_value}, cfg)
        for order, entry in task["estimators"]:
            spec = registry.get(entry["name"])
            conv = budget.to_native(spec.notion, cfg.conversion)  # type: ignore[arg-type]
            base = {"estimator": entry["id"], "name": spec.name, "label": spec.label, "family": spec.family,
                    "notion": spec.notion, "neighbouring": spec.neighbouring, "color": spec.color,
                    "setting": setting_idx, "distribution": cfg.distribution, "kind": ds.kind, "n": n, "d": d,
                    "skew": skew, "budget": budget_value, "unit": cfg.unit,
                    "delta": cfg.delta if cfg.unit == "eps_delta" else np.nan,
                    "native_budget": conv.value, "native_unit": NATIVE_UNIT[spec.notion], "conversion": conv.rule,
                    "_order": order}
            ekey = _key("estimator", entry["id"], entry["name"], entry["params"])
            batched = _batched(spec) if cfg.resample == "noise" and len(reps) > 1 else None
            if batched is not None:
                rows_v = _run_batched(spec, batched, entry, ds, budget, conv, cfg, ekey, skey, reps, xbar, truth)
                for row, vec in rows_v:
                    rows.append({**base, **row})
                    vectors.append(vec)
                continue
            for rep in reps:
                rng = np.random.default_rng(child_seed(cfg.seed, 1, ekey, skey, rep))
                row, vec = _run_one(spec, entry, ds, budget, cfg, rng, xbar, truth)
                rows.append({**base, "rep": rep, **row})
                vectors.append(vec)
    if rows:
        errs = _errors(np.stack(vectors), ds.kind)
        for i, row in enumerate(rows):
            for m in NORMS:
                for j, k in enumerate(("err", "sampling", "clipping", "noise")):
                    row[f"{k}_{m}"] = float(errs[m][i, j])
            if row["failed"]:
                for m in NORMS:
                    for k in ("err", "clipping", "noise"):
                        row[f"{k}_{m}"] = np.nan
    return rows


def _run_one(spec: registry.EstimatorSpec, entry: dict[str, Any], ds: Dataset, budget: Budget,
             cfg: ExperimentConfig, rng: np.random.Generator, xbar: np.ndarray, truth: np.ndarray
             ) -> tuple[dict[str, Any], np.ndarray]:
    d = ds.d
    t0 = time.perf_counter()
    try:
        est = spec.run(ds, budget, rng=rng, method=cfg.conversion, **entry["params"])  # type: ignore[arg-type]
        seconds = time.perf_counter() - t0
        mean = np.atleast_1d(np.asarray(est.mean, float)).reshape(d)
        noiseless = np.atleast_1d(np.asarray(est.diagnostics.noiseless_mean, float)).reshape(d)
        diag = est.diagnostics
        std = diag.noise_std
        row = {"ledger_total": est.ledger.total(), "fraction_clipped": diag.fraction_clipped,
               "noise_std_l2": float(np.linalg.norm(np.broadcast_to(np.asarray(std, float), (d,))))
               if std is not None else np.nan,
               "warnings": " | ".join(diag.warnings), "failed": "", "seconds": seconds}
    except Exception as err:  # noqa: BLE001 - one estimator failing at one setting must not stop a sweep
        seconds = time.perf_counter() - t0
        mean = noiseless = np.full(d, np.nan)
        row = {"ledger_total": np.nan, "fraction_clipped": np.nan, "noise_std_l2": np.nan, "warnings": "",
               "failed": f"{type(err).__name__}: {err}", "seconds": seconds}
    vec = np.stack([mean - truth, xbar - truth, noiseless - xbar, mean - noiseless])
    return row, vec


def _run_batched(spec: registry.EstimatorSpec, batched: Callable[..., np.ndarray], entry: dict[str, Any],
                 ds: Dataset, budget: Budget, conv: Any, cfg: ExperimentConfig, ekey: int, skey: int,
                 reps: list[int], xbar: np.ndarray, truth: np.ndarray) -> list[tuple[dict[str, Any], np.ndarray]]:
    """All repetitions of a vectorisable estimator on one dataset in one call."""
    rng = np.random.default_rng(child_seed(cfg.seed, 1, ekey, skey, 2**31))
    first, first_vec = _run_one(spec, entry, ds, budget, cfg,
                                np.random.default_rng(child_seed(cfg.seed, 1, ekey, skey, 0)), xbar, truth)
    if first["failed"]:
        return [({**first, "rep": r}, np.full((4, ds.d), np.nan)) for r in reps]
    noiseless = xbar + first_vec[2]  # noiseless - xbar is the clipping row of the error stack
    kwargs = {**spec.params, **entry["params"], **conv.kwargs}
    if spec.accepts("bounds"):
        kwargs.setdefault("bounds", ds.bounds)
    t0 = time.perf_counter()
    means = np.asarray(batched(ds.x, reps=len(reps), rng=rng, **kwargs), float).reshape(len(reps), ds.d)
    seconds = (time.perf_counter() - t0) / len(reps)
    out = []
    for i, r in enumerate(reps):
        vec = np.stack([means[i] - truth, xbar - truth, noiseless - xbar, means[i] - noiseless])
        out.append(({**first, "rep": r, "seconds": seconds}, vec))
    return out


# --------------------------------------------------------------------------------------------
# run


def plan_tasks(cfg: ExperimentConfig) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The tasks of an experiment and the estimators skipped (id -> reason)."""
    entries = cfg.estimator_entries()
    specs = {e["id"]: registry.get(e["name"]) for e in entries}  # unknown names raise here
    settings = cfg.settings()
    groups: dict[tuple[int, int, float], list[tuple[int, float]]] = {}
    for i, s in enumerate(settings):
        groups.setdefault((s["n"], s["d"], s["skew"]), []).append((i, s["budget"]))
    skipped: dict[str, str] = {}
    tasks = []
    cfg_dict = cfg.to_dict()
    rep_groups = ([list(range(cfg.repetitions))] if cfg.resample == "noise"
                  else [[r] for r in range(cfg.repetitions)])
    for (n, d, skew), budgets in groups.items():
        ok = {s.name for s in registry.applicable(cfg.kind, d, peers=True)}
        use = []
        for order, e in enumerate(entries):
            why_not = zcdp_skip_reason(specs[e["id"]], cfg.unit)
            if why_not is not None:
                skipped[e["id"]] = why_not
            elif e["name"] in ok:
                use.append((order, e))
            else:
                spec = specs[e["id"]]
                why = (f"applies to {', '.join(sorted(spec.data_kinds))} data" if cfg.kind not in spec.data_kinds
                       else "applies to one-dimensional data only")
                skipped[e["id"]] = f"{spec.label} skipped: it {why} (this is {cfg.kind} data, d = {d})."
        if not use:
            continue
        for reps in rep_groups:
            tasks.append({"config": cfg_dict, "n": n, "d": d, "skew": skew, "budgets": budgets,
                          "estimators": use, "reps": reps})
    return tasks, skipped


def run(config: ExperimentConfig | Mapping[str, Any] | str | Path, executor: Executor | None = None,
        progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Run an experiment; one row per (estimator, setting, repetition).

    Parameters
    ----------
    config : ExperimentConfig, dict, JSON string or path
        The experiment.
    executor : concurrent.futures.Executor, optional
        Runs the tasks (one per dataset and repetition); ``None`` runs them here, in order. The
        frame does not depend on it.
    progress : callable(done, total), optional
        Called after each finished task (for a progress bar).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; rows ordered by estimator (config order), setting, repetition.
        ``frame.attrs`` holds ``config`` (the dict used) and ``skipped`` (estimator id -> reason
        for estimators that do not apply to the data). All columns but ``seconds`` are identical
        for the same config and seed.

    Examples
    --------
    >>> cfg = ExperimentConfig(n=500, d=4, estimators=["empirical", "gaussian_private"],
    ...                        sweep={"budget": [0.5, 1.0]}, repetitions=2)
    >>> frame = run(cfg)
    >>> frame.shape[0]
    8
    """
    cfg = ExperimentConfig.coerce(config)
    tasks, skipped = plan_tasks(cfg)
    total = len(tasks)
    results: list[list[dict[str, Any]]] = []
    if executor is None:
        for i, task in enumerate(tasks):
            results.append(_run_task(task))
            if progress is not None:
                progress(i + 1, total)
    else:
        futures = [executor.submit(_run_task, task) for task in tasks]
        for i, fut in enumerate(as_completed(futures)):
            fut.result()
            if progress is not None:
                progress(i + 1, total)
        results = [f.result() for f in futures]
    rows = [r for chunk in results for r in chunk]
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=[*COLUMNS, "_order"])
    frame = frame.sort_values(["_order", "setting", "rep"], kind="stable").drop(columns="_order")
    frame = frame.reindex(columns=list(COLUMNS)).reset_index(drop=True)
    for col in ("setting", "n", "d", "rep"):
        frame[col] = frame[col].astype(int)
    frame.attrs["config"] = cfg.to_dict()
    frame.attrs["skipped"] = skipped
    return frame


# --------------------------------------------------------------------------------------------
# summaries


def summarise(frame: pd.DataFrame, metric: str = "l2", by: Sequence[str] | None = None,
              low: float = 0.1, high: float = 0.9) -> pd.DataFrame:
    """Mean and ``low``–``high`` quantile band of ``err_<metric>`` per (estimator, setting).

    Also the mean sampling error (the floor), clipping bias and noise, and the runs that failed.
    """
    col = f"err_{metric}"
    point = list(dict.fromkeys(by or ["setting", "n", "d", "skew", "budget"]))
    meta_cols = ["estimator", "label", "color", "notion", "family"]
    keys = ["estimator", *[k for k in point if k != "estimator"]]
    work = frame[list(dict.fromkeys([*keys, col, f"sampling_{metric}", f"clipping_{metric}", f"noise_{metric}",
                                     "seconds"]))].copy()
    work["_failed"] = (frame["failed"] != "").to_numpy()
    g = work.groupby(keys, sort=False, dropna=False)
    out = g[col].agg(["mean", "median", "count"]).rename(columns={"count": "runs"})
    out["lo"] = g[col].quantile(low)
    out["hi"] = g[col].quantile(high)
    for k in ("sampling", "clipping", "noise"):
        out[k] = g[f"{k}_{metric}"].mean()
    out["failed"] = g["_failed"].sum().astype(int)
    out["seconds"] = g["seconds"].mean()
    out = out.reset_index()
    meta = frame[meta_cols].drop_duplicates("estimator")
    out = out.merge(meta, on="estimator", how="left", sort=False)
    return out[list(dict.fromkeys([*meta_cols, *keys, "mean", "median", "lo", "hi", "runs", "sampling",
                                   "clipping", "noise", "failed", "seconds"]))]


def tail_table(frame: pd.DataFrame, metric: str = "l2", factor: float = 3.0) -> pd.DataFrame:
    """Per private estimator: the typical error and how often a run lands far beyond it.

    For every point (setting) the median error of each estimator is its typical run; a run
    *fails* when its error exceeds ``factor`` times that median (issue 12: a robust estimator
    degrades gracefully, so its worst run stays within 3x its median). Columns: ``label``,
    ``median`` (median over points of the per-point medians), ``failure_rate`` (share of runs
    beyond ``factor`` x their point's median), ``worst_ratio`` (largest max / median over points),
    ``runs``.
    """
    col = f"err_{metric}"
    work = private_only(frame)
    work = work[(work["failed"] == "") & np.isfinite(work[col])]
    if work.empty:
        return pd.DataFrame(columns=["estimator", "label", "median", "failure_rate", "worst_ratio", "runs"])
    med = work.groupby(["estimator", "setting"], sort=False)[col].transform("median")
    work = work.assign(_med=med, _fail=work[col] > factor * med)
    per_point = work.groupby(["estimator", "setting"], sort=False).agg(m=(col, "median"), mx=(col, "max"))
    per_point["ratio"] = per_point["mx"] / per_point["m"].where(per_point["m"] > 0)
    g = work.groupby("estimator", sort=False)
    out = pd.DataFrame({"median": per_point.groupby(level=0, sort=False)["m"].median(),
                        "failure_rate": g["_fail"].mean(),
                        "worst_ratio": per_point.groupby(level=0, sort=False)["ratio"].max(),
                        "runs": g.size()}).reset_index()
    out = out.merge(frame[["estimator", "label"]].drop_duplicates("estimator"), on="estimator", how="left")
    return out[["estimator", "label", "median", "failure_rate", "worst_ratio", "runs"]]


def private_only(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of private estimators (drops the non-private reference)."""
    return frame[frame["notion"] != "none"]


def regret_table(frame: pd.DataFrame, metric: str = "l2") -> pd.DataFrame:
    """Rank private estimators by regret over the sweep.

    At each setting the regret of an estimator is its mean error divided by the best private
    estimator's mean error there (1 = best). The table gives the geometric-mean regret over the
    sweep (the ranking key), the worst regret, and the number of settings won.
    """
    s = summarise(private_only(frame), metric)
    s = s[np.isfinite(s["mean"])]
    if s.empty:
        return pd.DataFrame(columns=["rank", "estimator", "label", "mean_regret", "worst_regret", "wins", "settings"])
    best = s.groupby("setting")["mean"].transform("min")
    s = s.assign(regret=s["mean"] / best, win=s["mean"] == best)
    t = s.groupby(["estimator", "label"], sort=False).agg(
        mean_regret=("regret", lambda r: float(np.exp(np.mean(np.log(r))))),
        worst_regret=("regret", "max"), wins=("win", "sum"), settings=("regret", "count")).reset_index()
    t = t.sort_values(["mean_regret", "worst_regret"], kind="stable").reset_index(drop=True)
    t.insert(0, "rank", np.arange(1, len(t) + 1))
    t["wins"] = t["wins"].astype(int)
    return t


def needed_for_target(frame: pd.DataFrame, target: float, by: str = "budget", metric: str = "l2",
                      fixed: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Accuracy first: the ``by`` value (budget or n) each estimator needs for mean error ``target``.

    Interpolates log(error) against log(``by``) linearly between the two sweep points that bracket
    the target (no extrapolation: ``None`` with a reason when the target lies outside the sweep).
    ``fixed`` selects the other swept keys (e.g. ``{"d": 64}``) when the sweep is a grid.
    """
    if by not in ("budget", "n"):
        raise ValueError(f"by must be 'budget' or 'n' (error falls as they grow); got {by!r}.")
    if not (target > 0 and math.isfinite(target)):
        raise ValueError(f"target must be a positive error; got {target!r}.")
    f = frame
    for k, v in (fixed or {}).items():
        f = f[np.isclose(f[k].astype(float), float(v))]
    s = summarise(f, metric)
    if by == "budget":  # a non-private reference spends no budget: nothing to read off
        s = s[s["notion"] != "none"]
    rows = []
    for (est, label), g in s.groupby(["estimator", "label"], sort=False):
        g = g.groupby(by, as_index=False)["mean"].mean().sort_values(by)
        xs, ys = g[by].to_numpy(float), g["mean"].to_numpy(float)
        ok = np.isfinite(ys) & (ys > 0)
        xs, ys = xs[ok], ys[ok]
        need, note = None, ""
        if xs.size == 0:
            note = "no successful runs"
        elif ys.min() > target:
            note = f"needs more than {by} = {xs.max():g} (the sweep's largest)"
        elif ys[0] <= target:
            need, note = float(xs[0]), f"already at {by} = {xs[0]:g} (the sweep's smallest)"
        else:
            for i in range(len(xs) - 1):
                y0, y1 = ys[i], ys[i + 1]
                if (y0 - target) * (y1 - target) <= 0 and y0 != y1:
                    t = (math.log(target) - math.log(y0)) / (math.log(y1) - math.log(y0))
                    need = float(math.exp(math.log(xs[i]) + t * (math.log(xs[i + 1]) - math.log(xs[i]))))
                    break
            if need is None:
                note = "error not monotone across the sweep"
        rows.append({"estimator": est, "label": label, f"{by}_needed": need, "note": note})
    out = pd.DataFrame(rows, columns=["estimator", "label", f"{by}_needed", "note"])  # columns even when empty
    if not out.empty:
        out = out.sort_values(f"{by}_needed", na_position="last", kind="stable").reset_index(drop=True)
    return out


# --------------------------------------------------------------------------------------------
# shipped configs and the command line


def shipped_configs() -> dict[str, ExperimentConfig]:
    """The configs in ``dpcore/configs`` by file stem (the PLAN paper's Gaussian A, B, C, binary)."""
    out = {}
    folder = resources.files("dpcore") / "configs"
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".json"):
            out[item.name[:-5]] = ExperimentConfig.from_json(item.read_text(encoding="utf-8"))
    return out


def write_outputs(frame: pd.DataFrame, cfg: ExperimentConfig, out: Path, images: bool = True) -> list[Path]:
    """Write the CSV, the config, the summary and the figures (HTML; PNG when ``images`` and
    :func:`dpcore.export.static_export_problem` finds kaleido and a Chromium)."""
    from dpcore import export
    from dpcore import figures_compare as fc

    out.mkdir(parents=True, exist_ok=True)
    written = []
    p = out / "results.csv"
    to_csv(frame, p)
    written.append(p)
    p = out / "config.json"
    p.write_text(cfg.to_json() + "\n", encoding="utf-8")
    written.append(p)
    metric = cfg.headline_metric
    p = out / "summary.csv"
    to_csv(summarise(frame, metric), p)
    written.append(p)
    p = out / "regret.csv"
    to_csv(regret_table(frame, metric), p)
    written.append(p)
    axes = [k for k in SWEEPABLE if len(cfg.sweep.get(k, [])) > 1] or [cfg.x_axis()]
    figs = {f"error_vs_{x}": fc.error_figure(frame, x=x, metric=metric, config=cfg)[0] for x in axes}
    figs["regret"] = fc.regret_figure(regret_table(frame, metric))
    images = images and export.static_export_problem() is None
    with export.session() if images else nullcontext():
        written += _write_figures(figs, out, images)
    return written


def _write_figures(figs: Mapping[str, Any], out: Path, images: bool) -> list[Path]:
    from dpcore import export

    written = []
    for stem, fig in figs.items():
        p = out / f"{stem}.html"
        fig.write_html(p, include_plotlyjs="cdn")
        written.append(p)
        if images:
            png = out / f"{stem}.png"
            png.write_bytes(export.to_image(fig, "png"))
            written.append(png)
    return written


@contextmanager
def dask_executor(address: str, workers: int = 2) -> Iterator[Executor]:
    """A :class:`concurrent.futures.Executor` on a Dask cluster, for :func:`run`'s ``executor=``.

    Parameters
    ----------
    address : str
        The scheduler's address (``tcp://host:8786``), or ``"local"`` to start a
        ``LocalCluster`` of ``workers`` single-threaded processes here (closed on exit).
    workers : int
        Worker processes for ``"local"``.

    The frame does not depend on the executor (every task seeds itself from the config), so a
    cluster run equals a serial one bit for bit except the ``seconds`` column.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:
        raise ImportError("--dask needs the distributed package: pip install -e '.[scale]'") from err
    if address == "local":
        cluster = LocalCluster(n_workers=max(int(workers), 1), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        with cluster, Client(cluster) as client:
            yield client.get_executor()
    else:
        with Client(address, timeout="10s") as client:
            yield client.get_executor()


def main(argv: Iterable[str] | None = None) -> int:
    """``python -m dpcore.experiments CONFIG.json --out DIR``."""
    parser = argparse.ArgumentParser(prog="python -m dpcore.experiments",
                                     description="Run a dpcore experiment config and write its results and figures.")
    parser.add_argument("config", help="experiment config (JSON), or the name of a shipped config: "
                        + ", ".join(shipped_configs()))
    parser.add_argument("--out", required=True, help="output folder (created if missing)")
    parser.add_argument("--workers", type=int, default=1,
                        help="local processes to use (default 1: run here); with --dask local, the workers")
    parser.add_argument("--dask", metavar="ADDRESS", default=None,
                        help="run the tasks on the Dask cluster at ADDRESS (e.g. tcp://10.0.0.5:8786), or "
                        "'local' to start a LocalCluster of --workers processes (needs pip install -e '.[scale]')")
    parser.add_argument("--repetitions", type=int, default=None, help="override the config's repetitions")
    parser.add_argument("--no-png", action="store_true", help="skip the PNG figures (HTML only; faster)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        path = Path(args.config)
        if not path.exists() and args.config in shipped_configs():
            cfg = shipped_configs()[args.config]
        else:
            cfg = ExperimentConfig.load(path)
        if args.repetitions is not None:
            cfg = replace(cfg, repetitions=args.repetitions)
            cfg.validate()
        n_tasks = len(plan_tasks(cfg)[0])
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    bar = tqdm(total=n_tasks, desc=cfg.name, unit="task")

    def tick(done: int, total: int) -> None:
        bar.update(done - bar.n)

    try:
        if args.dask:
            try:
                with dask_executor(args.dask, workers=args.workers) as ex:
                    frame = run(cfg, executor=ex, progress=tick)
            except (ImportError, OSError) as err:
                print(f"error: {err}", file=sys.stderr)
                return 2
        elif args.workers > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(args.workers) as ex:
                frame = run(cfg, executor=ex, progress=tick)
        else:
            frame = run(cfg, progress=tick)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    finally:
        bar.close()
    for reason in frame.attrs.get("skipped", {}).values():
        print(reason, file=sys.stderr)
    for p in write_outputs(frame, cfg, Path(args.out), images=not args.no_png):
        print(p)
    return 0


if __name__ == "__main__":
    # Run through the importable module, so its classes are the ones dpcore.figures_compare sees.
    from dpcore.experiments import main as _main

    raise SystemExit(_main())
