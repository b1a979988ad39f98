"""benchmarks/read_floor.py: the kernel calls it counts are the estimators' passes over the data."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _module(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as the benchmark runs it
    return importlib.import_module("read_floor")


def test_counted_sees_calls_through_the_module_and_restores_the_kernels(monkeypatch):
    rf = _module(monkeypatch)
    from dpcore import _kernels

    original = _kernels.scaled_norms
    Y, v = np.ones((4, 3)), np.zeros(3)
    with rf.counted() as calls:
        _kernels.scaled_norms(Y, v, np.ones(3))
        _kernels.scaled_norms(Y, v, np.ones(3))
    assert calls == {"scaled_norms": 2}
    assert _kernels.scaled_norms is original


def test_plan_and_iome_passes_at_a_kernel_size(monkeypatch):
    rf = _module(monkeypatch)
    x, bounds = rf.data(4096, 64)  # 2^18 values: the kernels' smallest size
    k, calls = rf.passes("PLAN", x, bounds)
    assert calls["half_squared_columns"] == 1 and calls["clipped_sum_rows"] >= 1
    assert calls["scaled_norms"] == calls["scaled_weighted_sum"] == 1
    assert calls["max_magnitude_bits"] == 1  # the data check: one read
    assert k == sum(calls.values())
    k, calls = rf.passes("IOME", x, bounds)
    assert calls["randomized_hadamard_rows"] == 1 and calls["clipped_sum_rows"] >= 1
    assert calls["max_magnitude_bits"] == 1
