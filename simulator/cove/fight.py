"""The full game's side of every battle: adapter to the combat engine :mod:`simulator.cove.battle`.

Rules section "Combat" and "Non-player ships" of ``../shared/rules/pirates-cove.md``; the combat
itself (cards, Artisans, parrots, flight, rout, mutiny, pirates' specials, Royal Navy) is
:func:`simulator.cove.battle.resolve_battle`, called for every battle of a game and for the
tie-breaking duel. This module builds its :class:`~simulator.cove.battle.BattleShip` inputs from
the game's seats, feeds it the game's dice (so golden playthroughs record battle dice too) and
applies its :class:`~simulator.cove.battle.BattleResult` back to the game: rings, Artisans, parrots,
cards to the discard, chests and gold to the bank, fame by source, routed and fled ships to the
Cove, sunk or captured Legendary Pirates.

A Legendary Pirate (or the Cacafuego) and the Royal Navy at the same island fight one battle
(``decisions.pirate_and_navy_order = "one_battle"``, the rules' reading: the players deal with both
before fighting each other, a Powder keg hits both hulls, cards, "was hit", flight fame and parrot
wounds carry on); ``"pirate_first"`` / ``"navy_first"`` keep two battles one after the other (the
survivors of the first fight the second).

Every battle of a game is played by the scalar engine (:func:`battle.resolve_battle`): it takes the
game's dice one at a time and asks the players' policies at every decision (the dispatch rule of
:func:`simulator.cove.combat.dispatch`, recorded as ``battle_engine`` in the game summary). The
record of each non-player ship counts only what it did: ``player_ships_routed`` is the player
ships its own broadsides (or specials) routed.
"""

from __future__ import annotations

import numpy as np

from simulator.cove.battle import ROYAL_NAVY, BattleShip, npc_keys, resolve_battle
from simulator.cove.rules import SECTIONS

#: the engine every battle of a game is played by (see simulator.cove.combat.dispatch)
GAME_BATTLE_ENGINE = "scalar"

COVE = 6
TREASURE = 5


class DiceRng:
    """The ``rng`` the combat engine gets: its ``integers(1, 7, size)`` d6 come from the game
    dice."""

    __slots__ = ("dice",)

    def __init__(self, dice):
        self.dice = dice

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        if endpoint:
            high += 1
        if (low, high) != (1, 7):
            raise ValueError(
                f"the combat engine asked for integers({low}, {high}); only d6 are supported"
            )
        if size is None:
            return self.dice.d6()
        return self.dice.roll_array(int(size))


def _battle_ship(game, s) -> BattleShip:
    return BattleShip(
        seat=s.index,
        positions=list(s.ring),
        artisans={SECTIONS[k]: v for k, v in s.artisans.items()},
        parrot=s.parrot,
        parrot_wounded=s.parrot_wounds > 0,
        chests=s.chests,
        gold=s.gold,
        battle_cards=[c for c in s.hand if c in _COMBAT_CARDS],
    )


_COMBAT_CARDS = frozenset(
    (
        "becalmed",
        "favourable_wind",
        "grapple",
        "smoke",
        "overboard",
        "grapeshot",
        "powder_keg",
        "cannonade",
    )
)


def island_combat(game, isl: int, present: list, pirate_key: str | None, navy: bool) -> None:
    """Every battle at island ``isl`` this month (phase 3)."""
    d = game.rules.decisions
    npcs: list[str] = []
    if pirate_key is not None:
        npcs.append(pirate_key)
    if navy and isl != TREASURE:
        npcs.append(ROYAL_NAVY)
    if not npcs:
        if isl != TREASURE and len(present) >= 2:
            _one_battle(game, isl, present, ())
        return
    if len(npcs) == 2 and d.pirate_and_navy_order == "one_battle":
        battles = [tuple(npcs)]
    else:
        if len(npcs) == 2 and d.pirate_and_navy_order == "navy_first":
            npcs.reverse()
        battles = [(k,) for k in npcs]
    for keys in battles:
        here = [s for s in game.seats if s.location == isl]
        if not here:
            return
        pirate = game.rules.pirates.get(keys[0])
        if (
            len(keys) == 1
            and pirate is not None
            and not pirate.fights
            and isl != TREASURE
            and len(here) == 1
            and not d.cacafuego_lone_ship_captures
        ):
            continue
        _one_battle(game, isl, here, keys)


def _one_battle(game, isl: int, seats: list, npcs: tuple[str, ...]) -> None:
    rules = game.rules
    island = rules.islands[isl]
    policies = [game.battle_policy(s.index) for s in seats]
    rn_policy = None
    controller = None
    if ROYAL_NAVY in npcs:
        controller = game.rn_controller
        rn_policy = game.navy_policy(controller)
    result = resolve_battle(
        rules,
        [_battle_ship(game, s) for s in seats],
        npcs or None,
        policies,
        DiceRng(game.dice),
        island=island,
        royal_navy_controller=controller,
        royal_navy_policy=rn_policy,
    )
    apply_result(game, isl, seats, npcs, result)


def apply_result(game, isl: int, seats: list, npcs, result) -> None:
    """Write a :class:`BattleResult` back into the game (see the module docstring).

    ``npcs``: the battle's non-player ships (``None``, a key or a tuple of keys)."""
    rules = game.rules
    keys = npc_keys(npcs)
    cards = {k: rules.royal_navy if k == ROYAL_NAVY else rules.pirates[k] for k in keys}
    fought = result.exchanges > 0 or not keys or any(c.fights for c in cards.values())
    legendary = sum(1 for k, c in cards.items() if k != ROYAL_NAVY and c.fights)
    heal_on = rules.decisions.parrot_heals_on
    n_routed = n_fled = 0
    for s, r in zip(seats, result.ships):
        assert r.seat == s.index
        if fought:
            s.battles += 1
            game.num_battles_fought += 1
        s.pirates_fought += legendary
        # cards
        for card in r.cards_played:
            s.hand.remove(card)
            game.discard(card)
            game.card_record.played(s.index, card, game.month, game.phase)
        # ship
        s.ring = [max(0, p) for p in r.positions]
        lost_arts = list(r.artisans_lost)
        s.artisans = {SECTIONS.index(k): v for k, v in r.artisans.items()}
        for _ in lost_arts:
            game.discard("artisan")
        if r.parrot_died and s.parrot is not None:
            game.discard(f"parrot:{s.parrot}")
            s.parrot, s.parrot_wounds = None, 0
        elif s.parrot is not None:
            s.parrot_wounds = 1 if r.parrot_wounded else 0
        # chests and gold
        game.bank_chests += r.chests_overboard + r.chests_lost
        game.bank_gold += r.gold_lost
        s.chests = r.chests
        s.gold = r.gold
        # fame
        f = r.fame
        combat_fame = f.get("flight", 0) + f.get("rout", 0)
        if combat_fame:
            game.add_fame(s, combat_fame, "combat")
        share = 0
        for nr in result.npcs:  # a sunk Royal Navy's share is combat fame, a pirate's is pirates
            if s.index in nr.shared_by and nr.key != ROYAL_NAVY:
                share += nr.fame_each
        share += f.get("capture", 0)
        navy_share = f.get("pirate_share", 0) + f.get("capture", 0) - share
        if share:
            game.add_fame(s, share, "pirates")
        if navy_share:
            game.add_fame(s, navy_share, "combat")
        pen = f.get("parrot_death", 0) + f.get("mutiny", 0)
        if pen:
            game.add_fame(s, pen, "penalties")
        # where it ends
        if r.outcome in ("routed", "fled", "mutiny"):
            s.location = COVE
            if r.outcome == "routed":
                s.routed += 1
                n_routed += 1
            else:
                s.fled += 1
                n_fled += 1
                if r.outcome == "mutiny":
                    s.mutinies += 1
        elif s.parrot is not None and s.parrot_wounds and heal_on == "survive_battle" and fought:
            s.parrot_wounds = 0
        for nr in result.npcs:
            if nr.key != ROYAL_NAVY and s.index in nr.shared_by:
                s.pirates_sunk += 1
            if nr.captured_by == s.index:
                s.pirates_sunk += 1
    if heal_on == "sole_survivor":
        left = [s for s in seats if s.location == isl]
        if len(left) == 1 and left[0].parrot is not None:
            left[0].parrot_wounds = 0
    if result.capped:
        game.capped_battles += 1
    if not keys:
        return
    routed_by_players = sum(1 for r in result.ships if isinstance(r.routed_by, int))
    game.num_npc_battles += 1  # battles against non-player ships, numbered from 1 in the game
    for nr in result.npcs:
        gone = nr.sunk or nr.captured_by is not None
        if nr.key != ROYAL_NAVY and gone:
            for b in game.black_ships:
                if b[0] == isl and b[1] == nr.key and not b[2]:
                    b[2] = True
        if nr.captured_by is not None:
            outcome = "captured"
        elif nr.sunk:
            outcome = "sunk"
        elif not nr.fights:
            outcome = "not_captured"
        else:
            outcome = "survived"
        game.battle_log.append(
            {
                "battle": game.num_npc_battles,
                "month": game.month,
                "island": rules.islands[isl],
                "pirate": nr.key,
                "ships": len(seats),
                "seats": ",".join(str(s.index) for s in seats),
                "outcome": outcome,
                "player_ships_routed": len(nr.routed),  # by this non-player ship only
                "player_ships_fled": n_fled,
                "exchanges": result.exchanges,
                "battle_npcs": "+".join(keys),
                "routed_by_players": routed_by_players,
                "player_ships_routed_in_battle": n_routed,
            }
        )


def duel(game, tied: list[int]) -> list[int]:
    """Tie-breaking duel between the tied players' ships (no island effects, no fame)."""
    d = game.rules.decisions
    island = game.rules.islands[0]
    for _ in range(d.duel_max_repeats):
        game.duels_fought += 1
        seats = [game.seats[i] for i in tied]
        ships = [_battle_ship(game, s) for s in seats]
        if not d.duel_uses_hand_cards:
            for b in ships:
                b.battle_cards = []
        policies = [game.battle_policy(s.index) for s in seats]
        result = resolve_battle(
            game.rules, ships, None, policies, DiceRng(game.dice), island=island
        )
        left = [r.seat for r in result.ships if r.outcome in ("won", "stayed")]
        if len(left) == 1:
            return left
    return list(tied)
