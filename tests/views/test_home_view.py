"""Home's example (dpcore.experiments.studies.why_plan_wins, run by dpcore.views.home): every
run's data and each estimator's noise come from their own streams, never one integer for both."""

from __future__ import annotations

import numpy as np

from dpcore.experiments.studies import gallery


def test_data_and_noise_never_share_a_seed(monkeypatch) -> None:
    seen: list[tuple[str, object]] = []
    generate = gallery.generate

    def recorded_generate(*args: object, rng: object = None, **kwargs: object) -> object:
        seen.append(("data", rng))
        return generate(*args, rng=rng, **kwargs)

    monkeypatch.setattr(gallery, "generate", recorded_generate)
    real_get = gallery.get

    class Spy:
        def __init__(self, name: str) -> None:
            self.spec = real_get(name)
            self.label, self.color, self.name = self.spec.label, self.spec.color, name

        def run(self, ds: object, budget: object, *, rng: object = None) -> object:
            seen.append((self.name, rng))
            return self.spec.run(ds, budget, rng=rng)

    monkeypatch.setattr(gallery, "get", Spy)
    ev = gallery.why_plan_wins(n=200, d=4, skew=2.0, rho=0.5, seeds=2)
    assert len(ev.errors) == 2 * len(gallery.ESTIMATORS)
    # every generator is a Generator (no int seed), and no two of them start alike
    assert all(isinstance(rng, np.random.Generator) for _, rng in seen), seen
    firsts = [rng.bit_generator.state["state"]["state"] for _, rng in seen]  # type: ignore[union-attr]
    assert len(set(firsts)) == len(firsts)


def test_the_warm_up_and_a_first_visitor_compute_the_evidence_once(monkeypatch) -> None:
    """Asked from two threads at once (the server's warm-up and the first visitor to Home), the
    evidence is computed once: the second caller waits and gets the same object."""
    import threading
    import time

    from dpcore.views import home

    calls: list[int] = []

    def slow_study(**kwargs: object) -> object:
        calls.append(1)
        time.sleep(0.3)  # long enough for the other thread to ask meanwhile
        return object()

    monkeypatch.setattr(home, "why_plan_wins", slow_study)
    home._evidence.cache_clear()
    try:
        got: list[object] = []
        threads = [threading.Thread(target=lambda: got.append(home.evidence())) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert len(calls) == 1 and len(got) == 2 and got[0] is got[1]
    finally:
        home._evidence.cache_clear()  # the real evidence again for later tests
