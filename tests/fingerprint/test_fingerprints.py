"""Record (or check) a fingerprint of every registered estimator's output.

``python tests/fingerprint/test_fingerprints.py`` writes ``estimators.json`` beside this file: for
every registry entry, three seeds and three shapes (one with d >= 512), the SHA-256 of the released
mean's bytes and the ledger total. The test holds the estimators to it bit for bit (``--check``
prints what differs); regenerate only for an intended change and say which entries changed and why
in the commit message.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

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


def fingerprints() -> dict[str, str]:
    out: dict[str, str] = {}
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
                    key = f"{spec.name}|{kind}|{n}x{d}|{seed}"
                    try:
                        est = registry.run(spec.name, data, _budget(spec), rng=seed)
                    except ValueError as err:
                        out[key] = "refused: " + str(err)[:60]
                        continue
                    h = hashlib.sha256(np.ascontiguousarray(est.mean, dtype=float).tobytes())
                    out[key] = f"{h.hexdigest()[:24]} {est.ledger.total():.12g}"
    return out


def test_estimator_outputs_match_the_recorded_fingerprints() -> None:
    old = json.loads(OUT.read_text())
    new = fingerprints()
    differ = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    assert not differ, f"{len(differ)} fingerprints changed, e.g. {differ[:5]}"


if __name__ == "__main__":
    fp = fingerprints()
    if "--check" in sys.argv:
        old = json.loads(OUT.read_text())
        bad = sorted(k for k in set(old) | set(fp) if old.get(k) != fp.get(k))
        print(f"{len(fp)} fingerprints, {len(bad)} differ")
        for k in bad[:80]:
            print(" ", k, old.get(k), "->", fp.get(k))
        sys.exit(1 if bad else 0)
    OUT.write_text(json.dumps(fp, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(fp)} fingerprints to {OUT}")
