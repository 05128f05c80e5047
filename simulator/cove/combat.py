"""Pirate's Cove: a batch of one battle -- many independent trials of the same battle.

Rules: sections "Combat", "Non-player ships" and "Tavern deck" of
``../shared/rules/pirates-cove.md`` (readings in ``docs/rules-cove-combat.md``), compiled in
:mod:`simulator.cove.combat_kernel` on the rule core :mod:`simulator.cove.fast.core`. This module
holds no rule of its own: it names a battle's input and output (:class:`BattleShip`,
:data:`OUTCOMES`, :data:`FAME_CAUSES`), says which engine plays a batch (:func:`dispatch`) and
returns per-trial arrays (:class:`BatchResult`).

One engine plays batches: the compiled kernel, for every battle
:func:`combat_kernel.kernel_applies` covers (cards in hand, parrots, Artisans, 1-5 ships, every
non-player ship, the default Royal Navy controller, the rule, card-rule and solved-duel
policies): millions of battles a second. A battle it does not cover (a policy of another type, a
custom Royal Navy controller, several non-player ships) is refused with the reason. The scalar
engine that used to play those one battle at a time is an independent test oracle since issue
28 (``tests/cove_battle_oracle.py``): product code holds one implementation of each combat rule.
The vectorised numpy engine, a fourth copy, was retired in issue 16 (stage C).

Public API: :func:`simulate_battles` -> :class:`BatchResult`, :func:`dispatch`, :data:`ENGINES`,
:class:`BattleShip`, :func:`npc_keys`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from simulator.cove.combat_policies import BattlePolicy, RoyalNavyPolicy
from simulator.cove.rules import CoveRules

#: the ``engine`` argument of :func:`simulate_battles` / :func:`dispatch` ("auto" is the kernel)
ENGINES = ("auto", "kernel")
#: a player ship's end of a battle
OUTCOMES = ("won", "routed", "fled", "mutiny", "stayed")
#: a battle's fame changes by cause (``BatchResult.fame``'s last axis)
FAME_CAUSES = ("flight", "rout", "pirate_share", "capture", "parrot_death", "mutiny")
TREASURE_ISLAND = "treasure_island"
ROYAL_NAVY = "royal_navy"


@dataclass
class BattleShip:
    """One player ship entering a battle."""

    seat: int  # player index at the table (clockwise order = seat order)
    positions: list[int]  # 1-based ring positions, SECTIONS order (hull, crew, cannons, sails)
    artisans: dict[str, int] = field(default_factory=dict)  # section -> hits already absorbed
    parrot: str | None = None  # key of rules.parrots
    parrot_wounded: bool = False
    chests: int = 0
    gold: int = 0
    battle_cards: list[str] = field(default_factory=list)  # battle and volley cards in hand


def npc_keys(npc: str | Sequence[str] | None) -> tuple[str, ...]:
    """The non-player ships of a battle as a tuple of keys (``None``: none; one key; or several)."""
    if npc is None:
        return ()
    if isinstance(npc, str):
        return (npc,)
    return tuple(npc)


@dataclass
class BatchResult:
    """Per-trial results; ship axis in the order of the ``ships`` argument."""

    outcome: np.ndarray  # (n, S) int8, OUTCOMES codes
    fame: np.ndarray  # (n, S, 6) int16, FAME_CAUSES order
    positions: np.ndarray  # (n, S, 4) final ring positions (0 = destroyed)
    npc_sunk: np.ndarray  # (n,) bool
    captured_by: np.ndarray  # (n,) ship index (argument order) or -1
    exchanges: np.ndarray  # (n,)
    capped: np.ndarray  # (n,) bool
    dice_used: int
    engine: str = "kernel"  # which engine played the batch (see dispatch)
    engine_reason: str = ""  # why (the dispatch rule's words)

    @property
    def n(self) -> int:
        return len(self.npc_sunk)

    def outcome_counts(self, ship: int = 0) -> dict[str, int]:
        c = np.bincount(self.outcome[:, ship], minlength=len(OUTCOMES))
        return {k: int(v) for k, v in zip(OUTCOMES, c)}


def dispatch(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | Sequence[str] | None,
    policies: Sequence[BattlePolicy],
    island: str,
    royal_navy_policy: RoyalNavyPolicy | None = None,
    engine: str = "auto",
) -> tuple[str, str]:
    """Which engine plays a batch of battles, and why: the stated dispatch rule.

    * Several non-player ships in one battle (a Legendary Pirate and the Royal Navy): refused --
      a :class:`BatchResult` records one non-player ship's fate; the full game plays them.
    * ``engine="auto"`` or ``"kernel"``: the compiled kernel, when
      :func:`combat_kernel.kernel_applies` says it covers the battle; otherwise refused with its
      reason (no second engine plays it: ``tests/cove_battle_oracle.py`` is a test oracle).

    Returns:
        ``("kernel", reason)``.

    Raises:
        ValueError: an unknown engine, several non-player ships, or a battle the kernel does not
        cover.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} (allowed: {', '.join(ENGINES)})")
    keys = npc_keys(npc)
    if len(keys) > 1:
        raise ValueError(
            f"{len(keys)} non-player ships in one battle: a batch records one non-player ship's "
            "fate (allowed here: at most one)"
        )
    from simulator.cove import combat_kernel  # numba: imported only when needed

    why = combat_kernel.kernel_applies(rules, ships, npc, policies, island, royal_navy_policy)
    if why is not None:
        raise ValueError(
            f"the compiled kernel does not play this battle: {why} (allowed policies: "
            f"{', '.join(t.__name__ for t in combat_kernel.KERNEL_POLICIES)}; the default Royal "
            "Navy controller)"
        )
    if engine == "kernel":
        return "kernel", "forced (engine='kernel')"
    return "kernel", "the kernel covers it"


def simulate_battles(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    n: int,
    rng: np.random.Generator,
    *,
    island: str = "hull",
    royal_navy_policy: RoyalNavyPolicy | None = None,
    engine: str = "auto",
) -> BatchResult:
    """Play ``n`` independent trials of one battle (same ships, same policies).

    Args:
        rules: scenario rules.
        ships: the player ships (:class:`BattleShip`, any order; seats must differ).
        npc: legendary pirate key, ``"royal_navy"`` or ``None`` (one non-player ship: see
            :func:`dispatch`).
        policies: one policy per ship.
        n: number of trials.
        rng: the only source of chance.
        island: the island of the battle.
        royal_navy_policy: the Royal Navy controller's targeting.
        engine: ``"auto"`` or ``"kernel"``: the rule of :func:`dispatch`. The kernel draws its
            dice in bulk: same seed, same results (and on one die stream the battles of the
            scalar oracle, die for die: ``tests/test_cove_combat_kernel.py``).

    Returns:
        :class:`BatchResult` with per-trial arrays (ship axis in argument order) and the engine
        that played them (``engine``, ``engine_reason``).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    chosen, reason = dispatch(rules, ships, npc, policies, island, royal_navy_policy, engine)
    from simulator.cove import combat_kernel

    res = combat_kernel.simulate_battles_kernel(
        rules, ships, npc, policies, n, rng, island=island, royal_navy_policy=royal_navy_policy
    )
    res.engine, res.engine_reason = chosen, reason
    return res


__all__ = [
    "ENGINES",
    "FAME_CAUSES",
    "OUTCOMES",
    "ROYAL_NAVY",
    "TREASURE_ISLAND",
    "BatchResult",
    "BattleShip",
    "dispatch",
    "npc_keys",
    "simulate_battles",
]
