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
