"""Les Pirates movement rules, one test per rule of the notes, on constructed positions; and the
engine's outcomes of a roll against the brute-force oracle of ``tests/hunt_support.py``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hunt_support import (
    N,
    after_step,
    engine_outcomes,
    engine_steps,
    leg,
    oracle_outcomes,
    position,
)

from scenarios.loader import load_scenario
from simulator.hunt import moves, packed
from simulator.hunt.game import initial_position
from simulator.hunt.packed import build_tables
from simulator.hunt.rules import HuntRules
from simulator.hunt.variants import load_hunt, variant_names

STANDARD = load_scenario("standard", HuntRules)


def tables(players=2, **movement):
    rules = STANDARD.rules
    if movement:
        rules = dataclasses.replace(rules, movement=dataclasses.replace(rules.movement, **movement))
    return build_tables(rules, players)


def cells(t, nodes):
    return {t.board.cells[n][0] for n in nodes}


def single_dests(t, pos, player, die, ship):
    """Cells where ``ship`` alone can end one leg of ``die``."""
    return {
        t.board.cells[st[moves.S_DEST]][0]
        for st in engine_steps(t, pos, player, (die,))
        if st[moves.S_MODE] == 0 and st[moves.S_SHIP] == ship
    }


def options(t, pos, player, dice):
    """The engine's outcomes, checked against the oracle."""
    got = engine_outcomes(t, pos, player, dice)
    assert got == oracle_outcomes(t, pos, player, dice)
    return got


def finals(t, pos, player, dice, ship):
    """Cells where ``ship`` can end the turn."""
    return {t.board.cells[o[0][ship]][0] for o in options(t, pos, player, dice) if o[0][ship] >= 0}


# seat 0 owns ships 0-2 (port 1, north-west), seat 1 owns ships 3-5 (port 4, south-east)


def test_each_die_is_one_straight_orthogonal_leg():
    t = tables()
    pos = position(t, {0: (3, 3), 3: (9, 14)})
    # die 2 from (3,3): north (1,3), east (3,5), west (3,1); south (5,3) is a trade wind (sum only)
    assert single_dests(t, pos, 0, 2, 0) == {(1, 3), (3, 5), (3, 1)}


def test_two_dice_one_ship_angle_same_or_opposite_direction():
    t = tables()
    pos = position(t, {0: (2, 4), 3: (9, 14)})
    got = finals(t, pos, 0, (1, 2), 0)
    assert (1, 6) in got  # angle: north 1, east 2
    assert (2, 7) in got  # same direction: east 1 then east 2
    assert (2, 5) in got  # opposite: east 2, west 1
    assert (0, 4) not in got  # three north needs one leg of 1 and one of 2: (0,4)... is row -1
    assert (2, 4) not in got  # both dice must be used (1 and 2 cannot cancel)


def test_two_dice_one_each_on_two_ships():
    t = tables()
    pos = position(t, {0: (2, 4), 1: (8, 12), 3: (9, 16)})
    pairs = {
        (t.board.cells[o[0][0]][0], t.board.cells[o[0][1]][0]) for o in options(t, pos, 0, (1, 3))
    }
    assert ((1, 4), (8, 15)) in pairs  # ship 0 north 1, ship 1 east 3
    assert ((2, 7), (9, 12)) in pairs  # ship 0 east 3, ship 1 south 1


def test_must_use_both_dice_when_possible():
    t = tables()
    # ship 0 at (0,2): die 6 east would cross the strait (forbidden), die 6 south hits the trade
    # winds; moving east 4 to (0,6) first and then west 6 to the anchor uses both dice.
    pos = position(t, {0: (0, 2), 3: (9, 16)})
    opts = options(t, pos, 0, (4, 6))
    assert opts and all(o[3] == 2 for o in opts)
    # the one-die dead end (south 4 to (4,2), after which no 6 fits) is not offered
    assert all(t.board.cells[o[0][0]][0] != (4, 2) for o in opts)
    first = {t.board.cells[st[moves.S_DEST]][0] for st in engine_steps(t, pos, 0, (4, 6))}
    assert (4, 2) in first


def test_one_die_when_both_cannot_be_used_and_pass_when_none():
    t = tables()
    # ship on the trade wind (5,2) with 4 and 6: east 4 inside the zone to (5,6) is the only use of
    # a die; the 6 then fits nowhere, and leaving by the sum 10 runs off the board
    pos = position(t, {0: (5, 2), 3: (9, 16)})
    opts = list(options(t, pos, 0, (4, 6)))
    assert len(opts) == 1 and opts[0][3] == 1
    assert cells(t, [opts[0][0][0]]) == {(5, 6)}
    # ship on (0,2): a 6 east would end on the strait (sum only), south on a trade wind: no move
    pos3 = position(t, {0: (0, 2), 3: (9, 16)})
    opts = list(options(t, pos3, 0, (6, 6)))
    assert len(opts) == 1 and opts[0][3] == 0 and opts[0][0] == tuple(pos3[0][:6])


def test_trade_wind_entered_only_by_exact_sum_of_both_dice():
    t = tables()
    pos = position(t, {0: (3, 3), 3: (9, 16)})
    assert (5, 3) in finals(t, pos, 0, (1, 1), 0)  # sum 2 lands exactly on the trade wind
    assert (5, 3) not in single_dests(t, pos, 0, 2, 0)  # a single die of 2 may not
    assert (5, 3) not in finals(t, pos, 0, (2, 4), 0)
    assert (6, 3) not in finals(t, pos, 0, (1, 2), 0)  # no passing over a trade wind either


def test_trade_wind_diagonal_and_leaving_by_the_sum():
    t = tables()
    pos = position(t, {0: (5, 3), 3: (9, 16)})
    assert {(6, 4), (6, 2), (5, 4), (5, 2), (6, 3)} <= single_dests(t, pos, 0, 1, 0)
    assert (4, 3) not in single_dests(t, pos, 0, 1, 0)  # leaving takes both dice
    got = finals(t, pos, 0, (1, 2), 0)
    assert (2, 3) in got  # leave north by the sum 3
    assert (8, 3) not in got  # south the first step stays in the zone: a leg inside it, not out
    assert (9, 3) in finals(t, position(t, {0: (6, 3), 3: (9, 16)}), 0, (1, 2), 0)
    assert (4, 4) not in single_dests(t, pos, 0, 1, 0)  # no diagonal out of the zone


def test_trade_wind_orthogonal_switch():
    t = tables(trade_wind_orthogonal=False)
    pos = position(t, {0: (5, 3), 3: (9, 16)})
    assert single_dests(t, pos, 0, 1, 0) == {(6, 4), (6, 2)}


def test_strait_entered_only_by_exact_sum():
    t = tables()
    pos = position(t, {0: (3, 8), 3: (9, 16)})
    assert (0, 8) in finals(t, pos, 0, (1, 2), 0)
    assert (0, 8) not in finals(t, pos, 0, (3, 4), 0)
    assert (0, 8) not in single_dests(t, pos, 0, 3, 0)


def test_strait_joins_both_long_sides_and_switching_is_free():
    t = tables()
    pos = position(t, {0: (0, 8), 3: (9, 16)})
    assert N(t, 0, 8) == N(t, 11, 8)
    got = single_dests(t, pos, 0, 2, 0)
    assert {(2, 8), (9, 8), (0, 6), (11, 6)} <= got  # out of either half
    assert {(2, 9), (9, 9), (0, 11), (11, 11)} <= got  # out of the other strait square (free)
    assert not {(1, 7), (10, 7)} & single_dests(t, pos, 0, 1, 0)


def test_no_diagonal_into_a_strait():
    t = tables()
    pos = position(t, {0: (2, 6), 3: (9, 16)})
    # (2,6) -> (0,8) is a diagonal of 2: never offered whatever the dice
    for dice in [(1, 1), (2, 2), (1, 3)]:
        assert (0, 8) not in finals(t, pos, 0, dice, 0)


def test_no_passing_over_an_opponent_but_boarding_it():
    t = tables()
    pos = position(t, {0: (3, 3), 3: (3, 5)})
    assert (3, 6) not in single_dests(t, pos, 0, 3, 0)
    assert (3, 5) in single_dests(t, pos, 0, 2, 0)


def test_passing_own_ships_switch():
    ships = {0: (3, 3), 1: (3, 5), 3: (9, 16)}
    t = tables()
    pos = position(t, ships)
    assert (3, 6) in single_dests(t, pos, 0, 3, 0)
    assert (3, 5) not in single_dests(t, pos, 0, 2, 0)  # no ending on an own ship (no fleet)
    t2 = tables(pass_own_ships=False)
    assert (3, 6) not in single_dests(t2, position(t2, ships), 0, 3, 0)


def test_treasure_loading_is_optional_at_an_anchorage():
    t = tables()
    pos = position(t, {0: (2, 8), 3: (9, 16)})
    anch = N(t, 4, 8)
    steps = [st for st in engine_steps(t, pos, 0, (2,)) if st[moves.S_DEST] == anch]
    assert {st[moves.S_LOAD] for st in steps} == {0, 1}
    after, _ = after_step(t, pos, 0, next(st for st in steps if st[moves.S_LOAD]))
    assert after[6 + 0] == 0 and after[12] == -1  # ship 0 carries treasure 0, off its island


def test_carrier_moves_only_towards_or_along_its_home_side():
    t = tables()
    pos = position(t, {0: (8, 4), 3: (9, 16)}, carrying={0: 0})
    got = single_dests(t, pos, 0, 1, 0)
    assert got == {(7, 4), (8, 5), (8, 3)}  # north, east, west; never south (away from row 0)
    assert (9, 4) in single_dests(t, position(t, {0: (8, 4), 3: (9, 16)}), 0, 1, 0)


def test_carrier_anchor_rule_switch():
    t = tables(carrier_rule="anchor")
    pos = position(t, {0: (8, 4), 3: (9, 16)}, carrying={0: 0})
    assert single_dests(t, pos, 0, 1, 0) == {(7, 4), (8, 3)}  # towards (0,0) on both axes


def test_carrier_trade_wind_diagonal_not_away_from_home():
    t = tables()
    pos = position(t, {0: (5, 4), 3: (9, 16)}, carrying={0: 0})
    got = single_dests(t, pos, 0, 1, 0)
    assert {(5, 3), (5, 5)} <= got
    assert not {(6, 5), (6, 3), (6, 4)} & got


def test_carrier_may_use_the_strait_to_cross_sides():
    t = tables()
    pos = position(t, {0: (9, 8), 3: (9, 16)}, carrying={0: 0})
    assert t.board.cells[N(t, 11, 8)][0] in finals(t, pos, 0, (1, 1), 0)  # the strait square
    got = single_dests(t, position(t, {0: (0, 8), 3: (9, 16)}, carrying={0: 0}), 0, 2, 0)
    assert (0, 6) in got and (9, 8) in got and (2, 8) not in got


def test_boarding_sinks_and_takes_the_treasure():
    t = tables()
    pos = position(t, {0: (3, 3), 3: (3, 5)}, carrying={3: 0})
    after, _ = after_step(t, pos, 0, leg(t, pos, 0, (3, 5)))
    assert after[3] == -1 and after[6 + 0] == 0 and after[6 + 3] == -1


def test_winning_move_ends_the_turn_at_once():
    t = tables()
    pos = position(t, {0: (0, 3), 3: (9, 16)}, carrying={0: 0})
    won = [o for o in options(t, pos, 0, (3, 5)) if o[3] == 3]
    assert won and {o[0][0] for o in won} == {t.board.anchor_node[t.ship_home[0]]}
    # one leg of 3 west reaches the anchor: the 5 is never played after it
    assert after_step(t, pos, 0, leg(t, pos, 0, (0, 0)))[1] == 1


def test_sinking_the_last_opponent_ship_wins():
    t = tables()
    pos = position(t, {0: (3, 3), 3: (3, 5)})
    assert any(o[3] == 3 for o in options(t, pos, 0, (2, 6)))
    assert after_step(t, pos, 0, leg(t, pos, 0, (3, 5)))[1] == 1


def test_wrecks_block_passing_and_ending():
    rules = _with(STANDARD.rules, shipwreck={"enabled": True})
    t = build_tables(rules, 2)
    pos = position(t, {0: (3, 3), 3: (3, 5), 4: (9, 16)})
    boarded = [o for o in options(t, pos, 0, (2, 6)) if o[0][3] == -1]
    assert boarded  # the wreck left on (3,5) blocks the 6 east of it: checked by the oracle
    pos2 = position(t, {1: (3, 3), 4: (9, 16)}, wrecks=[(3, 5)])
    assert not {(3, 6), (3, 5)} & (single_dests(t, pos2, 0, 3, 1) | single_dests(t, pos2, 0, 2, 1))


def test_fleet_moves_as_one_joins_and_is_sunk_whole():
    rules = _with(STANDARD.rules, fleet={"enabled": True})
    t = build_tables(dataclasses.replace(rules, start="fleet"), 2)
    pos = position(t, {0: (3, 3), 1: (3, 3), 2: (3, 6), 3: (9, 16)})
    steps = engine_steps(t, pos, 0, (3,))
    assert any(st[moves.S_MODE] == 1 and st[moves.S_SHIP] == 0 for st in steps)  # the fleet
    joins = [st for st in steps if st[moves.S_SHIP] == 2 and st[moves.S_DEST] == N(t, 3, 3)]
    assert joins  # ship 2 joins the fleet
    options(t, pos, 0, (3, 4))  # the oracle agrees on fleets
    enemy = position(t, {0: (3, 3), 1: (3, 3), 3: (3, 5), 4: (9, 16)})
    after, _ = after_step(t, enemy, 1, leg(t, enemy, 3, (3, 3)))
    assert after[0] == after[1] == -1
    t1 = build_tables(_with(rules, fleet={"sink": "one"}), 2)
    after1, _ = after_step(t1, enemy, 1, leg(t1, enemy, 3, (3, 3)))
    assert sorted([after1[0], after1[1]]).count(-1) == 1


CASES = (
    [((), 4), ((), 2)]
    + [((v,), None) for v in variant_names()]
    + [(("shipwreck", "fleet", "cyclone"), 3)]
)


def random_position(t, rng):
    """Ships scattered on free squares (some sunk, some stacked in the fleet variant), maybe a
    carrier, maybe wrecks."""
    n_nodes, ships = t.board.num_nodes, len(t.ship_owner)
    row = np.full(t.width, -1, dtype=np.int64)
    taken = {}
    for s in range(ships):
        if rng.random() < 0.2:
            continue
        for _ in range(50):
            n = int(rng.integers(n_nodes))
            fleet = t.rules.fleet.enabled and t.ship_owner[taken.get(n, s)] == t.ship_owner[s]
            if n not in taken or fleet:
                taken.setdefault(n, s)
                row[s] = n
                break
    for k in range(t.num_treasures):
        row[2 * ships + k] = k
        alive = [s for s in range(ships) if row[s] >= 0 and row[ships + s] < 0]
        if alive and rng.random() < 0.5:
            row[ships + alive[int(rng.integers(len(alive)))]] = k
            row[2 * ships + k] = -1
    wreck = np.zeros(n_nodes, dtype=np.int64)
    if t.rules.shipwreck.enabled:
        wreck[[n for n in rng.integers(n_nodes, size=3) if n not in row[:ships]]] = 1
    return row, wreck


@pytest.mark.parametrize(
    "variants, players", CASES, ids=lambda x: "+".join(x) if isinstance(x, tuple) else str(x)
)
def test_engine_outcomes_equal_the_oracle(variants, players):
    """Exact: on random positions of the base game, every variant and a combination, the engine
    offers exactly the distinct outcomes (and dice used) the brute-force oracle finds."""
    sc = load_hunt(None, list(variants))
    players = players or (2 if sc.rules.kingdoms.mode != "none" else sc.rules.default_players)
    t = build_tables(sc.rules, players)
    n_dice = int(t.P[packed.P_NDICE])
    rng = np.random.default_rng(7)
    compared = 0
    for i in range(25 if n_dice <= 3 else 6):
        pos = initial_position(t) if i == 0 else random_position(t, rng)
        seat = int(rng.integers(players))
        ns = len(t.ship_owner)
        alive = {t.ship_owner[s] for s in range(ns) if pos[0][s] >= 0}
        home = any(
            pos[0][ns + s] >= 0 and pos[0][s] == t.board.anchor_node[t.ship_home[s]]
            for s in range(ns)
        )
        if seat not in alive or len(alive) < 2 or home:
            continue  # positions no game reaches (already over)
        dice = tuple(sorted(int(x) for x in rng.integers(1, 7, size=n_dice)))
        assert options(t, pos, seat, dice), (i, seat, dice)
        compared += 1
    assert compared >= (10 if n_dice <= 3 else 3)


# --- issue 14: the three bugs ----------------------------------------------------------------


def _with(rules, **tables):
    return dataclasses.replace(
        rules, **{k: dataclasses.replace(getattr(rules, k), **v) for k, v in tables.items()}
    )


def test_strait_switch_is_blocked_by_an_opponent_or_a_wreck_on_the_other_strait():
    """A ship on one strait square leaves from the other strait square's halves only when that
    square could be passed over: no opponent (nor an own ship when own ships may not be passed)
    and no wreck on it. (0,11) is reachable from (0,8) with a 1 and a 1 only through (0,9)."""
    rules = _with(STANDARD.rules, shipwreck={"enabled": True})
    t = build_tables(rules, 2)
    t_no_pass = build_tables(_with(rules, movement={"pass_own_ships": False}), 2)
    cases = [
        (t, position(t, {0: (0, 8), 3: (9, 16)}), False),
        (t, position(t, {0: (0, 8), 3: (9, 16)}, wrecks=[(0, 9)]), True),
        (t, position(t, {0: (0, 8), 3: (11, 9)}), True),  # an opponent on the other strait
        (t, position(t, {0: (0, 8), 1: (0, 9), 3: (9, 16)}), False),  # an own ship: passed
        (t_no_pass, position(t_no_pass, {0: (0, 8), 1: (0, 9), 3: (9, 16)}), True),
    ]
    for tt, pos, blocked in cases:
        assert ((0, 10) in single_dests(tt, pos, 0, 1, 0)) is not blocked
        assert (1, 8) in single_dests(tt, pos, 0, 1, 0)  # its own halves stay open
        assert ((0, 11) in finals(tt, pos, 0, (1, 1), 0)) is not blocked, (pos, blocked)


def _fleet(sink):
    rules = _with(
        STANDARD.rules, fleet={"enabled": True, "sink": sink}, shipwreck={"enabled": True}
    )
    rules = dataclasses.replace(rules, start="fleet")
    return rules, build_tables(rules, 2)


def _no_shared_squares(t, outcome):
    owners = {}
    for s, n in enumerate(outcome[0]):
        if n >= 0:
            owners.setdefault(n, set()).add(t.ship_owner[s])
    return all(len(o) == 1 for o in owners.values())


@pytest.mark.parametrize(
    "others, wrecks, survivor_at",
    [
        ({}, [], (0, 0)),  # home anchor free
        ({5: (0, 0)}, [], (0, 1)),  # an opponent on the anchor: the first free berth
        ({5: (0, 0)}, [(0, 1)], (1, 0)),  # ... a wreck on the first berth: the next one
        ({5: (0, 0), 2: (0, 1)}, [], (0, 1)),  # an own ship there: the survivor joins it
        ({5: (0, 0)}, [(0, 1), (1, 0), (1, 1)], None),  # no free home square: sunk
    ],
)
def test_fleet_sink_one_survivors_flee_home(others, wrecks, survivor_at):
    """Fleet variant, ``sink = "one"``: the boarder sinks one ship (the carrier first) and the
    rest of the fleet flees to its home anchor, else the first berth of its home port free of
    other players' ships and of wrecks (sunk when there is none), so no two players ever share a
    square. Seat 1's ship 3 boards with the 2, ship 4 takes the 5."""
    _rules, t = _fleet("one")
    pos = position(t, {0: (3, 3), 1: (3, 3), 3: (3, 5), 4: (9, 16), **others}, {1: 0}, wrecks)
    outcomes = options(t, pos, 1, (2, 5))
    boarded = [  # ship 3 boarded and the blockers stayed (ship 4 took the 5)
        o
        for o in outcomes
        if o[0][3] == N(t, 3, 3) and all(o[0][s] == N(t, *rc) for s, rc in others.items())
    ]
    assert boarded and all(_no_shared_squares(t, o) for o in outcomes)
    expect = -1 if survivor_at is None else N(t, *survivor_at)
    for o in boarded:
        assert o[0][1] == -1 and o[1][3] == 0  # the carrier sank, the boarder took the treasure
        assert o[0][0] == expect
    after, _ = after_step(t, pos, 1, leg(t, pos, 3, (3, 3)))
    assert after[0] == expect and after[1] == -1


def test_fleet_units_are_the_players_own_ships():
    """The bug of issue 14: with survivors left on the boarder's square, the mover was offered
    the opponent's ships. Every step moves only the mover's ships."""
    _rules, t = _fleet("one")
    pos = position(t, {0: (3, 3), 1: (3, 3), 2: (3, 3), 3: (3, 5), 4: (9, 16)})
    after = (after_step(t, pos, 1, leg(t, pos, 3, (3, 3)))[0], pos[1])
    for seat in (0, 1):
        for st in engine_steps(t, after, seat, (1, 2)):
            assert t.ship_owner[st[moves.S_SHIP]] == seat
