"""Record (or check) a fingerprint of every registered estimator's output.

``python tests/fingerprint/test_fingerprints.py`` writes ``estimators.json`` beside this file: for
every registry entry, three seeds and three shapes (one with d >= 512), the ledger total and a few
numbers that every coordinate of the released mean moves (see :func:`summary`), each written as
the shortest decimal that reads back as the same double.

The test compares them with a tolerance of ``RTOL`` times each number's own scale, not bit for
bit: the last bits of a matrix product, a Walsh–Hadamard transform or a transcendental function
depend on the SIMD kernels NumPy and OpenBLAS pick for the CPU, so a hash of the bytes holds only
on the machine that recorded it. A real change (a noise scale 30% off, a missing clamp, another
seed stream) moves these numbers by far more than ``RTOL``. ``test_other_cpu.py`` runs this check
again under an older instruction set. ``--check`` prints what differs; regenerate only for an
intended change and say which entries changed and why in the commit message.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from dpcore import registry
from dpcore.data import binary_product, generate
from dpcore.privacy import Budget

OUT = Path(__file__).with_name("estimators.json")
SEEDS = (0, 1, 2)
SHAPES = {
    "real": [(400, 1), (300, 8), (200, 512)],
    "bounded": [(400, 1), (300, 8), (200, 512)],
    "binary": [(400, 2), (300, 8), (200, 512)],
}
#: the tolerance, relative to each number's scale: far above a CPU's last-bit differences (about
#: 1e-15 here) and far below any change of an estimator's algorithm, noise or streams
RTOL = 1e-9
#: coordinates kept whole up to this dimension; above it, the first and last EDGE
WHOLE = 8
EDGE = 4


def _data(kind: str, n: int, d: int):
    if kind == "binary":
        return binary_product(n, d, rng=7)
    if kind == "bounded":
        return generate("bounded", n=n, d=d, rng=7)
    return generate("gaussian", n=n, d=d, skew=1.0, rng=7)


def _budget(spec) -> Budget:
    if "rho" in spec.units:
        return Budget.zcdp(0.5)
    if "eps" in spec.units:
        return Budget.pure(1.0)
    return Budget.approx(1.0, 1e-6)


def _signs(d: int) -> np.ndarray:
    """A fixed pseudo-random ±1 pattern from integer arithmetic only (the same on every CPU)."""
    i = np.arange(d, dtype=np.uint64)
    return 1.0 - 2.0 * ((i * np.uint64(2654435761) >> np.uint64(7)) & np.uint64(1)).astype(float)


def summary(mean: Any) -> dict[str, list[float]]:
    """The numbers a fingerprint keeps of a released mean, each with the scale it is compared at.

    ``norms`` are the largest absolute coordinate, the sum of absolute values and the sum of
    squares; ``sums`` are the plain sum, a position-weighted sum (a swap of two coordinates moves
    it) and a fixed ±1 projection, each compared at the sum of absolute values; ``coords`` are the
    coordinates (all of them up to ``WHOLE``, else the first and last ``EDGE``), compared at the
    largest absolute coordinate.
    """
    x = np.atleast_1d(np.asarray(mean, dtype=float)).ravel()
    d = x.size
    coords = x if d <= WHOLE else np.concatenate([x[:EDGE], x[-EDGE:]])
    weights = (np.arange(d) + 1.0) / d
    return {
        "norms": [float(np.abs(x).max()), float(np.abs(x).sum()), float(x @ x)],
        "sums": [float(x.sum()), float(weights @ x), float(_signs(d) @ x)],
        "coords": [float(v) for v in coords],
    }


def fingerprint(spec, kind: str, data, seed: int) -> dict[str, Any] | str:
    """The ledger total and :func:`summary` of one run, or the refusal's first words."""
    try:
        est = registry.run(spec.name, data, _budget(spec), rng=seed)
    except ValueError as err:
        return "refused: " + str(err)[:60]
    return {"ledger": float(est.ledger.total()), **summary(est.mean)}


def fingerprints() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in registry.all_estimators():
        if not spec.seeded:
            continue
        for kind in sorted(spec.data_kinds):
            for n, d in SHAPES[kind]:
                if spec.needs_dimension == "scalar" and d != 1:
                    continue
                if spec.needs_dimension == "vector" and d == 1:
                    continue
                try:
                    data = _data(kind, n, d)
                except ValueError:
                    continue
                for seed in SEEDS:
                    out[f"{spec.name}|{kind}|{n}x{d}|{seed}"] = fingerprint(spec, kind, data, seed)
    return out


def _close(new: float, old: float, scale: float) -> bool:
    if not (math.isfinite(new) and math.isfinite(old)):
        return new == old or (math.isnan(new) and math.isnan(old))
    return abs(new - old) <= RTOL * abs(scale)


def same(new: Any, old: Any) -> bool:
    """Whether two fingerprints agree: refusals word for word, numbers within ``RTOL``."""
    if isinstance(new, str) or isinstance(old, str) or new is None or old is None:
        return new == old
    if any(len(new[k]) != len(old[k]) for k in ("norms", "sums", "coords")):
        return False
    linf, l1, _ = old["norms"]
    return (
        _close(new["ledger"], old["ledger"], old["ledger"])
        and all(_close(a, b, b) for a, b in zip(new["norms"], old["norms"], strict=True))
        and all(_close(a, b, l1) for a, b in zip(new["sums"], old["sums"], strict=True))
        and all(_close(a, b, linf) for a, b in zip(new["coords"], old["coords"], strict=True))
    )


def differences(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    """The keys whose fingerprints disagree (or that only one side has), sorted."""
    return sorted(k for k in set(old) | set(new) if not same(new.get(k), old.get(k)))


def write(fp: dict[str, Any], path: Path = OUT) -> None:
    """One line per key, so a regenerated file's diff names the entries that changed."""
    lines = [f" {json.dumps(k)}: {json.dumps(fp[k])}" for k in sorted(fp)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def test_estimator_outputs_match_the_recorded_fingerprints() -> None:
    old = json.loads(OUT.read_text())
    differ = differences(fingerprints(), old)
    assert not differ, f"{len(differ)} fingerprints changed, e.g. {differ[:5]}"


def test_the_comparison_ignores_last_bits_and_catches_real_changes() -> None:
    rng = np.random.default_rng(11)
    x = rng.normal(size=512)
    ulps = x * (1 + 4 * np.finfo(float).eps * rng.choice([-1, 1], size=512))
    old = {"ledger": 0.5, **summary(x)}
    assert same({"ledger": 0.5, **summary(ulps)}, old)
    noise_cut = x.copy()
    noise_cut[200] *= 0.7
    swapped = x.copy()
    swapped[[100, 300]] = swapped[[300, 100]]
    for changed in (x * 0.7, noise_cut, swapped, x + 1e-6):
        assert not same({"ledger": 0.5, **summary(changed)}, old)
    assert not same({"ledger": 0.25, **summary(x)}, old)
    assert not same("refused: no", old)


if __name__ == "__main__":
    fp = fingerprints()
    if "--check" in sys.argv:
        old = json.loads(OUT.read_text())
        bad = differences(fp, old)
        print(f"{len(fp)} fingerprints, {len(bad)} differ")
        for k in bad[:80]:
            print(" ", k, old.get(k), "->", fp.get(k))
        sys.exit(1 if bad else 0)
    write(fp)
    print(f"wrote {len(fp)} fingerprints to {OUT}")
