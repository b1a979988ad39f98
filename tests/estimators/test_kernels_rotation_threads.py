"""The rotation kernel compiles once however many threads ask at once (Home's warm-up thread and
a page's run can both rotate a large array first): its helpers are replaced by their compiled
versions under a lock, and never compiled twice."""

from __future__ import annotations

import importlib
import threading

import pytest

pytest.importorskip("numba")


def test_the_kernel_compiles_once_when_threads_ask_at_once() -> None:
    from dpcore import _kernels_rotation

    for _ in range(10):
        mod = importlib.reload(_kernels_rotation)
        start = threading.Barrier(6)
        errors: list[BaseException] = []
        kernels: list[object] = []

        def ask(mod=mod, start=start, errors=errors, kernels=kernels) -> None:
            start.wait()
            try:
                kernels.append(mod._kernel())
            except BaseException as err:  # noqa: BLE001 - the test reports what a thread raised
                errors.append(err)

        threads = [threading.Thread(target=ask) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert len({id(k) for k in kernels}) == 1
