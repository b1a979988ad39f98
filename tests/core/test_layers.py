"""Layers only point down, and no dpcore module imports itself back.

Every ``import`` in every dpcore module (top level and inside functions, found with ``ast``; not
those under ``if TYPE_CHECKING:``, which only name types for annotations) is checked against this
order, lowest first; a module may import its own layer or lower ones:

0. ``_validation``, ``limits``, ``pool``, ``streams`` -- argument checks, resource limits, the fair worker
   pool, the named random streams of a seed
1. ``privacy``, ``mechanisms``, ``samplers``, ``metrics``, ``rotation``, ``export`` -- primitives
   (``samplers``: the floating-point-safe release backend of the mechanisms; ``guarantee``: what
   a release guarantees; ``curator``: the data folder, secret key and keyed fingerprints)
2. ``quantiles``, ``data``, ``estimate``         -- private quantiles, data, the Estimate record
3. ``estimators``, ``theory``                   -- estimators; closed forms (``theory.simplex`` and
   ``estimators.winsorized`` share closed forms, so the two sit on one layer)
4. ``registry``                                 -- discovers ``dpcore.estimators`` by name
5. ``audit``, ``experiments``, ``release``, ``odometer`` -- through the public registry
6. ``figures``                                  -- draw summaries and studies
7. ``report``                                   -- builds on figures
8. ``views``                                    -- one pure view per page (settings record -> view record)
``dpcore/__init__.py`` (the public surface) and ``__main__`` modules (the command line, which
writes figures) sit above everything. A module not listed fails the test: give it a layer here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import dpcore

LAYERS = [
    {
        "_validation",
        "_kernels",
        "_kernels_rotation",
        "_kernels_pmwm",
        "_kernels_quantile",
        "limits",
        "glossary",
        "pool",
        "streams",
    },
    {
        "privacy",
        "mechanisms",
        "samplers",
        "metrics",
        "rotation",
        "export",
        "notebook",
        "curator",
        "guarantee",
    },
    {"quantiles", "data", "estimate"},
    {"estimators", "theory"},
    {"registry"},
    {
        "audit",
        "experiments",
        "release",
        "release_accuracy",
        "release_certificate",
        "remeasure",
        "odometer",
        "warm",
    },
    {"figures"},
    {"report"},
    {"views"},
]
TOP = len(LAYERS)
ROOT = Path(dpcore.__file__).parent
#: Cycles known at the restructure, to be broken by hand (each entry names its modules).
ALLOWED_CYCLES: list[set[str]] = []


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    parts = module.split(".")
    if module == "dpcore" or parts[-1] == "__main__":
        return TOP
    for i, group in enumerate(LAYERS):
        if parts[1] in group:
            return i
    raise AssertionError(f"{module} has no layer: add it to LAYERS in tests/core/test_layers.py")


def _imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found = set()
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for n in ast.walk(block)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:  # annotations only: not an import at run time
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("dpcore") and name != module:
                found.add(name)
    # "from pkg import sub" names pkg and pkg.sub; keep only the most specific
    return {m for m in found if not any(o.startswith(m + ".") for o in found)} | {
        m for m in found if m in {".".join(module.split(".")[:k]) for k in range(1, 3)}
    } - {"dpcore"}


GRAPH = {m: _imports(m) for m in MODULES}


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        _layer(module)


def test_layers_point_down() -> None:
    bad = [
        f"{m} (layer {_layer(m)}) imports {o} (layer {_layer(o)})"
        for m, deps in GRAPH.items()
        for o in sorted(deps)
        if _layer(o) > _layer(m)
    ]
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for o in sorted(GRAPH.get(m, ())):
            if state.get(o) == 1 and set(stack[stack.index(o) :]) not in ALLOWED_CYCLES:
                cycles.append(" -> ".join([*stack[stack.index(o) :], o]))
            elif o not in state:
                visit(o)
        stack.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(cycles)


def test_figures_only_draw() -> None:
    """Figures draw what they are given: no random generator and no ``rng`` argument in
    ``dpcore.figures``; a picture's random choices (subsample, display jitter, simulated releases)
    are made by a seeded study in :mod:`dpcore.experiments.studies`."""
    banned = ("default_rng", "as_generator", "RngLike", "np.random", "SeedSequence")
    bad = [
        f"{path.relative_to(ROOT.parent)}: {word}"
        for path in sorted((ROOT / "figures").rglob("*.py"))
        for word in banned
        if word in path.read_text(encoding="utf-8")
    ]
    assert not bad, "\n".join(bad)
