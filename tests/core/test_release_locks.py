"""Refusals and locks: every entry that cannot release is refused up front, flags are booleans,
a direct call is held to the registry's locks, and a release draws nothing from Python's random."""

import dataclasses
import importlib
import random

import numpy as np
import pytest

from dpcore import Budget, registry
from dpcore.estimate import _REGISTRY
from dpcore.estimators.winsorized import winsorized_mean_zcdp
from dpcore.release import refusal, release

rel_mod = importlib.import_module("dpcore.release")  # the module (dpcore.release is the function)

EPS, RHO = Budget.pure(1.0), Budget.zcdp(0.5)
_ROWS = np.random.default_rng(0).random((60, 3))
#: The boolean flags of the registered entries.
FLAGS = ("clip", "flip", "recycle", "shuffle", "rotate", "clamp", "shift", "regularise_sigma")


def _budget(spec):
    return RHO if spec.notion == "zcdp" else EPS


def _data(spec, d):
    if spec.data_kinds == frozenset({"binary"}):
        return (_ROWS[:, : max(d, 2)] < 0.4).astype(float)
    return _ROWS[:, :d].copy()


def _dims(spec):
    return {"scalar": (1,), "vector": (3,)}.get(spec.needs_dimension, (1, 3))


@pytest.mark.parametrize("name", [s.name for s in registry.all_estimators()])
def test_refusal_covers_every_entry_that_cannot_release(name, monkeypatch):
    """Each entry, on small data at d = 1 and 3: refusal() names it exactly when release fails,
    and then release fails with that reason (not a developer's message at run time)."""
    monkeypatch.setattr(
        rel_mod, "accuracy", lambda *a, **k: (np.zeros(a[3][1]), np.ones(a[3][1]), "-")
    )
    spec = registry.get(name)
    why = refusal(spec)
    n_public = spec.neighbouring == "replace-one"  # its guarantee assumes n public: confirmed
    for d in _dims(spec):
        if why is not None:
            with pytest.raises(ValueError, match="cannot make a private release") as err:
                release(name, _data(spec, d), _budget(spec), bounds=(0.0, 1.0), n_public=n_public)
            assert why in str(err.value)
        else:
            out = release(name, _data(spec, d), _budget(spec), bounds=(0.0, 1.0), n_public=n_public)
            assert np.all(np.isfinite(out.mean))


@pytest.mark.parametrize("name", ["iome_original", "iome_as_published"])
def test_float_adding_iome_entries_are_refused_in_words(name):
    why = refusal(registry.get(name))
    assert why is not None and "iome_paper" in why and "value=None" not in why


def _flag_cases():
    for spec in registry.all_estimators():
        for key in sorted(spec.public_keywords() & set(FLAGS)):
            yield spec.name, key


@pytest.mark.parametrize(("name", "flag"), list(_flag_cases()))
@pytest.mark.parametrize("value", [float("nan"), 1.0, "yes"])
def test_a_flag_must_be_a_bool(name, flag, value):
    spec = registry.get(name)
    kw = {"bounds": (0.0, 1.0)} if spec.accepts("bounds") else {}
    with pytest.raises(ValueError, match=flag):
        spec.run(_data(spec, 3), _budget(spec), rng=0, **kw, **{flag: value})


def test_flag_cases_cover_the_audited_flags():
    assert {flag for _, flag in _flag_cases()} == set(FLAGS)


def test_a_bool_flag_still_runs():
    est = registry.run(
        "binary_pde", _data(registry.get("binary_pde"), 3), EPS, rng=0, clip=np.False_
    )
    assert np.all(np.isfinite(est.mean))


def test_a_direct_call_is_held_to_the_registry_locks():
    x = _ROWS[:, :2]
    with pytest.raises(ValueError, match="walk='gaussian' changes the privacy guarantee"):
        winsorized_mean_zcdp(x, rho=0.5, bounds=(0, 1), rng=0, walk="gaussian")
    spec = registry.get("pmwm_zcdp")
    with pytest.raises(ValueError, match="walk"):
        spec.func(x, rho=0.5, bounds=(0, 1), rng=0, **{**spec.params, "walk": "gaussian"})
    est = winsorized_mean_zcdp(x, rho=0.5, bounds=(0, 1), rng=0, walk="pure")
    assert est.ledger.total() == pytest.approx(0.5)


def test_a_release_draws_nothing_from_pythons_random(monkeypatch):
    spec = registry.get("clipped_laplace")

    def leaky(x, *, epsilon, bounds, rng=None):
        random.random()  # a stray draw from the Mersenne Twister
        return spec.func(x, epsilon=epsilon, bounds=bounds, rng=rng)

    monkeypatch.setitem(_REGISTRY, spec.name, dataclasses.replace(spec, func=leaky))
    with pytest.raises(ValueError, match="Python's random module"):
        release("clipped_laplace", _ROWS[:, :2], EPS, bounds=(0.0, 1.0), n_public=True)
    assert 0.0 <= random.random() < 1.0  # outside a release the module draws as usual


def _direct_calls():
    from dpcore.estimators.binary_baselines import klsu_style_zcdp, naive_laplace, truncated_laplace
    from dpcore.estimators.binary_product import pure_dp_pde
    from dpcore.estimators.simplex import simplex_mean
    from dpcore.estimators.simplex_baselines.sums import plugin_mean

    xb = (_ROWS[:, :3] < 0.4).astype(float)
    x = _ROWS[:, :3]
    iome = registry.get("iome_paper").func
    plan = registry.get("plan").func
    return {
        "shuffle": lambda v: pure_dp_pde(xb, epsilon=1.0, rng=0, shuffle=v),
        "flip": lambda v: pure_dp_pde(xb, epsilon=1.0, rng=0, flip=v),
        "clip": lambda v: naive_laplace(xb, epsilon=1.0, rng=0, clip=v),
        "clip (truncated)": lambda v: truncated_laplace(xb, epsilon=1.0, rng=0, clip=v),
        "recycle": lambda v: klsu_style_zcdp(xb, rho=0.5, rng=0, recycle=v),
        "clamp": lambda v: simplex_mean(x, epsilon=1.0, bounds=(0, 1), rng=0, clamp=v),
        "shift": lambda v: plugin_mean(x, epsilon=1.0, bounds=(0, 1), rng=0, shift=v),
        "rotate": lambda v: iome(x, rho=0.5, bounds=(0, 1), rng=0, rotate=v),
        "regularise_sigma": lambda v: plan(x, rho=0.5, bounds=(0, 1), rng=0, regularise_sigma=v),
    }


@pytest.mark.parametrize("flag", list(_direct_calls()))
def test_a_direct_call_checks_its_flags(flag):
    call = _direct_calls()[flag]
    with pytest.raises(ValueError, match=flag.split()[0]):
        call(float("nan"))
    assert np.all(np.isfinite(call(True).mean))
