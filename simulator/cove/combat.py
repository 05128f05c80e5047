"""Pirate's Cove: a batch of one battle -- many independent trials of the same battle.

Rules: sections "Combat", "Non-player ships" and "Tavern deck" of
``../shared/rules/pirates-cove.md`` (readings in ``docs/rules-cove-combat.md``), written in the
scalar reference :mod:`simulator.cove.battle` and, compiled, in
:mod:`simulator.cove.combat_kernel`. This module holds no rule of its own: it chooses the engine
(:func:`dispatch`) and returns per-trial arrays (:class:`BatchResult`). Two engines play batches:

* ``"kernel"``: the compiled kernel, for every battle :func:`combat_kernel.kernel_applies` covers
  (cards in hand, parrots, Artisans, 1-5 ships, every non-player ship, the default Royal Navy
  controller, the rule, card-rule and solved-duel policies): millions of battles a second;
* ``"scalar"``: :func:`simulator.cove.battle.resolve_battle` one battle after another with the
  caller's generator -- correct for every battle with one non-player ship at most (custom or
  scripted policies, a custom Royal Navy controller), and hundreds of times slower (a few
  thousand battles a second: ``benchmarks/cove_combat.py``, ``scalar_fallback_battles_per_s``).

No ``broadside`` command reaches the scalar path: ``cove duel -n`` and ``cove lethality
--company`` build only policies the kernel plays. The vectorised numpy engine that used to sit
here (a fourth copy of every combat rule) was retired in issue 16 (stage C).

Public API: :func:`simulate_battles` -> :class:`BatchResult`, :func:`dispatch`, :data:`ENGINES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simulator.cove.battle import (
    FAME_CAUSES,
    OUTCOMES,
    BattleShip,
    _Battle,
    npc_keys,
    resolve_battle,
)
from simulator.cove.combat_policies import BattlePolicy, RoyalNavyPolicy
from simulator.cove.rules import CoveRules

#: the ``engine`` argument of :func:`simulate_battles` / :func:`dispatch`
ENGINES = ("auto", "kernel", "scalar")


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
    engine: str = "kernel"  # which engine played the batch ("kernel" or "scalar", see dispatch)
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
      a :class:`BatchResult` records one non-player ship's fate; the full game's
      :func:`simulator.cove.battle.resolve_battle` plays them one battle at a time.
    * ``engine="auto"``: the compiled kernel when :func:`combat_kernel.kernel_applies` says it
      covers the battle; otherwise the scalar engine, with the kernel's reason.
    * ``engine="kernel"`` / ``"scalar"``: that engine (the kernel refuses what it does not
      cover; the scalar engine plays every battle).

    The full game plays every battle with the scalar engine (it takes the game's dice one at a
    time and asks the players at each decision), ``fight.GAME_BATTLE_ENGINE``.

    Returns:
        ``(engine, reason)`` with engine ``"kernel"`` or ``"scalar"``.

    Raises:
        ValueError: an unknown engine, several non-player ships, or a forced kernel that does
        not cover the battle.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} (allowed: {', '.join(ENGINES)})")
    keys = npc_keys(npc)
    if len(keys) > 1:
        raise ValueError(
            f"{len(keys)} non-player ships in one battle: a batch records one non-player ship's "
            "fate; battle.resolve_battle plays them one battle at a time (allowed here: at most "
            "one)"
        )
    if engine == "scalar":
        return "scalar", "forced (engine='scalar')"
    from simulator.cove import combat_kernel  # numba: imported only when needed

    why = combat_kernel.kernel_applies(rules, ships, npc, policies, island, royal_navy_policy)
    if engine == "kernel":
        if why is not None:
            raise ValueError(f"the compiled kernel does not play this battle: {why}")
        return "kernel", "forced (engine='kernel')"
    if why is None:
        return "kernel", "the kernel covers it"
    return "scalar", f"not the kernel's: {why}"


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
        ships: the player ships (as for :func:`simulator.cove.battle.resolve_battle`).
        npc: legendary pirate key, ``"royal_navy"`` or ``None`` (one non-player ship: see
            :func:`dispatch`).
        policies: one policy per ship.
        n: number of trials.
        rng: the only source of chance.
        island: the island of the battle.
        royal_navy_policy: the Royal Navy controller's targeting.
        engine: ``"auto"``, ``"kernel"`` or ``"scalar"``: the rule of :func:`dispatch`. The
            kernel draws its dice in bulk, the scalar engine a few at a time: same seed, same
            engine, same results; across engines, same distribution (and on one die stream the
            same battles, die for die: ``tests/test_cove_combat_kernel.py``).

    Returns:
        :class:`BatchResult` with per-trial arrays (ship axis in argument order) and the engine
        that played them (``engine``, ``engine_reason``).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    chosen, reason = dispatch(rules, ships, npc, policies, island, royal_navy_policy, engine)
    if chosen == "kernel":
        from simulator.cove import combat_kernel

        res = combat_kernel.simulate_battles_kernel(
            rules, ships, npc, policies, n, rng, island=island, royal_navy_policy=royal_navy_policy
        )
    else:
        res = _simulate_scalar(rules, ships, npc, policies, n, rng, island, royal_navy_policy)
    res.engine, res.engine_reason = chosen, reason
    return res


def _simulate_scalar(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    n: int,
    rng: np.random.Generator,
    island: str,
    royal_navy_policy: RoyalNavyPolicy | None,
) -> BatchResult:
    """``n`` battles of :func:`resolve_battle` in a row on ``rng``, as a :class:`BatchResult`."""
    ships, policies = list(ships), list(policies)
    _Battle(rules, ships, npc, policies, rng, island, None, royal_navy_policy)  # validates (n=0)
    S = len(ships)
    seats = [s.seat for s in ships]
    outcome = np.zeros((n, S), np.int8)
    fame = np.zeros((n, S, len(FAME_CAUSES)), np.int16)
    positions = np.zeros((n, S, 4), np.int8)
    npc_sunk = np.zeros(n, np.bool_)
    captured_by = np.full(n, -1, np.int8)
    exchanges = np.zeros(n, np.int16)
    capped = np.zeros(n, np.bool_)
    dice = 0
    code = {o: k for k, o in enumerate(OUTCOMES)}
    for b in range(n):
        r = resolve_battle(
            rules, ships, npc, policies, rng, island=island, royal_navy_policy=royal_navy_policy
        )
        for j, s in enumerate(r.ships):  # r.ships is in argument order
            outcome[b, j] = code[s.outcome]
            fame[b, j] = [s.fame[c] for c in FAME_CAUSES]
            positions[b, j] = s.positions
        npc_sunk[b] = r.npc_sunk
        if r.captured_by is not None:
            captured_by[b] = seats.index(r.captured_by)
        exchanges[b] = r.exchanges
        capped[b] = r.capped
        dice += r.dice_rolled
    return BatchResult(
        outcome=outcome,
        fame=fame,
        positions=positions,
        npc_sunk=npc_sunk,
        captured_by=captured_by,
        exchanges=exchanges,
        capped=capped,
        dice_used=dice,
    )


__all__ = ["ENGINES", "FAME_CAUSES", "OUTCOMES", "BatchResult", "dispatch", "simulate_battles"]
