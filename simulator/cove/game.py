"""Pirate's Cove full game: setup, the twelve months of six phases, end of game and tie duel.

Rules: ``../shared/rules/pirates-cove.md`` (all sections), readings in ``docs/rules-cove.md``.
Every number and switch comes from the scenario (:class:`simulator.cove.rules.CoveRules`).

Layout of the engine:

* :class:`Seat` is one player's ship and belongings (mutable, engine-private).
* :class:`Game` runs the months. Each player decision goes through :meth:`Game.ask`, which builds
  an :class:`~simulator.cove.observation.Observation` (the player's own hand and the public board
  only), lists the legal choices and refuses anything else (:class:`IllegalAction`).
* Battles go through :mod:`simulator.cove.fight` (the adapter to the combat engine).
* Chance goes through :class:`simulator.cove.dice.GameDice` (recordable, replayable).

``python -m simulator.cove.game --regenerate-goldens`` rewrites ``tests/data/cove_golden_*.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator.cove.card_record import BLANK, CardRecord, card_name
from simulator.cove.dice import GameDice
from simulator.cove.observation import Observation, ShipView
from simulator.cove.rules import CoveRules

HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3  # index order of SECTIONS
TAVERN, TREASURE, COVE = 0, 5, 6  # island indices: 0..4 outer islands, 5 Treasure Island, 6 Cove
OUTER = (0, 1, 2, 3, 4)
NAV_ISLANDS = (0, 1, 2, 3, 4, 5)
#: section raised at each outer island (Tavern has none)
ISLAND_SECTION = {1: HULL, 2: SAILS, 3: CANNONS, 4: CREW}
ISLAND_NAMES = ("tavern", "hull", "sails", "cannons", "crew", "treasure_island", "cove")

# Tavern card names (the hand holds these strings; parrots are "parrot:<key>", fame "fame:<n>")
BATTLE_CARDS = ("becalmed", "favourable_wind", "grapple", "smoke", "overboard")
VOLLEY_CARDS = ("grapeshot", "powder_keg", "cannonade")
EVENT_CARDS = (
    "sneak_away",
    "royal_navy",
    "letter_of_marque",
    "treasure_map",
    "plunder",
    "lookout",
    "shipwright",
)
FAME_SOURCES = ("plunder", "burying", "combat", "pirates", "fame_cards", "penalties")


class IllegalAction(RuntimeError):
    """A player returned a choice that is not among the legal ones."""


class IllegalState(AssertionError):
    """The invariant checker (``check_invariants``) found an illegal state after a phase."""

    def __init__(self, month: int, phase: str, errors: list[str]):
        super().__init__(f"month {month} {phase}: " + "; ".join(errors))
        self.month, self.phase, self.errors = month, phase, list(errors)


def build_tavern_deck(rules: CoveRules) -> list[str]:
    """Every Tavern card of the scenario, unshuffled."""
    t = rules.tavern
    counts = {name: getattr(t, name) for name in BATTLE_CARDS + VOLLEY_CARDS + EVENT_CARDS}
    if (
        rules.decisions.royal_navy_doubled_title == "letter_of_marque"
        and counts["royal_navy"] > counts["letter_of_marque"]
    ):
        # the doubled event title is unknown: this switch gives the extra copy to the Letter of
        # marque
        counts["royal_navy"], counts["letter_of_marque"] = (
            counts["letter_of_marque"],
            counts["royal_navy"],
        )
    deck = [f"parrot:{p}" for p in t.parrots]
    deck += ["artisan"] * t.artisan
    for name in BATTLE_CARDS + VOLLEY_CARDS + EVENT_CARDS:
        deck += [name] * counts[name]
    for value, count in sorted(t.fame_cards.items()):
        deck += [f"fame:{int(value)}"] * count
    return deck


def build_treasure_deck(rules: CoveRules) -> list[tuple[int, int, int, int]]:
    """Every Treasure card as ``(fame, gold, chests, tavern)``, unshuffled."""
    out = []
    for c in rules.treasure.cards:
        out += [(c.fame, c.gold, c.chests, c.tavern)] * c.copies
    return out


class ScenarioTables:
    """What every game of one scenario starts from, built once and shared (read-only) by the
    games of a run: the unshuffled Tavern, Treasure and Legendary Pirate decks."""

    __slots__ = ("pirate_deck", "rules", "tavern_deck", "treasure_deck")

    def __init__(self, rules: CoveRules):
        self.rules = rules
        self.tavern_deck = tuple(build_tavern_deck(rules))
        self.treasure_deck = tuple(build_treasure_deck(rules))
        self.pirate_deck = tuple(k for k, p in rules.pirates.items() if p.in_pirate_deck)


class Seat:
    """One player's ship and belongings. ``ring`` holds 1-based positions (0 = destroyed)."""

    __slots__ = (
        "artisans",
        "battles",
        "chests",
        "fame",
        "fame_src",
        "fled",
        "gold",
        "hand",
        "hit_this_battle",
        "index",
        "location",
        "mutinies",
        "parrot",
        "parrot_wounds",
        "pirates_fought",
        "pirates_sunk",
        "ring",
        "routed",
    )

    def __init__(self, index: int, start_position: int, gold: int, fame: int):
        self.index = index
        self.ring = [start_position] * 4  # hull, crew, cannons, sails
        self.gold = gold
        self.chests = 0
        self.fame = fame
        self.hand: list[str] = []
        self.parrot: str | None = None  # key of rules.parrots
        self.parrot_wounds = 0
        self.artisans: dict[int, int] = {}  # section index -> hits already absorbed
        self.location = COVE
        self.fame_src = dict.fromkeys(FAME_SOURCES, 0)
        self.battles = 0
        self.routed = 0
        self.fled = 0
        self.mutinies = 0
        self.pirates_fought = 0
        self.pirates_sunk = 0
        self.hit_this_battle = False


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    fame: int
    fame_src: dict[str, int]
    gold: int
    chests: int
    battles: int
    routed: int
    fled: int
    mutinies: int
    pirates_fought: int
    pirates_sunk: int
    win: float  # 1, or 1/k for a shared win


@dataclass(frozen=True, slots=True)
class GameResult:
    seats: tuple[SeatResult, ...]
    battles: tuple[
        dict[str, Any], ...
    ]  # one per battle against a Legendary Pirate or the Royal Navy
    tie: bool  # the top fame was tied
    duel: bool  # a tie-breaking duel was fought
    winners: tuple[int, ...]
    # every Tavern card each seat drew and its fate: rows of card_record.CARD_COLUMNS
    cards: tuple[tuple, ...] = ()


class Game:
    """One game of Pirate's Cove between scripted players.

    Args:
        rules: the scenario's rules.
        players: one policy object per seat (see :mod:`simulator.cove.players`): ``act(kind, obs,
            legal) -> choice`` plus the battle-policy methods.
        dice: the chance source (``GameDice(rng)``, or ``ReplayDice`` for a golden replay).
        trace: when a list, every decision ``[seat, kind, choice]`` is appended to it.
        check_invariants: assert conservation of gold, chests and Tavern cards after every phase.
        tables: the scenario's :class:`ScenarioTables` when many games share them (built from
            ``rules`` when omitted).
        card_swap: ``(seat, card name)``: the first copy of that Tavern card that seat draws is
            replaced by an inert :data:`~simulator.cove.card_record.BLANK` (the card-value
            intervention, :mod:`simulator.cove.card_value`); ``None``: the game as dealt.
    """

    def __init__(
        self,
        rules: CoveRules,
        players,
        dice: GameDice,
        *,
        trace: list | None = None,
        check_invariants: bool = False,
        tables: ScenarioTables | None = None,
        card_swap: tuple[int, str] | None = None,
    ):
        if tables is None:
            tables = ScenarioTables(rules)
        elif tables.rules is not rules:
            raise ValueError("tables were built for other rules")
        self.tables = tables
        n = len(players)
        if not rules.setup.min_players <= n <= rules.setup.max_players:
            raise ValueError(
                f"{n} players (allowed: {rules.setup.min_players}..{rules.setup.max_players})"
            )
        self.rules = rules
        self.players = list(players)
        self.n = n
        self.dice = dice
        self.trace = trace
        self.check = check_invariants
        mat = rules.ship_mat
        self.mat = (mat.hull, mat.crew, mat.cannons, mat.sails)  # values by section index
        self.step_cost = mat.step_cost
        self.npos = mat.num_positions
        self.start_pos = mat.start_position
        self.parrot_rules = rules.parrots
        self.seats = [
            Seat(i, mat.start_position, rules.setup.start_gold, rules.setup.start_fame)
            for i in range(n)
        ]
        self._views: list = [None] * n  # (public state key, ShipView) per seat
        # the ships' views while a simultaneous decision is open (nothing changes between its asks)
        self._board: tuple[ShipView, ...] | None = None
        self.num_months = rules.setup.num_months
        self.bank_gold = rules.bank.gold - n * rules.setup.start_gold
        self.bank_chests = rules.bank.chests
        self.total_gold = rules.bank.gold
        self.total_chests = rules.bank.chests
        if self.bank_gold < 0:
            raise ValueError("the bank cannot pay every player's start gold")
        self.month = 0
        self.phase = "setup"
        self.tavern_deck = list(tables.tavern_deck)
        self.num_tavern_cards = len(self.tavern_deck)
        self.tavern_discard: list[str] = []
        self.in_play: list[str] = []  # cards played this month, discarded at its end
        self.treasure_discard: list[tuple[int, int, int, int]] = []
        self.face_up: list[tuple[int, int, int, int] | None] = [None] * 5
        self.stacks: list[list[tuple[int, int, int, int]]] = []
        self.pirate_deck = list(tables.pirate_deck)
        self.pirate_discard: list[str] = []
        self.black_ships: list[list] = []  # [island, pirate key, gone (sunk or captured)]
        self.rn_island: int | None = None
        self.rn_controller: int | None = None
        self.rn_sender: int | None = None
        self.rn_sent = 0
        self.map_islands: list[tuple[int, int]] = []  # (seat, island) Treasure maps this month
        self.plunder: dict[int, int] = {}  # victim -> beneficiary
        self.chosen: list[int | None] = [None] * n
        self.first = 0
        self.battle_log: list[dict[str, Any]] = []  # one row per non-player ship and battle
        self.num_npc_battles = 0
        self.num_battles_fought = 0
        self.capped_battles = 0
        self.tie = False
        self.duel = False
        self.duels_fought = 0
        self.card_record = CardRecord(n)  # per seat, every Tavern card drawn, held and played
        # (seat, card name): that seat's next draw of that card becomes a blank (card value)
        self.card_swap: tuple[int, str] | None = card_swap
        self.card_swaps_done = 0

    # ------------------------------------------------------------------ ship values
    def value(self, seat: Seat, section: int) -> int:
        p = seat.ring[section]
        return self.mat[section][p - 1] if p > 0 else 0

    def speed(self, seat: Seat) -> int:
        sp = self.value(seat, SAILS)
        if seat.parrot is not None:
            sp += self.parrot_rules[seat.parrot].speed_bonus
        return sp

    def capacity(self, seat: Seat) -> int | None:
        """Chest capacity (``None``: unlimited, Flint's parrot)."""
        if seat.parrot is not None and self.parrot_rules[seat.parrot].unlimited_chests:
            return None
        return self.value(seat, HULL)

    def order_by_speed(self, seats: list[Seat]) -> list[Seat]:
        """Fastest first; equal speeds ordered by a die roll each (re-rolled while tied)."""
        if len(seats) <= 1:
            return list(seats)
        keyed = [(self.speed(s), s) for s in seats]
        speeds = [k for k, _ in keyed]
        if len(set(speeds)) == len(speeds):
            return [s for _, s in sorted(keyed, key=lambda t: -t[0])]
        out: list[Seat] = []
        for sp in sorted(set(speeds), reverse=True):
            group = [s for k, s in keyed if k == sp]
            out += self._roll_off(group)
        return out

    def _roll_off(self, group: list[Seat]) -> list[Seat]:
        if len(group) <= 1:
            return group
        rolls = [(self.dice.d6(), s) for s in group]
        out: list[Seat] = []
        for face in sorted({r for r, _ in rolls}, reverse=True):
            out += self._roll_off([s for r, s in rolls if r == face])
        return out

    # ------------------------------------------------------------------ bank and cards
    def pay_bank(self, seat: Seat, gold: int) -> None:
        assert 0 <= gold <= seat.gold
        seat.gold -= gold
        self.bank_gold += gold

    def take_gold(self, seat: Seat, gold: int) -> int:
        got = min(gold, self.bank_gold)
        self.bank_gold -= got
        seat.gold += got
        return got

    def take_chests(self, seat: Seat, chests: int) -> int:
        got = min(chests, self.bank_chests)
        self.bank_chests -= got
        seat.chests += got
        return got

    def add_fame(self, seat: Seat, amount: int, source: str) -> int:
        """Add (or with a negative amount remove) fame; fame never goes below the floor."""
        before = seat.fame
        seat.fame = max(self.rules.decisions.fame_floor, seat.fame + amount)
        delta = seat.fame - before
        seat.fame_src[source] += delta
        return delta

    def discard(self, card: str) -> None:
        self.tavern_discard.append(card)

    def play_card(self, seat: Seat, card: str) -> None:
        """Move a card from a hand to this month's cards in play."""
        seat.hand.remove(card)
        self.in_play.append(card)
        self.card_record.played(seat.index, card, self.month, self.phase)

    def draw_tavern(self, seat: Seat, k: int) -> None:
        """Draw ``k`` Tavern cards (reshuffling the discards when the deck is empty)."""
        for _ in range(k):
            if not self.tavern_deck:
                if not self.tavern_discard:
                    return  # nothing left anywhere: the draw is lost
                self.tavern_deck = self.tavern_discard
                self.tavern_discard = []
                self.dice.shuffle(self.tavern_deck)
            card = self.tavern_deck.pop()
            swap = self.card_swap
            if swap is not None and swap[0] == seat.index and card_name(card) == swap[1]:
                card, self.card_swap = BLANK, None  # the card-value intervention: one copy
                self.card_swaps_done += 1
            self.card_record.drawn(seat.index, card, self.month, self.phase)
            if card.startswith("parrot:"):
                self._receive_parrot(seat, card)
            else:
                seat.hand.append(card)

    def _receive_parrot(self, seat: Seat, card: str) -> None:
        key = card.split(":", 1)[1]
        record = self.card_record
        if seat.parrot is None:
            seat.parrot, seat.parrot_wounds = key, 0
            record.played(seat.index, card, self.month, self.phase)
            return
        cost = self.rules.economy.parrot_swap_fame_cost
        legal = (False, True) if seat.fame >= cost else (False,)
        swap = self.ask(seat.index, "parrot_swap", legal, {"drawn": key})
        if swap:
            self.add_fame(seat, -cost, "penalties")
            old = f"parrot:{seat.parrot}"
            seat.parrot, seat.parrot_wounds = key, 0
            self._put_back(old)
            record.played(seat.index, card, self.month, self.phase)
        else:
            self._put_back(card)
            record.returned(seat.index, card, self.month, self.phase)

    def _put_back(self, card: str) -> None:
        where = self.rules.decisions.parrot_put_back
        if where == "top":
            self.tavern_deck.append(card)
        elif where == "bottom":
            self.tavern_deck.insert(0, card)
        else:
            pos = self.dice.permutation(len(self.tavern_deck) + 1)[0]
            self.tavern_deck.insert(pos, card)

    # ------------------------------------------------------------------ observation and decisions
    def _ship_view(self, s: Seat) -> ShipView:
        """The public view of one ship, rebuilt only when something public about it changed."""
        r = s.ring
        key = (
            r[0],
            r[1],
            r[2],
            r[3],
            s.gold,
            s.chests,
            s.fame,
            len(s.hand),
            s.parrot,
            s.parrot_wounds,
            s.location,
            tuple(s.artisans.items()) if s.artisans else (),
        )
        cached = self._views[s.index]
        if cached is not None and cached[0] == key:
            return cached[1]
        hull, crew, cannons, sails = self.mat
        h, c, k, sl = r
        sail = sails[sl - 1] if sl else 0
        sp = sail + self.parrot_rules[s.parrot].speed_bonus if s.parrot is not None else sail
        view = ShipView(
            s.index,
            (h, c, k, sl),
            (hull[h - 1] if h else 0, crew[c - 1] if c else 0, cannons[k - 1] if k else 0, sail),
            sp,
            s.gold,
            s.chests,
            s.fame,
            len(s.hand),
            s.parrot,
            s.parrot_wounds,
            tuple(sorted(s.artisans.items())) if s.artisans else (),
            s.location,
        )
        self._views[s.index] = (key, view)
        return view

    def ship_views(self) -> tuple[ShipView, ...]:
        """Every ship's public view, by seat (the cache test of :meth:`_ship_view`, inlined: this
        runs for every decision)."""
        if self._board is not None:
            return self._board
        views = self._views
        out = []
        for s in self.seats:
            r = s.ring
            key = (
                r[0],
                r[1],
                r[2],
                r[3],
                s.gold,
                s.chests,
                s.fame,
                len(s.hand),
                s.parrot,
                s.parrot_wounds,
                s.location,
                tuple(s.artisans.items()) if s.artisans else (),
            )
            cached = views[s.index]
            out.append(cached[1] if cached is not None and cached[0] == key else self._ship_view(s))
        return tuple(out)

    def _open_board(self) -> None:
        """Start a simultaneous decision: every ask until :meth:`_close_board` sees these ships
        (the players cannot change the game, and the engine changes no ship in between)."""
        self._board = tuple([self._ship_view(s) for s in self.seats])

    def _close_board(self) -> None:
        self._board = None

    def observe(self, seat: int, kind: str, extra: dict | None = None) -> Observation:
        """What ``seat`` sees: its own hand and the public board, nothing else."""
        return Observation(
            seat,
            self.month,
            self.num_months,
            self.phase,
            kind,
            tuple(self.seats[seat].hand),
            self.ship_views(),
            tuple(self.face_up),
            tuple([(b[0], b[1]) for b in self.black_ships if not b[2]]),
            self.rn_island,
            self.rn_controller,
            tuple(self.map_islands),
            tuple(sorted(self.plunder.items())) if self.plunder else (),
            tuple(self.chosen),
            self.bank_gold,
            self.bank_chests,
            len(self.tavern_deck),
            tuple(self.pirate_discard),
            len(self.pirate_deck),
            dict(extra) if extra else {},
        )

    def ask(self, seat: int, kind: str, legal: tuple, extra: dict | None = None) -> Any:
        """Ask ``seat`` for a choice of ``kind`` among ``legal``; a single legal choice is
        forced."""
        if len(legal) == 1:
            return legal[0]
        obs = self.observe(seat, kind, extra)
        choice = self.players[seat].act(kind, obs, legal)
        if choice not in legal:
            raise IllegalAction(f"seat {seat} chose {choice!r} for {kind} (legal: {legal!r})")
        if self.trace is not None:
            self.trace.append([seat, kind, choice])
        return choice

    # ------------------------------------------------------------------ setup
    def setup(self) -> None:
        r = self.rules
        self.dice.shuffle(self.tavern_deck)
        treasure = list(self.tables.treasure_deck)
        self.dice.shuffle(treasure)
        size = r.treasure.stack_size
        self.stacks = [treasure[i * size : (i + 1) * size] for i in range(r.treasure.num_stacks)]
        self.stacks += [[] for _ in range(5 - len(self.stacks))]
        self.dice.shuffle(self.pirate_deck)
        count = r.black_ships.count_by_players.get(str(self.n), 0)
        for i in range(count):
            island = r.islands.index(r.black_ships.start_islands[i])
            self.black_ships.append([island, self._next_pirate(), False])
        for s in self.seats:
            self.draw_tavern(s, r.setup.start_tavern_cards)
        # secret initial arming: every player decides on the same starting board (simultaneous)
        self.phase = "arming"
        if r.setup.secret_initial_arming:
            self._open_board()
            try:
                spend = {s.index: self._plan_arming(s) for s in self.seats}
            finally:
                self._close_board()
            for s in self.seats:
                for section in spend[s.index]:
                    self._raise(s, section, 1)
        self._check()

    def _plan_arming(self, seat: Seat) -> list[int]:
        """Sequential one-level raises, asked on the untouched starting board (others unseen)."""
        ring = list(seat.ring)
        gold = seat.gold
        plan: list[int] = []
        while True:
            legal = [None] + [
                i for i in range(4) if 0 < ring[i] < self.npos and self.step_cost[ring[i]] <= gold
            ]
            choice = self.ask(
                seat.index, "arm", tuple(legal), {"planned": tuple(plan), "gold_left": gold}
            )
            if choice is None:
                return plan
            gold -= self.step_cost[ring[choice]]
            ring[choice] += 1
            plan.append(choice)

    def _raise(self, seat: Seat, section: int, multiplier: int) -> None:
        cost = self.step_cost[seat.ring[section]] * multiplier
        self.pay_bank(seat, cost)
        seat.ring[section] += 1

    def _next_pirate(self) -> str | None:
        if not self.pirate_deck:
            self.pirate_deck = self.pirate_discard
            self.pirate_discard = []
            self.dice.shuffle(self.pirate_deck)
        return self.pirate_deck.pop() if self.pirate_deck else None

    def _play_order(self) -> list[int]:
        return [(self.first + i) % self.n for i in range(self.n)]

    # ------------------------------------------------------------------ the month
    def play(self) -> GameResult:
        """Play the whole game and return its result."""
        self.setup()
        for m in range(1, self.rules.setup.num_months + 1):
            self.play_month(m)
        return self.finish()

    def play_month(self, month: int) -> None:
        self.month = month
        if self.rules.decisions.first_player == "rotate_monthly":
            self.first = (month - 1) % self.n
        self.phase_treasure()
        self.phase_navigation()
        self.phase_combat()
        self.phase_plunder()
        self.phase_island_effects()
        self.phase_black_ships_and_cargo()

    # phase 1
    def phase_treasure(self) -> None:
        self.phase = "treasure"
        for i in OUTER:
            self.face_up[i] = self.stacks[i].pop() if self.stacks[i] else None
        d = self.rules.decisions
        for si in self._play_order():
            s = self.seats[si]
            if "treasure_map" in s.hand and self.ask(si, "treasure_map", (False, True)):
                self.play_card(s, "treasure_map")
                face = self.dice.d6()
                while face >= d.treasure_map_reroll_from:
                    face = self.dice.d6()
                self.map_islands.append((si, min(face, 5) - 1))
            if "plunder" in s.hand:
                victims = tuple(v for v in range(self.n) if v != si and v not in self.plunder)
                victim = self.ask(si, "plunder", (None, *victims))
                if victim is not None:
                    self.play_card(s, "plunder")
                    self.plunder[victim] = si
        self._check()

    # phase 2
    def phase_navigation(self) -> None:
        self.phase = "navigation"
        self.chosen = [None] * self.n
        start = None
        for si in self._play_order():
            s = self.seats[si]
            if "lookout" in s.hand:
                pick = self.ask(si, "lookout", (None, *range(self.n)))
                if pick is not None:
                    self.play_card(s, "lookout")
                    start = pick
                    break
        self._open_board()  # no ship changes while the islands are chosen
        try:
            if (
                start is not None
            ):  # choices one at a time, clockwise from the named player, seen by all
                for k in range(self.n):
                    si = (start + k) % self.n
                    self.chosen[si] = self.ask(si, "navigate", NAV_ISLANDS, {"lookout": True})
            else:  # secret and simultaneous: nobody sees another's choice
                picks = [
                    self.ask(si, "navigate", NAV_ISLANDS, {"lookout": False})
                    for si in range(self.n)
                ]
                self.chosen = picks
        finally:
            self._close_board()
        for s in self.seats:
            s.location = self.chosen[s.index]
        self._end_of_navigation_events()
        self._check()

    def _occupied(self) -> set[int]:
        occ = {s.location for s in self.seats}
        if self.rules.decisions.sneak_away_unoccupied == "no_ship":
            occ |= {b[0] for b in self.black_ships if not b[2] and b[1] is not None}
            if self.rn_island is not None:
                occ.add(self.rn_island)
        return occ

    def _end_of_navigation_events(self) -> None:
        d = self.rules.decisions
        order = self._play_order()
        # Royal Navy: sent to an outer island where its sender is not
        for si in order:
            s = self.seats[si]
            if (
                "royal_navy" in s.hand
                and self.rn_sent < d.royal_navy_per_month
                and self.rn_island is None
            ):
                legal = tuple(i for i in OUTER if i != s.location)
                pick = self.ask(si, "royal_navy", (None, *legal))
                if pick is not None:
                    self.play_card(s, "royal_navy")
                    self.rn_island, self.rn_controller, self.rn_sender = pick, si, si
                    self.rn_sent += 1
        # Letter of marque: redirect it (the holder becomes its controller)
        if self.rn_island is not None:
            for si in order:
                s = self.seats[si]
                if "letter_of_marque" in s.hand:
                    banned = {self.rn_island, self.seats[self.rn_sender].location}
                    if d.royal_navy_not_at_controller_island:
                        banned.add(s.location)
                    legal = tuple(i for i in OUTER if i not in banned)
                    pick = self.ask(si, "letter_of_marque", (None, *legal))
                    if pick is not None:
                        self.play_card(s, "letter_of_marque")
                        self.rn_island, self.rn_controller = pick, si
        # Sneak away: to an unoccupied outer island or Treasure Island; cancels Plunder on you
        for si in order:
            s = self.seats[si]
            if "sneak_away" in s.hand:
                occ = self._occupied()
                legal = tuple(i for i in OUTER if i not in occ)
                if s.location != TREASURE:
                    legal += (TREASURE,)
                pick = self.ask(si, "sneak_away", (None, *legal))
                if pick is not None:
                    self.play_card(s, "sneak_away")
                    s.location = pick
                    self.chosen[si] = pick
                    self.plunder.pop(si, None)

    # phase 3
    def phase_combat(self) -> None:
        from simulator.cove import fight

        self.phase = "combat"
        at: dict[
            int, list[Seat]
        ] = {}  # ships by island, seat order (ships only leave, to the Cove)
        for s in self.seats:
            at.setdefault(s.location, []).append(s)
        for isl in NAV_ISLANDS:
            present = at.get(isl)
            if present:
                bs = next(
                    (b for b in self.black_ships if b[0] == isl and not b[2] and b[1] is not None),
                    None,
                )
                fight.island_combat(
                    self, isl, present, bs[1] if bs is not None else None, self.rn_island == isl
                )
        self.rn_island = None  # the Royal Navy is removed after the battle
        self.rn_controller = None
        self._check()

    def battle_policy(self, seat: int):
        """The seat's battle policy (recorded into the trace for golden playthroughs)."""
        player = self.players[seat]
        if self.trace is not None:
            from simulator.cove.players import RecordingBattlePolicy

            return RecordingBattlePolicy(player, seat, self.trace)
        return player

    def navy_policy(self, seat: int):
        """The Royal Navy controller's targeting policy."""
        player = self.players[seat]
        if self.trace is not None:
            from simulator.cove.players import RecordingNavyPolicy

            return RecordingNavyPolicy(player, seat, self.trace)
        return player.navy_policy()

    # phase 4
    def phase_plunder(self) -> None:
        self.phase = "plunder"
        mult = self.rules.decisions.treasure_map_chest_multiplier
        d = self.rules.decisions
        for isl in OUTER:
            card = self.face_up[isl]
            if card is None:
                continue
            present = [s for s in self.seats if s.location == isl]
            if len(present) != 1:
                continue
            s = present[0]
            fame, gold, chests, tavern = card
            if (s.index, isl) in self.map_islands:
                chests *= mult
            self.face_up[isl] = None
            self.treasure_discard.append(card)
            got_gold = self.take_gold(s, gold)
            got_chests = self.take_chests(s, chests)
            self.add_fame(s, fame, "plunder")
            ben = self.plunder.get(s.index)
            if ben is not None:
                b = self.seats[ben]
                g, c, f = -(-got_gold // 2), -(-got_chests // 2), -(-fame // 2)
                s.gold -= g
                b.gold += g
                s.chests -= c
                b.chests += c
                self.add_fame(s, -f, "plunder")
                self.add_fame(b, f, "plunder")
                if d.plunder_includes_tavern_cards and tavern:
                    self.draw_tavern(s, tavern - (-(-tavern // 2)))
                    self.draw_tavern(b, -(-tavern // 2))
                    tavern = 0
            if tavern:
                self.draw_tavern(s, tavern)
        self._check()

    # phase 5
    def phase_island_effects(self) -> None:
        self.phase = "island_effects"
        at: dict[int, list[Seat]] = {}  # ships by island, seat order (nobody moves in phase 5)
        for s in self.seats:
            at.setdefault(s.location, []).append(s)
        for isl in (0, 1, 2, 3, 4, 5, COVE):
            present = at.get(isl)
            if not present:
                continue
            for s in self.order_by_speed(present):
                if isl == TAVERN:
                    self._tavern(s)
                elif isl in ISLAND_SECTION:
                    self._shipyard(s, ISLAND_SECTION[isl])
                elif isl == TREASURE:
                    self._treasure_island(s)
                else:
                    self._cove(s)
                self._any_island(s)
        self._check()

    def _tavern(self, s: Seat) -> None:
        e = self.rules.economy
        most = (
            min(e.tavern_max_buy, s.gold // e.tavern_card_price)
            if e.tavern_card_price
            else e.tavern_max_buy
        )
        if most <= 0 or not (self.tavern_deck or self.tavern_discard):
            return
        k = self.ask(s.index, "buy_cards", tuple(range(most + 1)))
        for _ in range(k):
            if not (self.tavern_deck or self.tavern_discard):
                return  # nothing left to sell
            self.pay_bank(s, e.tavern_card_price)
            self.draw_tavern(s, 1)

    def _shipyard(self, s: Seat, section: int) -> None:
        """Raise ``section`` any number of levels at the cumulative cost (one decision: how
        many)."""
        pos, gold, most = s.ring[section], s.gold, 0
        while 0 < pos < self.npos and self.step_cost[pos] <= gold:
            gold -= self.step_cost[pos]
            pos += 1
            most += 1
        if most:
            k = self.ask(s.index, "upgrade", tuple(range(most + 1)), {"section": section})
            for _ in range(k):
                self._raise(s, section, 1)

    def _treasure_island(self, s: Seat) -> None:
        e = self.rules.economy
        fame = 0
        if s.chests:
            k = self.ask(s.index, "bury_chests", tuple(range(s.chests + 1)))
            if k:
                s.chests -= k
                self.bank_chests += k
                fame += k * e.bury_fame_per_chest
        bags = s.gold // e.bury_gold_per_fame
        if bags:
            k = self.ask(s.index, "bury_gold", tuple(range(bags + 1)))
            if k:
                self.pay_bank(s, k * e.bury_gold_per_fame)
                fame += k
        if fame:
            self._bury_fame(s, fame)  # one share-out of the visit's fame (Plunder rounds once)
        for _ in range(e.treasure_island_upgrade_levels):
            mult = e.treasure_island_cost_multiplier
            legal = tuple(
                i
                for i in range(4)
                if 0 < s.ring[i] < self.npos and self.step_cost[s.ring[i]] * mult <= s.gold
            )
            if not legal:
                return
            pick = self.ask(s.index, "treasure_island_upgrade", (None, *legal))
            if pick is None:
                return
            self._raise(s, pick, mult)

    def _bury_fame(self, s: Seat, fame: int) -> None:
        ben = self.plunder.get(s.index)
        if ben is not None and self.rules.decisions.plunder_includes_burying:
            give = -(-fame // 2)
            self.add_fame(s, fame - give, "burying")
            self.add_fame(self.seats[ben], give, "plunder")
        else:
            self.add_fame(s, fame, "burying")

    def _cove(self, s: Seat) -> None:
        e = self.rules.economy
        destroyed = [i for i in range(4) if s.ring[i] == 0]
        cost = e.cove_repair_cost * len(destroyed)
        paid_in_full = s.gold >= cost
        if paid_in_full:
            self.pay_bank(s, cost)
        elif self.rules.decisions.cove_unpaid_repair == "pay_what_you_can":
            self.pay_bank(s, s.gold)
        for i in destroyed:
            s.ring[i] = self.start_pos
        if s.parrot is not None:
            s.parrot_wounds = 0
        if not paid_in_full:
            return
        pick = self.ask(s.index, "cove_reward", ("cards", "card_and_gold"))
        if pick == "cards":
            self.draw_tavern(s, e.cove_reward_cards)
        else:
            self.draw_tavern(s, e.cove_reward_alt_cards)
            self.take_gold(s, e.cove_reward_alt_gold)

    def _any_island(self, s: Seat) -> None:
        """Artisan cards, Artisan repairs and the Shipwright: from any island in phase 5."""
        c = self.rules.combat
        if "artisan" in s.hand:
            if c.artisan_limit == "per_ship":
                legal = tuple(range(4)) if not s.artisans else ()
            else:
                legal = tuple(i for i in range(4) if i not in s.artisans)
            if legal:
                pick = self.ask(s.index, "artisan", (None, *legal))
                if pick is not None:
                    s.hand.remove("artisan")
                    s.artisans[pick] = 0
                    self.card_record.played(s.index, "artisan", self.month, self.phase)
        for sec, hits in sorted(s.artisans.items()) if s.artisans else ():
            if (
                hits > 0
                and s.gold >= c.artisan_repair_cost
                and self.ask(s.index, "artisan_repair", (False, True), {"section": sec})
            ):
                self.pay_bank(s, c.artisan_repair_cost)
                s.artisans[sec] = 0
        if "shipwright" in s.hand:
            legal = tuple(i for i in range(4) if 0 < s.ring[i] < self.npos)
            if legal:
                levels = self.rules.economy.shipwright_free_levels
                pick = self.ask(s.index, "shipwright", (None, *legal))
                if pick is not None:
                    self.play_card(s, "shipwright")
                    s.ring[pick] = min(self.npos, s.ring[pick] + levels)

    # phase 6
    def phase_black_ships_and_cargo(self) -> None:
        self.phase = "black_ships"
        for b in self.black_ships:
            b[0] = (b[0] + 1) % 6  # 1 -> 2 -> ... -> 6 -> 1, never the Cove
            if b[2] or b[1] is None:
                if b[1] is not None:
                    self.pirate_discard.append(b[1])
                b[1], b[2] = None, False
        for b in self.black_ships:
            if b[1] is None:
                b[1] = self._next_pirate()
        for s in self.seats:
            cap = self.capacity(s)
            if cap is not None and s.chests > cap:
                self.bank_chests += s.chests - cap
                s.chests = cap
        for isl in OUTER:
            if self.face_up[isl] is not None:
                self.treasure_discard.append(self.face_up[isl])
                self.face_up[isl] = None
        self.tavern_discard += self.in_play
        self.in_play = []
        self.map_islands = []
        self.plunder = {}
        self.rn_sent = 0
        self.rn_sender = None
        self.chosen = [None] * self.n
        self._check()

    # ------------------------------------------------------------------ end of game
    def finish(self) -> GameResult:
        from simulator.cove import fight

        self.phase = "end"
        for s in self.seats:
            total = sum(int(c.split(":")[1]) for c in s.hand if c.startswith("fame:"))
            if total:
                self.add_fame(s, total, "fame_cards")
        top = max(s.fame for s in self.seats)
        tied = [s.index for s in self.seats if s.fame == top]
        winners = tied
        if len(tied) > 1:
            self.tie = True
            if self.rules.decisions.tie_break == "duel":
                self.duel = True
                winners = fight.duel(self, tied)
        share = 1.0 / len(winners)
        seats = tuple(
            SeatResult(
                seat=s.index,
                fame=s.fame,
                fame_src=dict(s.fame_src),
                gold=s.gold,
                chests=s.chests,
                battles=s.battles,
                routed=s.routed,
                fled=s.fled,
                mutinies=s.mutinies,
                pirates_fought=s.pirates_fought,
                pirates_sunk=s.pirates_sunk,
                win=share if s.index in winners else 0.0,
            )
            for s in self.seats
        )
        self._check()
        self.card_record.finish(self.month)
        return GameResult(
            seats=seats,
            battles=tuple(self.battle_log),
            tie=self.tie,
            duel=self.duel,
            winners=tuple(winners),
            cards=tuple(tuple(r) for r in self.card_record.rows),
        )

    # ------------------------------------------------------------------ invariants
    def card_count(self) -> int:
        """Tavern cards everywhere: deck + discard + hands + in play (parrots, Artisans, played)."""
        n = len(self.tavern_deck) + len(self.tavern_discard) + len(self.in_play)
        for s in self.seats:
            n += len(s.hand) + len(s.artisans) + (s.parrot is not None)
        return n

    def invariant_errors(self) -> list[str]:
        errs = []
        gold = self.bank_gold + sum(s.gold for s in self.seats)
        chests = self.bank_chests + sum(s.chests for s in self.seats)
        if gold != self.total_gold:
            errs.append(f"gold {gold} != {self.total_gold}")
        if chests != self.total_chests:
            errs.append(f"chests {chests} != {self.total_chests}")
        if self.card_count() != self.num_tavern_cards:
            errs.append(f"tavern cards {self.card_count()} != {self.num_tavern_cards}")
        if self.bank_gold < 0 or self.bank_chests < 0:
            errs.append("negative bank")
        for s in self.seats:
            if s.gold < 0 or s.chests < 0 or s.fame < self.rules.decisions.fame_floor:
                errs.append(f"seat {s.index} negative gold/chests/fame")
            if any(not 0 <= p <= self.npos for p in s.ring):
                errs.append(f"seat {s.index} ring off the mat {s.ring}")
            if self.phase != "combat" and any(p == 0 for p in s.ring) and s.location != COVE:
                errs.append(f"seat {s.index} destroyed section outside the Cove")
            if self.phase in ("black_ships", "end") and any(p == 0 for p in s.ring):
                errs.append(f"seat {s.index} destroyed section left unrepaired")
            if self.rules.combat.artisan_limit == "per_ship" and len(s.artisans) > 1:
                errs.append(f"seat {s.index} has {len(s.artisans)} Artisans")
        return errs

    def _check(self) -> None:
        if self.check:
            errs = self.invariant_errors()
            if errs:
                raise IllegalState(self.month, self.phase, errs)


def play_game(rules: CoveRules, players, rng: np.random.Generator, **kwargs) -> GameResult:
    """Play one game with ``players`` (policy objects, seat order) on ``rng``."""
    return Game(rules, players, GameDice(rng), **kwargs).play()


def _main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m simulator.cove.game")
    ap.add_argument(
        "--regenerate-goldens",
        action="store_true",
        help="rewrite tests/data/cove_golden_*.json from their recorded seeds",
    )
    args = ap.parse_args(argv)
    if args.regenerate_goldens:
        from simulator.cove.golden import regenerate

        for path in regenerate():
            print(path)
        return 0
    ap.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())


__all__ = [
    "Game",
    "GameResult",
    "IllegalAction",
    "IllegalState",
    "ScenarioTables",
    "SeatResult",
    "play_game",
]
