"""Les Pirates movement rules, one test per rule of the notes, on constructed positions."""

from __future__ import annotations

import dataclasses

import pytest
from hunt_support import compiled_outcomes, python_outcomes

from scenarios.loader import load_scenario
from simulator.hunt.moves import (
    State,
    Step,
    apply_step,
    build_tables,
    occupancy,
    turn_options,
    unit_steps,
)
from simulator.hunt.rules import HuntRules

STANDARD = load_scenario("standard", HuntRules)


def tables(players=2, **movement):
    rules = STANDARD.rules
    if movement:
        rules = dataclasses.replace(rules, movement=dataclasses.replace(rules.movement, **movement))
    return build_tables(rules, players)


def N(t, r, c):
    return t.board.cell_node[(r, c)]


def position(t, ships: dict, carrying: dict | None = None, treasure_on_island=True, wrecks=()):
    """``ships``: ship id -> (row, col); every other ship is sunk."""
    node = [-1] * len(t.ship_owner)
    for s, rc in ships.items():
        node[s] = N(t, *rc)
    carry = [-1] * len(t.ship_owner)
    for s, k in (carrying or {}).items():
        carry[s] = k
    treasure = (0,) if treasure_on_island and not carrying else (-1,)
    return State(tuple(node), tuple(carry), treasure, frozenset(N(t, *w) for w in wrecks))


def cells(t, nodes):
    return {t.board.cells[n][0] for n in nodes}


def single_dests(t, st, player, die, ship):
    occ = occupancy(t, st)
    return {
        t.board.cells[step.dest][0]
        for step, _ in unit_steps(t, st, player, (die,), occ)
        if step.ships == (ship,)
    }


def finals(t, st, player, dice, ship):
    """Cells where ``ship`` can end the turn."""
    return {t.board.cells[o.state.ship_node[ship]][0] for o in turn_options(t, st, player, dice)}


# seat 0 owns ships 0-2 (port 1, north-west), seat 1 owns ships 3-5 (port 4, south-east)


def test_each_die_is_one_straight_orthogonal_leg():
    t = tables()
    st = position(t, {0: (3, 3), 3: (9, 14)})
    # die 2 from (3,3): north (1,3), east (3,5), west (3,1); south (5,3) is a trade wind (sum only)
    assert single_dests(t, st, 0, 2, 0) == {(1, 3), (3, 5), (3, 1)}


def test_two_dice_one_ship_angle_same_or_opposite_direction():
    t = tables()
    st = position(t, {0: (2, 4), 3: (9, 14)})
    got = finals(t, st, 0, (1, 2), 0)
    assert (1, 6) in got  # angle: north 1, east 2
    assert (2, 7) in got  # same direction: east 1 then east 2
    assert (2, 5) in got  # opposite: east 2, west 1
    assert (0, 4) not in got  # three north needs one leg of 1 and one of 2: (0,4)... is row -1
    assert (2, 4) not in got  # both dice must be used (1 and 2 cannot cancel)


def test_two_dice_one_each_on_two_ships():
    t = tables()
    st = position(t, {0: (2, 4), 1: (8, 12), 3: (9, 16)})
    opts = turn_options(t, st, 0, (1, 3))
    pairs = {
        (t.board.cells[o.state.ship_node[0]][0], t.board.cells[o.state.ship_node[1]][0])
        for o in opts
    }
    assert ((1, 4), (8, 15)) in pairs  # ship 0 north 1, ship 1 east 3
    assert ((2, 7), (9, 12)) in pairs  # ship 0 east 3, ship 1 south 1


def test_must_use_both_dice_when_possible():
    t = tables()
    # ship 0 at (0,2): die 6 east would cross the strait (forbidden), die 6 south hits the trade
    # winds; moving east 4 to (0,6) first and then west 6 to the anchor uses both dice.
    st = position(t, {0: (0, 2), 3: (9, 16)})
    opts = turn_options(t, st, 0, (4, 6))
    assert opts and all(o.dice_used == 2 for o in opts)
    # the one-die dead end (south 4 to (4,2), after which no 6 fits) is not offered
    assert all(t.board.cells[o.state.ship_node[0]][0] != (4, 2) for o in opts)
    occ = occupancy(t, st)
    first = {t.board.cells[s.dest][0] for s, _ in unit_steps(t, st, 0, (4, 6), occ)}
    assert (4, 2) in first


def test_one_die_when_both_cannot_be_used_and_pass_when_none():
    t = tables()
    # ship on the trade wind (5,2) with 4 and 6: east 4 inside the zone to (5,6) is the only use of
    # a die; the 6 then fits nowhere, and leaving by the sum 10 runs off the board
    st = position(t, {0: (5, 2), 3: (9, 16)})
    opts = turn_options(t, st, 0, (4, 6))
    assert len(opts) == 1 and opts[0].dice_used == 1
    assert cells(t, [opts[0].state.ship_node[0]]) == {(5, 6)}
    # ship on (0,2): a 6 east would end on the strait (sum only), south on a trade wind: no move
    st3 = position(t, {0: (0, 2), 3: (9, 16)})
    opts = turn_options(t, st3, 0, (6, 6))
    assert len(opts) == 1 and opts[0].dice_used == 0 and opts[0].steps == ()


def test_trade_wind_entered_only_by_exact_sum_of_both_dice():
    t = tables()
    st = position(t, {0: (3, 3), 3: (9, 16)})
    assert (5, 3) in finals(t, st, 0, (1, 1), 0)  # sum 2 lands exactly on the trade wind
    assert (5, 3) not in single_dests(t, st, 0, 2, 0)  # a single die of 2 may not
    assert (5, 3) not in finals(t, st, 0, (2, 4), 0)
    assert (6, 3) not in finals(t, st, 0, (1, 2), 0)  # no passing over a trade wind square either


def test_trade_wind_diagonal_and_leaving_by_the_sum():
    t = tables()
    st = position(t, {0: (5, 3), 3: (9, 16)})
    assert {(6, 4), (6, 2), (5, 4), (5, 2), (6, 3)} <= single_dests(t, st, 0, 1, 0)
    assert (4, 3) not in single_dests(t, st, 0, 1, 0)  # leaving takes both dice
    got = finals(t, st, 0, (1, 2), 0)
    assert (2, 3) in got  # leave north by the sum 3
    assert (8, 3) not in got  # south the first step stays in the zone: a leg inside it, not out
    assert (9, 3) in finals(t, position(t, {0: (6, 3), 3: (9, 16)}), 0, (1, 2), 0)
    assert (4, 4) not in single_dests(t, st, 0, 1, 0)  # no diagonal out of the zone


def test_trade_wind_orthogonal_switch():
    t = tables(trade_wind_orthogonal=False)
    st = position(t, {0: (5, 3), 3: (9, 16)})
    assert single_dests(t, st, 0, 1, 0) == {(6, 4), (6, 2)}


def test_strait_entered_only_by_exact_sum():
    t = tables()
    st = position(t, {0: (3, 8), 3: (9, 16)})
    strait = t.board.cell_node[(0, 8)]
    assert any(o.state.ship_node[0] == strait for o in turn_options(t, st, 0, (1, 2)))
    assert not any(o.state.ship_node[0] == strait for o in turn_options(t, st, 0, (3, 4)))
    assert (0, 8) not in single_dests(t, st, 0, 3, 0)


def test_strait_joins_both_long_sides_and_switching_is_free():
    t = tables()
    st = position(t, {0: (0, 8), 3: (9, 16)})
    assert t.board.cell_node[(0, 8)] == t.board.cell_node[(11, 8)]
    got = single_dests(t, st, 0, 2, 0)
    assert {(2, 8), (9, 8), (0, 6), (11, 6)} <= got  # out of either half
    assert {
        (2, 9),
        (9, 9),
        (0, 11),
        (11, 11),
    } <= got  # out of the other strait square (free switch)
    assert (1, 7) not in single_dests(t, st, 0, 1, 0) and (10, 7) not in single_dests(
        t, st, 0, 1, 0
    )


def test_no_diagonal_into_a_strait():
    t = tables()
    st = position(t, {0: (2, 6), 3: (9, 16)})
    strait = t.board.cell_node[(0, 8)]
    # (2,6) -> (0,8) is a diagonal of 2: never offered whatever the dice
    for dice in [(1, 1), (2, 2), (1, 3)]:
        assert not any(o.state.ship_node[0] == strait for o in turn_options(t, st, 0, dice))


def test_no_passing_over_an_opponent_but_boarding_it():
    t = tables()
    st = position(t, {0: (3, 3), 3: (3, 5)})
    got = single_dests(t, st, 0, 3, 0)
    assert (3, 6) not in got
    assert (3, 5) in single_dests(t, st, 0, 2, 0)


def test_passing_own_ships_switch():
    st_cells = {0: (3, 3), 1: (3, 5), 3: (9, 16)}
    t = tables()
    st = position(t, st_cells)
    assert (3, 6) in single_dests(t, st, 0, 3, 0)
    assert (3, 5) not in single_dests(t, st, 0, 2, 0)  # no ending on an own ship (no fleet)
    t2 = tables(pass_own_ships=False)
    st2 = position(t2, st_cells)
    assert (3, 6) not in single_dests(t2, st2, 0, 3, 0)


def test_treasure_loading_is_optional_at_an_anchorage():
    t = tables()
    st = position(t, {0: (2, 8), 3: (9, 16)})
    occ = occupancy(t, st)
    anch = t.board.cell_node[(4, 8)]
    steps = [s for s, _ in unit_steps(t, st, 0, (2,), occ) if s.dest == anch]
    assert {s.load for s in steps} == {True, False}
    loaded = apply_step(t, st, 0, next(s for s in steps if s.load))
    assert loaded.carrying[0] == 0 and loaded.treasure_island == (-1,)


def test_carrier_moves_only_towards_or_along_its_home_side():
    t = tables()
    st = position(t, {0: (8, 4), 3: (9, 16)}, carrying={0: 0})
    got = single_dests(t, st, 0, 1, 0)
    assert got == {(7, 4), (8, 5), (8, 3)}  # north, east, west; never south (away from row 0)
    st_free = position(t, {0: (8, 4), 3: (9, 16)})
    assert (9, 4) in single_dests(t, st_free, 0, 1, 0)


def test_carrier_anchor_rule_switch():
    t = tables(carrier_rule="anchor")
    st = position(t, {0: (8, 4), 3: (9, 16)}, carrying={0: 0})
    assert single_dests(t, st, 0, 1, 0) == {(7, 4), (8, 3)}  # towards anchor (0,0) on both axes


def test_carrier_trade_wind_diagonal_not_away_from_home():
    t = tables()
    st = position(t, {0: (5, 4), 3: (9, 16)}, carrying={0: 0})
    got = single_dests(t, st, 0, 1, 0)
    assert {(5, 3), (5, 5)} <= got
    assert (6, 5) not in got and (6, 3) not in got and (6, 4) not in got


def test_carrier_may_use_the_strait_to_cross_sides():
    t = tables()
    st = position(t, {0: (9, 8), 3: (9, 16)}, carrying={0: 0})
    strait = t.board.cell_node[(11, 8)]
    assert any(o.state.ship_node[0] == strait for o in turn_options(t, st, 0, (1, 1)))
    st2 = position(t, {0: (0, 8), 3: (9, 16)}, carrying={0: 0})
    got = single_dests(t, st2, 0, 2, 0)
    assert (0, 6) in got and (9, 8) in got and (2, 8) not in got


def test_boarding_sinks_and_takes_the_treasure():
    t = tables()
    st = position(t, {0: (3, 3), 3: (3, 5)}, carrying={3: 0})
    step = Step((0,), (2,), t.board.cell_node[(3, 5)], False)
    after = apply_step(t, st, 0, step)
    assert after.ship_node[3] == -1 and after.carrying[0] == 0 and after.carrying[3] == -1


def test_winning_move_ends_the_turn_at_once():
    t = tables()
    st = position(t, {0: (0, 3), 3: (9, 16)}, carrying={0: 0})
    opts = turn_options(t, st, 0, (3, 5))
    won = [o for o in opts if o.won]
    assert won and all(len(o.steps) == 1 for o in won)
    assert won[0].state.ship_node[0] == t.board.anchor_node[t.ship_home[0]]


def test_sinking_the_last_opponent_ship_wins():
    t = tables()
    st = position(t, {0: (3, 3), 3: (3, 5)})
    opts = turn_options(t, st, 0, (2, 6))
    assert any(o.won for o in opts)


def test_wrecks_block_passing_and_ending():
    rules = dataclasses.replace(
        STANDARD.rules, shipwreck=dataclasses.replace(STANDARD.rules.shipwreck, enabled=True)
    )
    t = build_tables(rules, 2)
    st = position(t, {0: (3, 3), 3: (3, 5), 4: (9, 16)})
    after = apply_step(t, st, 0, Step((0,), (2,), t.board.cell_node[(3, 5)], False))
    assert t.board.cell_node[(3, 5)] in after.wrecks
    st2 = position(t, {1: (3, 3), 4: (9, 16)}, wrecks=[(3, 5)])
    assert (3, 6) not in single_dests(t, st2, 0, 3, 1) and (3, 5) not in single_dests(
        t, st2, 0, 2, 1
    )


def test_fleet_moves_as_one_joins_and_is_sunk_whole():
    rules = STANDARD.rules
    rules = dataclasses.replace(
        rules, start="fleet", fleet=dataclasses.replace(rules.fleet, enabled=True)
    )
    t = build_tables(rules, 2)
    st = position(t, {0: (3, 3), 1: (3, 3), 2: (3, 6), 3: (9, 16)})
    occ = occupancy(t, st)
    steps = [s for s, _ in unit_steps(t, st, 0, (3,), occ)]
    assert any(s.ships == (0, 1) for s in steps)  # the fleet as one unit
    assert any(s.ships == (2,) and s.dest == t.board.cell_node[(3, 3)] for s in steps)  # joining
    enemy = position(t, {0: (3, 3), 1: (3, 3), 3: (3, 5), 4: (9, 16)})
    after = apply_step(t, enemy, 1, Step((3,), (2,), t.board.cell_node[(3, 3)], False))
    assert after.ship_node[0] == after.ship_node[1] == -1
    t1 = build_tables(
        dataclasses.replace(rules, fleet=dataclasses.replace(rules.fleet, sink="one")), 2
    )
    after1 = apply_step(t1, enemy, 1, Step((3,), (2,), t1.board.cell_node[(3, 3)], False))
    assert sorted([after1.ship_node[0], after1.ship_node[1]]).count(-1) == 1


# --- issue 14: the three bugs, each on both engines -------------------------------------------


def _with(rules, **tables):
    return dataclasses.replace(
        rules, **{k: dataclasses.replace(getattr(rules, k), **v) for k, v in tables.items()}
    )


def _both_engines(t, rules, st, seat, dice):
    py = python_outcomes(t, st, seat, dice)
    nb = compiled_outcomes(t, rules, st, seat, dice)
    assert py == nb
    return py


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
    for tt, st, blocked in cases:
        assert ((0, 10) in single_dests(tt, st, 0, 1, 0)) is not blocked
        assert ((1, 8) in single_dests(tt, st, 0, 1, 0)) is True  # its own halves stay open
        rr = rules if tt is t else _with(rules, movement={"pass_own_ships": False})
        ends = {o[0][0] for o in _both_engines(tt, rr, st, 0, (1, 1))}
        assert (N(tt, 0, 11) in ends) is not blocked, (st, blocked)


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
    square. Both engines; seat 1's ship 3 boards with the 2, ship 4 takes the 5."""
    rules, t = _fleet("one")
    ships = {0: (3, 3), 1: (3, 3), 3: (3, 5), 4: (9, 16), **others}
    st = position(t, ships, carrying={1: 0}, wrecks=wrecks)
    outcomes = _both_engines(t, rules, st, 1, (2, 5))
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
    after = apply_step(t, st, 1, Step((3,), (2,), N(t, 3, 3), False))
    assert after.ship_node[0] == expect and after.ship_node[1] == -1


def test_fleet_units_are_the_players_own_ships():
    """The bug of issue 14: with survivors left on the boarder's square, ``units()`` offered the
    opponent's ships to the mover. Now every option moves only the mover's ships."""
    rules, t = _fleet("one")
    st = position(t, {0: (3, 3), 1: (3, 3), 2: (3, 3), 3: (3, 5), 4: (9, 16)})
    after = apply_step(t, st, 1, Step((3,), (2,), N(t, 3, 3), False))
    occ = occupancy(t, after)
    for seat in (0, 1):
        for step, _ in unit_steps(t, after, seat, (1, 2), occ):
            assert all(t.ship_owner[s] == seat for s in step.ships)
