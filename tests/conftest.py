"""Test-wide settings: page tests see complete results at once (no progressive refinement, whose
first result is replaced a few seconds later); tests/pages/test_classroom.py turns it on. Every
test gets its own data folder (the curator's key and the odometer's SQLite file), never the
user's ``~/.dpmean-lab``."""

import os

import pytest

os.environ.setdefault("DPMEAN_PROGRESSIVE", "0")


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path_factory, monkeypatch):
    """A fresh data folder per test (``DPMEAN_DATA_DIR``), and no odometer file set from outside."""
    monkeypatch.setenv("DPMEAN_DATA_DIR", str(tmp_path_factory.mktemp("dpmean-data")))
    monkeypatch.delenv("DPMEAN_ODOMETER_DB", raising=False)


@pytest.fixture
def envelope_calls(monkeypatch):
    """A list that gets an item at every call of ``dpcore.mechanisms.exponential_by_envelope``
    (the medians drawn without a sort), which still runs."""
    from dpcore import mechanisms

    calls: list[int] = []
    right = mechanisms.exponential_by_envelope

    def counted(*args, **kwargs):
        calls.append(1)
        return right(*args, **kwargs)

    monkeypatch.setattr(mechanisms, "exponential_by_envelope", counted)
    return calls
