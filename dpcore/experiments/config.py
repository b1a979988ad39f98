"""An experiment: :class:`ExperimentConfig` (the data, the budget, the estimators, the sweep and
the repetitions, as JSON a notebook and the app share), its validation (a ``ValueError`` naming
the field and the fix, within :mod:`dpcore.limits`) and the configs shipped in ``configs/``.
The JSON types and pre-parse checks live in :mod:`dpcore.experiments._config_json`.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from dpcore import limits, registry
from dpcore.data.synthetic import DISTRIBUTIONS, generate
from dpcore.experiments._config_json import _FIELD_TYPES, _JSON_NAME, _check_depth, _reject_constant
from dpcore.privacy import Budget

SWEEPABLE = ("budget", "n", "d", "skew")


NORMS = ("l1", "l2", "linf", "tv")


UNIT_LABEL = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}


NATIVE_UNIT = {"pure": "ε", "zcdp": "ρ", "none": "-"}


#: Columns of the frame :func:`run` returns, in order.
COLUMNS: tuple[str, ...] = (
    "estimator",
    "name",
    "label",
    "family",
    "notion",
    "neighbouring",
    "color",
    "setting",
    "distribution",
    "kind",
    "n",
    "d",
    "skew",
    "rep",
    "budget",
    "unit",
    "delta",
    "native_budget",
    "native_unit",
    "conversion",
    "ledger_total",
    *(f"{k}_{m}" for m in NORMS for k in ("err", "sampling", "clipping", "noise")),
    "fraction_clipped",
    "noise_std_l2",
    "warnings",
    "failed",
    "seconds",
)


def default_estimators(kind: str, unit: str = "rho", d: int | None = None) -> list[str]:
    """The page's default subset for data of ``kind``: the main estimators that apply.

    For real data: the empirical mean, PLAN, IOME as run in the PLAN paper, the Gaussian
    mechanism (private centre and radius) and the coordinate-wise winsorized mean (PMWM) in the
    user's notion (pure ε when the budget is in ε, its zCDP variant otherwise). Under a pure ε
    budget zCDP estimators are left out: they cannot meet it (:func:`zcdp_skip_reason`); ε-DP
    estimators take their place. Each estimator's registration says where it is a default
    (``EstimatorSpec.default``; :func:`dpcore.registry.defaults`).
    """
    return [s.name for s in registry.defaults(kind, unit, d)]


def default_metric(kind: str) -> str:
    """The PLAN paper's metric: ℓ2 for real data, ½ℓ1 (``tv``) for binary data
    (docs/estimators/plan.md §7)."""
    return "tv" if kind == "binary" else "l2"


# --------------------------------------------------------------------------------------------
# config


def _check_params(spec: Any, params: Mapping[str, Any]) -> None:
    """Refuse parameters ``spec`` does not take, or that would change its guarantee (the
    registry's one contract: :meth:`dpcore.estimate.EstimatorSpec.check_overrides`)."""
    spec.check_overrides(params)
    limits.check_work_params(params)  # steps, pairs_per_group: bounded before anything runs


def _check_data_params(cfg: ExperimentConfig) -> None:
    """Try the generator's keyword arguments on a two-row sample, so a wrong one fails here, by name."""
    try:
        generate(cfg.distribution, 2, int(cfg.d), cfg.base_skew(), rng=0, **cfg.data_params)
    except (TypeError, ValueError, OverflowError, KeyError, IndexError) as err:
        raise ValueError(
            f"data_params {json.dumps(cfg.data_params)[:200]} do not suit the "
            f"{cfg.distribution!r} generator: {err}"
        ) from None


@dataclass
class ExperimentConfig:
    """A plain, JSON-serialisable experiment.

    Attributes
    ----------
    name, description : str
        For file names and captions.
    distribution : str
        A key of :data:`dpcore.data.synthetic.DISTRIBUTIONS`.
    data_params : dict
        Extra keyword arguments of the generator (e.g. ``{"mean": 0.0}``).
    n, d : int
        Rows and columns (base values; a sweep overrides them).
    skew : float or None
        The generator's skew α (``None``: the distribution's default).
    budget : float
        Base budget value in ``unit``; :attr:`base_budget` is the :class:`~dpcore.privacy.Budget`
        (``budget``, ``unit`` and ``delta`` as one value), :meth:`budget_at` the one at a sweep
        point. A config file holds it as ``"budget": {"unit": ..., "value": ..., "delta": ...}``
        (:meth:`to_json`); the three flat keys of older files load as well.
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
    sweep: dict[str, list[float]] = field(
        default_factory=lambda: {"budget": [0.0625, 0.125, 0.25, 0.5, 1.0]}
    )
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
        """The config as JSON (keys in a fixed order, so equal configs give equal strings), its
        budget as one object ``{"unit", "value", "delta"}`` in place of the three flat keys.

        >>> cfg = ExperimentConfig(budget=1.0, unit="eps", estimators=["pmwm"])
        >>> json.loads(cfg.to_json())["budget"]
        {'unit': 'eps', 'value': 1.0, 'delta': 1e-06}
        >>> ExperimentConfig.from_json(cfg.to_json()) == cfg
        True
        """
        values = asdict(self)
        values["budget"] = {"unit": self.unit, "value": self.budget, "delta": self.delta}
        del values["unit"], values["delta"]
        return json.dumps(values, indent=indent, ensure_ascii=False)

    @property
    def base_budget(self) -> Budget:
        """The base budget as one value (``budget`` in ``unit``, with ``delta`` for (ε, δ))."""
        return self.budget_at(self.budget)

    def budget_at(self, value: float) -> Budget:
        """The budget of value ``value`` in this config's unit (a sweep point's budget)."""
        return Budget.from_unit(self.unit, value, self.delta)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> ExperimentConfig:
        """Build from a mapping; unknown keys are an error (typos would silently do nothing)."""
        if not isinstance(values, Mapping):
            raise ValueError(
                f"an experiment config must be a JSON object; got {type(values).__name__}."
            )
        values = _flat_budget(values)
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
            raw = bytes(text)
            utf16 = raw.startswith((b"\xff\xfe", b"\xfe\xff"))
            try:
                text = raw.decode("utf-16" if utf16 else "utf-8-sig")
            except UnicodeDecodeError as err:
                raise ValueError(
                    "the config is not UTF-8 text; save it as a .json text file."
                ) from err
        text = text.removeprefix("\ufeff")  # a byte-order mark left by an editor
        if len(text) > limits.MAX_CONFIG_CHARS:
            raise ValueError(
                f"the config has {len(text):,} characters; the limit is {limits.MAX_CONFIG_CHARS:,} "
                "(dpcore.limits). A config is a few kB of JSON."
            )
        _check_depth(text)
        try:
            values = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as err:
            raise ValueError(
                f"the config is not valid JSON ({err}); fix the file or download a fresh one."
            ) from err
        return cls.from_dict(values)

    @classmethod
    def load(cls, path: str | Path) -> ExperimentConfig:
        """Read a config file."""
        with Path(path).open("rb") as fh:  # read no more than a config can hold
            raw = fh.read(4 * limits.MAX_CONFIG_CHARS + 5)
        if len(raw) > 4 * limits.MAX_CONFIG_CHARS + 4:
            raise ValueError(
                f"the config file is larger than {4 * limits.MAX_CONFIG_CHARS:,} bytes; "
                "a config is a few kB of JSON."
            )
        return cls.from_json(raw)

    @classmethod
    def coerce(cls, config: ExperimentConfig | Mapping[str, Any] | str | Path) -> ExperimentConfig:
        """Accept a config, a mapping, a JSON string or a path."""
        if isinstance(config, cls):
            config.validate()
            return config
        if isinstance(config, Mapping):
            return cls.from_dict(config)
        if type(config).__name__ == cls.__name__ and hasattr(
            config, "to_dict"
        ):  # same class, other module object
            return cls.from_dict(config.to_dict())
        if isinstance(config, Path) or (
            isinstance(config, str) and not config.lstrip().startswith("{")
        ):
            return cls.load(config)
        if isinstance(config, str | bytes):
            return cls.from_json(config)
        raise ValueError(
            f"config must be an ExperimentConfig, a dict, JSON text or a path; got {type(config).__name__}."
        )

    # ---- validation ------------------------------------------------------------------------------

    def validate(self) -> None:
        """Raise ``ValueError`` naming the field and the fix (limits: :mod:`dpcore.limits`): the
        field types, the scalar fields, the sweep, the estimators, the grid's cells and work, the
        generator's parameters and the public bounds, in that order."""
        self._check_types()
        self._check_scalars()
        self._check_sweep()
        entries = self._check_estimators()
        self._check_grid(entries)
        _check_data_params(self)
        self._check_bounds()

    def _check_types(self) -> None:
        for f in fields(self):
            allowed = _FIELD_TYPES[f.name]
            v = getattr(self, f.name)
            if (isinstance(v, bool) and bool not in allowed) or not isinstance(v, allowed):
                names = " or ".join(
                    "null" if t is type(None) else _JSON_NAME.get(t, t.__name__) for t in allowed
                )
                raise ValueError(f"{f.name} must be {names}; got {v!r:.80}.")
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"{f.name} must be a finite number; got {v!r}.")

    def _check_scalars(self) -> None:
        if self.distribution not in DISTRIBUTIONS:
            raise ValueError(
                f"distribution must be one of {list(DISTRIBUTIONS)}; got {self.distribution!r}."
            )
        if not isinstance(self.data_params, dict):
            raise ValueError("data_params must be a JSON object of generator keyword arguments.")
        for key in ("n", "d", "repetitions", "seed"):
            v = getattr(self, key)
            least = {"n": 2, "d": 1, "repetitions": 1, "seed": 0}[key]
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < least:
                raise ValueError(f"{key} must be an integer >= {least}; got {v!r}.")
        limits.check_repetitions(self.repetitions)
        limits.check_int(self.seed, "seed", 0, 2**63 - 1)
        if self.unit not in UNIT_LABEL:
            raise ValueError(f"unit must be 'rho', 'eps' or 'eps_delta'; got {self.unit!r}.")
        if self.conversion not in ("cks", "standard"):
            raise ValueError(f"conversion must be 'cks' or 'standard'; got {self.conversion!r}.")
        if self.truth not in ("population", "empirical"):
            raise ValueError(f"truth must be 'population' or 'empirical'; got {self.truth!r}.")
        if self.resample not in ("data", "noise"):
            raise ValueError(
                f"resample must be 'data' (fresh data per repetition) or 'noise'; got {self.resample!r}."
            )
        if self.metric is not None and self.metric not in NORMS:
            raise ValueError(f"metric must be one of {list(NORMS)} or null; got {self.metric!r}.")

    def _check_sweep(self) -> None:
        if not isinstance(self.sweep, dict):
            raise ValueError('sweep must be a JSON object such as {"budget": [0.125, 0.25, 0.5]}.')
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
            raise ValueError(
                f"the sweep grid has {grid:,} points; the limit is {limits.MAX_GRID} "
                "(dpcore.limits). Sweep fewer values."
            )

    def _check_estimators(self) -> list[dict[str, Any]]:
        if not isinstance(self.estimators, list | tuple) or not self.estimators:
            raise ValueError(
                "estimators must be a non-empty list of registry names (see dpcore.registry.all_estimators())."
            )
        if len(self.estimators) > limits.MAX_ESTIMATORS:
            raise ValueError(
                f"a config runs at most {limits.MAX_ESTIMATORS} estimators; got {len(self.estimators)}."
            )
        limits.check_text(self.name, "the config name")
        entries = self.estimator_entries()
        for e in entries:
            # an unknown name raises a ValueError listing the known ones; unknown or
            # guarantee-changing parameters are refused here, not in every result row
            _check_params(registry.get(e["name"]), e["params"])
        ids = [e["id"] for e in entries]
        if len(set(ids)) != len(ids):
            raise ValueError(
                f"estimator ids must be unique; got {ids}. Give repeated estimators an 'id'."
            )
        return entries

    def _check_grid(self, entries: list[dict[str, Any]]) -> None:
        spec = DISTRIBUTIONS[self.distribution]
        limits.check_tasks(len(self.settings()), len(entries), self.repetitions)
        runs = sum(limits.work_factor(e["params"]) for e in entries)  # a run at 10x steps counts 10
        work = 0.0
        for s in self.settings():
            Budget.from_unit(self.unit, s["budget"], self.delta)  # raises on budget <= 0
            lo, hi = spec.skew_range
            if not lo <= s["skew"] <= hi:
                raise ValueError(
                    f"skew for {spec.label} must be in [{lo:g}, {hi:g}]; got {s['skew']!r}."
                )
            for key, lo_ in (("n", 2), ("d", 1)):
                if s[key] < lo_ or s[key] != int(s[key]):
                    raise ValueError(
                        f"sweep values of {key} must be integers >= {lo_}; got {s[key]!r}."
                    )
            limits.check_size(s["n"], s["d"])
            work += self.repetitions * s["n"] * s["d"] * runs
        if work > limits.MAX_WORK:
            raise ValueError(
                f"the config asks for {work:.3g} estimator-cell evaluations (repetitions × n × d × "
                "estimators, each counted steps / 20 times above 20 steps, summed over the grid); "
                f"the limit is dpcore.limits.MAX_WORK = {limits.MAX_WORK:.3g} "
                "(dpcore.limits). Use fewer repetitions, a smaller grid or smaller n·d."
            )

    def _check_bounds(self) -> None:
        if self.bounds is not None:
            if not isinstance(self.bounds, dict) or "half_width" not in self.bounds:
                raise ValueError(
                    'bounds must be null or {"half_width": h, "scale": "1"|"sqrt_d"|"d_sqrt_max_sigma"}.'
                )
            if self.bounds.get("scale", "1") not in ("1", "sqrt_d", "d_sqrt_max_sigma"):
                raise ValueError(
                    f"bounds.scale must be '1', 'sqrt_d' or 'd_sqrt_max_sigma'; got {self.bounds.get('scale')!r}."
                )
            h = self.bounds["half_width"]
            if (
                isinstance(h, bool)
                or not isinstance(h, int | float)
                or not 0 < h <= limits.MAX_ABS_VALUE
            ):
                raise ValueError(
                    f"bounds.half_width must be a number in (0, {limits.MAX_ABS_VALUE:g}]; got {h!r:.80}."
                )
            c = self.bounds.get("center", 0.0)
            if (
                isinstance(c, bool)
                or not isinstance(c, int | float)
                or not abs(c) <= limits.MAX_ABS_VALUE
            ):
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
        return float(
            DISTRIBUTIONS[self.distribution].default_skew if self.skew is None else self.skew
        )

    def estimator_entries(self) -> list[dict[str, Any]]:
        """Estimators as ``{"id", "name", "params"}`` dicts."""
        out = []
        for e in self.estimators:
            if isinstance(e, str):
                out.append({"id": e, "name": e, "params": {}})
            elif isinstance(e, Mapping) and "name" in e:
                unknown = set(e) - {"id", "name", "params"}
                if unknown:
                    raise ValueError(
                        f"estimator entries take keys id, name, params; got {sorted(unknown)}."
                    )
                params = e.get("params", {})
                if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
                    raise ValueError(
                        f"params of estimator {str(e['name'])[:80]!r} must be a JSON object of "
                        f'keyword arguments such as {{"tau": 2.0}}; got {params!r:.80}.'
                    )
                out.append(
                    {
                        "id": limits.check_text(e.get("id", e["name"]), "an estimator id"),
                        "name": limits.check_text(e["name"], "an estimator name"),
                        "params": dict(params),
                    }
                )
            else:
                raise ValueError(
                    f"each estimator must be a name or {{'name': ..., 'params': {{...}}}}; got {e!r}."
                )
        return out

    def settings(self) -> list[dict[str, Any]]:
        """Every point of the sweep grid, in order: ``{"n", "d", "skew", "budget"}``."""
        base = {
            "n": int(self.n),
            "d": int(self.d),
            "skew": self.base_skew(),
            "budget": float(self.budget),
        }
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

    def sweep_around(self, axis: str) -> list[float]:
        """Five values of ``axis`` around this config's base value: the budget from 1/8 to 2 times,
        n and d from 1/4 to 4 times (n at least 50, d at least 1, duplicates dropped), the skew
        across the distribution's range (up to 2 for real data; from 0.05 for binary profiles).

        >>> ExperimentConfig(distribution="gaussian", n=1000, d=8, budget=0.5).sweep_around("budget")
        [0.0625, 0.125, 0.25, 0.5, 1.0]
        """
        if axis == "budget":
            b = self.budget
            return [b / 8, b / 4, b / 2, b, 2 * b]
        if axis == "n":
            return sorted({max(int(self.n * f), 50) for f in (0.25, 0.5, 1, 2, 4)})
        if axis == "d":
            return sorted({max(int(round(self.d * f)), 1) for f in (0.25, 0.5, 1, 2, 4)})
        if axis != "skew":
            raise ValueError(f"axis must be one of {SWEEPABLE}; got {axis!r}.")
        lo, hi = DISTRIBUTIONS[self.distribution].skew_range
        if self.kind == "binary":
            lo = 0.05
        else:
            hi = min(hi, 2.0)
        return [float(v) for v in np.round(np.linspace(lo, hi, 5), 3)]

    def code(self) -> str:
        """The dpcore calls that reproduce this experiment in a notebook."""
        return (
            "from dpcore.experiments import ExperimentConfig, run\n"
            f"config = ExperimentConfig.from_json({self.to_json(indent=None)!r})\n"
            "frame = run(config)  # one row per (estimator, setting, repetition)\n"
        )


def _flat_budget(values: Mapping[str, Any]) -> Mapping[str, Any]:
    """``values`` with a budget object ``{"unit", "value", "delta"}`` spread into the config's
    ``budget``, ``unit`` and ``delta`` (a flat budget, the older file form, as it is)."""
    budget = values.get("budget")
    if not isinstance(budget, Mapping):
        return values
    extra = sorted(set(budget) - {"unit", "value", "delta"})
    if extra or "value" not in budget:
        raise ValueError(
            'budget must be a number or an object {"unit": "rho", "value": 0.5, "delta": 1e-06}; '
            f"got keys {sorted(budget)}."
        )
    clash = sorted(k for k in ("unit", "delta") if k in values and k in budget)
    if clash:
        raise ValueError(
            f"give {' and '.join(clash)} inside the budget object only, not beside it as well."
        )
    spread = {k: v for k, v in budget.items() if k != "value"}
    return {**values, **spread, "budget": budget["value"]}


# --------------------------------------------------------------------------------------------
# shipped configs and the command line


def shipped_configs() -> dict[str, ExperimentConfig]:
    """The configs in ``dpcore/experiments/configs`` by file stem (the PLAN paper's Gaussian A, B, C, binary)."""
    out = {}
    folder = resources.files("dpcore.experiments") / "configs"
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".json"):
            out[item.name[:-5]] = ExperimentConfig.from_json(item.read_text(encoding="utf-8"))
    return out
