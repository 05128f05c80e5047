"""The improved Pirate's Cove players (issue 13): every option scored by its expected value.

Kind ``heuristic`` (``scenarios/cove/standard.toml``, ``[kinds.heuristic]``: every parameter with
its range and meaning); ``plunderer``, ``brawler``, ``tavern`` and ``balanced`` extend it with
other defaults. What changed from the baselines (:mod:`simulator.cove.players_v1`):

* **Navigation by expected value, no veto.** For each island 1-6 the player adds up what it holds
  at the end of the month if it is the one ship left there (the Treasure card valued at what its
  gold and chests will be worth, upgrades, cards, burying), the odds of being that ship, and the
  expected fame and rout cost of the fight. Opponents are predicted by a soft model (each heads
  for an island with probability proportional to ``exp(value / opp_temperature)`` of a generic
  valuation of its public ship; announced choices are certain), and every likely set of
  companions at the island is weighed by its probability.
* **Odds that count the company and the hand.** Alone against a Legendary Pirate (or the Royal
  Navy): the exact solver with the cards in hand (:func:`simulator.cove.odds.lone_pirate_odds`).
  With company: the kernel estimate :func:`simulator.cove.odds.company_odds` (the pirate's fame is
  shared, the survivors then fight for the island). Against player ships: a duel chain per
  opponent that honours ``combat.parrot_absorbs_hits``.
* **The black ships' route.** Each black ship moves one island a month, so where it will be in
  every later month is known: gold and chests are worth keeping only while a later month has
  Treasure Island free of a fighting pirate; in the last such month the player buries everything
  (in 4-5 player games the black ship is on Treasure Island in month 12).
* **Cards where they help.** Smoke, Grapple, Favourable wind (only when it changes the speed
  order) and Overboard (the fewest chests that put it first, when the gain in odds pays for the
  chests) follow the lone plan against a pirate; in player battles Wind and Overboard are played
  only when they change the order against an opponent; volley cards against a pirate follow the
  solver's optimal choice.
* **Flee or stand by expected value** (``fight_bias`` added to standing): no more flight at the
  first hit; ``fight_bias`` also values each expected opponent at an island (the opponent model is
  always on, so it always acts).

Decision records: with ``player.record`` set to a list, every navigation and every flee-or-stand
choice appends one row per alternative weighed (:data:`RECORD_COLUMNS`); off (``None``) by default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from simulator.cove.combat_policies import (
    FLEE,
    SECTIONS,
    BattlePolicy,
    BattleView,
    Broadside,
    RoyalNavyPolicy,
    weakest_target,
)
from simulator.cove.observation import Observation
from simulator.cove.odds import (
    CompanyOdds,
    PirateOdds,
    battle_ship_state,
    company_key,
    company_odds,
    lone_pirate_odds,
    ship_state,
    win_probability,
)
from simulator.cove.rules import CoveRules
from simulator.cove.tables import RECORD_COLUMNS  # noqa: F401 (the record rows' columns)

HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3
TAVERN, TREASURE, COVE = 0, 5, 6
ISLAND_SECTION = {1: HULL, 2: SAILS, 3: CANNONS, 4: CREW}
NUM_NAV = 6  # islands a ship can sail to: the five outer islands and Treasure Island

#: opponents' valuation (a generic player: what the opponent model assumes of every opponent)
_GENERIC = {"w_gold": 0.3, "w_chest": 0.9, "w_card": 0.6, "rout_cost": 2.0}
#: subsets of companions whose probability is below this are left out of an island's value
_MIN_SUBSET_PROB = 0.01
#: at most this many opponents are considered as possible company at one island (the likeliest)
_MAX_COMPANIONS = 3


class HeuristicPlayer(BattlePolicy):
    """An improved scripted player (see the module docstring); ``rng`` is its own generator.

    Args:
        name: the strategy name; ``kind``: its declared kind; ``params``: its full parameter
            vector (:func:`scenarios.strategies.resolve_params`).
        rules: the scenario's rules; ``rng``: the player's own generator.
        odds_cache: a dict shared by the players of a chunk (exact odds and estimates are pure
            functions of public states and the rules).
    """

    def __init__(
        self,
        name: str,
        kind: str,
        params: Mapping[str, Any],
        rules: CoveRules,
        rng: np.random.Generator,
        odds_cache: dict | None = None,
    ):
        self.name = name
        self.kind = kind
        self.p = dict(params)
        self.rules = rules
        self.rng = rng
        self.is_random = False
        mat = rules.ship_mat
        self.mat = (mat.hull, mat.crew, mat.cannons, mat.sails)
        self.step_cost = mat.step_cost
        self.npos = mat.num_positions
        p = self.p
        self.target = (p["target_hull"], p["target_crew"], p["target_cannons"], p["target_sails"])
        self.prio = (p["prio_hull"], p["prio_crew"], p["prio_cannons"], p["prio_sails"])
        c = rules.combat
        self.c = c
        self.p_hit = (7 - c.hit_on) / 6.0
        self.p_mutiny = max(0, min(c.mutiny_on, 6)) / 6.0
        self._cache: dict = {} if odds_cache is None else odds_cache
        solver = self._cache.get("pirate_odds")
        if solver is None or solver.rules is not rules:
            solver = self._cache["pirate_odds"] = PirateOdds(rules)
        self.solver: PirateOdds = solver
        self._parrots = dict(rules.parrots)
        self._pirates = dict(rules.pirates)
        self._map_mult = rules.decisions.treasure_map_chest_multiplier
        e = rules.economy
        self._fame_per_chest = e.bury_fame_per_chest
        self._gold_per_fame = e.bury_gold_per_fame
        self._card_price = e.tavern_card_price
        d = rules.decisions
        self._cacafuego_ti = d.cacafuego_at_treasure_island
        self._galleon_lone = d.cacafuego_lone_ship_captures
        # a non-fighting galleon's mean fame: its die (decisions.cacafuego_fame_die_sides) or fame
        self._galleon_fame = {
            k: (d.cacafuego_fame_die_sides + 1) / 2 if p.fame_die else float(p.fame)
            for k, p in rules.pirates.items()
            if not p.fights
        }
        self.record: list | None = None
        self._stake = 0.0  # value of holding this month's island (set when navigating)
        self._month = 0
        self._gold = 0
        self._hv_chest = self.p["w_chest"]  # what a chest aboard is worth this month

    # ------------------------------------------------------------------ dispatch
    def act(self, kind: str, obs: Observation, legal: tuple) -> Any:
        """Answer decision ``kind`` (docs/rules-cove.md, "Decisions") with one of ``legal``."""
        self._month = obs.month
        self._gold = obs.me.gold  # battle views show no gold: the last seen is the one aboard
        return getattr(self, "_" + kind)(obs, legal)

    def navy_policy(self) -> RoyalNavyPolicy:
        return _NavyController(self)

    def with_rng(self, rng: np.random.Generator) -> HeuristicPlayer:
        """The same strategy (parameters and tables shared, read-only) with its own generator
        and a fresh per-game state (no decision records)."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.rng = rng
        twin.record = None
        twin._stake = 0.0
        twin._month = twin._gold = 0
        twin._hv_chest = twin.p["w_chest"]
        return twin

    # ------------------------------------------------------------------ ship facts
    def value(self, ring: Sequence[int], section: int) -> int:
        p = ring[section]
        return self.mat[section][p - 1] if p > 0 else 0

    def dice_of(self, ring: Sequence[int], parrot: str | None) -> int:
        pr = self._parrots.get(parrot) if parrot else None
        if pr is not None and pr.fixed_dice:
            return pr.fixed_dice
        if pr is not None and pr.dice_equal_cannons:
            return self.value(ring, CANNONS)
        return min(self.value(ring, CREW), self.value(ring, CANNONS))

    def protection(self, ship, section: int) -> tuple[int, int]:
        """(Artisan hits left, parrot hits left) on a section of a table ship view; the parrot's
        hits protect the ring only when ``combat.parrot_absorbs_hits``."""
        art = 0
        for s, used in ship.artisans:
            if s == section:
                art += self.c.artisan_absorbs - used
        par = 0
        if ship.parrot and self._parrots[ship.parrot].section == SECTIONS[section]:
            par = self.c.parrot_hits_to_kill - ship.parrot_wounds
        return art, par

    def hits_to_rout(self, ship, section: int) -> int:
        art, par = self.protection(ship, section)
        return ship.ring[section] + art + (par if self.c.parrot_absorbs_hits else 0)

    def room(self, ship) -> int:
        if ship.parrot and self._parrots[ship.parrot].unlimited_chests:
            return 99
        return max(0, ship.values[HULL] - ship.chests)

    # ------------------------------------------------------------------ odds
    def lone_plan(self, ship, npc: str, hand: Sequence[str], stake: float, hv_chest: float):
        """The exact lone plan against ``npc`` with ``hand`` (cached by everything it uses)."""
        cards = tuple(sorted(c for c in hand if c in _PIRATE_CARDS))
        chests = ship.chests if "overboard" in cards else 0
        key = ("lone", npc, ship.ring, ship.artisans, ship.parrot, ship.parrot_wounds, cards)
        if chests or "favourable_wind" in cards:
            # the plan weighs stake and chest value: both in the key, exact (a rounded key let
            # one chunk's earlier query answer a later one, so results hung on the chunk size)
            key += (chests, stake, hv_chest)
        got = self._cache.get(key)
        if got is None:
            st = ship_state(self.rules, ship.ring, ship.artisans, ship.parrot, ship.parrot_wounds)
            got = self._cache[key] = lone_pirate_odds(
                self.solver,
                npc,
                st,
                ship.parrot,
                cards,
                chests,
                chest_value=hv_chest,
                stake=stake,
            )
        return got

    def company(self, ship, others, npc: str) -> CompanyOdds:
        key = company_key(ship, others, npc)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = company_odds(self.rules, key)
        return got

    def duel_track(self, ship) -> tuple[int, tuple[int, ...]]:
        """(hits that rout ``ship`` at its weakest section, its dice after 0..hits hits there)."""
        key = ("track", ship.ring, ship.parrot, ship.parrot_wounds, ship.artisans)
        got = self._cache.get(key)
        if got is None:
            weak = min(range(4), key=lambda s: (self.hits_to_rout(ship, s), s))
            hits = self.hits_to_rout(ship, weak)
            got = self._cache[key] = (hits, self._dice_track(ship, weak, hits))
        return got

    def _dice_track(self, ship, sec: int, n: int) -> tuple[int, ...]:
        """Dice after 0..n hits on section ``sec`` (Artisan, then the parrot, then the ring)."""
        st = ship_state(self.rules, ship.ring, ship.artisans, ship.parrot, ship.parrot_wounds)
        solver = self.solver
        return tuple(
            solver.dice(solver.hit(st, ship.parrot, sec, t), ship.parrot, False)
            for t in range(n + 1)
        )

    def duel_odds(self, me, other, my_speed: int | None = None) -> float:
        """P(``me`` routs ``other`` before it routs us), each standing and aiming at the other's
        weakest section (exact for our side's falling dice; the opponent's dice held)."""
        my_speed = me.speed if my_speed is None else my_speed
        mine = self.duel_track(me)
        theirs = self.duel_track(other)
        rel = (my_speed > other.speed) - (my_speed < other.speed)
        key = ("duel", mine, theirs[0], theirs[1][0], rel)
        got = self._cache.get(key)
        if got is None:
            hits, track = mine
            firsts = (True, False) if rel == 0 else (rel > 0,)
            got = self._cache[key] = sum(
                win_probability(track, self.p_hit, theirs[0], theirs[1][0], self.p_hit, hits, f)
                for f in firsts
            ) / len(firsts)
        return got

    # ------------------------------------------------------------------ values
    def holding_values(self, obs: Observation) -> tuple[float, float, bool]:
        """(value of a gold coin, of a chest loaded this month, whether this month is the last
        safe burial). Gold and chests score only when buried, so they keep their weights
        ``w_gold``/``w_chest`` only while a later month has Treasure Island free of a fighting
        pirate (each black ship moves one island a month: its island in every later month is
        known); after the last such month they are worth nothing to this player."""
        for m in range(obs.month + 1, obs.num_months + 1):
            if self._ti_pirate(obs, m) is None:
                return self.p["w_gold"], self.p["w_chest"], False
        return 0.0, 0.0, True

    def _ti_pirate(self, obs: Observation, month: int) -> str | None:
        """The fighting Legendary Pirate on Treasure Island in ``month`` (route: one island a
        month; the card now face up assumed to stay), or ``None``."""
        for isl, key in obs.black_ships:
            if key is None or not self._pirates[key].fights:
                continue
            if (isl + month - obs.month) % NUM_NAV == TREASURE:
                return key
        return None

    def alone_values(self, obs: Observation, hv_gold: float, hv_chest: float, last_bury: bool):
        """Per island 0..5: the value of being the one ship left there this month (before
        fights), as (value, stake for the battle-card choices)."""
        me = obs.me
        p = self.p
        last = obs.month == obs.num_months
        room = self.room(me)
        out = []
        victim = any(v == obs.seat for v, _ in obs.plunder)
        for isl in range(NUM_NAV):
            v = 0.0
            if isl < 5:
                card = obs.treasure[isl]
                if card is not None:
                    fame, gold, chests, tavern = card
                    if (obs.seat, isl) in obs.treasure_maps:
                        chests *= self._map_mult
                    loot = hv_gold * gold + hv_chest * min(chests, room) + fame
                    if victim:  # a Plunder card takes half of it
                        loot *= 0.5
                    v += loot + p["w_card"] * tavern
                if isl == TAVERN:
                    v += p["tavern_bias"]
                    if self._card_price:
                        n = min(self._buy_count(obs, me.gold), 3)
                        v += n * (p["w_card"] - hv_gold * self._card_price)
                elif not last:
                    v += self._upgrade_value(me, ISLAND_SECTION[isl])
            else:  # burying: what a month's visit realises (the month is its cost)
                keep = 0 if last_bury else p["bury_reserve"]
                bags = max(0, me.gold - keep) // self._gold_per_fame
                v += me.chests * self._fame_per_chest + bags + p["treasure_bias"]
            out.append(v)
        return out

    def _upgrade_value(self, me, sec: int) -> float:
        pos, gold, k = me.ring[sec], me.gold, 0
        while pos < min(self.target[sec], self.npos):
            cost = self.step_cost[pos]
            if gold - cost < self.p["gold_reserve"]:
                break
            gold -= cost
            pos += 1
            k += 1
        if not k:
            return 0.0
        spent = me.gold - gold
        return self.prio[sec] * (1.0 + 0.5 * (k - 1)) - self.p["w_gold"] * spent

    def _buy_count(self, obs: Observation, gold: int) -> int:
        if obs.month == obs.num_months:
            return 3  # gold is worth nothing after the last month: fame cards are
        price = self._card_price
        afford = (gold - self.p["card_gold_reserve"]) // price if price else 3
        return max(0, min(int(self.p["buy_cards"]), afford))

    def opponent_odds(self, obs: Observation) -> list[list[float]]:
        """Per opponent seat (others ``[]``): the probability it sails to each island 0..5."""
        pirates = {isl: key for isl, key in obs.black_ships if key is not None}
        temp = self.p["opp_temperature"]
        out: list[list[float]] = []
        for s in obs.ships:
            if s.seat == obs.seat:
                out.append([])
                continue
            chosen = obs.chosen[s.seat]
            if chosen is not None:
                out.append([1.0 if i == chosen else 0.0 for i in range(NUM_NAV)])
                continue
            vals = self._generic_values(obs, s, pirates)
            top = max(vals)
            w = [math.exp((v - top) / temp) for v in vals]
            tot = sum(w)
            out.append([x / tot for x in w])
        return out

    def _generic_values(self, obs: Observation, s, pirates) -> list[float]:
        """A generic player's island values for opponent ``s`` (its public ship only)."""
        g = _GENERIC
        room = self.room(s)
        last = obs.month == obs.num_months
        vals = []
        for isl in range(NUM_NAV):
            if isl < 5:
                card = obs.treasure[isl]
                v = 0.0
                if card is not None:
                    fame, gold, chests, tavern = card
                    v = fame + g["w_gold"] * gold + g["w_chest"] * min(chests, room)
                    v += g["w_card"] * tavern
            else:
                v = s.chests * self._fame_per_chest + s.gold // self._gold_per_fame - 0.5
            key = pirates.get(isl)
            if key is not None:
                pr = self._pirates[key]
                if pr.fights and isl == TREASURE and last:  # everyone's last chance to bury
                    others = [o for o in obs.ships if o.seat != s.seat]
                    ps = self.company(s, others, key).p_sink
                    v = ps * (v + pr.fame / len(obs.ships)) - (1 - ps) * g["rout_cost"]
                elif pr.fights:
                    ps = self.lone_plan(s, key, (), 0.0, 0.0).p_sink
                    v = ps * (v + pr.fame) - (1 - ps) * g["rout_cost"]
                else:
                    v += self._galleon_fame[key]
            vals.append(v)
        return vals

    # ------------------------------------------------------------------ island choice
    def island_scores(self, obs: Observation) -> list[float]:
        """Expected value of sailing to each island 0..5 this month (module docstring)."""
        return [d["value"] for d in self.island_details(obs)]

    def island_details(self, obs: Observation) -> list[dict[str, Any]]:
        """Per island: its expected value and the odds behind it (the decision record)."""
        me = obs.me
        p = self.p
        hv_gold, hv_chest, last_bury = self.holding_values(obs)
        alone = self.alone_values(obs, hv_gold, hv_chest, last_bury)
        opp = self.opponent_odds(obs)
        pirates = {isl: key for isl, key in obs.black_ships if key is not None}
        rout = p["rout_cost"]
        noise = self.rng.random(NUM_NAV).tolist()
        out = []
        for isl in range(NUM_NAV):
            npc = pirates.get(isl)
            if npc is None and obs.royal_navy == isl:
                npc = "royal_navy"
            fights = npc is not None and (npc == "royal_navy" or self._pirates[npc].fights)
            cands = [(opp[s.seat][isl], s) for s in obs.ships if s.seat != obs.seat]
            cands = [c for c in cands if c[0] > 0.0]
            cands.sort(key=lambda c: -c[0])
            cands = cands[:_MAX_COMPANIONS]
            expected = sum(q for q, _ in cands)
            base = alone[isl]
            lone_p = None
            if fights:
                fame = self._npc_fame(npc)
                plan = self.lone_plan(me, npc, obs.hand, base + fame + rout, hv_chest)
                lone_p = plan.p_sink
            total = 0.0
            p_alone = 0.0
            comp_p = 0.0
            comp_w = 0.0
            for mask in range(1 << len(cands)):
                prob = 1.0
                here = []
                for j, (q, s) in enumerate(cands):
                    if mask >> j & 1:
                        prob *= q
                        here.append(s)
                    else:
                        prob *= 1.0 - q
                if prob < _MIN_SUBSET_PROB and mask:
                    continue
                if not here:
                    p_alone = prob
                if fights:
                    if here:
                        co = self.company(me, here, npc)
                        after = self._after_pirate(me, here, isl, base)
                        v = co.p_sink * after + co.share - co.p_routed * rout
                        comp_p += prob * co.p_sink
                        comp_w += prob
                    else:
                        v = lone_p * (base + fame) - (1 - lone_p) * rout
                        v -= hv_chest * plan.overboard
                elif npc is not None:  # the Cacafuego: a die of fame to its captor
                    v = self._galleon_value(me, here, isl, base, npc)
                else:
                    v = self._after_pirate(me, here, isl, base)
                total += prob * v
            total += p["fight_bias"] * expected
            out.append(
                {
                    "island": isl,
                    "value": total + noise[isl] * p["noise"],
                    "npc": npc or "",
                    "p_alone": p_alone,
                    "p_sink_lone": lone_p,
                    "p_sink_company": comp_p / comp_w if comp_w else None,
                    "expected_opponents": expected,
                }
            )
        return out

    def _npc_fame(self, npc: str) -> int:
        return self.rules.royal_navy.fame if npc == "royal_navy" else self._pirates[npc].fame

    def _after_pirate(self, me, here, isl: int, base: float) -> float:
        """Value of the island once no non-player ship is left: alone, or fighting the others
        for it (outer islands; at Treasure Island nobody fights and everyone buries)."""
        if not here or isl == TREASURE:
            return base
        win = 1.0
        for o in here:
            win *= self.duel_odds(me, o)
        rout = self.p["rout_cost"]
        return win * (base + self.c.rout_fame * len(here)) - (1 - win) * rout

    def _galleon_value(self, me, here, isl: int, base: float, key: str) -> float:
        """A treasure galleon (the Cacafuego): its fame goes to the one ship left at an outer
        island (alone: only with ``decisions.cacafuego_lone_ship_captures``), to the fastest at
        Treasure Island (``decisions.cacafuego_at_treasure_island``)."""
        fame = self._galleon_fame[key]
        if isl == TREASURE:
            fastest = all(me.speed > o.speed for o in here)
            return base + (fame if fastest and self._cacafuego_ti == "fastest" else 0.0)
        if not here:
            return base + (fame if self._galleon_lone else 0.0)
        return self._after_pirate(me, here, isl, base + fame)

    def _navigate(self, obs: Observation, legal: tuple) -> int:
        details = self.island_details(obs)
        best = legal[0]
        for i in legal:
            if details[i]["value"] > details[best]["value"]:
                best = i
        hv_gold, hv_chest, last_bury = self.holding_values(obs)
        self._stake = self.alone_values(obs, hv_gold, hv_chest, last_bury)[best]
        self._hv_chest = hv_chest
        if self.record is not None:
            for d in details:
                self.record.append(
                    (
                        obs.month,
                        obs.seat,
                        "navigate",
                        d["island"],
                        d["value"],
                        int(d["island"] == best),
                        d["npc"],
                        d["p_alone"],
                        d["p_sink_lone"],
                        d["p_sink_company"],
                        d["expected_opponents"],
                    )
                )
        return best

    # ------------------------------------------------------------------ setup and events
    def _arm(self, obs: Observation, legal: tuple):
        me = obs.me
        ring = list(me.ring)
        for sec in obs.extra.get("planned", ()):
            ring[sec] += 1
        gold = obs.extra.get("gold_left", me.gold)
        best, best_v = None, 0.0
        for sec in legal:
            if sec is None:
                continue
            cost = self.step_cost[ring[sec]]
            if ring[sec] < self.target[sec] and gold - cost >= self.p["arming_reserve"]:
                v = self.prio[sec] * (self.target[sec] - ring[sec]) / (1 + cost)
                if v > best_v:
                    best, best_v = sec, v
        return best

    def _treasure_map(self, obs: Observation, legal: tuple) -> bool:
        return True

    def _plunder(self, obs: Observation, legal: tuple):
        if not self.p["use_plunder"]:
            return None
        return self._most_famous(obs, [v for v in legal if v is not None])

    def _lookout(self, obs: Observation, legal: tuple):
        return (obs.seat + 1) % len(obs.ships)  # I choose last, seeing everybody's island

    def _royal_navy(self, obs: Observation, legal: tuple):
        if not self.p["use_navy"]:
            return None
        cands = [s.seat for s in obs.ships if s.seat != obs.seat and s.location in legal]
        leader = self._most_famous(obs, cands)
        return None if leader is None else obs.ships[leader].location

    def _most_famous(self, obs: Observation, seats: list[int]) -> int | None:
        if not seats:
            return None
        top = max(obs.ships[v].fame for v in seats)
        best = [v for v in seats if obs.ships[v].fame == top]
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def _letter_of_marque(self, obs: Observation, legal: tuple):
        if obs.royal_navy is None or obs.royal_navy != obs.me.location:
            return None
        return self._royal_navy(obs, legal)

    def _sneak_away(self, obs: Observation, legal: tuple):
        if not self.p["use_sneak"]:
            return None
        scores = self.island_scores(obs)
        here = obs.me.location
        best = max((i for i in legal if i is not None), key=lambda i: scores[i], default=None)
        if best is not None and scores[best] > scores[here] + 1.0:
            hv_gold, hv_chest, last_bury = self.holding_values(obs)
            self._stake = self.alone_values(obs, hv_gold, hv_chest, last_bury)[best]
            return best
        return None

    def _parrot_swap(self, obs: Observation, legal: tuple) -> bool:
        old = self.p.get("parrot_" + (obs.me.parrot or ""), 1.0)
        new = self.p.get("parrot_" + obs.extra["drawn"], 1.0)
        return new - old > self.rules.economy.parrot_swap_fame_cost

    # ------------------------------------------------------------------ phase 5
    def _buy_cards(self, obs: Observation, legal: tuple) -> int:
        return min(max(legal), self._buy_count(obs, obs.me.gold))

    def _upgrade(self, obs: Observation, legal: tuple) -> int:
        """Levels to raise at a section island: towards the target, keeping the gold reserve."""
        me = obs.me
        sec = obs.extra["section"]
        if obs.month == obs.num_months:
            return 0
        pos, gold, k = me.ring[sec], me.gold, 0
        while k < max(legal) and pos < self.target[sec]:
            cost = self.step_cost[pos]
            if gold - cost < self.p["gold_reserve"]:
                break
            gold -= cost
            pos += 1
            k += 1
        return k

    def _bury_chests(self, obs: Observation, legal: tuple) -> int:
        return max(legal)

    def _bury_gold(self, obs: Observation, legal: tuple) -> int:
        _hv_gold, _hv_chest, last_bury = self.holding_values(obs)
        if last_bury:
            return max(legal)
        k = max(0, int((obs.me.gold - self.p["bury_reserve"]) // self._gold_per_fame))
        return min(k, max(legal))

    def _treasure_island_upgrade(self, obs: Observation, legal: tuple):
        if not self.p["ti_upgrade"] or obs.month == obs.num_months:
            return None
        me = obs.me
        cands = [s for s in legal if s is not None and me.ring[s] < self.target[s]]
        return max(cands, key=lambda s: self.prio[s]) if cands else None

    def _cove_reward(self, obs: Observation, legal: tuple) -> str:
        e = self.rules.economy
        hv_gold, _hv_chest, _last = self.holding_values(obs)
        cards = e.cove_reward_cards * self.p["w_card"]
        alt = e.cove_reward_alt_cards * self.p["w_card"] + e.cove_reward_alt_gold * hv_gold
        return "cards" if cards >= alt else "card_and_gold"

    def _artisan(self, obs: Observation, legal: tuple):
        me = obs.me
        cands = [s for s in legal if s is not None]
        if not cands:
            return None
        return min(cands, key=lambda s: (self.hits_to_rout(me, s) - self.prio[s] * 0.1, s))

    def _artisan_repair(self, obs: Observation, legal: tuple) -> bool:
        return obs.me.gold - self.rules.combat.artisan_repair_cost >= self.p["gold_reserve"] - 1

    def _shipwright(self, obs: Observation, legal: tuple):
        me = obs.me
        cands = [s for s in legal if s is not None]
        return max(cands, key=lambda s: (self.prio[s] * max(0, self.target[s] - me.ring[s]), -s))

    # ------------------------------------------------------------------ battle policy
    def _enemy_speeds(self, view: BattleView) -> list[int]:
        out = [s.speed for s in view.ships if s.seat != view.me and s.present]
        if view.npc_fighting:
            out.append(view.npc.sails)
        return out

    def _lone_npc(self, view: BattleView) -> bool:
        return view.npc_fighting and not any(s.present and s.seat != view.me for s in view.ships)

    def _battle_plan(self, view: BattleView, me, hand: Sequence[str]):
        """The lone plan from the battle as it stands (cards already in effect counted)."""
        cards = tuple(sorted(c for c in hand if c in _PIRATE_CARDS))
        return lone_pirate_odds(
            self.solver,
            view.npc.key,
            battle_ship_state(self.rules, me),
            me.parrot,
            cards,
            me.chests if "overboard" in cards else 0,
            chest_value=self._hv_chest,
            stake=self._stake + self._npc_fame(view.npc.key) + self.p["rout_cost"],
            hull=view.npc.hull,
            extra_speed=me.speed - self._base_speed(me),
            smoke_on=me.smoke,
            grapple_on=view.grapple,
        )

    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        if not self.p["play_cards"]:
            return None
        me = view.ship(view.me)
        if self._lone_npc(view):
            plan = self._battle_plan(view, me, hand)
            if plan.smoke:
                return "smoke"
            if plan.grapple:
                return "grapple"
            if plan.wind:
                return "favourable_wind"
            if plan.overboard:
                return "overboard"
            return None
        others = [s for s in view.ships if s.seat != view.me and s.present]
        if "smoke" in hand and not me.smoke:
            return "smoke"
        if "favourable_wind" in hand and self._wind_changes_order(view, me):
            return "favourable_wind"
        if "grapple" in hand and not view.grapple and self._grapple_helps(view, me, others):
            return "grapple"
        if "overboard" in hand and me.chests and self._overboard_need(view, me) is not None:
            return "overboard"
        if (
            "becalmed" in hand
            and view.card_round > 1
            and others
            and max(s.hand_size for s in others) > len(hand)
        ):
            return "becalmed"
        return None

    def _wind_changes_order(self, view: BattleView, me) -> bool:
        """+wind puts us ahead of (or level with) an enemy that is now at least as fast."""
        step = self.c.favourable_wind_speed
        return any(me.speed <= e < me.speed + step for e in self._enemy_speeds(view))

    def _grapple_helps(self, view: BattleView, me, others) -> bool:
        def gain(ship) -> int:
            if ship.parrot is not None:
                pr = self._parrots[ship.parrot]
                if pr.fixed_dice or pr.dice_equal_cannons:
                    return 0
            crew = self.value(ship.positions, CREW)
            return crew - min(crew, self.value(ship.positions, CANNONS))

        mine = gain(me)
        return mine > 0 and mine > max((gain(o) for o in others), default=0)

    def _overboard_need(self, view: BattleView, me) -> int | None:
        """The fewest chests that put us ahead of the nearest faster enemy, if that is worth it
        (the duel odds it gains times the stake pay for the chests); ``None``: not worth it."""
        per = self.c.overboard_speed_per_chest
        if per <= 0:
            return None
        ahead = [e for e in self._enemy_speeds(view) if e >= me.speed]
        if not ahead:
            return None
        need = (min(ahead) - me.speed) // per + 1
        if need > me.chests:
            return None
        others = [s for s in view.ships if s.seat != view.me and s.present]
        if len(others) != 1 or view.npc_fighting:
            return None
        o = others[0]
        mine, theirs = self._battle_track(me), self._battle_track(o)
        odds = [
            win_probability(mine[1], self.p_hit, theirs[0], theirs[1][0], self.p_hit, mine[0], f)
            for f in (False, True)
        ]
        slow, fast = odds
        gain = (fast - slow) * (self._stake + self.p["rout_cost"])
        return need if gain > need * self.p["w_chest"] else None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        me = view.ship(view.me)
        if self._lone_npc(view):
            return min(chests, self._battle_plan(view, me, ("overboard",)).overboard)
        return min(chests, self._overboard_need(view, me) or 0)

    def _battle_track(self, ship) -> tuple[int, tuple[int, ...]]:
        """(hits to rout at the weakest section, dice after 0..hits hits there) of a battle
        view ship (protection as the battle engine counts it; hits through the solver's
        :meth:`PirateOdds.hit`, the one copy of the damage rule the players use)."""
        h = ship.hits_to_rout()
        weak = h.index(min(h))
        st = battle_ship_state(self.rules, ship)
        solver = self.solver
        return h[weak], tuple(
            solver.dice(solver.hit(st, ship.parrot, weak, t), ship.parrot, False)
            for t in range(h[weak] + 1)
        )

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        me = view.ship(view.me)
        others = [s for s in view.ships if s.seat != view.me and s.present]
        stand, flee = self._stand_and_flee_values(view, me, others, hand)
        # standing keeps the option to flee later: leave only when the next broadside aimed at
        # us could rout us (standing to the end is the pessimistic value of standing)
        go = flee > stand + self.p["fight_bias"] and self._in_danger(view, me, others)
        if self.record is not None:
            npc = view.npc.key if view.npc_fighting else ""
            for opt, v in (("stand", stand), ("flee", flee)):
                self.record.append(
                    (self._month, view.me, "battle", opt, v, int((opt == "flee") == go), npc)
                    + (None, None, None, float(len(others)))
                )
        if go:
            return FLEE
        target, section = self.weakest(view)
        volley: tuple[str, ...] = ()
        if self.p["play_cards"] and me.can_fire and not view.becalmed:
            if view.npc_fighting:
                names, _ = self.solver.best_volley(
                    view.npc.key,
                    battle_ship_state(self.rules, me),
                    parrot=me.parrot,
                    hull=view.npc.hull,
                    grapeshot=hand.count("grapeshot"),
                    powder_keg=hand.count("powder_keg"),
                    smoke=me.smoke,
                    extra_speed=me.speed - self._base_speed(me),
                    grapple=view.grapple,
                    pirate_to_fire=not view.npc_has_fired,
                )
                volley = names
            else:
                volley = self._pvp_volley(me, hand, target)
        return Broadside(target=target, section=section, volley=volley)

    def _in_danger(self, view: BattleView, me, others) -> bool:
        """One enemy broadside could destroy a section of ours (every die a hit)."""
        weakest = min(me.hits_to_rout())
        if view.npc_fighting:
            pr = (
                self.rules.royal_navy
                if view.npc.key == "royal_navy"
                else self._pirates[view.npc.key]
            )
            if pr.damages in ("hull", "crew"):
                weakest = me.hits_to_rout()[SECTIONS.index(pr.damages)]
            return weakest <= pr.dice
        most = 0
        for o in others:
            most = max(most, self.dice_of(o.positions, o.parrot))
        return weakest <= most

    def _base_speed(self, ship) -> int:
        sp = self.value(ship.positions, SAILS)
        if ship.parrot is not None:
            sp += self._parrots[ship.parrot].speed_bonus
        return sp

    def _stand_and_flee_values(self, view, me, others, hand) -> tuple[float, float]:
        """Expected value of standing and of fleeing now (fame units)."""
        rout = self.p["rout_cost"]
        loss = self.p_mutiny * (
            self.p["w_gold"] * self._gold + self.p["w_chest"] * me.chests + self.c.mutiny_fame_loss
        )
        flee = -loss
        if view.npc_fighting:
            fame = self._npc_fame(view.npc.key)
            if not others and not self._lone_npc(view):  # two non-player ships: sink both
                stand = 1.0
                for n in view.npcs:
                    if n.present:
                        stand *= self.solver.p_sink(
                            n.key, battle_ship_state(self.rules, me), parrot=me.parrot, hull=n.hull
                        )
                fame = sum(self._npc_fame(n.key) for n in view.npcs if n.present)
                return stand * (fame + self._stake) - (1 - stand) * rout, flee
            if not others:
                names_p = self.solver.p_sink(
                    view.npc.key,
                    battle_ship_state(self.rules, me),
                    parrot=me.parrot,
                    hull=view.npc.hull,
                    grapeshot=hand.count("grapeshot"),
                    powder_keg=hand.count("powder_keg"),
                    smoke=me.smoke,
                    extra_speed=me.speed - self._base_speed(me),
                    grapple=view.grapple,
                )
                stand = names_p * (fame + self._stake) - (1 - names_p) * rout
            else:
                co = self.company(
                    _table_facts(self.rules, me),
                    [_table_facts(self.rules, o) for o in others],
                    view.npc.key,
                )
                stand = co.p_sink * self._stake + co.share - co.p_routed * rout
            return stand, flee
        win = 1.0
        mine = self._battle_track(me)
        for o in others:
            theirs = self._battle_track(o)
            first = me.speed > o.speed
            win *= win_probability(
                mine[1], self.p_hit, theirs[0], theirs[1][0], self.p_hit, mine[0], first
            )
        stand = win * (self._stake + self.c.rout_fame * len(others)) - (1 - win) * rout
        return stand, flee

    def _pvp_volley(self, me, hand: Sequence[str], target: int) -> tuple[str, ...]:
        out = []
        h = me.hits_to_rout()
        if "cannonade" in hand and target >= 0:  # a player ship (non-player targets are < 0)
            out.append("cannonade")
        if "grapeshot" in hand and h[CANNONS] > self.c.grapeshot_self_hits + 1:
            out.append("grapeshot")
        if "powder_keg" in hand and h[HULL] > 3:
            out.append("powder_keg")
        return tuple(out)

    def weakest(self, view: BattleView, navy: bool = False) -> tuple[int, str]:
        """The forced non-player target, else the present opponent with the fewest hits to rout
        at its weakest section; equal ones at random (no seat favoured)."""
        if view.npc_fighting and not navy:
            return weakest_target(view)  # the non-player ship (of two: the least hull left)
        best, key = [], None
        for s in view.ships:
            if (s.seat == view.me and not navy) or not s.present:
                continue
            h = s.hits_to_rout()
            k = h.index(min(h))
            if key is None or h[k] < key:
                best, key = [(s.seat, SECTIONS[k])], h[k]
            elif h[k] == key:
                best.append((s.seat, SECTIONS[k]))
        if not best:
            return RoyalNavyPolicy().target(view) if navy else weakest_target(view)
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def navy_target(self, view: BattleView) -> tuple[int, str]:
        return self.weakest(view, navy=True)


#: the cards the lone plan and the solver use against a non-player ship
_PIRATE_CARDS = frozenset(
    ("smoke", "favourable_wind", "grapple", "overboard", "grapeshot", "powder_keg")
)


class _Facts(NamedTuple):
    """The public facts of a battle ship in the form of a table view (for company estimates)."""

    ring: tuple[int, ...]
    artisans: tuple[tuple[int, int], ...]
    parrot: str | None
    parrot_wounds: int


def _table_facts(rules: CoveRules, ship) -> _Facts:
    st = battle_ship_state(rules, ship)
    absorbs = rules.combat.artisan_absorbs
    arts = tuple((sec, absorbs - st[4 + sec]) for sec in range(4) if st[4 + sec] > 0)
    return _Facts(
        tuple(max(p, 1) for p in ship.positions), arts, ship.parrot, int(ship.parrot_wounded)
    )


class _NavyController(RoyalNavyPolicy):
    def __init__(self, player: HeuristicPlayer):
        self.player = player

    def target(self, view: BattleView) -> tuple[int, str]:
        return self.player.navy_target(view)
