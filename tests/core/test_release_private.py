"""Everything a release publishes is private: the certificate carries no function of the data
other than the outputs of its charged mechanisms (the curator's record keeps the rest), the
odometer charges in its own notion from the release's guarantee, and the plain words read the
same guarantee the certificate prints.

The helpers pass ``n_public`` only where ``release`` accepts it, so these tests also run (and
fail) on the code before it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dpcore import registry
from dpcore.experiments.plain import audit_words, released_words
from dpcore.privacy import Budget, zcdp_to_approx
from dpcore.release import Odometer, refusal, release
from dpcore.remeasure import combine

_TAKES_N = "n_public" in inspect.signature(release).parameters
CAPABLE = [s.name for s in registry.all_estimators() if refusal(s) is None]
VARYING = {"time_utc"}  # besides the outputs (each release's noise), only the time may vary
SKIP: set[str] = set()  # fields (regular expressions) a test allows to differ


def _release(name: str, x: Any, budget: Budget, **kw: Any):
    """``release`` with n declared public where the relation needs it (replace-one)."""
    if _TAKES_N and registry.get(name).neighbouring == "replace-one":
        kw.setdefault("n_public", True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return release(name, x, budget, **kw)


def _budget(name: str) -> Budget:
    return Budget.pure(1.0) if registry.get(name).notion == "pure" else Budget.zcdp(0.5)


def _flat(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            if k not in VARYING:
                out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(obj, list):
        out = {}
        for i, v in enumerate(obj):
            out.update(_flat(v, f"{prefix}[{i}]"))
        return out
    return {prefix: obj}


def _fixed_and_different(name: str, x: np.ndarray, y: np.ndarray, runs: int = 2) -> list[str]:
    """Certificate fields equal over ``runs`` releases on ``x``, equal over ``runs`` on ``y``, and
    different between them: fixed by the data, so publishing them is not private."""
    kw = {} if registry.get(name).data_kinds == {"binary"} else {"bounds": (0.0, 1.0)}
    cx = [_flat(_release(name, x, _budget(name), **kw).certificate) for _ in range(runs)]
    cy = [_flat(_release(name, y, _budget(name), **kw).certificate) for _ in range(runs)]
    keys = {k for k in set().union(*cx, *cy) if not any(re.fullmatch(p, k) for p in SKIP)}
    return [
        f"{k}: {cx[0].get(k)!r} vs {cy[0].get(k)!r}"
        for k in sorted(keys)
        if all(_same(c.get(k), cx[0].get(k)) for c in cx)
        and all(_same(c.get(k), cy[0].get(k)) for c in cy)
        and not _same(cx[0].get(k), cy[0].get(k))
    ]


def _same(a: Any, b: Any) -> bool:
    """Equal, floats within rounding (a sum of stage budgets may differ in its last bit)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)
    return a == b


def _data(name: str, n: int = 40, d: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """D and a neighbour D' under the entry's relation."""
    g = np.random.default_rng(3)
    binary = registry.get(name).data_kinds == {"binary"}
    x = (g.random((n, d)) < 0.5).astype(float) if binary else np.round(g.uniform(0, 1, (n, d)), 3)
    new = np.ones((1, d)) if binary else np.full((1, d), 0.999)
    if registry.get(name).neighbouring == "add-remove":
        return x, np.vstack([x, new])
    y = x.copy()
    y[-1] = 1 - x[-1] if binary else new
    return x, y


def _check(name: str, x: np.ndarray, y: np.ndarray) -> None:
    try:
        diffs = _fixed_and_different(name, x, y)
        if diffs:  # a coincidence of random fields is ruled out by two more releases each
            diffs = _fixed_and_different(name, x, y, runs=4)
    except ValueError as err:  # refused at run time: nothing is published
        pytest.skip(f"{name} refuses to release here: {err}")
    assert not diffs, f"{name}: certificate fields fixed by the data:\n" + "\n".join(diffs[:8])


# ---------------------------------------------------------------------------------------------
# the hash attack (audit F1)


def _sha(x: np.ndarray) -> str:
    h = hashlib.sha256(repr(x.shape).encode())
    h.update(np.ascontiguousarray(x, dtype=np.float64).tobytes())
    return h.hexdigest()


def test_the_certificate_does_not_identify_the_input_among_two_candidates():
    """The adversary knows every row but one and the two candidates for it; it hashes both
    candidate data sets (and their CSV files) and looks for them in what is published."""
    g = np.random.default_rng(1)
    others = np.round(g.uniform(0, 100, size=(49, 1)), 1)
    cands = [np.vstack([others, [[v]]]) for v in (37.0, 81.5)]
    csv = [pd.DataFrame({"income": c[:, 0]}).to_csv(index=False).encode() for c in cands]
    marks = [_sha(c) for c in cands] + [hashlib.sha256(b).hexdigest() for b in csv]
    for truth in (0, 1):
        frame = pd.DataFrame({"income": cands[truth][:, 0]})
        for name in ("clipped_laplace", "simplex_laplace"):
            out = _release(name, frame, Budget.pure(1.0), bounds=(0, 100), source=csv[truth])
            published = out.certificate_json() + out.certificate_text()
            assert not any(m in published for m in marks), name
            assert not re.search(r"\b[0-9a-f]{64}\b", published), "a 64-hex digest is published"
            # the curator's record keeps a keyed fingerprint, which the adversary cannot recompute
            kept = out.record["input_fingerprint"]["hmac_sha256"]
            assert kept not in marks and len(kept) == 64


def test_the_fingerprint_is_keyed_and_the_key_file_is_private(tmp_path, monkeypatch):
    from dpcore.curator import KEY_FILE, fingerprint, secret_key

    monkeypatch.setenv("DPMEAN_DATA_DIR", str(tmp_path / "lab"))
    x = np.arange(6.0).reshape(3, 2)
    first = fingerprint(x)
    assert (tmp_path / "lab" / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert fingerprint(x) == first and secret_key() == (tmp_path / "lab" / KEY_FILE).read_bytes()
    assert first != _sha(x) and first != fingerprint(x, key=b"another installation's key")


# ---------------------------------------------------------------------------------------------
# no certificate field fixed by the data (every release-capable entry)


@pytest.mark.parametrize("name", CAPABLE)
def test_no_certificate_field_is_fixed_by_the_data(name):
    """Two releases on D and two on a neighbour D' (the entry's relation): only the noisy outputs
    and the time may differ, never a field that is the same on each data set."""
    spec = registry.get(name)
    x, y = _data(name, d=1 if spec.needs_dimension == "scalar" else 2)
    _check(name, x, y)


@pytest.mark.parametrize(
    "name", [n for n in CAPABLE if registry.get(n).neighbouring == "replace-one"]
)
def test_printed_numbers_do_not_reveal_n(name):
    """Under replace-one n is public only as declared: apart from that declared n and the accuracy
    computed from it, no field of the certificate depends on the number of rows (no sensitivity
    or scale computed from it)."""
    global SKIP
    spec = registry.get(name)
    x, _ = _data(name, n=41, d=1 if spec.needs_dimension == "scalar" else 2)
    # functions of the declared n: n itself, the accuracy, and PLAN's budget split (which uses n)
    saved, SKIP = SKIP, {r"public\.n\..*", r"accuracy\..*", r"stages\[\d+\]\.spent"}
    try:
        _check(name, x[:40], x)
    finally:
        SKIP = saved


def test_no_exact_n_sensitivity_is_printed():
    """The audit read 0.0404244567963618 = 80/1979 off a certificate: no printed number is a
    multiple of the bounds' width over n."""
    x = np.random.default_rng(2).uniform(0, 40, (1979, 1))
    out = _release("clipped_laplace", x, Budget.pure(1.0), bounds=(0, 40))
    numbers = [float(v) for v in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", out.certificate_json())]
    numbers += [float(v) for v in re.findall(r"-?\d+\.\d+", out.certificate_text())]
    for k in (1, 2, 4):
        s = k * 40 / 1979
        assert not any(math.isclose(v, s, rel_tol=1e-6) for v in numbers), s
        assert not any(math.isclose(v, s / 1.0, rel_tol=1e-6) for v in numbers)


# ---------------------------------------------------------------------------------------------
# accuracy from public parameters only


def test_replace_one_asks_for_n_to_be_declared_public():
    x = _data("clipped_laplace")[0]
    with pytest.raises(ValueError, match="n_public=True"):
        release("clipped_laplace", x, Budget.pure(1.0), bounds=(0, 1))
    out = release("clipped_laplace", x, Budget.pure(1.0), bounds=(0, 1), n_public=True)
    assert out.certificate["public"]["n"] == {
        "value": 40,
        "source": "declared public by the curator",
    }


def test_add_remove_accuracy_comes_from_a_charged_noisy_count():
    x = _data("simplex_laplace")[0]
    out = release("simplex_laplace", x, Budget.pure(1.0), bounds=(0, 1))
    cert = out.certificate
    assert cert["stages"][0]["stage"] == "noisy count (for the accuracy)"
    assert cert["stages"][0]["spent"] == pytest.approx(0.1)
    assert math.fsum(s["spent"] for s in cert["stages"]) == pytest.approx(1.0)
    assert "noisy_count" in cert["outputs"] and "n" not in cert["public"]
    assert "40" not in json.dumps(cert["public"]) and out.record["n"] == 40
    declared = release("simplex_laplace", x, Budget.pure(1.0), bounds=(0, 1), n_public=True)
    assert [s["stage"] for s in declared.certificate["stages"]] == ["simplex release"]


def test_the_accuracy_method_does_not_depend_on_time(monkeypatch):
    """The number of simulated runs is fixed by public parameters, not by a clock."""
    import time

    from dpcore import release_accuracy

    x = _data("plan")[0]
    fast = release("plan", x, Budget.zcdp(0.5), bounds=(0, 1), n_public=True)
    clock = iter(range(0, 10**9, 1000))  # every reading 1000 s later: a very slow machine
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    release_accuracy._SIM_RESULTS.clear()
    slow = release("plan", x, Budget.zcdp(0.5), bounds=(0, 1), n_public=True)
    assert fast.certificate["accuracy"]["method"] == slow.certificate["accuracy"]["method"]


# ---------------------------------------------------------------------------------------------
# the odometer charges from the guarantee


def test_a_pure_odometer_refuses_a_zcdp_release_at_the_implied_level():
    x = _data("clipped_box_zcdp")[0]
    calls: list[str] = []

    def counted(*args: Any, **kwargs: Any):
        calls.append(args[0])
        return _release(*args, **kwargs)

    odo = Odometer(Budget.pure(1.0))
    with pytest.raises(ValueError, match="not ε-DP"):
        odo.run(
            counted,
            "clipped_box_zcdp",
            x,
            budget=Budget.pure(1.0),
            bounds=(0, 1),
            at_implied_level=True,
        )
    assert calls == [] and odo.spent == 0.0 and odo.history == []


def test_the_stored_odometer_holds_across_sessions(tmp_path):
    from dpcore.odometer import OdometerStore

    db = tmp_path / "odo.sqlite3"
    x = _data("clipped_laplace")[0]
    one = OdometerStore(db).odometer("file-a", Budget.pure(1.0))
    one.run(release, "clipped_laplace", x, budget=Budget.pure(0.6), bounds=(0, 1), n_public=True)
    two = OdometerStore(db).odometer("file-a", Budget.pure(5.0))  # a second session, a restart
    assert two.spent == pytest.approx(0.6) and two.amount == 1.0
    with pytest.raises(ValueError, match="nothing was released"):
        two.run(
            release, "clipped_laplace", x, budget=Budget.pure(0.6), bounds=(0, 1), n_public=True
        )
    with pytest.raises(ValueError, match="lowered but not raised"):
        two.set_total(3.0)
    with pytest.raises(ValueError):  # a failed release is refunded
        two.run(
            release, "clipped_laplace", x, budget=Budget.pure(0.2), bounds=(1, 0), n_public=True
        )
    assert OdometerStore(db).odometer("file-a", Budget.pure(1.0)).spent == pytest.approx(0.6)
    two.set_total(0.8)
    two.new_budget(2.0, "new quarter")
    again = OdometerStore(db).odometer("file-a", Budget.pure(1.0))
    assert again.spent == 0.0 and again.amount == 2.0
    actions = [e["action"] for e in OdometerStore(db).log("file-a")]
    assert actions == [
        "open",
        "charge",
        "charge",
        "refund (the release failed)",
        "set total",
        "start a new budget",
    ]
    assert OdometerStore(db).odometer("file-b", Budget.pure(1.0)).spent == 0.0
    import sqlite3

    assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# ---------------------------------------------------------------------------------------------
# one source for the risk words


def _fold(words) -> float:
    return float(words.odds_factor)


@pytest.mark.parametrize("total", [Budget.pure(3.0), Budget.zcdp(2.0)])
def test_the_box_states_the_certificates_guarantee_for_pure_releases(total):
    x = _data("clipped_laplace")[0]
    odo = Odometer(total)
    first = odo.run(_release, "clipped_laplace", x, budget=Budget.pure(1.0), bounds=(0, 1))
    words = released_words(odo, "x", float(first.mean[0]), float(first.accuracy[0]), delta=1e-6)
    g = first.certificate["guarantee"]
    assert _fold(words) == pytest.approx(math.exp(g["epsilon"]))  # e ≈ 2.7, not 185
    second = odo.run(_release, "clipped_laplace", x, budget=Budget.pure(1.0), bounds=(0, 1))
    words = released_words(odo, "x", float(second.mean[0]), float(second.accuracy[0]), releases=2)
    both = combine([first, second])
    assert both.certificate["guarantee"]["epsilon"] == pytest.approx(2.0)
    assert _fold(words) == pytest.approx(math.exp(2.0))  # about 7.4, not 2,360
    assert "7.4-fold" in words.text


@pytest.mark.parametrize("delta", [1e-6, 1e-9])
def test_the_box_states_the_certificates_guarantee_for_zcdp_releases(delta):
    x = _data("clipped_box_zcdp")[0]
    odo = Odometer(Budget.zcdp(1.0))
    out = odo.run(_release, "clipped_box_zcdp", x, budget=Budget.zcdp(0.5), bounds=(0, 1))
    g = out.certificate["guarantee"]
    words = released_words(odo, "x", float(out.mean[0]), float(out.accuracy[0]), delta=delta)
    at = g["implies_epsilon"] if delta == g["at_delta"] else zcdp_to_approx(g["rho"], delta)
    assert _fold(words) == pytest.approx(math.exp(at), rel=1e-9)
    assert words.delta == delta


def test_the_audit_box_states_the_audited_claim_not_the_sidebar():
    """A zCDP method audited under a pure sidebar budget runs at ρ = ε²/2: the box reads that."""
    claim = SimpleNamespace(measure="ε", value=5.2, notion="zcdp", epsilon=5.2, delta=1e-6, rho=0.5)
    result = SimpleNamespace(claim=claim, violated=False, draws=1000, lower=0.3)
    words = audit_words(result, Budget.pure(1.0), delta=1e-6)
    assert _fold(words) == pytest.approx(math.exp(zcdp_to_approx(0.5, 1e-6)))
    pure = SimpleNamespace(measure="ε", value=1.0, notion="pure", epsilon=1.0, delta=0.0, rho=None)
    words = audit_words(
        SimpleNamespace(claim=pure, violated=False, draws=10, lower=0.1), Budget.zcdp(0.5)
    )
    assert _fold(words) == pytest.approx(math.e)
