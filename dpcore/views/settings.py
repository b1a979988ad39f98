"""The sidebar's settings as one frozen record: the data, the budget and the seed every view reads.

A page reads the sidebar's widgets into :class:`DataSettings`, adds its own controls in its view's
settings record, and calls the view; the view derives everything else (the :class:`Budget`, the
data, every random stream) from these values alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from dpcore.data import DISTRIBUTIONS, Dataset, generate
from dpcore.estimators import peers  # imports its libraries only when asked
from dpcore.estimators.peers import ENABLE_HINT as PEERS_ENABLE_HINT
from dpcore.privacy import Budget
from dpcore.streams import Streams

__all__ = ["PEERS_ENABLE_HINT", "DataSettings", "dataset", "peer_libraries"]


@dataclass(frozen=True)
class DataSettings:
    """The global controls, as plain values (hashable, cacheable, URL-serialisable).

    Examples
    --------
    >>> s = DataSettings(n=500, d=4)
    >>> str(s.budget), s.kind
    ('ρ = 0.5 (zCDP)', 'real')
    """

    distribution: str = "gaussian"
    skew: float = 2.0
    n: int = 2000
    d: int = 32
    unit: str = "rho"
    budget_value: float = 0.5
    delta: float = 1e-6
    seed: int = 0

    @property
    def budget(self) -> Budget:
        """The budget as a :class:`dpcore.privacy.Budget` (raises ``ValueError`` if impossible)."""
        return Budget.from_unit(self.unit, self.budget_value, self.delta)

    def checked(self) -> Budget:
        """The budget, with δ checked first whatever the unit (every page shows δ in its
        conversions): a ``ValueError`` naming the fix when either is impossible."""
        Budget.approx(1.0, self.delta)  # refuses δ outside [MIN_DELTA, 1): the one δ check
        return self.budget

    @property
    def kind(self) -> str:
        """The data kind of the distribution (``"real"`` or ``"binary"``)."""
        return DISTRIBUTIONS[self.distribution].kind

    @property
    def streams(self) -> Streams:
        """The view's named random streams at this seed."""
        return Streams(int(self.seed))

    def to_query(self) -> dict[str, str]:
        """The settings as URL query values."""
        return {k: (repr(v) if isinstance(v, float) else str(v)) for k, v in asdict(self).items()}

    def code(self) -> str:
        """The dpcore calls that reproduce the current dataset and budget in a notebook."""
        delta = f", {self.delta!r}" if self.unit == "eps_delta" else ""
        return (
            "from dpcore.privacy import Budget\n"
            "from dpcore.views.settings import DataSettings, dataset\n"
            f"settings = DataSettings({self.distribution!r}, {self.skew!r}, {self.n}, {self.d}, "
            f"{self.unit!r}, {self.budget_value!r}, {self.delta!r}, {self.seed})\n"
            "data = dataset(settings)\n"
            f"budget = Budget.from_unit({self.unit!r}, {self.budget_value!r}{delta})\n"
        )


def dataset(settings: DataSettings) -> Dataset:
    """The data of ``settings``: drawn from its own stream (``"data"``) of the seed.

    Examples
    --------
    >>> dataset(DataSettings(n=100, d=3)).x.shape
    (100, 3)
    """
    return generate(
        settings.distribution,
        int(settings.n),
        int(settings.d),
        float(settings.skew),
        rng=settings.streams.rng("data"),
    )


def peer_libraries() -> dict[str, str | None]:
    """Each peer library (OpenDP, diffprivlib) with its installed version, ``None`` when missing."""
    return peers.available()
