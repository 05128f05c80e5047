"""Today's scripted Pirate's Cove players, frozen as the ``*-v1`` baselines (issue 13).

This is the player code of the round before issue 13, kept unchanged so that the improved players
of :mod:`simulator.cove.players` can be measured against it (kinds ``plunderer-v1``,
``brawler-v1``, ``tavern-v1``, ``balanced-v1`` extending ``heuristic-v1`` in
``scenarios/cove/standard.toml``) and so that the ``random`` kind keeps its exact behaviour. The
golden playthroughs ``tests/data/cove_golden_*.json`` are played by these kinds and replay the
decisions recorded before the change: that is the proof that nothing here moved.

The only edit: the one kind-name test of the old code (``kind != "tavern"`` when buying cards in
the last month) is the declared parameter ``buy_last_month`` (true for ``tavern-v1``).

Known weaknesses (measured in issue 13, fixed by the improved kinds, kept here on purpose): the
``pirate_odds_min`` veto, odds without company or cards, ``parrot_absorbs_hits`` ignored by the
odds, ``fight_bias`` inert without ``opponent_model``, Favourable wind played when +6 cannot change
the order, Overboard never played, the plunderer's 2-dice ship that flees at the first hit.

:data:`V1_BASE_PARAMS` and :data:`V1_KIND_DEFAULTS` are the parameter tables of the old code; the
scenario's ``[kinds.*-v1]`` declarations must resolve to exactly these values (tested).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from simulator.cove.combat_policies import (
    FLEE,
    NPC_TARGET,
    SECTIONS,
    VOLLEY_CARDS,
    BattlePolicy,
    BattleView,
    Broadside,
    RoyalNavyPolicy,
    weakest_target,
)
from simulator.cove.observation import Observation
from simulator.cove.odds import win_probability
from simulator.cove.rules import CoveRules

HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3
TREASURE, COVE = 5, 6
ISLAND_SECTION = {1: HULL, 2: SAILS, 3: CANNONS, 4: CREW}

#: every parameter a strategy may set, with the defaults shared by all kinds
V1_BASE_PARAMS: dict[str, float] = {
    "w_fame": 1.0,  # value of 1 fame
    "w_gold": 0.3,  # value of 1 gold
    "w_chest": 0.8,  # value of 1 chest it can hold
    "w_card": 0.5,  # value of 1 Tavern card
    "target_hull": 4,
    "target_crew": 3,
    "target_cannons": 3,
    "target_sails": 4,  # ring positions
    "prio_hull": 1.0,
    "prio_crew": 1.0,
    "prio_cannons": 1.0,
    "prio_sails": 1.0,
    "gold_reserve": 2,  # gold kept back from upgrades
    "arming_reserve": 0,  # gold kept back at the secret initial arming
    "bury_reserve": 3,  # gold kept when burying (none in the last month)
    "buy_cards": 0,  # cards bought per Tavern visit
    "card_gold_reserve": 2,  # gold kept when buying cards
    "tavern_bias": 0.0,  # extra value of sailing to the Tavern
    "treasure_bias": 0.0,  # extra value of sailing to Treasure Island
    "fight_bias": -1.0,  # value added per expected opponent at an island (brawler: positive)
    "pirate_odds_min": 0.8,  # sail at a Legendary Pirate only if P(sink it) >= this
    "rout_cost": 3.0,  # value lost when routed (repairs, lost month)
    # flee a battle when a section is this many hits from destruction (0: never)
    "flee_hits_left": 1,
    "flee_pirate_odds": 0.25,  # flee a pirate when the odds of sinking it fall below this
    "play_cards": 1,  # play battle and volley cards (0: never)
    "cove_cards": 1,  # at the Cove take 2 cards (1) or 1 card and 2 gold (0)
    "use_navy": 1,  # send the Royal Navy / Letter of marque at the leader
    "use_plunder": 1,
    "use_sneak": 1,
    "opponent_model": 0,  # 1: predict opponents' islands (balanced)
    "ti_upgrade": 0,  # use the double-cost upgrade at Treasure Island
    "noise": 0.05,  # random tie-breaking noise on island scores
    "parrot_flint": 1.0,
    "parrot_long_john_silver": 1.0,
    "parrot_billy_bones": 1.0,
    "parrot_squire_trelawney": 1.0,  # how much it likes each parrot (swap if gain > 1 fame)
    "buy_last_month": 0,  # buy cards in month 12 too (today's code: the tavern kind only)
}

V1_KIND_DEFAULTS: dict[str, dict[str, float]] = {
    "plunderer": {
        "w_chest": 1.0,
        "target_hull": 5,
        "target_sails": 5,
        "target_crew": 2,
        "target_cannons": 2,
        "prio_hull": 2.0,
        "prio_sails": 1.5,
        "fight_bias": -2.0,
        "pirate_odds_min": 0.9,
        "bury_reserve": 2,
        "flee_hits_left": 2,
        "parrot_flint": 3.0,
        "parrot_squire_trelawney": 2.0,
        "cove_cards": 0,
    },
    "brawler": {
        "target_cannons": 5,
        "target_crew": 5,
        "target_hull": 3,
        "target_sails": 3,
        "prio_cannons": 2.0,
        "prio_crew": 2.0,
        "fight_bias": 1.0,
        "opponent_model": 1,
        "pirate_odds_min": 0.55,
        "flee_hits_left": 0,
        "flee_pirate_odds": 0.0,
        "rout_cost": 1.5,
        "ti_upgrade": 1,
        "parrot_long_john_silver": 3.0,
        "parrot_billy_bones": 2.5,
        "buy_cards": 1,
    },
    "tavern": {
        "buy_last_month": 1,
        "buy_cards": 3,
        "card_gold_reserve": 0,
        "w_card": 1.0,
        "tavern_bias": 2.0,
        "target_hull": 3,
        "target_sails": 4,
        "fight_bias": -0.5,
        "bury_reserve": 6,
    },
    "balanced": {
        "opponent_model": 1,
        "fight_bias": 0.0,
        "pirate_odds_min": 0.7,
        "buy_cards": 1,
        "target_hull": 4,
        "target_sails": 5,
        "target_cannons": 4,
        "target_crew": 4,
        "w_chest": 0.9,
    },
    "random": {},
}


class HeuristicPlayerV1(BattlePolicy):
    """One scripted player (see the module docstring); ``rng`` is its own generator."""

    def __init__(
        self,
        name: str,
        kind: str,
        params: Mapping[str, float],
        rules: CoveRules,
        rng: np.random.Generator,
        odds_cache: dict | None = None,
    ):
        self.name = name
        self.kind = kind
        self.p = dict(params)
        self.rules = rules
        self.rng = rng
        self.is_random = kind == "random"
        mat = rules.ship_mat
        self.mat = (mat.hull, mat.crew, mat.cannons, mat.sails)
        self.step_cost = mat.step_cost
        self.npos = mat.num_positions
        self.target = (
            int(self.p["target_hull"]),
            int(self.p["target_crew"]),
            int(self.p["target_cannons"]),
            int(self.p["target_sails"]),
        )
        self.prio = (
            self.p["prio_hull"],
            self.p["prio_crew"],
            self.p["prio_cannons"],
            self.p["prio_sails"],
        )
        c = rules.combat
        self.p_hit = (7 - c.hit_on) / 6.0
        # exact odds by public ship states (pure functions of them and the rules): may be shared
        # by the players of one chunk of games (same rules), see make_player
        self._odds_cache: dict = {} if odds_cache is None else odds_cache
        # plain-dict copies of the scenario tables the hot loops read (FrozenMap lookups are slower)
        self._parrots = dict(rules.parrots)
        self._pirates = dict(rules.pirates)
        self._map_mult = rules.decisions.treasure_map_chest_multiplier
        self._artisan_absorbs = c.artisan_absorbs
        self._parrot_hits_to_kill = c.parrot_hits_to_kill
        self._bury_fame_per_chest = rules.economy.bury_fame_per_chest
        self._bury_gold_per_fame = rules.economy.bury_gold_per_fame

    # ------------------------------------------------------------------ dispatch
    def act(self, kind: str, obs: Observation, legal: tuple) -> Any:
        """Answer decision ``kind`` (see docs/rules-cove.md, "Decisions") with one of ``legal``."""
        if self.is_random:
            return legal[int(self.rng.integers(len(legal)))]
        return getattr(self, "_" + kind)(obs, legal)

    def navy_policy(self) -> RoyalNavyPolicy:
        return _NavyController(self)

    def with_rng(self, rng: np.random.Generator) -> HeuristicPlayerV1:
        """The same strategy (parameters and tables shared, read-only) with its own generator."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.rng = rng
        return twin

    # ------------------------------------------------------------------ helpers
    def value(self, ring: Sequence[int], section: int) -> int:
        p = ring[section]
        return self.mat[section][p - 1] if p > 0 else 0

    def dice(self, ship) -> int:
        par = ship.parrot
        pr = self._parrots.get(par) if par else None
        if pr is not None and pr.fixed_dice:
            return pr.fixed_dice
        if pr is not None and pr.dice_equal_cannons:
            return ship.values[CANNONS]
        return min(ship.values[CREW], ship.values[CANNONS])

    def hits_to_rout(self, ship, section: int) -> int:
        """Hits that destroy ``section`` of a public ship view (ring steps + Artisan + parrot)."""
        art, par = self._protection(ship, section)
        return ship.ring[section] + art + par

    def _protection(self, ship, section: int) -> tuple[int, int]:
        """(Artisan hits left, parrot hits left) on a section of a public ship view."""
        art = 0
        for s, used in ship.artisans:
            if s == section:
                art += self._artisan_absorbs - used
        par = 0
        if ship.parrot and self._parrots[ship.parrot].section == SECTIONS[section]:
            par = self._parrot_hits_to_kill - ship.parrot_wounds
        return art, par

    def dice_track(self, ship, sections: Sequence[int], n: int) -> tuple[int, ...]:
        """Our dice after 0..n hits on each of ``sections`` (protection absorbs first).

        Only crew, cannons and the parrot decide the dice, so only they are followed."""
        out = []
        prot = [(s, *self._protection(ship, s)) for s in sections]
        psec = SECTIONS.index(self._parrots[ship.parrot].section) if ship.parrot else -1
        parrot = self._parrots.get(ship.parrot) if ship.parrot is not None else None
        crew_mat, cannons_mat = self.mat[CREW], self.mat[CANNONS]
        ring = ship.ring
        for t in range(n + 1):
            crew_pos, cannons_pos = ring[CREW], ring[CANNONS]
            pr = parrot
            for s, art, par in prot:
                if s == CREW:
                    crew_pos = max(0, crew_pos - max(0, t - art - par))
                elif s == CANNONS:
                    cannons_pos = max(0, cannons_pos - max(0, t - art - par))
                if s == psec and t >= art + par and par > 0:
                    pr = None  # the parrot is dead
            crew = crew_mat[crew_pos - 1] if crew_pos > 0 else 0
            cannons = cannons_mat[cannons_pos - 1] if cannons_pos > 0 else 0
            if pr is not None and pr.fixed_dice:
                d = pr.fixed_dice
            elif pr is not None and pr.dice_equal_cannons:
                d = cannons
            else:
                d = min(crew, cannons)
            out.append(d)
        return tuple(out)

    def pirate_odds(self, ship, key: str) -> float:
        """Exact odds that ``ship`` alone sinks Legendary Pirate ``key``, both standing and no cards
        (the chain of :mod:`simulator.cove.odds`; dice fall as crew or cannons are hit)."""
        ck = (key, ship.ring, ship.speed, ship.parrot, ship.parrot_wounds, ship.artisans)
        got = self._odds_cache.get(ck)
        if got is None:
            got = self._odds_cache[ck] = self._pirate_odds(ship, key)
        return got

    def _pirate_odds(self, ship, key: str) -> float:
        pr = self._pirates[key]
        if not pr.fights:
            return 1.0
        if pr.damages == "every_section":
            sections = (0, 1, 2, 3)
            k = min(self.hits_to_rout(ship, s) for s in range(4))
        else:
            sections = (SECTIONS.index(pr.damages),)
            k = self.hits_to_rout(ship, sections[0])
        first = ship.speed > pr.sails
        return win_probability(
            self.dice_track(ship, sections, k),
            self.p_hit,
            pr.hull,
            pr.dice,
            self.p_hit,
            k,
            first,
            pr.regenerate_per_exchange,
            pr.hull,
        )

    def duel_odds(self, me, other) -> float:
        """Odds that ``me`` routs ``other`` first, each standing and aiming at the other's weakest
        section (exact for our side's falling dice; the opponent's dice are held constant)."""
        return self._duel_odds(self._duel_track(me), me.speed, other)

    def _duel_track(self, me) -> tuple[int, tuple[int, ...]]:
        """(hits that rout ``me`` at its weakest section, our dice after 0..hits hits there)."""
        cache = self._odds_cache
        mk = ("me", me.ring, me.parrot, me.parrot_wounds, me.artisans)
        mine = cache.get(mk)
        if mine is None:
            weak = min(range(4), key=lambda s: (self.hits_to_rout(me, s), s))
            hits = self.hits_to_rout(me, weak)
            mine = cache[mk] = (hits, self.dice_track(me, (weak,), hits))
        return mine

    def _duel_odds(self, mine: tuple[int, tuple[int, ...]], my_speed: int, other) -> float:
        """:meth:`duel_odds` from our :meth:`_duel_track` (computed once per decision)."""
        cache = self._odds_cache
        ok = ("them", other.ring, other.parrot, other.parrot_wounds, other.artisans)
        theirs = cache.get(ok)
        if theirs is None:
            theirs = cache[ok] = (
                min(self.hits_to_rout(other, s) for s in range(4)),
                self.dice(other),
            )
        rel = (my_speed > other.speed) - (my_speed < other.speed)
        key = ("duel", mine, theirs, rel)
        got = cache.get(key)
        if got is None:
            hits, track = mine
            firsts = (True, False) if rel == 0 else (rel > 0,)  # equal speeds: a die roll decides
            got = cache[key] = sum(
                win_probability(track, self.p_hit, theirs[0], theirs[1], self.p_hit, hits, first)
                for first in firsts
            ) / len(firsts)
        return got

    def room(self, ship) -> int:
        if ship.parrot and self._parrots[ship.parrot].unlimited_chests:
            return 99
        return max(0, ship.values[HULL] - ship.chests)

    def card_value(self, ship, card, isl: int, obs: Observation) -> float:
        fame, gold, chests, tavern = card
        if (obs.seat, isl) in obs.treasure_maps:
            chests *= self._map_mult
        p = self.p
        return (
            p["w_fame"] * fame
            + p["w_gold"] * gold
            + p["w_chest"] * min(chests, self.room(ship))
            + p["w_card"] * tavern
        )

    def wants_upgrade(self, ship, section: int, gold_after: int) -> bool:
        return ship.ring[section] < self.target[section] and gold_after >= self.p["gold_reserve"]

    # ------------------------------------------------------------------ island choice
    def island_scores(self, obs: Observation) -> list[float]:
        """Expected value of sailing to each island 0..5 this month (see the module docstring).

        The hot path of a game (every player, every month): the sums below are written out in
        the same order as :meth:`card_value` and :meth:`_guess` so the floats are identical.
        """
        me = obs.me
        p = self.p
        w_fame, rout_cost = p["w_fame"], p["rout_cost"]
        last = obs.month == obs.num_months
        pirates = {isl: key for isl, key in obs.black_ships if key is not None}
        # opponents' islands: announced (Lookout) or, with opponent_model, predicted
        opp_at: list[list] = [[], [], [], [], [], []]
        model = p["opponent_model"]
        seat, chosen = obs.seat, obs.chosen
        guess_table = None
        for s in obs.ships:
            if s.seat == seat:
                continue
            isl = chosen[s.seat]
            if isl is None:
                if not model:
                    continue
                if guess_table is None:
                    guess_table = self._guess_table(obs.treasure, pirates)
                isl = _guess_island(guess_table, s)
            opp_at[isl].append(s)
        ring, gold = me.ring, me.gold
        pn = p["noise"]
        noise = self.rng.random(6).tolist()  # plain floats: same values as the numpy array
        treasure, maps = obs.treasure, obs.treasure_maps
        w_gold, w_chest, w_card = p["w_gold"], p["w_chest"], p["w_card"]
        room = self.room(me)
        target, step_cost, npos, prio = self.target, self.step_cost, self.npos, self.prio
        rn = obs.royal_navy
        mine = None  # our side of the duel odds, once
        scores = []
        for isl in range(6):
            v = 0.0
            if isl < 5:
                card = treasure[isl]
                if card is not None:  # card_value, written out
                    fame, cgold, chests, tavern = card
                    if maps and (seat, isl) in maps:
                        chests *= self._map_mult
                    v += (
                        w_fame * fame
                        + w_gold * cgold
                        + w_chest * min(chests, room)
                        + w_card * tavern
                    )
                if isl == 0:
                    v += p["tavern_bias"]
                    if not last:
                        v += w_card * min(p["buy_cards"], gold // 2)
                elif not last:
                    sec = ISLAND_SECTION[isl]
                    pos = ring[sec]
                    if (
                        pos < target[sec]
                        and pos < npos
                        and gold - step_cost[pos] >= p["gold_reserve"]
                    ):
                        v += prio[sec]
            else:
                spare = gold if last else max(0, gold - p["bury_reserve"])
                bury = me.chests * self._bury_fame_per_chest + spare // self._bury_gold_per_fame
                v += w_fame * bury + p["treasure_bias"] - 0.3
            if pirates:
                key = pirates.get(isl)  # risk: the black ship there
                if key is not None:
                    pr = self._pirates[key]
                    if not pr.fights:
                        v += w_fame * 3.5  # the Cacafuego: a d6 of fame
                    else:
                        odds = self.pirate_odds(me, key)
                        if odds < p["pirate_odds_min"]:
                            v -= 100.0
                        else:
                            v = odds * (v + w_fame * pr.fame) - (1 - odds) * rout_cost
            if rn == isl:
                v -= rout_cost
            opps = opp_at[isl]
            if isl < 5 and opps:  # opponents expected there: beat them all to keep the island
                if mine is None:
                    mine = self._duel_track(me)
                win = 1.0
                for o in opps:
                    win *= self._duel_odds(mine, me.speed, o)
                v = win * (v + len(opps)) - (1 - win) * rout_cost + p["fight_bias"] * len(opps)
            scores.append(v + noise[isl] * pn)
        return scores

    def _guess_table(self, treasure, pirates) -> list[tuple[int, float, int, float]]:
        """Per outer island an opponent might head for: (island, fame + 0.3 gold, chests,
        0.5 tavern), the parts of :meth:`_guess`'s value that do not depend on the opponent."""
        out = []
        for isl in range(5):
            card = treasure[isl]
            if card is None or (isl in pirates and self._pirates[pirates[isl]].fights):
                continue
            fame, gold, chests, tavern = card
            out.append((isl, fame + 0.3 * gold, chests, 0.5 * tavern))
        return out

    def _guess(self, obs: Observation, s, pirates) -> int:
        """The island opponent ``s`` is assumed to head for: the best card it can hold, else
        Treasure Island."""
        return _guess_island(self._guess_table(obs.treasure, pirates), s)

    def _navigate(self, obs: Observation, legal: tuple) -> int:
        scores = self.island_scores(obs)
        best = legal[0]  # the first best island (as max() would pick)
        for i in legal:
            if scores[i] > scores[best]:
                best = i
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
        cands = [v for v in legal if v is not None]
        return self._most_famous(obs, cands)

    def _lookout(self, obs: Observation, legal: tuple):
        return (obs.seat + 1) % len(obs.ships)  # I choose last, seeing everybody's island

    def _royal_navy(self, obs: Observation, legal: tuple):
        if not self.p["use_navy"]:
            return None
        cands = [s.seat for s in obs.ships if s.seat != obs.seat and s.location in legal]
        leader = self._most_famous(obs, cands)
        return None if leader is None else obs.ships[leader].location

    def _most_famous(self, obs: Observation, seats: list[int]) -> int | None:
        """The most famous of ``seats``; equal fame broken at random (no seat favoured)."""
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
            return best
        return None

    def _parrot_swap(self, obs: Observation, legal: tuple) -> bool:
        old = self.p.get("parrot_" + (obs.me.parrot or ""), 1.0)
        new = self.p.get("parrot_" + obs.extra["drawn"], 1.0)
        return new - old > self.p["w_fame"] * self.rules.economy.parrot_swap_fame_cost

    # ------------------------------------------------------------------ phase 5
    def _buy_cards(self, obs: Observation, legal: tuple) -> int:
        if obs.month == obs.num_months and not self.p["buy_last_month"]:
            return 0
        price = self.rules.economy.tavern_card_price
        afford = int((obs.me.gold - self.p["card_gold_reserve"]) // price) if price else max(legal)
        return max(0, min(max(legal), int(self.p["buy_cards"]), afford))

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
        if obs.month == obs.num_months:
            return max(legal)
        per = self.rules.economy.bury_gold_per_fame
        keep = self.p["bury_reserve"]
        k = max(0, int((obs.me.gold - keep) // per))
        return min(k, max(legal))

    def _treasure_island_upgrade(self, obs: Observation, legal: tuple):
        if not self.p["ti_upgrade"] or obs.month == obs.num_months:
            return None
        me = obs.me
        cands = [s for s in legal if s is not None and me.ring[s] < self.target[s]]
        return max(cands, key=lambda s: self.prio[s]) if cands else None

    def _cove_reward(self, obs: Observation, legal: tuple) -> str:
        return "cards" if self.p["cove_cards"] else "card_and_gold"

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
    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        if self.is_random:
            opts = [None, *dict.fromkeys(hand)]
            return opts[int(self.rng.integers(len(opts)))]
        if not self.p["play_cards"]:
            return None
        me = view.ship(view.me)
        others = [s for s in view.ships if s.seat != view.me and s.present]
        for card in ("smoke", "favourable_wind", "grapple", "becalmed"):
            if card not in hand:
                continue
            if card == "smoke" and not me.smoke:
                return card
            if card == "favourable_wind":
                fastest = max(
                    [s.speed for s in others] + ([view.npc.sails] if view.npc_fighting else []),
                    default=0,
                )
                if me.speed <= fastest:
                    return card
            if card == "grapple" and not view.grapple:
                crew = self.mat[CREW][me.positions[CREW] - 1]
                cannons = self.mat[CANNONS][me.positions[CANNONS] - 1]
                if crew > cannons:
                    return card
            if (
                card == "becalmed"
                and view.card_round > 1
                and others
                and max(s.hand_size for s in others) > len(hand)
            ):
                return card
        return None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        if self.is_random:
            return int(self.rng.integers(chests + 1))
        return 0

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        me = view.ship(view.me)
        if self.is_random:
            return self._random_broadside(view, hand, me)
        hits_left = min(me.hits_to_rout())
        if self.p["flee_hits_left"] and hits_left <= self.p["flee_hits_left"] and me.was_hit:
            return FLEE
        if view.npc_fighting and view.npc.key in self._pirates and self.p["flee_pirate_odds"] > 0:
            pr = self._pirates[view.npc.key]
            k = (
                min(me.hits_to_rout())
                if pr.damages == "every_section"
                else me.hits_to_rout()[SECTIONS.index(pr.damages)]
            )
            dice = self._battle_dice(me, view)
            odds = win_probability(
                dice,
                self.p_hit,
                view.npc.hull,
                pr.dice,
                self.p_hit,
                k,
                me.speed > pr.sails,
                pr.regenerate_per_exchange,
                pr.hull,
            )
            if odds < self.p["flee_pirate_odds"] and me.was_hit:
                return FLEE
        target, section = self.weakest(view, exclude=view.me)
        volley: tuple[str, ...] = ()
        if self.p["play_cards"] and me.can_fire and not view.becalmed:
            volley = self._volley(view, me, hand, target)
        return Broadside(target=target, section=section, volley=volley)

    def _battle_dice(self, me, view: BattleView) -> int:
        crew = self.mat[CREW][max(me.positions[CREW], 1) - 1]
        cannons = self.mat[CANNONS][max(me.positions[CANNONS], 1) - 1]
        pr = self._parrots.get(me.parrot) if me.parrot else None
        if pr is not None and pr.fixed_dice:
            return pr.fixed_dice
        if pr is not None and pr.dice_equal_cannons:
            return cannons
        return crew if view.grapple else min(crew, cannons)

    def _volley(self, view: BattleView, me, hand: Sequence[str], target: int) -> tuple[str, ...]:
        out = []
        if "cannonade" in hand and target != NPC_TARGET:
            out.append("cannonade")
        if "grapeshot" in hand and me.hits_to_rout()[CANNONS] > 3:
            out.append("grapeshot")
        if "powder_keg" in hand and me.hits_to_rout()[HULL] > 3:
            out.append("powder_keg")
        return tuple(out)

    def _random_broadside(self, view: BattleView, hand: Sequence[str], me) -> Broadside:
        if view.npc_fighting:
            aims = [(NPC_TARGET, "hull")]
        else:
            aims = [
                (s.seat, sec)
                for s in view.ships
                if s.present and s.seat != view.me
                for sec in SECTIONS
            ]
        k = int(self.rng.integers(len(aims) + 1))
        if k == len(aims):
            return FLEE
        target, section = aims[k]
        volley: tuple[str, ...] = ()
        if me.can_fire and not view.becalmed:
            volley = tuple(
                c for c in dict.fromkeys(hand) if c in VOLLEY_CARDS and self.rng.random() < 0.5
            )
        return Broadside(target=target, section=section, volley=volley)

    def weakest(self, view: BattleView, exclude: int | None, navy: bool = False) -> tuple[int, str]:
        """The forced non-player target, else the present ship (not ``exclude``) with the fewest
        hits to rout, at its weakest section; equal ships are picked at random (no seat
        favoured)."""
        if view.npc_fighting and not navy:
            return NPC_TARGET, "hull"
        best, key = [], None
        for s in view.ships:
            if s.seat == exclude or not s.present:
                continue
            h = s.hits_to_rout()
            k = h.index(min(h))  # weakest section, the first of equals
            if key is None or h[k] < key:
                best, key = [(s.seat, SECTIONS[k])], h[k]
            elif h[k] == key:
                best.append((s.seat, SECTIONS[k]))
        if not best:
            return RoyalNavyPolicy().target(view) if navy else weakest_target(view)
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def navy_target(self, view: BattleView) -> tuple[int, str]:
        """As the Royal Navy's controller: the weakest present ship, at its weakest section."""
        present = [s for s in view.ships if s.present]
        if self.is_random:
            s = present[int(self.rng.integers(len(present)))]
            return s.seat, SECTIONS[int(self.rng.integers(4))]
        return self.weakest(view, exclude=None, navy=True)


def _guess_island(table, s) -> int:
    """The island of :meth:`HeuristicPlayer._guess` for opponent view ``s`` (``table`` from
    :meth:`HeuristicPlayer._guess_table`): the first best value wins, Treasure Island by default."""
    best, best_v = TREASURE, s.chests + s.gold // 3 - 0.5
    room = max(s.values[HULL] - s.chests, 0)
    for isl, fame_gold, chests, tavern in table:
        v = fame_gold + 0.8 * min(chests, room) + tavern
        if v > best_v:
            best, best_v = isl, v
    return best


class _NavyController(RoyalNavyPolicy):
    def __init__(self, player: HeuristicPlayerV1):
        self.player = player

    def target(self, view: BattleView) -> tuple[int, str]:
        return self.player.navy_target(view)
