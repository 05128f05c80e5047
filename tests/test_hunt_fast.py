"""The compiled engine (simulator.hunt.fast) against the Python reference (moves/game/players):
the same legal outcomes and the same position scores, position by position."""

from __future__ import annotations

import numpy as np
import pytest
from hunt_support import SplitMixDice

from simulator.hunt.api import play
from simulator.hunt.fast import moves as fast_moves
from simulator.hunt.fast import packed
from simulator.hunt.fast import players as fast_players
from simulator.hunt.game import Observation, check_state, initial_state, play_game
from simulator.hunt.moves import State, build_tables, turn_options
from simulator.hunt.players import make_player
from simulator.hunt.variants import load_hunt, variant_names

CASES = (
    [((), 4), ((), 2)]
    + [((v,), None) for v in variant_names()]
    + [(("shipwreck", "fleet", "cyclone"), 3)]
)


def random_position(t, rng, st0):
    """Ships scattered on free squares (some sunk, some stacked in the fleet variant), maybe a
    carrier."""
    n_nodes = t.board.num_nodes
    ships = len(t.ship_owner)
    node = [-1] * ships
    taken = {}
    for s in range(ships):
        if rng.random() < 0.2:
            continue
        for _ in range(50):
            n = int(rng.integers(n_nodes))
            if n in taken and (not t.fleet or t.ship_owner[taken[n]] != t.ship_owner[s]):
                continue
            taken.setdefault(n, s)
            node[s] = n
            break
    carrying = [-1] * ships
    treasure = list(range(t.num_treasures))
    for k in range(t.num_treasures):
        alive = [s for s in range(ships) if node[s] >= 0 and carrying[s] < 0]
        if alive and rng.random() < 0.5:
            s = alive[int(rng.integers(len(alive)))]
            carrying[s] = k
            treasure[k] = -1
    wrecks = (
        frozenset(int(x) for x in rng.integers(n_nodes, size=3)) - set(node)
        if t.wrecks
        else frozenset()
    )
    return State(tuple(node), tuple(carrying), tuple(treasure), wrecks)


@pytest.mark.parametrize(
    "variants, players", CASES, ids=lambda x: "+".join(x) if isinstance(x, tuple) else str(x)
)
def test_same_legal_outcomes_as_the_python_engine(variants, players):
    sc = load_hunt(None, list(variants))
    players = players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    t = build_tables(sc.rules, players)
    A, P = packed.pack(t, sc.rules)
    WB = fast_moves.work_buffers(len(t.ship_owner), max(t.num_treasures, 1), t.board.num_nodes)
    n_dice = int(P[packed.P_NDICE])
    rng = np.random.default_rng(7)
    st0 = initial_state(t, sc.rules)
    positions = 25 if n_dice <= 3 else 6
    for i in range(positions):
        st = st0 if i == 0 else random_position(t, rng, st0)
        check_state(t, st)
        seat = int(rng.integers(players))
        alive = {t.ship_owner[s] for s, n in enumerate(st.ship_node) if n >= 0}
        home = any(
            c >= 0 and st.ship_node[s] == t.board.anchor_node[t.ship_home[s]]
            for s, c in enumerate(st.carrying)
        )
        if seat not in alive or len(alive) < 2 or home:
            continue  # positions no game reaches (already over)
        dice = tuple(sorted(int(x) for x in rng.integers(1, 7, size=n_dice)))
        py = {
            (
                o.state.ship_node,
                o.state.carrying,
                o.state.treasure_island,
                n_dice + 1 if o.won else o.dice_used,
            )
            for o in turn_options(t, st, seat, dice)
        }
        node, carry, tre, wreck = packed.initial_arrays(t, st)
        for n in st.wrecks:
            wreck[n] = 1
        k = fast_moves.enumerate_options(
            A, P, node, carry, tre, wreck, seat, np.array(dice, dtype=np.int64), WB
        )
        nb = {
            (
                *(tuple(x) for x in fast_moves.leaf_state(WB, len(t.ship_owner), j)),
                int(WB[fast_moves.B_LEAF_INFO][j, fast_moves.L_USED]),
            )
            for j in range(k)
        }
        assert nb == py, f"position {i}, seat {seat}, dice {dice}"


def test_fast_runs_are_reproducible_and_check_invariants():
    sc = load_hunt(None, [])
    a = play(sc, "random", n=300, seed=9, engine="fast", check=True, chunk_size=100).seats
    b = play(sc, "random", n=300, seed=9, engine="fast", check=False, chunk_size=100).seats
    assert a.equals(b)


def reachable_positions(sc, players, n_games, seed):
    """(state, seat, dice) before every roll of ``n_games`` Python-engine games of a 4-strategy
    mix (positions real games reach: carriers, fleets, wrecks, lost ships)."""
    t = build_tables(sc.rules, players, plan=True)
    mix = ["runner", "hunter", "guard", "random"]
    seen = []
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        policies = [make_player(sc.rules, mix[(k + g) % 4]) for k in range(players)]
        play_game(
            t,
            sc.rules,
            policies,
            rng,
            rng,
            on_turn=lambda st, seat, dice, _opt: seen.append((st, seat, dice)),
        )
    return t, seen


#: the planner's readable score is slow with 3 or 4 dice (56 or 126 rolls per chance): it is
#: compared on at most this many options of each position then (all of them with 2 dice)
PLANNER_OPTIONS_MANY_DICE = 8


@pytest.mark.parametrize(
    "variants, players", CASES, ids=lambda x: "+".join(x) if isinstance(x, tuple) else str(x)
)
def test_compiled_scores_equal_the_python_players(variants, players):
    """Every scoring strategy (runner, hunter, guard, planner) scores the options of reachable
    positions exactly as ``players.Heuristic.score`` / ``players.Planner.score`` do (float
    equality), so both engines choose among the same best options."""
    sc = load_hunt(None, list(variants))
    players = players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    many_dice = int(sc.rules.num_dice + sc.rules.cyclone.enabled * sc.rules.cyclone.extra_dice) > 2
    t, seen = reachable_positions(sc, players, 3 if many_dice else 6, seed=11)
    A, P = packed.pack(t, sc.rules)
    scorers = [make_player(sc.rules, n) for n in ("runner", "hunter", "guard", "planner")]
    ptypes, weights = fast_players.policy_arrays(scorers)
    compared = {p.name: 0 for p in scorers}
    for st, seat, dice in seen:
        options = turn_options(t, st, seat, dice)
        obs = Observation(t, st, seat, 1)
        for j, policy in enumerate(scorers):
            planner = ptypes[j] == fast_players.PT_PLANNER
            compiled = fast_players.plan_score if planner else fast_players.score
            some = options[:PLANNER_OPTIONS_MANY_DICE] if planner and many_dice else options
            py = [policy.score(obs, o.state) for o in some]
            nb = []
            for o in some:
                node, carry, tre, _ = packed.initial_arrays(t, o.state)
                nb.append(compiled(A, P, node, carry, tre, seat, weights[j]))
            assert nb == py, (policy.name, st, seat, dice)
            compared[policy.name] += len(some)
    assert min(compared.values()) > (100 if many_dice else 1000), compared


class _Cursor:
    """Walks the compiled engine's trace while the readable engine replays the same game."""

    def __init__(self, trace, n_ships):
        self.rows, self.i, self.n_ships, self.centre = trace, 0, n_ships, None

    def row(self):
        assert self.i < len(self.rows), "the readable engine made more decisions"
        return self.rows[self.i]

    def state_of(self, row):
        from simulator.hunt.fast.game import T_DATA

        return tuple(int(x) for x in row[T_DATA : T_DATA + len(self.packed0)])

    def on_turn(self, _before, seat, _dice, option):
        from simulator.hunt.fast.game import T_KIND, T_ROLL, T_SEAT

        row = self.row()
        assert row[T_KIND] == T_ROLL and row[T_SEAT] == seat, (self.i, row[:2], seat)
        assert self.state_of(row) == tuple(packed.state_row(option.state)), self.i
        self.i += 1


class _Replay:
    """A seat of the readable engine that plays the compiled engine's traced choice, checking
    that it is legal and that the readable policy scores it among its best options."""

    def __init__(self, policy, cursor):
        self.policy, self.cur = policy, cursor
        self.name = policy.name

    def choose(self, obs, options, rng):
        row = self.cur.row()
        want = self.cur.state_of(row)
        found = [i for i, o in enumerate(options) if tuple(packed.state_row(o.state)) == want]
        assert len(found) == 1, ("traced outcome not legal here", self.cur.i)
        k = found[0]
        if any(o.won for o in options):
            assert options[k].won
        elif hasattr(self.policy, "score"):
            scores = [self.policy.score(obs, o.state) for o in options]
            assert scores[k] >= max(scores) - 1e-9, (self.name, self.cur.i)
        return k

    def fire_ship(self, obs, rng):
        from simulator.hunt.fast.game import T_DATA, T_FIRE, T_KIND, T_SEAT

        fired = self.cur.i < len(self.cur.rows) and self.cur.row()[T_KIND] == T_FIRE
        scoring = hasattr(self.policy, "score")
        if not fired:
            if scoring:
                assert self.policy.fire_ship(obs, rng) is None
            return None
        row = self.cur.row()
        assert row[T_SEAT] == obs.seat
        ship, self.cur.centre = int(row[T_DATA]), int(row[T_DATA + 1])
        if scoring:
            assert self.policy.fire_ship(obs, rng) == ship
        self.cur.i += 1
        return ship

    def fire_target(self, obs, ship, targets, radius, rng):
        k = targets.index(self.cur.centre)
        if hasattr(self.policy, "score"):
            assert self.policy.fire_target(obs, ship, targets, radius, rng) == k
        return k


REPLAY_GAMES = 10  # per variant; 4 on the double board (six players, four dice: slow in Python)


@pytest.mark.parametrize(
    "variants, players", CASES, ids=lambda x: "+".join(x) if isinstance(x, tuple) else str(x)
)
def test_whole_games_die_for_die_against_the_python_engine(variants, players):
    """Exact engine comparison (issue 12, test power): the readable engine replays compiled games
    on the same dice (the compiled SplitMix64 stream), decision by decision: every chosen outcome
    must be legal in the readable engine and scored among the readable policy's best options
    (fire ships: the same decisions), every resulting position equal, and the game records
    (winner, end, turns, boardings, explosions, cyclone losses, extra rolls, loads, wrecks,
    fleets, ships sunk and lost per seat) identical. Replaces a statistical comparison."""
    from simulator.hunt.fast import game as fast_game
    from simulator.hunt.game import GameRecord, play_game

    sc = load_hunt(None, list(variants))
    players = players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    n_dice = sc.rules.num_dice + sc.rules.cyclone.enabled * sc.rules.cyclone.extra_dice
    kinds = ["runner", "hunter", "guard", "random"] + (["planner"] if n_dice <= 3 else [])
    t = build_tables(sc.rules, players, plan="planner" in kinds)
    st0 = initial_state(t, sc.rules)
    pols = [make_player(sc.rules, k) for k in kinds]
    rng = np.random.default_rng(len(CASES) + players)
    ends = set()
    for g in range(REPLAY_GAMES if n_dice <= 3 else 4):
        seat_pol = [(k + g) % len(kinds) for k in range(players)]
        dice_seed, pol_seed = (int(x) for x in rng.integers(0, 2**63 - 1, size=2))
        out, trace = fast_game.trace_game(t, sc.rules, st0, pols, seat_pol, dice_seed, pol_seed)
        cur = _Cursor(trace, len(t.ship_owner))
        cur.packed0 = packed.state_row(st0)
        seats = [_Replay(pols[j], cur) for j in seat_pol]
        rec: GameRecord = play_game(
            t,
            sc.rules,
            seats,
            SplitMixDice(dice_seed),
            np.random.default_rng(0),
            check=True,
            on_turn=cur.on_turn,
            start=st0,
        )
        assert cur.i == len(trace), "the compiled engine made more decisions"
        n = players
        got = {
            "winner": rec.winner,
            "end": rec.end,
            "turns": rec.turns,
            "boardings": rec.boardings,
            "explosions": rec.explosions,
            "exploded": rec.exploded,
            "cyclone_losses": rec.cyclone_losses,
            "rerolls": rec.rerolls,
            "loads": rec.loads,
            "wrecks": rec.wrecks,
            "max_fleet": rec.max_fleet,
            "sunk_by": list(rec.sunk_by),
            "lost": list(rec.lost),
        }
        want = {
            "winner": int(out[fast_game.O_WINNER]),
            "end": fast_game.END_CODES[int(out[fast_game.O_END])],
            "turns": int(out[fast_game.O_TURNS]),
            "boardings": int(out[fast_game.O_BOARDINGS]),
            "explosions": int(out[fast_game.O_EXPLOSIONS]),
            "exploded": int(out[fast_game.O_EXPLODED]),
            "cyclone_losses": int(out[fast_game.O_CYCLONE]),
            "rerolls": int(out[fast_game.O_REROLLS]),
            "loads": int(out[fast_game.O_LOADS]),
            "wrecks": int(out[fast_game.O_WRECKS]),
            "max_fleet": int(out[fast_game.O_MAXFLEET]),
            "sunk_by": [int(x) for x in out[fast_game.O_FIXED : fast_game.O_FIXED + n]],
            "lost": [int(x) for x in out[fast_game.O_FIXED + n : fast_game.O_FIXED + 2 * n]],
        }
        assert out[fast_game.O_ERROR] == 0
        assert got == want, (g, got, want)
        ends.add(rec.end)
    assert "win" in ends
