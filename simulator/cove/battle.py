"""Pirate's Cove: the scalar (one trial) reference battle with the complete combat rules.

Rules: sections "Combat", "Non-player ships" and "Tavern deck" of
``../shared/rules/pirates-cove.md``; our readings where they are silent are listed in
``docs/rules-cove-combat.md``. This is the engine the full game calls for every battle, and the
reference the vectorised engine (:mod:`simulator.cove.combat`) and the exact duels
(:mod:`simulator.cove.duel`) are tested against.

Stable API (used by the full game)::

    result = resolve_battle(rules, ships, npc, policies, rng, island="hull",
                            royal_navy_controller=None, royal_navy_policy=None)

* ``rules``: :class:`simulator.cove.rules.CoveRules` (``load_scenario(None, CoveRules).rules``).
* ``ships``: list of :class:`BattleShip` (player ships at the island, any order; seats must differ).
  The battle copies them and never mutates the caller's objects.
* ``npc``: ``None``, a key of ``rules.pirates`` (``"blackbeard"``, ``"flying_dutchman"``,
  ``"captain_hook"``, ``"bonny_and_read"``, ``"cacafuego"``) or ``"royal_navy"``.
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
(a wounded parrot is healed by the caller in phase 5 if its ship won or went to the Cove). For the
non-player ship: ``npc_sunk``, ``npc_fame_shared_by`` (seats) and ``npc_fame_each``;
``captured_by`` is the seat that took the Cacafuego (fame in ``fame["capture"]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from simulator.cove.combat_policies import (
    BATTLE_CARDS,
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
OUTCOMES = ("won", "routed", "fled", "mutiny", "stayed")
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

    @property
    def fame_total(self) -> int:
        return sum(self.fame.values())


@dataclass
class BattleResult:
    ships: list[ShipResult]
    npc: str | None
    npc_sunk: bool
    npc_hull: int | None
    npc_fame_shared_by: list[int]
    npc_fame_each: int
    captured_by: int | None
    exchanges: int
    capped: bool  # the safety cap rules.combat.max_exchanges was reached
    dice_rolled: int

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


class _Battle:
    def __init__(
        self,
        rules: CoveRules,
        ships: Sequence[BattleShip],
        npc: str | None,
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
        self.npc_key = npc
        self.npc: NonPlayerShip | None = None
        if npc == ROYAL_NAVY:
            if island == TREASURE_ISLAND:
                raise ValueError("the Royal Navy never goes to Treasure Island")
            self.npc = rules.royal_navy
        elif npc is not None:
            if npc not in rules.pirates:
                raise ValueError(
                    f"npc {npc!r} (allowed: {', '.join(list(rules.pirates) + [ROYAL_NAVY])})"
                )
            self.npc = rules.pirates[npc]
        self.rn_controller = royal_navy_controller
        self.rn_policy = royal_navy_policy or RoyalNavyPolicy()
        self.npc_fights = self.npc is not None and self.npc.fights
        self.npc_hull = self.npc.hull if self.npc is not None else None
        self.npc_present = self.npc_fights
        self.npc_sunk = False
        self.npc_fired_at: set[int] = set()
        self.shared_by: list[int] = []
        self.fame_each = 0
        self.captured_by: int | None = None
        self.grapple = False
        self.becalmed = False
        self.exchange = 0
        self.card_round = 0
        self.dice = 0

    # ---------------------------------------------------------------- values
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
        npc = None
        if self.npc is not None and self.npc_fights:
            npc = NpcView(
                key=self.npc_key,
                hull=self.npc_hull,
                max_hull=self.npc.hull,
                sails=self.npc.sails,
                present=self.npc_present,
            )
        return BattleView(
            me=me.seat if me is not None else -1,
            island=self.island,
            exchange=self.exchange,
            ships=ships,
            npc=npc,
            grapple=self.grapple,
            becalmed=self.becalmed,
            card_round=self.card_round,
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
        if self.npc_present:
            return players == 0
        if self.island == TREASURE_ISLAND:
            return True
        return players <= 1

    # ---------------------------------------------------------------- damage
    def hit_section(self, ship: _Ship, sec: int, k: int) -> None:
        """``k`` hits on one section: Artisan first, then the parrot sitting there, then the
        ring."""
        if k <= 0 or not ship.present:
            return
        ship.was_hit = True
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

    def resolve_routs(self, sharers: list[_Ship]) -> None:
        """After a broadside: sink the NPC, rout ships with a destroyed section, hand out fame."""
        if self.npc_present and self.npc_hull <= 0:
            self.npc_hull = 0
            self.npc_present = False
            self.npc_sunk = True
            self.shared_by = [s.seat for s in sharers]
            self.fame_each = self.npc.fame // len(sharers) if sharers else 0
            for s in sharers:
                s.fame["pirate_share"] += self.fame_each
        routed = [s for s in self.ships if s.present and min(s.pos) <= 0]
        for s in routed:
            s.present = False
            s.outcome = "routed"
        for _s in routed:
            for o in self.ships:
                if o.present:
                    o.fame["rout"] += self.c.rout_fame

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
        if self.npc_present:  # forced target: the non-player ship's hull
            tgt = None
            thr = self.c.grapeshot_hit_on if grapeshot else self.c.hit_on
        else:
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
        if tgt is None:
            self.npc_hull -= hits
        elif cannonade:
            for sec in range(4):
                self.hit_section(tgt, sec, hits)
        else:
            self.hit_section(tgt, SECTIONS.index(act.section), hits)
        if keg and hits:
            for o in self.present_ships():
                self.hit_section(o, HULL, hits)
            if self.npc_present:
                self.npc_hull -= hits
        if grapeshot:
            self.hit_section(s, CANNONS, self.c.grapeshot_self_hits)
        if cannonade:
            s.can_fire = False
        self.resolve_routs(sharers)

    def npc_target(self) -> _Ship:
        npc = self.npc
        present = self.present_ships()
        cands = [s for s in present if s.seat not in self.npc_fired_at]
        if not cands:
            self.npc_fired_at.clear()
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
        self.npc_fired_at.add(target.seat)
        return target

    def npc_turn(self) -> None:
        npc = self.npc
        if self.npc_key == ROYAL_NAVY or npc.first_target == "controller":
            seat, section = self.rn_policy.target(self.view(None))
            tgt = next((o for o in self.ships if o.seat == seat and o.present), None)
            if tgt is None:
                raise ValueError(
                    f"the Royal Navy's controller fired at {seat!r}, not a present ship"
                )
            sections = [SECTIONS.index(section)]
        else:
            tgt = self.npc_target()
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
            self.hit_section(tgt, sec, hits)
        for v in misfires:
            self.hit_section(v, HULL, 1)
        self.resolve_routs(sharers)

    def run(self) -> BattleResult:
        npc = self.npc
        capped = False
        if npc is not None and not npc.fights and self.island == TREASURE_ISLAND:
            pass  # no combat: the galleon goes to the fastest ship (see below)
        elif not self.over():
            self.card_phase()
            while not self.over():
                if self.exchange >= self.c.max_exchanges:
                    capped = True
                    break
                self.exchange += 1
                hull_start = self.npc_hull
                actors: list = list(self.present_ships())
                if self.npc_present:
                    actors.append("npc")
                order = self.break_ties(
                    actors, lambda a: self.npc.sails if a == "npc" else self.speed(a)
                )
                for a in order:
                    if self.over():
                        break
                    if a == "npc":
                        if self.npc_present:
                            self.npc_turn()
                    elif a.present:
                        self.player_turn(a)
                if self.npc_present and npc.regenerate_per_exchange:
                    lost = hull_start - self.npc_hull
                    self.npc_hull += min(lost, npc.regenerate_per_exchange)
                    self.npc_hull = min(self.npc_hull, npc.hull)
        remaining = self.present_ships()
        if capped:
            for s in remaining:
                s.outcome = "stayed"
        if npc is not None and not npc.fights and remaining:
            captor = None
            if self.island == TREASURE_ISLAND:
                if self.rules.decisions.cacafuego_at_treasure_island == "fastest":
                    captor = self.break_ties(remaining, self.speed)[0]
            elif len(remaining) == 1:
                captor = remaining[0]
            if captor is not None:
                self.captured_by = captor.seat
                captor.fame["capture"] += int(self.roll(1)[0]) if npc.fame_die else npc.fame
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
                )
            )
        return BattleResult(
            ships=out,
            npc=self.npc_key,
            npc_sunk=self.npc_sunk,
            npc_hull=self.npc_hull,
            npc_fame_shared_by=list(self.shared_by),
            npc_fame_each=self.fame_each,
            captured_by=self.captured_by,
            exchanges=self.exchange,
            capped=capped,
            dice_rolled=self.dice,
        )


def resolve_battle(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
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
        npc: legendary pirate key, ``"royal_navy"`` or ``None``.
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


def start_ship(rules: CoveRules, seat: int = 0, **kw) -> BattleShip:
    """A ship on the start positions (convenience for tests and tools)."""
    p = rules.ship_mat.start_position
    return BattleShip(seat=seat, positions=[p, p, p, p], **kw)
