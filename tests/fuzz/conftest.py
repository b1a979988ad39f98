"""Hypothesis profiles for the fuzz suite, and a count of the cases it ran.

``HYPOTHESIS_PROFILE=fuzz`` (``make fuzz``) selects the long profile; anything else runs the fast
one (part of ``make test``). The profiles apply only to the tests in this folder (through
:data:`FUZZ`), so the rest of the suite keeps Hypothesis' defaults.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

#: examples per fuzz test: fast (``make test``) and long (``make fuzz``)
EXAMPLES = {"fast": 6, "fuzz": 260}
PROFILE = "fuzz" if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else "fast"
for _name, _n in EXAMPLES.items():
    settings.register_profile(
        f"dpmean-{_name}",
        max_examples=_n,
        deadline=None,
        derandomize=_name == "fast",
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )
FUZZ = settings.get_profile(f"dpmean-{PROFILE}")

_CASES = [0]


@pytest.fixture
def case_counter():
    """Call the returned function once per generated case (summed over xdist workers at the end)."""

    def tick() -> None:
        _CASES[0] += 1

    return tick


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the count to the controller
        workeroutput["fuzz_cases"] = _CASES[0]


def pytest_testnodedown(node, error) -> None:  # xdist hook (controller side)
    _CASES[0] += getattr(node, "workeroutput", {}).get("fuzz_cases", 0)


def pytest_terminal_summary(terminalreporter) -> None:
    if _CASES[0]:
        terminalreporter.write_line(
            f"fuzz suite: {_CASES[0]:,} generated cases (profile {PROFILE})"
        )
