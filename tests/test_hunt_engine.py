"""The Les Pirates engine as a whole: traced games refereed rule by rule against independent
oracles, the players' values term by term, and the readable mode (the same source with the JIT
off) playing exactly the compiled games."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hunt_support import N, SplitMixDice, lone_reach, oracle_outcomes, position

from simulator.hunt import game, packed, players
from simulator.hunt.api import load, play
from simulator.hunt.board import ANCHORAGE, SEA
from simulator.hunt.game import initial_position, trace_game
from simulator.hunt.packed import build_tables
from simulator.hunt.plan import NEVER
from simulator.hunt.players import make_player
from simulator.hunt.variants import load_hunt, variant_names

CASES = (
    [((), 4), ((), 2)]
    + [((v,), None) for v in variant_names()]
    + [(("shipwreck", "fleet", "cyclone"), 3), (("fire-ship", "one-two", "shipwreck"), 4)]
)
IDS = ["+".join(v) or "base" for v, _ in CASES]


class Referee:
    """Replays a traced game against the rules: the dice stream, the turn order, every event's
    legality (rolls against the move oracle; cyclone and fire ship by the rules' text), the
    scoring players' choices (a best-valued outcome), and the game record."""

    def __init__(self, t, seat_players, start, dice_seed):
        self.t, self.rules, self.pols = t, t.rules, seat_players
        self.row, self.wreck = start[0].copy(), {int(n) for n in np.flatnonzero(start[1])}
        self.dice = SplitMixDice(dice_seed, t.rules.die_sides)
        self.ns, self.n = len(t.ship_owner), t.num_players
        self.nd = int(t.P[packed.P_NDICE])
        self.rec = dict.fromkeys(game.RECORD, 0) | {"winner": -1, "end": 1, "max_fleet": 1}
        self.sunk_by, self.lost = [0] * self.n, [0] * self.n
        self.over = False

    def afloat(self, seat):
        return [s for s in self.t.seat_ships[seat] if self.row[s] >= 0]

    def event(self, row, kind, seat, dice):
        assert row[game.T_KIND] == kind and row[game.T_SEAT] == seat, (row[:3], kind, seat)
        assert tuple(row[game.T_DICE : game.T_DICE + len(dice)]) == dice
        return row[game.T_DICE + self.nd :]

    def sink(self, before, seat, make_wreck, where=None):
        """Count the ships sunk since ``before`` (boarding or explosion by ``seat``)."""
        for s in range(self.ns):
            if before[s] >= 0 > self.row[s]:
                owner = self.t.ship_owner[s]
                self.lost[owner] += 1
                if seat >= 0 and owner != seat:
                    self.sunk_by[seat] += 1
                    yield s
                if make_wreck:
                    self.wreck.add(int(before[s] if where is None else where[s]))

    def end_check(self, seat, won=False):
        alive = [x for x in range(self.n) if self.afloat(x)]
        if won or len(alive) <= 1:
            self.over = True
            winner = seat if won else (alive[0] if alive else -1)
            self.rec["end"], self.rec["winner"] = (0 if winner >= 0 else 2), winner

    def fire(self, trace_row, seat):
        t, ns = self.t, self.ns
        ship, centre = int(trace_row[game.T_SHIP]), int(trace_row[game.T_CENTRE])
        dice = self.dice.roll(2)
        after = self.event(trace_row, game.T_FIRE, seat, dice)
        assert t.ship_owner[ship] == seat and self.row[ship] >= 0
        targets = fire_line(t, self.row, self.wreck, ship, sum(dice))
        assert centre in targets or (not targets and centre == self.row[ship])
        low = min(dice)
        radius = -(-low // 2) if self.rules.fire_ship.radius == "half" else low
        pol = self.pols[seat]
        if pol.kind != "random" and targets:
            assert centre == max(
                targets, key=lambda m: fire_value(t, self.row, seat, ship, m, radius)
            )
        before = self.row.copy()
        self.row[ship] = centre
        where = self.row.copy()
        for s in range(ns):
            if self.row[s] >= 0 and chebyshev(t, self.row[s], centre) <= radius:
                if self.row[ns + s] >= 0:
                    self.row[2 * ns + self.row[ns + s]] = self.row[ns + s]
                self.row[s], self.row[ns + s] = -1, -1
        assert tuple(after) == tuple(self.row)
        self.rec["explosions"] += 1
        self.rec["exploded"] += len(
            list(self.sink(before, seat, self.rules.shipwreck.enabled, where))
        )
        self.end_check(seat)

    def cyclone(self, trace_row, seat, dice):
        after = self.event(trace_row, game.T_CYCLONE, seat, dice)
        t = self.t
        dist = [t.dist[t.board.anchor_node[t.ship_home[s]], self.row[s]] for s in self.afloat(seat)]
        victim = self.afloat(seat)[int(np.argmax(dist))]
        assert trace_row[game.T_SHIP] == victim
        before = self.row.copy()
        cargo = self.row[self.ns + victim]
        if cargo >= 0:
            self.row[2 * self.ns + cargo] = cargo
        self.row[victim], self.row[self.ns + victim] = -1, -1
        assert tuple(after) == tuple(self.row)
        self.rec["cyclone_losses"] += 1
        list(self.sink(before, -1, False))
        self.end_check(seat)

    def roll(self, trace_row, seat, dice):
        t, ns = self.t, self.ns
        after = tuple(int(x) for x in self.event(trace_row, game.T_ROLL, seat, dice))
        wreck = np.zeros(t.board.num_nodes, dtype=np.int64)
        wreck[list(self.wreck)] = 1
        options = oracle_outcomes(t, (self.row, wreck), seat, dice)
        chosen = [o for o in options if o[:3] == (after[:ns], after[ns : 2 * ns], after[2 * ns :])]
        assert len(chosen) == 1, "the outcome played is not one of the legal outcomes"
        won = chosen[0][3] == len(dice) + 1
        if any(o[3] == len(dice) + 1 for o in options):
            assert won, "a winning outcome was offered and another one played"
        elif self.pols[seat].kind != "random":
            values = [value(t, self.pols[seat], o, seat) for o in options]
            assert value(t, self.pols[seat], chosen[0], seat) >= max(values) - 1e-9
        before = self.row.copy()
        self.row = np.array(after, dtype=np.int64)
        for k in range(t.num_treasures):  # a treasure taken off its island
            self.rec["loads"] += int(before[2 * ns + k] == k and self.row[2 * ns + k] == -1)
        self.rec["boardings"] += len(list(self.sink(before, seat, self.rules.shipwreck.enabled)))
        if self.rules.fleet.enabled:
            stacks = [list(self.row[:ns]).count(self.row[s]) for s in self.afloat(seat)]
            self.rec["max_fleet"] = max([self.rec["max_fleet"], *stacks])
        self.end_check(seat, won)

    def replay(self, trace):
        rules, i = self.rules, 0
        seat, turns = 0, 0
        while not self.over and turns < rules.max_turns:
            if not self.afloat(seat):
                seat = (seat + 1) % self.n
                continue
            turns += 1
            if rules.fire_ship.enabled:
                fired = i < len(trace) and tuple(trace[i, :2]) == (game.T_FIRE, seat)
                if self.pols[seat].kind != "random":  # a scoring player's rule
                    ship = _aligned_ship(self.t, self.row, seat, self.pols[seat])
                    assert fired == (ship is not None) and (not fired or trace[i, 2] == ship)
                if fired:
                    self.fire(trace[i], seat)
                    i += 1
                    if self.over or rules.fire_ship.ends_turn:
                        seat = (seat + 1) % self.n
                        continue
            first = True
            while not self.over:
                dice = self.dice.roll(self.nd)
                assert i < len(trace), "the engine made fewer decisions"
                if rules.cyclone.enabled and max(map(dice.count, dice)) >= rules.cyclone.equal_dice:
                    self.cyclone(trace[i], seat, dice)
                    i += 1
                    if self.over or not rules.cyclone.play_roll_after_loss or not self.afloat(seat):
                        break
                self.roll(trace[i], seat, dice)
                i += 1
                again = rules.one_two.enabled and {1, 2} <= set(dice)
                if self.over or not again or not (first or rules.one_two.chain):
                    break
                first = False
                self.rec["rerolls"] += 1
            seat = (seat + 1) % self.n
        assert i == len(trace), "the engine made more decisions"
        self.rec["turns"], self.rec["wrecks"] = turns, len(self.wreck)
        return self.rec, self.sunk_by, self.lost


def _aligned_ship(t, row, seat, pol):
    ns = len(t.ship_owner)
    mine = [s for s in t.seat_ships[seat] if row[s] >= 0]
    if not pol.params["fire"] or len(mine) < 2:
        return None
    for c in range(ns):
        if row[c] < 0 or t.ship_owner[c] == seat or row[ns + c] < 0:
            continue
        cr, cc = t.board.cells[row[c]][0]
        for s in mine:
            r, col = t.board.cells[row[s]][0]
            if row[ns + s] < 0 and ((r == cr and 2 <= abs(col - cc) <= 12)
                                    or (col == cc and 2 <= abs(r - cr) <= 12)):  # fmt: skip
                return s
    return None


def fire_line(t, row, wrecks, ship, length):
    """The squares a fire ship may explode on: ``length`` squares in a straight orthogonal line
    over free open sea, ending on open sea or an anchorage, not on a wreck."""
    occupied = {int(n) for n in row[: len(t.ship_owner)] if n >= 0}
    out = []
    for r, c in t.board.cells[row[ship]]:
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            line = [
                t.board.cell_node.get((r + dr * k, c + dc * k), -1) for k in range(1, length + 1)
            ]
            ok = all(
                m >= 0 and t.board.kind[m] in (SEA, ANCHORAGE) and m not in wrecks for m in line
            )
            if ok and not occupied & set(line[:-1]) and line[-1] not in out:
                out.append(line[-1])
    return out


def chebyshev(t, a, b):
    return min(
        max(abs(r - rr), abs(c - cc)) for r, c in t.board.cells[a] for rr, cc in t.board.cells[b]
    )


def fire_value(t, row, seat, ship, centre, radius):
    ns, v = len(t.ship_owner), 0.0
    for s in range(ns):
        if row[s] >= 0 and s != ship and chebyshev(t, row[s], centre) <= radius:
            worth = 3.0 if row[ns + s] >= 0 else 1.0
            v += worth if t.ship_owner[s] != seat else -2.0 * worth
    return v


def value(t, pol, outcome, seat):
    """The engine's value of an oracle outcome for a scoring player."""
    L = np.array([[*outcome[0], *outcome[1], *outcome[2]]], dtype=np.int64)
    w, (D, _, F, R) = pol.weights(), t.A
    if pol.kind == "planner":
        return players.planner_value(t.P, D, F, R, L, 0, seat, w)
    return players.heuristic_value(t.P, D, L, 0, seat, w)


@pytest.mark.parametrize("variants, n_players", CASES, ids=IDS)
def test_traced_games_keep_every_rule(variants, n_players):
    """Whole games refereed event by event (about 1,200 rolls, 17 fire ships and 3 cyclone
    losses over the 13 rule sets): every roll's outcome is one the brute-force oracle allows for
    the dice the SplitMix64 stream gives, and a winning outcome is always taken; a scoring
    player's outcome is best-valued; cyclone losses, fire ships (line, target, radius, victims)
    and one-two rolls follow the rules' text; turns pass clockwise skipping players without
    ships; the record (winner, end, turns, boardings, explosions, cyclone losses, extra rolls,
    loads, wrecks, fleets, ships sunk and lost per seat) is what the referee counted."""
    sc = load_hunt(None, list(variants))
    n_players = n_players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    n_dice = sc.rules.num_dice + sc.rules.cyclone.enabled * sc.rules.cyclone.extra_dice
    kinds = ["runner", "hunter", "guard", "random:fire=0.3"] + (["planner"] if n_dice <= 3 else [])
    t = build_tables(sc.rules, n_players, plan=n_dice <= 3)
    start = initial_position(t)
    pols = [make_player(sc.rules, k) for k in kinds]
    rng = np.random.default_rng(len(variants) + n_players)
    ends = set()
    for g in range(4 if n_dice <= 3 else 2):
        seat_pol = [(k + g) % len(kinds) for k in range(n_players)]
        dice_seed, pol_seed = (int(x) for x in rng.integers(0, 2**63 - 1, size=2))
        out, trace = trace_game(t, start, pols, seat_pol, dice_seed, pol_seed)
        assert out[game.O_ERROR] == 0
        ref = Referee(t, [pols[j] for j in seat_pol], start, dice_seed)
        rec, sunk_by, lost = ref.replay(trace)
        assert {k: int(out[c]) for c, k in enumerate(game.RECORD)} == rec
        n = n_players
        assert list(out[game.O_FIXED : game.O_FIXED + n]) == sunk_by
        assert list(out[game.O_FIXED + n : game.O_FIXED + 2 * n]) == lost
        ends.add(rec["end"])
    assert 0 in ends  # some game was won


def test_fast_runs_are_reproducible_and_check_invariants():
    sc = load_hunt(None, [])
    a = play(sc, "random", n=300, seed=9, engine="fast", check=True, chunk_size=100).seats
    b = play(sc, "random", n=300, seed=9, engine="fast", check=False, chunk_size=100).seats
    assert a.equals(b)


@pytest.mark.parametrize(
    "variants, strategies, n",
    [
        ((), ["planner", "hunter", "guard", "random"], 4),
        (
            ("cyclone", "shipwreck", "one-two", "fire-ship"),
            ["hunter", "random", "guard", "runner"],
            10,
        ),
        (("fleet",), ["guard", "hunter", "runner", "random"], 10),
        (("double-board",), ["runner", "hunter", "guard", "random", "hunter", "runner"], 2),
    ],
    ids=["base-planner", "combo", "fleet", "double-board"],
)
def test_readable_engine_plays_the_compiled_games(variants, strategies, n):
    """``--engine python`` runs the same source with numba's JIT off, in a worker process started
    with ``NUMBA_DISABLE_JIT=1``: it plays exactly the compiled games (every column of every seat
    of every game, with the invariant checker on; the planner's tables built uncompiled too).
    ``tests/test_engine_mode.py`` checks the mode itself at two ``--jobs`` and chunk sizes."""
    sc = load(None, list(variants))
    kw = {"n": n, "seed": 28, "rotate_seats": True, "check": True}
    fast = play(sc, strategies, engine="fast", **kw)
    slow = play(sc, strategies, engine="python", **kw)
    pd.testing.assert_frame_equal(fast.seats, slow.seats)
    assert (fast.summary["engine"], slow.summary["engine"]) == ("fast", "python")


def _values(t, pol, rows, seat):
    L = np.array(rows, dtype=np.int64)
    return [value(t, pol, (r[:6], r[6:12], r[12:]), seat) for r in L]


def _player(kind, **weights):
    fields = players.FIELDS[kind]
    return players.Player("test", kind, {k: weights.get(k, 0.0) for k in fields})


STANDARD = load()


def test_heuristic_weights_mean_what_they_say():
    """Each heuristic weight alone, on hand-built positions (2 players; seat 0 ships 0-2, its
    anchor (0,0); seat 1 ships 3-5, anchor (11,17)): exact values from the step distances."""
    t = build_tables(STANDARD.rules, 2)
    d = t.dist
    ships = {0: (2, 3), 1: (5, 0), 3: (4, 3), 4: (9, 14)}
    carrier = position(t, ships, carrying={0: 0})[0]  # seat 0's ship 0 carries
    on_island = position(t, ships)[0]
    free = position(t, ships, carrying={3: 0})[0]  # seat 1's ship 3 carries
    a0, a1 = N(t, 0, 0), N(t, 11, 17)
    island = min(d[a, N(t, 2, 3)] for a in t.board.island_anchorages[0])
    island1 = min(d[a, N(t, 5, 0)] for a in t.board.island_anchorages[0])
    cases = [
        ("ship", carrier, 2.0),
        ("sink", carrier, -2.0),
        ("carry", carrier, 1.0),
        ("home", carrier, -d[N(t, 2, 3), a0]),
        ("danger", carrier, -1.0),  # (4,3) is 2 steps away, (9,14) is not within 6
        ("seek", on_island, -min(island, island1)),
        ("threat", free, -1.0),
        ("shadow", free, -min(d[N(t, 4, 3), N(t, 2, 3)], d[N(t, 4, 3), N(t, 5, 0)])),
        (
            "guard",
            free,
            -min(
                d[N(t, 4, 3), n] + 1.25 * d[a1, n] - d[N(t, 4, 3), a1]
                for n in (N(t, 2, 3), N(t, 5, 0))
            ),
        ),
    ]
    for key, row, want in cases:
        assert _values(t, _player("heuristic", **{key: 1.0}), [row], 0) == [want], key
    assert _values(t, _player("heuristic", seek=1.0), [carrier], 0) == [0.0]  # one treasure


def brute_chance(t, row, seats, target):
    """The chance, over every roll of the dice, that one of ``seats``'s ships ends on ``target``
    with one roll (each seat its own roll; ships alone: the others and wrecks ignored)."""
    nd, sides = t.rules.num_dice, t.rules.die_sides
    miss = 1.0
    for seat in seats:
        hit = 0
        for roll in itertools.product(range(1, sides + 1), repeat=nd):
            ends = set()
            for s in t.seat_ships[seat]:
                if row[s] >= 0:
                    ends |= lone_reach(t, int(row[s]), roll)
            hit += target in ends
        miss *= 1 - hit / sides**nd
    return 1 - miss


def test_planner_weights_mean_what_they_say():
    """Each planner weight alone: expected rolls from the planning tables, and the boarding
    chances against a brute force over all 36 rolls with the move oracle (1e-12)."""
    t = build_tables(STANDARD.rules, 2, plan=True)
    ships = {0: (2, 3), 1: (5, 0), 3: (4, 5), 4: (9, 14)}
    row = position(t, ships, carrying={0: 0})[0]  # seat 0's ship 0 carries
    on_island = position(t, ships)[0]
    free = position(t, ships, carrying={3: 0})[0]  # seat 1's ship 3 carries
    plan = t.plan
    fetch = min(plan.fetch_turns[0, 0, N(t, 5, 0)], plan.fetch_turns[0, 0, N(t, 2, 3)])
    assert fetch < NEVER
    rd = min(plan.roll_dist[N(t, 2, 3), N(t, 4, 5)], plan.roll_dist[N(t, 5, 0), N(t, 4, 5)])
    cases = [
        ("home", row, -plan.carry_turns[0, N(t, 2, 3)]),
        ("seek", on_island, -fetch),
        ("chase", free, -float(rd)),
    ]
    for key, r, want in cases:
        assert _values(t, _player("planner", **{key: 1.0}), [r], 0) == [want], key
    risk = _values(t, _player("planner", risk=1.0, carry=1.0), [row], 0)[0] - 1.0
    assert risk == pytest.approx(-brute_chance(t, row, [1], N(t, 2, 3)), abs=1e-12)
    exposure = _values(t, _player("planner", exposure=1.0), [row], 0)[0]
    assert exposure == pytest.approx(-brute_chance(t, row, [1], N(t, 5, 0)), abs=1e-12)
    hunt = _values(t, _player("planner", hunt=1.0), [free], 0)[0]
    assert hunt == pytest.approx(brute_chance(t, free, [0], N(t, 4, 5)), abs=1e-12)
    assert 0 < hunt < 1 and exposure < 0 and risk < 0


def test_an_edited_source_drops_the_compiled_cache(tmp_path):
    """numba keys its cache by a function's own file: an edit to packed.py (whose index constants
    are frozen into plan.py's and game.py's machine code) must drop every cache file of the
    package, and leave its other files; a run on the stale cache used to crash."""
    from pathlib import Path

    from cache_support import check_drops_stale_cache

    import simulator.hunt as hunt

    check_drops_stale_cache(
        hunt.drop_stale_cache, Path(hunt.__file__).resolve().parent, hunt.COMPILED_MODULES,
        tmp_path, ("plan._reach-256.py311.nbi", "plan._reach-256.py311.1.nbc"),
        "plan.cpython-311.pyc", "packed.py",
    )  # fmt: skip
