"""What IOME's stages read of their options: the protocol :class:`IomeOptions`.

:class:`~dpcore.estimators.iome.spec.IomeSpec` satisfies it (mypy checks this where the spec calls
:func:`~dpcore.estimators.iome.compose.run_iome`). The runner and the stages are typed against the
protocol, so none of them imports the spec: the spec calls the runner, never the other way round.

References
----------
docs/estimators/plan.md §5a; docs/architecture.md (the PLAN and IOME packages).
"""

from __future__ import annotations

from typing import Any, Protocol


class IomeOptions(Protocol):
    """The options of one IOME run as the stages read them (read-only; see ``IomeSpec``)."""

    @property
    def steps(self) -> int: ...
    @property
    def median_share(self) -> float: ...
    @property
    def radius_share(self) -> float: ...
    @property
    def offset_factor(self) -> float: ...
    @property
    def beta(self) -> float: ...
    @property
    def rotate(self) -> bool: ...
    @property
    def median_bounds(self) -> tuple[Any, Any] | None: ...
    @property
    def radius_upper(self) -> float | None: ...
    @property
    def radius_step(self) -> str: ...
    @property
    def center_step(self) -> str: ...
    @property
    def spread(self) -> float | None: ...
    @property
    def spread_share(self) -> float: ...

    def checked(self) -> IomeOptions:
        """The options with every value checked."""
        ...
