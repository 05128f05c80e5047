"""Pirate's Cove: the scalar (one trial) reference battle -- an independent test oracle.

Rules: sections "Combat", "Non-player ships" and "Tavern deck" of
``../shared/rules/pirates-cove.md``; our readings where they are silent are listed in
``docs/rules-cove-combat.md``. No product module calls it (issue 28: product code holds one
implementation of each combat rule). It is written on its own, in plain Python objects, and the
product is held to it: the compiled battle kernel (:mod:`simulator.cove.combat_kernel`) plays
its battles die for die, the compiled rule core (:mod:`simulator.cove.fast.core`) agrees with its
rule methods, and the exact duels (:mod:`simulator.cove.duel`) with its Monte Carlo. It shares
only the battle's input and output names with the product
(:class:`~simulator.cove.combat.BattleShip`, ``OUTCOMES``, ``FAME_CAUSES``), which it re-exports
for the tests.

API::

    result = resolve_battle(rules, ships, npcs, policies, rng, island="hull",
                            royal_navy_controller=None, royal_navy_policy=None)

* ``rules``: :class:`simulator.cove.rules.CoveRules` (``load_scenario(None, CoveRules).rules``).
* ``ships``: list of :class:`BattleShip` (player ships at the island, any order; seats must differ).
  The battle copies them and never mutates the caller's objects.
* ``npcs``: the non-player ships at the island: ``None``, one key, or a sequence of keys, each a
  key of ``rules.pirates`` (``"blackbeard"``, ``"flying_dutchman"``, ``"captain_hook"``,
  ``"bonny_and_read"``, ``"cacafuego"``) or ``"royal_navy"`` (a Legendary Pirate and the Royal
  Navy at one island fight one battle: the players deal with both before fighting each other).
* ``policies``: one :class:`simulator.cove.combat_policies.BattlePolicy` per ship, same order.
* ``rng``: the only source of chance (dice: ``rng.integers(1, 7, size=...)``).
* ``island``: one of ``rules.islands``; at ``"treasure_island"`` players never fight each other.
* ``royal_navy_controller``: seat of the player who sent the Royal Navy (recorded; it is never at
  the island); ``royal_navy_policy``: its :class:`RoyalNavyPolicy` (default: weakest section).

Returns a :class:`BattleResult`: per ship (same order as ``ships``) a :class:`ShipResult` with
``outcome`` (``won``, ``routed``, ``fled``, ``mutiny``, or ``stayed`` if the exchange cap was hit),
final ``positions`` (0 = destroyed section; ``destroyed`` lists them), ``cards_played`` (discard
them), ``chests_overboard`` (to the bank), ``gold_lost``/``chests_lost`` (mutiny, to the bank),
``fame`` by cause (``flight``, ``rout``, ``pirate_share``, ``capture``, ``parrot_death``,
``mutiny``; the caller applies the fame floor), and the parrot / Artisan state after the battle
(a wounded parrot is healed by the caller in phase 5 if its ship won or went to the Cove), and who
did it: ``hits_taken`` (source -> hits that landed on the ship, absorbed ones included) and
``routed_by``, where a source is the seat of the player ship whose broadside (with its volley
cards: a Powder keg's hits on every hull, its own Grapeshot recoil) caused it, or the key of the
non-player ship whose broadside or special (Captain Hook's misfires) did. ``npcs`` has one
:class:`NpcResult` per non-player ship (``sunk``, ``sunk_by``, ``shared_by``, ``fame_each``,
``captured_by``, ``routed``: the seats its broadsides routed, ``hits_taken`` by seat). The
single-NPC fields ``npc_sunk``, ``npc_fame_shared_by`` (seats), ``npc_fame_each`` describe the first
non-player ship; ``captured_by`` is the seat that took the Cacafuego (fame in ``fame["capture"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from simulator.cove.combat import (
    FAME_CAUSES,
    OUTCOMES,
    ROYAL_NAVY,
    TREASURE_ISLAND,
    BatchResult,
    BattleShip,
    npc_keys,
)
from simulator.cove.combat_policies import (
    BATTLE_CARDS,
    NPC_TARGET,
    VOLLEY_CARDS,
    BattlePolicy,
    BattleView,
    Broadside,
    NpcView,
    RoyalNavyPolicy,
    ShipView,
)
from simulator.cove.rules import SECTIONS, CoveRules, NonPlayerShip

HULL, CREW, CANNONS, SAILS = range(4)


@dataclass
class ShipResult:
    seat: int
    outcome: str  # one of OUTCOMES
    positions: list[int]  # 0 marks a destroyed section
    destroyed: list[str]
    cards_played: list[str]
    chests_overboard: int
    chests: int  # chests still aboard after the battle
    gold: int
    gold_lost: int  # to mutiny
    chests_lost: int  # to mutiny
    fame: dict[str, int]  # cause -> fame change (before the fame floor)
    parrot: str | None  # None if it died (or there was none)
    parrot_wounded: bool
    parrot_died: bool
    artisans: dict[str, int]  # surviving Artisans: section -> hits absorbed (0 .. absorbs-1)
    artisans_lost: list[str]  # sections whose Artisan was destroyed (discard the card)
    was_hit: bool
    hand: list[str]  # battle/volley cards still in hand
    # who did it: source (a seat, or a non-player ship's key) -> hits that landed on this ship
    hits_taken: dict[int | str, int] = field(default_factory=dict)
    routed_by: int | str | None = None  # the source of the broadside after which it was routed

    @property
    def fame_total(self) -> int:
        return sum(self.fame.values())


@dataclass
class NpcResult:
    """One non-player ship of a battle."""

    key: str
    fights: bool
    sunk: bool
    hull: int  # hull left (0 when sunk; the card's hull for the Cacafuego)
    sunk_by: int | None  # seat whose broadside sank it
    shared_by: list[int]  # seats that shared its fame
    fame_each: int
    captured_by: int | None  # the Cacafuego's captor
    routed: list[int]  # seats routed by its broadsides (Hook's misfires included)
    hits_taken: dict[int, int]  # seat -> hits on its hull
    broadsides: int


@dataclass
class BattleResult:
    ships: list[ShipResult]
    npc: str | None  # the first non-player ship's key (see npcs for all of them)
    npc_sunk: bool
    npc_hull: int | None
    npc_fame_shared_by: list[int]
    npc_fame_each: int
    captured_by: int | None
    exchanges: int
    capped: bool  # the safety cap rules.combat.max_exchanges was reached
    dice_rolled: int
    npcs: list[NpcResult] = field(default_factory=list)
    engine: str = "scalar"  # which engine played it (see simulator.cove.combat.dispatch)

    def by_seat(self, seat: int) -> ShipResult:
        for s in self.ships:
            if s.seat == seat:
                return s
        raise KeyError(seat)


class _Ship:
    """Mutable state of one player ship inside a battle."""

    __slots__ = (
        "art",
        "art_lost",
        "art_used",
        "can_fire",
        "chests",
        "chests_lost",
        "fame",
        "gold",
        "gold_lost",
        "hand",
        "hits_taken",
        "index",
        "outcome",
        "overboard",
        "parrot",
        "parrot_died",
        "parrot_hp",
        "played",
        "policy",
        "pos",
        "present",
        "routed_by",
        "seat",
        "smoke",
        "start",
        "was_hit",
        "wind",
    )

    def __init__(self, rules: CoveRules, bs: BattleShip, policy: BattlePolicy, index: int):
        mat = rules.ship_mat
        if len(bs.positions) != 4 or not all(1 <= p <= mat.num_positions for p in bs.positions):
            raise ValueError(
                f"seat {bs.seat}: positions {bs.positions} "
                f"(allowed: 4 values 1..{mat.num_positions})"
            )
        c = rules.combat
        if c.artisan_limit == "per_ship" and len(bs.artisans) > 1:
            raise ValueError(f"seat {bs.seat}: {len(bs.artisans)} Artisans (allowed: 1 per ship)")
        self.index = index
        self.seat = bs.seat
        self.pos = list(bs.positions)
        self.start = tuple(bs.positions)
        self.art = [0, 0, 0, 0]  # Artisan hits left per section
        self.art_used = [0, 0, 0, 0]
        self.art_lost: list[str] = []
        for sec, used in bs.artisans.items():
            if sec not in SECTIONS or not 0 <= used < c.artisan_absorbs:
                raise ValueError(
                    f"seat {bs.seat}: Artisan {sec}={used} "
                    f"(allowed: section -> 0..{c.artisan_absorbs - 1})"
                )
            self.art[SECTIONS.index(sec)] = c.artisan_absorbs - used
            self.art_used[SECTIONS.index(sec)] = used
        if bs.parrot is not None and bs.parrot not in rules.parrots:
            raise ValueError(
                f"seat {bs.seat}: parrot {bs.parrot!r} (allowed: {', '.join(rules.parrots)})"
            )
        self.parrot = bs.parrot
        self.parrot_hp = 0
        if bs.parrot is not None:
            self.parrot_hp = c.parrot_hits_to_kill - (1 if bs.parrot_wounded else 0)
            if self.parrot_hp <= 0:
                raise ValueError(
                    f"seat {bs.seat}: a wounded parrot with parrot_hits_to_kill=1 is dead"
                )
        self.parrot_died = False
        self.chests = bs.chests
        self.gold = bs.gold
        for card in bs.battle_cards:
            if card not in BATTLE_CARDS and card not in VOLLEY_CARDS:
                raise ValueError(
                    f"seat {bs.seat}: card {card!r} "
                    f"(allowed: {', '.join(BATTLE_CARDS + VOLLEY_CARDS)})"
                )
        self.hand = list(bs.battle_cards)
        self.played: list[str] = []
        self.present = True
        self.outcome = "won"
        self.was_hit = False
        self.smoke = False
        self.wind = 0
        self.overboard = 0
        self.can_fire = True
        self.fame = dict.fromkeys(FAME_CAUSES, 0)
        self.policy = policy
        self.gold_lost = 0
        self.chests_lost = 0
        self.hits_taken: dict[int | str, int] = {}
        self.routed_by: int | str | None = None


class _Npc:
    """Mutable state of one non-player ship inside a battle."""

    __slots__ = (
        "broadsides",
        "captured_by",
        "card",
        "fame_each",
        "fired_at",
        "has_fired",
        "hits_taken",
        "hull",
        "index",
        "key",
        "present",
        "routed",
        "shared_by",
        "sunk",
        "sunk_by",
    )

    def __init__(self, key: str, card: NonPlayerShip, index: int):
        self.key, self.card, self.index = key, card, index
        self.hull = card.hull
        self.present = card.fights  # a fighting non-player ship still afloat
        self.sunk = False
        self.sunk_by: int | None = None
        self.fired_at: set[int] = set()  # seats fired at in its current targeting cycle
        self.shared_by: list[int] = []
        self.fame_each = 0
        self.captured_by: int | None = None
        self.routed: list[int] = []
        self.hits_taken: dict[int, int] = {}
        self.broadsides = 0
        self.has_fired = False  # in the current exchange

    @property
    def is_controlled(self) -> bool:
        return self.key == ROYAL_NAVY or self.card.first_target == "controller"


class _Battle:
    def __init__(
        self,
        rules: CoveRules,
        ships: Sequence[BattleShip],
        npc: str | Sequence[str] | None,
        policies: Sequence[BattlePolicy],
        rng: np.random.Generator,
        island: str,
        royal_navy_controller: int | None,
        royal_navy_policy: RoyalNavyPolicy | None,
    ):
        if len(policies) != len(ships):
            raise ValueError(f"{len(policies)} policies for {len(ships)} ships")
        if len({s.seat for s in ships}) != len(ships):
            raise ValueError("two ships share a seat")
        if island not in rules.islands:
            raise ValueError(f"island {island!r} (allowed: {', '.join(rules.islands)})")
        self.rules = rules
        self.mat = rules.ship_mat
        self.c = rules.combat
        self.rng = rng
        self.island = island
        self.ships = [_Ship(rules, s, p, i) for i, (s, p) in enumerate(zip(ships, policies))]
        self.by_seat = sorted(self.ships, key=lambda s: s.seat)  # clockwise order
        keys = npc_keys(npc)
        self.npcs: list[_Npc] = []
        for k, key in enumerate(keys):
            if key == ROYAL_NAVY:
                if island == TREASURE_ISLAND:
                    raise ValueError("the Royal Navy never goes to Treasure Island")
                card = rules.royal_navy
            elif key in rules.pirates:
                card = rules.pirates[key]
            else:
                raise ValueError(
                    f"npc {key!r} (allowed: {', '.join(list(rules.pirates) + [ROYAL_NAVY])})"
                )
            self.npcs.append(_Npc(key, card, k))
        if len(set(keys)) != len(keys):
            raise ValueError(f"non-player ships {keys} (allowed: each at most once)")
        if sum(not n.card.fights for n in self.npcs) > 1:
            raise ValueError(f"non-player ships {keys} (allowed: at most one treasure galleon)")
        first = self.npcs[0] if self.npcs else None
        # the single-NPC names (the first non-player ship), used by the batch engines
        self.npc_key = first.key if first is not None else None
        self.npc: NonPlayerShip | None = first.card if first is not None else None
        self.npc_fights = first is not None and first.card.fights
        self.fighting = [n for n in self.npcs if n.card.fights]
        self.npcs_afloat = len(self.fighting)  # fighting non-player ships not sunk yet
        self.galleon = next((n for n in self.npcs if not n.card.fights), None)
        self.rn_controller = royal_navy_controller
        self.rn_policy = royal_navy_policy or RoyalNavyPolicy()
        self.grapple = False
        self.becalmed = False
        self.exchange = 0
        self.card_round = 0
        self.npc_has_fired = False  # the first present non-player ship fired in this exchange
        self.dice = 0

    # ---------------------------------------------------------------- values
    @property
    def npc_present(self) -> bool:
        """Some fighting non-player ship is still afloat (the players must fire at it)."""
        return self.npcs_afloat > 0

    @property
    def npc_hull(self) -> int | None:
        return self.npcs[0].hull if self.npcs else None

    def value(self, ship: _Ship, sec: int) -> int:
        p = ship.pos[sec]
        return getattr(self.mat, SECTIONS[sec])[p - 1] if p >= 1 else 0

    def parrot_alive(self, ship: _Ship):
        return (
            self.rules.parrots[ship.parrot]
            if ship.parrot is not None and ship.parrot_hp > 0
            else None
        )

    def speed(self, ship: _Ship) -> int:
        sp = self.value(ship, SAILS) + ship.wind * self.c.favourable_wind_speed
        sp += ship.overboard * self.c.overboard_speed_per_chest
        par = self.parrot_alive(ship)
        if par is not None:
            sp += par.speed_bonus
        return sp

    def num_dice(self, ship: _Ship) -> int:
        par = self.parrot_alive(ship)
        if par is not None and par.fixed_dice:
            return par.fixed_dice
        if par is not None and par.dice_equal_cannons:
            return self.value(ship, CANNONS)
        if self.grapple:
            return self.value(ship, CREW)
        return min(self.value(ship, CREW), self.value(ship, CANNONS))

    def protection(self, ship: _Ship) -> tuple[int, ...]:
        prot = list(ship.art)
        if ship.parrot is not None and ship.parrot_hp > 0 and self.c.parrot_absorbs_hits:
            prot[SECTIONS.index(self.rules.parrots[ship.parrot].section)] += ship.parrot_hp
        return tuple(prot)

    def roll(self, n: int) -> np.ndarray:
        self.dice += n
        return self.rng.integers(1, 7, size=n)

    def present_ships(self) -> list[_Ship]:
        return [s for s in self.ships if s.present]

    # ---------------------------------------------------------------- views
    def view(self, me: _Ship) -> BattleView:
        ships = tuple(
            ShipView(
                seat=s.seat,
                positions=tuple(s.pos),
                start_positions=s.start,
                protection=self.protection(s),
                parrot=s.parrot if s.parrot_hp > 0 else None,
                parrot_wounded=s.parrot is not None
                and 0 < s.parrot_hp < self.c.parrot_hits_to_kill,
                speed=self.speed(s),
                present=s.present,
                was_hit=s.was_hit,
                smoke=s.smoke,
                can_fire=s.can_fire,
                hand_size=len(s.hand),
                chests=s.chests,
            )
            for s in self.by_seat
        )
        npcs = tuple(
            NpcView(
                key=n.key,
                hull=n.hull,
                max_hull=n.card.hull,
                sails=n.card.sails,
                present=n.present,
                index=n.index,
                has_fired=n.has_fired,
            )
            for n in self.fighting
        )
        npc = next((v for v in npcs if v.present), npcs[0] if npcs else None)
        return BattleView(
            me=me.seat if me is not None else -1,
            island=self.island,
            exchange=self.exchange,
            ships=ships,
            npc=npc,
            grapple=self.grapple,
            becalmed=self.becalmed,
            card_round=self.card_round,
            npc_has_fired=npc is not None and npc.has_fired,
            npcs=npcs,
        )

    # ---------------------------------------------------------------- order
    def break_ties(self, items: list, key) -> list:
        """Sort ``items`` by ``key`` descending; ties settled by die rolls, re-rolled among ties."""
        groups: dict[int, list] = {}
        for it in items:
            groups.setdefault(key(it), []).append(it)
        out: list = []
        for k in sorted(groups, reverse=True):
            out.extend(self._roll_off(groups[k]))
        return out

    def _roll_off(self, group: list) -> list:
        if len(group) == 1:
            return group
        rolls = self.roll(len(group))
        by: dict[int, list] = {}
        for it, r in zip(group, rolls):
            by.setdefault(int(r), []).append(it)
        out: list = []
        for r in sorted(by, reverse=True):
            out.extend(self._roll_off(by[r]))
        return out

    def over(self) -> bool:
        players = sum(s.present for s in self.ships)
        if self.npcs_afloat:
            return players == 0
        if self.island == TREASURE_ISLAND:
            return True
        return players <= 1

    # ---------------------------------------------------------------- damage
    def hit_section(self, ship: _Ship, sec: int, k: int, by: int | str) -> None:
        """``k`` hits on one section, caused by ``by`` (a seat or a non-player ship's key):
        Artisan first, then the parrot sitting there, then the ring."""
        if k <= 0 or not ship.present:
            return
        ship.was_hit = True
        ship.hits_taken[by] = ship.hits_taken.get(by, 0) + k
        a = min(k, ship.art[sec])
        if a:
            ship.art[sec] -= a
            ship.art_used[sec] += a
            k -= a
            if ship.art[sec] == 0:
                ship.art_lost.append(SECTIONS[sec])
        if (
            k
            and ship.parrot is not None
            and ship.parrot_hp > 0
            and SECTIONS.index(self.rules.parrots[ship.parrot].section) == sec
        ):
            p = min(k, ship.parrot_hp)
            ship.parrot_hp -= p
            if self.c.parrot_absorbs_hits:
                k -= p
            if ship.parrot_hp == 0:
                ship.parrot_died = True
                ship.fame["parrot_death"] -= self.c.parrot_death_fame_loss
        if k:
            ship.pos[sec] = max(ship.pos[sec] - k, 0)

    def hit_npc(self, n: _Npc, k: int, seat: int) -> None:
        if k <= 0 or not n.present:
            return
        n.hull -= k
        n.hits_taken[seat] = n.hits_taken.get(seat, 0) + k

    def resolve_routs(self, sharers: list[_Ship], by: int | str) -> None:
        """After the broadside of ``by``: sink the non-player ships whose hull is gone, rout ships
        with a destroyed section, hand out fame."""
        for n in self.fighting:
            if n.present and n.hull <= 0:
                n.hull = 0
                n.present = False
                n.sunk = True
                self.npcs_afloat -= 1
                n.sunk_by = by if isinstance(by, int) else None
                n.shared_by = [s.seat for s in sharers]
                n.fame_each = n.card.fame // len(sharers) if sharers else 0
                for s in sharers:
                    s.fame["pirate_share"] += n.fame_each
        routed = [s for s in self.ships if s.present and min(s.pos) <= 0]
        for s in routed:
            s.present = False
            s.outcome = "routed"
            s.routed_by = by
        if routed and not isinstance(by, int):
            self.npc_by_key(by).routed.extend(s.seat for s in routed)
        for _s in routed:
            for o in self.ships:
                if o.present:
                    o.fame["rout"] += self.c.rout_fame

    def npc_by_key(self, key: str) -> _Npc:
        return next(n for n in self.npcs if n.key == key)

    # ---------------------------------------------------------------- phases
    def has_battle_cards(self) -> bool:
        return any(c in BATTLE_CARDS for s in self.ships for c in s.hand)

    def card_phase(self, order: list[_Ship] | None = None) -> None:
        """Battle-card rounds from the fastest (``order`` overrides the speed order)."""
        if not self.has_battle_cards():
            return  # nobody can play: no order to settle
        if order is None:
            order = self.break_ties(self.present_ships(), self.speed)
        while not self.becalmed:
            self.card_round += 1
            played_any = False
            for s in order:
                if self.becalmed:
                    break
                playable = [c for c in s.hand if c in BATTLE_CARDS]
                if not playable:
                    continue
                card = s.policy.battle_card(self.view(s), tuple(playable))
                if card is None:
                    continue
                if card not in playable:
                    raise ValueError(
                        f"seat {s.seat} played {card!r}, not a battle card in its hand"
                    )
                played_any = True
                s.hand.remove(card)
                s.played.append(card)
                if card == "becalmed":
                    self.becalmed = True
                elif card == "favourable_wind":
                    s.wind += 1
                elif card == "grapple":
                    self.grapple = True
                elif card == "smoke":
                    s.smoke = True
                elif card == "overboard":
                    n = int(s.policy.overboard_chests(self.view(s), s.chests))
                    n = max(0, min(n, s.chests))
                    s.chests -= n
                    s.overboard += n
            if not played_any:
                break
        self.card_round = 0

    def flee(self, s: _Ship) -> None:
        s.present = False
        s.outcome = "fled"
        if s.was_hit:
            for o in self.ships:
                if o.present:
                    o.fame["flight"] += self.c.flight_fame_if_hit
        if self.c.mutiny_on > 0 and int(self.roll(1)[0]) <= self.c.mutiny_on:
            s.outcome = "mutiny"
            s.gold_lost, s.chests_lost = s.gold, s.chests
            s.gold = s.chests = 0
            s.fame["mutiny"] -= self.c.mutiny_fame_loss

    def npc_target_of(self, s: _Ship, target: int | None) -> _Npc:
        """The non-player ship a broadside aims at while one is present: ``target`` names one
        (:func:`~simulator.cove.combat_policies.npc_target`); anything else means the first
        present one (every player must fire at a non-player ship while one is there)."""
        if target is not None and target <= NPC_TARGET - 1:
            k = NPC_TARGET - target
            if 0 <= k < len(self.npcs) and self.npcs[k].present:
                return self.npcs[k]
            raise ValueError(
                f"seat {s.seat} fired at non-player ship {k}, not one present "
                f"(allowed: {[n.index for n in self.fighting if n.present]})"
            )
        return next(n for n in self.fighting if n.present)

    def player_turn(self, s: _Ship) -> None:
        act: Broadside = s.policy.broadside(self.view(s), tuple(s.hand))
        if act.flee:
            self.flee(s)
            return
        if not s.can_fire:  # reloading after a Cannonade
            s.can_fire = True
            return
        volley = tuple(dict.fromkeys(act.volley))
        for card in volley:
            if card not in VOLLEY_CARDS or card not in s.hand:
                raise ValueError(f"seat {s.seat} played volley card {card!r}, not in its hand")
        if self.becalmed and volley:
            raise ValueError(f"seat {s.seat} played {volley} after Becalmed")
        for card in volley:
            s.hand.remove(card)
            s.played.append(card)
        grapeshot, keg, cannonade = (c in volley for c in VOLLEY_CARDS)
        sharers = self.present_ships()
        n = self.num_dice(s)
        dice = self.roll(n)
        if self.npc_present:  # forced target: a non-player ship's hull
            tgt_npc = self.npc_target_of(s, act.target)
            tgt = None
            thr = self.c.grapeshot_hit_on if grapeshot else self.c.hit_on
        else:
            tgt_npc = None
            tgt = next((o for o in self.ships if o.seat == act.target and o.present), None)
            if tgt is None or tgt is s:
                raise ValueError(f"seat {s.seat} fired at {act.target!r}, not a present opponent")
            thr = self.c.smoke_hit_on if tgt.smoke else self.c.hit_on
            if grapeshot:
                thr = (
                    self.c.grapeshot_hit_on
                    if (self.c.grapeshot_beats_smoke or not tgt.smoke)
                    else max(thr, self.c.grapeshot_hit_on)
                )
        hits = int((dice >= thr).sum())
        if tgt_npc is not None:
            self.hit_npc(tgt_npc, hits, s.seat)
        elif cannonade:
            for sec in range(4):
                self.hit_section(tgt, sec, hits, s.seat)
        else:
            self.hit_section(tgt, SECTIONS.index(act.section), hits, s.seat)
        if keg and hits:  # every ship present: the player ships' hulls and every non-player hull
            for o in self.present_ships():
                self.hit_section(o, HULL, hits, s.seat)
            for o in self.fighting:
                self.hit_npc(o, hits, s.seat)
        if grapeshot:
            self.hit_section(s, CANNONS, self.c.grapeshot_self_hits, s.seat)
        if cannonade:
            s.can_fire = False
        self.resolve_routs(sharers, s.seat)

    def npc_target(self, n: _Npc) -> _Ship:
        npc = n.card
        present = self.present_ships()
        cands = [s for s in present if s.seat not in n.fired_at]
        if not cands:
            n.fired_at.clear()
            cands = present
        crit = npc.first_target
        if crit == "most_cannons":

            def key(s):
                return self.value(s, CANNONS)
        elif crit == "largest_crew":

            def key(s):
                return self.value(s, CREW)
        elif crit == "strongest_hull":

            def key(s):
                return self.value(s, HULL)
        elif crit == "fastest":
            key = self.speed
        else:
            raise ValueError(f"first_target {crit!r} needs a controller")
        best = max(key(s) for s in cands)
        tied = [s for s in cands if key(s) == best]
        target = self._roll_off(tied)[0]
        n.fired_at.add(target.seat)
        return target

    def npc_turn(self, n: _Npc) -> None:
        npc = n.card
        n.broadsides += 1
        if n.is_controlled:
            seat, section = self.rn_policy.target(self.view(None))
            tgt = next((o for o in self.ships if o.seat == seat and o.present), None)
            if tgt is None:
                raise ValueError(
                    f"the Royal Navy's controller fired at {seat!r}, not a present ship"
                )
            sections = [SECTIONS.index(section)]
        else:
            tgt = self.npc_target(n)
            if npc.damages == "every_section":
                sections = [0, 1, 2, 3]
            elif npc.damages == "controller":
                raise ValueError(
                    f"{npc.title}: damages='controller' needs first_target='controller'"
                )
            else:
                sections = [SECTIONS.index(npc.damages)]
        sharers = self.present_ships()
        dice = self.roll(npc.dice)
        thr = self.c.smoke_hit_on if tgt.smoke else self.c.hit_on
        hits = int((dice >= thr).sum())
        misfires: list[_Ship] = []
        if npc.misfire_redirect:
            k = tgt.seat
            clockwise = [o for o in self.by_seat if o.present and o is not tgt]
            clockwise.sort(key=lambda o: (o.seat - k) % 1000)
            clockwise = clockwise[: npc.misfire_positions]
            for d in dice:
                d = int(d)
                if d < thr and 1 <= d <= len(clockwise):
                    victim = clockwise[d - 1]
                    if self.c.smoke_blocks_misfire and victim.smoke and d < self.c.smoke_hit_on:
                        continue
                    misfires.append(victim)
        for sec in sections:
            self.hit_section(tgt, sec, hits, n.key)
        for v in misfires:
            self.hit_section(v, HULL, 1, n.key)
        self.resolve_routs(sharers, n.key)

    def run(self) -> BattleResult:
        capped = False
        galleon_only = not self.fighting and self.galleon is not None
        if galleon_only and self.island == TREASURE_ISLAND:
            pass  # no combat: the galleon goes to the fastest ship (see below)
        elif not self.over():
            self.card_phase()
            while not self.over():
                if self.exchange >= self.c.max_exchanges:
                    capped = True
                    break
                self.exchange += 1
                self.npc_has_fired = False
                hull_start = {}
                for n in self.fighting:
                    n.has_fired = False
                    hull_start[n.index] = n.hull
                actors: list = list(self.present_ships())
                actors += [n for n in self.fighting if n.present]
                order = self.break_ties(
                    actors, lambda a: a.card.sails if isinstance(a, _Npc) else self.speed(a)
                )
                for a in order:
                    if self.over():
                        break
                    if isinstance(a, _Npc):
                        if a.present:
                            self.npc_turn(a)
                            a.has_fired = True
                            self.npc_has_fired = True
                    elif a.present:
                        self.player_turn(a)
                for n in self.fighting:
                    if n.present and n.card.regenerate_per_exchange:
                        lost = hull_start[n.index] - n.hull
                        n.hull += min(lost, n.card.regenerate_per_exchange)
                        n.hull = min(n.hull, n.card.hull)
        remaining = self.present_ships()
        if capped:
            for s in remaining:
                s.outcome = "stayed"
        g = self.galleon
        if g is not None and remaining:
            captor = None
            if self.island == TREASURE_ISLAND:
                if self.rules.decisions.cacafuego_at_treasure_island == "fastest":
                    captor = self.break_ties(remaining, self.speed)[0]
            elif len(remaining) == 1:
                captor = remaining[0]
            if captor is not None:
                g.captured_by = captor.seat
                captor.fame["capture"] += int(self.roll(1)[0]) if g.card.fame_die else g.card.fame
        return self.result(capped)

    def result(self, capped: bool) -> BattleResult:
        out = []
        for s in self.ships:
            arts = {SECTIONS[i]: s.art_used[i] for i in range(4) if s.art[i] > 0}
            out.append(
                ShipResult(
                    seat=s.seat,
                    outcome=s.outcome,
                    positions=list(s.pos),
                    destroyed=[SECTIONS[i] for i in range(4) if s.pos[i] <= 0],
                    cards_played=list(s.played),
                    chests_overboard=s.overboard,
                    chests=s.chests,
                    gold=s.gold,
                    gold_lost=s.gold_lost,
                    chests_lost=s.chests_lost,
                    fame=dict(s.fame),
                    parrot=None if s.parrot_died else s.parrot,
                    parrot_wounded=(
                        not s.parrot_died
                        and s.parrot is not None
                        and s.parrot_hp < self.c.parrot_hits_to_kill
                    ),
                    parrot_died=s.parrot_died,
                    artisans=arts,
                    artisans_lost=list(s.art_lost),
                    was_hit=s.was_hit,
                    hand=list(s.hand),
                    hits_taken=dict(s.hits_taken),
                    routed_by=s.routed_by,
                )
            )
        npcs = [
            NpcResult(
                key=n.key,
                fights=n.card.fights,
                sunk=n.sunk,
                hull=n.hull,
                sunk_by=n.sunk_by,
                shared_by=list(n.shared_by),
                fame_each=n.fame_each,
                captured_by=n.captured_by,
                routed=list(n.routed),
                hits_taken=dict(n.hits_taken),
                broadsides=n.broadsides,
            )
            for n in self.npcs
        ]
        first = npcs[0] if npcs else None
        return BattleResult(
            ships=out,
            npc=self.npc_key,
            npc_sunk=first.sunk if first is not None else False,
            npc_hull=first.hull if first is not None else None,
            npc_fame_shared_by=list(first.shared_by) if first is not None else [],
            npc_fame_each=first.fame_each if first is not None else 0,
            captured_by=self.galleon.captured_by if self.galleon is not None else None,
            exchanges=self.exchange,
            capped=capped,
            dice_rolled=self.dice,
            npcs=npcs,
        )


def resolve_battle(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | Sequence[str] | None,
    policies: Sequence[BattlePolicy],
    rng: np.random.Generator,
    *,
    island: str,
    royal_navy_controller: int | None = None,
    royal_navy_policy: RoyalNavyPolicy | None = None,
) -> BattleResult:
    """Resolve one battle at one island (see the module docstring for the contract).

    Args:
        rules: the scenario's rules.
        ships: the player ships at the island (copied, never mutated).
        npc: the non-player ships: ``None``, a key (Legendary Pirate or ``"royal_navy"``), or a
            sequence of keys (one battle: the players deal with every one of them before they
            fight each other; at most one treasure galleon).
        policies: one policy per ship, same order.
        rng: the only source of chance.
        island: the island (``treasure_island``: players never fight each other there).
        royal_navy_controller: seat of the player who sent the Royal Navy (recorded only).
        royal_navy_policy: the controller's targeting; default fires at the weakest section.

    Returns:
        A :class:`BattleResult`.
    """
    return _Battle(
        rules, ships, npc, policies, rng, island, royal_navy_controller, royal_navy_policy
    ).run()


def simulate_scalar(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    n: int,
    rng: np.random.Generator,
    island: str,
    royal_navy_policy: RoyalNavyPolicy | None,
) -> BatchResult:
    """``n`` battles of :func:`resolve_battle` in a row on ``rng``, as a
    :class:`~simulator.cove.combat.BatchResult` (``engine="scalar"``): the oracle's side of the
    batch comparisons (it was ``simulate_battles(engine="scalar")`` before issue 28)."""
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
        engine="scalar",
        engine_reason="the scalar oracle",
        outcome=outcome,
        fame=fame,
        positions=positions,
        npc_sunk=npc_sunk,
        captured_by=captured_by,
        exchanges=exchanges,
        capped=capped,
        dice_used=dice,
    )


def start_ship(rules: CoveRules, seat: int = 0, **kw) -> BattleShip:
    """A ship on the start positions (convenience for tests and tools)."""
    p = rules.ship_mat.start_position
    return BattleShip(seat=seat, positions=[p, p, p, p], **kw)


__all__ = [
    "FAME_CAUSES",
    "OUTCOMES",
    "ROYAL_NAVY",
    "TREASURE_ISLAND",
    "BattleResult",
    "BattleShip",
    "resolve_battle",
    "simulate_scalar",
    "start_ship",
]
