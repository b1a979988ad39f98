"""The curator's odometer: a total privacy budget per data set, charged from each release's
guarantee, optionally kept in a small SQLite ledger across sessions and restarts.

:class:`Odometer` counts in one notion, pure ε or ρ-zCDP, and charges a release what its
:class:`~dpcore.guarantee.Guarantee` costs in that notion: a pure ε release costs ε (or ε²/2 in ρ);
a zCDP release costs ρ and is refused by a pure odometer, whatever keyword asked for it (ρ-zCDP is
not ε-DP for any ε). The cost is checked and reserved *before* the release runs and given back if
it fails, so a failed or refused release costs nothing and two sessions cannot both spend the last
of a total. Once anything is spent the total can be lowered, not raised; only
:meth:`Odometer.new_budget` (logged) starts again.

:class:`OdometerStore` keeps the odometers in SQLite (stdlib ``sqlite3``, WAL mode), one row per
data set keyed by its HMAC fingerprint (:func:`dpcore.curator.fingerprint`), with a log of every
charge, refund, lowered total and new budget. Its file is ``$DPMEAN_ODOMETER_DB``, else
``odometer.sqlite3`` in the data folder (:func:`dpcore.curator.data_dir`).

What it protects: a curator's own limit on what this server releases about one file. What it does
not: releases made elsewhere (another installation, another copy of the data, an edited file), nor
what the budget itself means: that is the guarantee's.

References
----------
docs/release.md (the odometer: what it protects and what it does not).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpcore import registry
from dpcore.curator import data_dir
from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget

__all__ = ["DB_ENV", "Odometer", "OdometerStore", "predicted_guarantee"]

#: The environment variable naming the odometer's SQLite file.
DB_ENV = "DPMEAN_ODOMETER_DB"
_TOL = 1e-12


def _value(b: Budget) -> float:
    return b.epsilon_value if b.notion == "pure" else b.rho_value


def predicted_guarantee(name: str, budget: Budget, **kwargs: Any) -> Guarantee:
    """The guarantee a release of ``name`` at ``budget`` will state, known before it runs: the
    estimator's own notion at the budget converted to it (``at_implied_level``: ρ = ε²/2, which is
    zCDP only)."""
    notion = registry.get(name).notion
    if notion == "pure":
        return Guarantee.pure(budget.to_native("pure").value)
    if notion == "zcdp":
        conv = budget.implied_zcdp() if budget.notion == "pure" else budget.to_native("zcdp")
        return Guarantee.zcdp(conv.value)
    raise ValueError(f"{name} is a non-private reference: it cannot be charged to a budget.")


def _guarantee_of(
    fn: Callable[..., Any], args: tuple[Any, ...], budget: Budget, kw: Any
) -> Guarantee:
    if args and isinstance(args[0], str) and args[0] in {s.name for s in registry.all_estimators()}:
        return predicted_guarantee(args[0], budget, **kw)
    if budget.notion in ("pure", "zcdp"):
        return Guarantee.of_notion(budget.notion, _value(budget))
    raise ValueError("an (ε, δ) budget cannot be charged: give it as ε or ρ.")


@dataclass
class Odometer:
    """A total budget and what has been spent against it (in ``total``'s notion).

    Parameters
    ----------
    total : Budget
        ``Budget.pure(ε)`` or ``Budget.zcdp(ρ)``.
    spent : float
        Already spent, in that notion.
    history : list of dict
        One entry per charged release.
    store, key : optional
        The SQLite store and the data set's fingerprint, for an odometer kept across sessions
        (:meth:`OdometerStore.odometer`); ``None`` keeps it in memory.

    Examples
    --------
    >>> odo = Odometer(Budget.pure(1.0))
    >>> odo.cost(Budget.pure(0.25)), odo.remaining
    (0.25, 1.0)
    """

    total: Budget
    spent: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)
    store: OdometerStore | None = field(default=None, repr=False)
    key: str | None = field(default=None, repr=False)
    guarantee: Guarantee = field(default_factory=Guarantee.none)

    def __post_init__(self) -> None:
        if self.total.notion not in ("pure", "zcdp"):
            raise ValueError("the odometer's total must be Budget.pure(ε) or Budget.zcdp(ρ).")
        if self.spent > 0 and self.guarantee == Guarantee.none():
            self.guarantee = Guarantee.of_notion(self.total.notion, self.spent)

    @property
    def notion(self) -> str:
        return self.total.notion

    @property
    def amount(self) -> float:
        return self.total.epsilon_value if self.notion == "pure" else self.total.rho_value

    @property
    def unit(self) -> str:
        return "ε" if self.notion == "pure" else "ρ"

    @property
    def remaining(self) -> float:
        return max(0.0, self.amount - self.spent)

    def cost(self, budget: Budget | Guarantee) -> float:
        """What a release at ``budget`` (or with guarantee ``budget``) costs here (``ValueError``
        if this notion cannot count it)."""
        if isinstance(budget, Budget):
            if budget.notion == "approx":
                raise ValueError("an (ε, δ) budget cannot be counted; give it as ε or ρ.")
            return Guarantee.of_notion(budget.notion, _value(budget)).amount(self.notion)
        return budget.amount(self.notion)

    def check(self, budget: Budget | Guarantee) -> float:
        """The cost of ``budget``, or ``ValueError`` when it exceeds what is left."""
        c = self.cost(budget)
        if c > self.remaining * (1.0 + _TOL) + _TOL:
            raise ValueError(
                f"this release costs {self.unit} = {c:.4g} but only {self.remaining:.4g} of the "
                f"total {self.unit} = {self.amount:g} for this data is left; nothing was released."
            )
        return c

    def _set(self, total: float, spent: float, g: Guarantee) -> None:
        self.total = Budget.pure(total) if self.notion == "pure" else Budget.zcdp(total)
        self.spent, self.guarantee = spent, g

    def _charge(self, g: Guarantee, what: str) -> float:
        if self.store is not None and self.key is not None:
            return self.store.charge(self, g, what)
        c = self.check(g)
        self._set(self.amount, self.spent + c, self.guarantee.compose(g))
        return c

    def _refund(self, g: Guarantee, what: str) -> None:
        if self.store is not None and self.key is not None:
            self.store.refund(self, g, what)
            return
        spent = max(0.0, self.spent - self.cost(g))
        back = Guarantee(self.guarantee.epsilon - g.epsilon, max(0.0, self.guarantee.rho - g.rho))
        self._set(self.amount, spent, back if spent > 0 else Guarantee.none())

    def run(self, fn: Callable[..., Any], *args: Any, budget: Budget, **kwargs: Any) -> Any:
        """``fn(*args, budget, **kwargs)`` (e.g. :func:`dpcore.release.release`), charged from
        the guarantee it will state (reserved first, given back if it fails)."""
        g = _guarantee_of(fn, args, budget, kwargs)
        what = args[0] if args and isinstance(args[0], str) else getattr(fn, "__name__", "release")
        cost = self._charge(g, what)
        try:
            out = fn(*args, budget, **kwargs)
        except BaseException:
            self._refund(g, what)
            raise
        stated = getattr(out, "guarantee", g)
        if stated.amount(self.notion) > cost * (1.0 + 1e-9):  # never under-charge
            self._charge(Guarantee(stated.epsilon - g.epsilon, stated.rho - g.rho), what)
        self.history.append({"estimator": what, "cost": cost, "unit": self.unit})
        return out

    def set_total(self, amount: float) -> None:
        """Change the total: lowering is always allowed, raising only before anything is spent
        (else ``ValueError``: use :meth:`new_budget`)."""
        a = float(amount)
        if not (math.isfinite(a) and a > 0):
            raise ValueError(f"the total must be a positive number; got {amount!r}.")
        if self.spent > 0 and a > self.amount * (1.0 + _TOL):
            raise ValueError(
                f"{self.unit} = {self.spent:.4g} has already been spent on this data, so its total "
                f"({self.amount:g}) can be lowered but not raised; to allow more, start a new "
                "budget for this data (an explicit, logged action)."
            )
        if self.store is not None and self.key is not None:
            self.store.set_total(self, a)
        else:
            self._set(a, self.spent, self.guarantee)

    def new_budget(self, total: float, reason: str = "") -> None:
        """Start a new budget for this data: nothing spent, a new total (logged in the store)."""
        a = float(total)
        if not (math.isfinite(a) and a > 0):
            raise ValueError(f"the total must be a positive number; got {total!r}.")
        if self.store is not None and self.key is not None:
            self.store.new_budget(self, a, reason)
        else:
            self._set(a, 0.0, Guarantee.none())
        self.history.clear()


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


class OdometerStore:
    """Odometers kept in SQLite (WAL mode), one per data set, with a log of every change.

    Parameters
    ----------
    path : str or Path, optional
        The file; default ``$DPMEAN_ODOMETER_DB``, else ``odometer.sqlite3`` in the data folder.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        raw = os.environ.get(DB_ENV, "").strip()
        self.path = Path(path or raw or data_dir() / "odometer.sqlite3").expanduser()
        with self._tx() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS budgets (key TEXT PRIMARY KEY, notion TEXT NOT NULL, "
                "total REAL NOT NULL, spent REAL NOT NULL, eps REAL NOT NULL, rho REAL NOT NULL)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY, key TEXT NOT NULL, "
                "time TEXT NOT NULL, action TEXT NOT NULL, amount REAL, detail TEXT)"
            )

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    @staticmethod
    def _row(db: sqlite3.Connection, key: str) -> tuple[str, float, float, float, float]:
        row = db.execute(
            "SELECT notion, total, spent, eps, rho FROM budgets WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            raise ValueError("this data set has no odometer here yet; open it first.")
        return row

    def odometer(self, key: str, default: Budget) -> Odometer:
        """The odometer of the data set ``key`` (created with total ``default`` if new)."""
        if default.notion not in ("pure", "zcdp"):
            raise ValueError("the odometer's total must be Budget.pure(ε) or Budget.zcdp(ρ).")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM budgets WHERE key = ?", (key,)).fetchone() is None:
                db.execute(
                    "INSERT INTO budgets VALUES (?, ?, ?, 0, 0, 0)",
                    (key, default.notion, _value(default)),
                )
                db.execute(
                    "INSERT INTO log (key, time, action, amount, detail) VALUES (?, ?, ?, ?, ?)",
                    (key, _now(), "open", _value(default), default.notion),
                )
            notion, total, spent, eps, rho = self._row(db, key)
        odo = Odometer(Budget.pure(total) if notion == "pure" else Budget.zcdp(total))
        odo.store, odo.key = self, key
        odo._set(total, spent, Guarantee(eps, rho))
        return odo

    def _write(
        self, db: sqlite3.Connection, odo: Odometer, total: float, spent: float, g: Guarantee
    ) -> None:
        db.execute(
            "UPDATE budgets SET total = ?, spent = ?, eps = ?, rho = ? WHERE key = ?",
            (total, spent, g.epsilon, g.rho, odo.key),
        )
        odo._set(total, spent, g)

    def _log(
        self, db: sqlite3.Connection, key: str, action: str, amount: float, detail: str
    ) -> None:
        db.execute(
            "INSERT INTO log (key, time, action, amount, detail) VALUES (?, ?, ?, ?, ?)",
            (key, _now(), action, amount, detail),
        )

    def charge(self, odo: Odometer, g: Guarantee, what: str) -> float:
        """Check and charge ``g`` against the stored total (atomically)."""
        assert odo.key is not None
        with self._tx() as db:
            _, total, spent, eps, rho = self._row(db, odo.key)
            odo._set(total, spent, Guarantee(eps, rho))
            c = odo.check(g)
            self._write(db, odo, total, spent + c, odo.guarantee.compose(g))
            self._log(db, odo.key, "charge", c, what)
        return c

    def refund(self, odo: Odometer, g: Guarantee, what: str) -> None:
        """Give back a reserved charge (the release failed)."""
        assert odo.key is not None
        with self._tx() as db:
            _, total, spent, eps, rho = self._row(db, odo.key)
            c = g.amount(odo.notion)
            left = max(0.0, spent - c)
            back = (
                Guarantee(eps - g.epsilon, max(0.0, rho - g.rho)) if left > 0 else Guarantee.none()
            )
            self._write(db, odo, total, left, back)
            self._log(db, odo.key, "refund (the release failed)", c, what)

    def set_total(self, odo: Odometer, total: float) -> None:
        """Lower (or, with nothing spent, set) the stored total."""
        assert odo.key is not None
        with self._tx() as db:
            _, old, spent, eps, rho = self._row(db, odo.key)
            if spent > 0 and total > old * (1.0 + _TOL):
                raise ValueError("the total can be lowered but not raised once something is spent.")
            self._write(db, odo, total, spent, Guarantee(eps, rho))
            self._log(db, odo.key, "set total", total, f"was {old:g}")

    def new_budget(self, odo: Odometer, total: float, reason: str) -> None:
        """Start a new budget for this data: spent back to 0 (logged with the old spend)."""
        assert odo.key is not None
        with self._tx() as db:
            _, old, spent, _, _ = self._row(db, odo.key)
            self._write(db, odo, total, 0.0, Guarantee.none())
            self._log(
                db,
                odo.key,
                "start a new budget",
                total,
                f"had spent {spent:g} of {old:g}" + (f"; {reason}" if reason else ""),
            )

    def log(self, key: str) -> list[dict[str, Any]]:
        """Every change to the data set ``key``'s odometer, oldest first."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT time, action, amount, detail FROM log WHERE key = ? ORDER BY id", (key,)
            ).fetchall()
        return [dict(zip(("time", "action", "amount", "detail"), r, strict=True)) for r in rows]
