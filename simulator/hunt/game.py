"""One game of Les Pirates: set-up, the turn loop and the per-turn variants.

Notes sections *Board* (set-up, seat order), *Movement* (a turn), *Win* (end, stalemate) and the
variants that act on a whole turn: 1 devil's island and 9 fleet (set-up), 2 cyclone (extra die,
equal dice lose the ship farthest from its port), 5 fire ship (before the roll), 6 one-two (roll
again). Moves themselves are in :mod:`simulator.hunt.moves`.

Seat 0 moves first (it stands for the winner of the opening roll-off); play passes to seat 1, 2...
which is clockwise by the order of the ``seats`` table. A game that reaches ``max_turns`` player
turns is a stalemate (recorded, never dropped); one where every ship is gone (a fire ship can do
that) is a draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import ceil

import numpy as np

from simulator.hunt.board import ANCHORAGE, DIRS, ORTHO, SEA
from simulator.hunt.moves import Option, State, Tables, has_won, turn_options

END_WIN, END_STALEMATE, END_DRAW = "win", "stalemate", "draw"


#: The invariants :func:`check_state` enforces, numbered from 1; the compiled engine's checker
#: (:func:`simulator.hunt.fast.game.check_state`) returns the same numbers.
INVARIANTS = (
    "every ship is on a square of the board or sunk",
    "a sunk ship stays sunk",
    "a sunk ship carries no treasure",
    "no square holds ships of two players",
    "no square holds two ships outside the fleet variant",
    "each treasure is on its island or aboard exactly one ship",
    "no wrecks outside the shipwreck variant",
    "a wreck stays where it is",
)


class IllegalState(AssertionError):
    """The engine produced a state the rules forbid (raised by :func:`check_state`).

    ``code`` is the invariant's number (1-based index into :data:`INVARIANTS`, 0 for a player
    choosing an action it does not have); :func:`play_game` sets ``turn`` (0: the set-up).
    """

    def __init__(self, code: int, detail: str = ""):
        self.code = code
        self.detail = detail
        self.turn: int | None = None
        what = INVARIANTS[code - 1] if code >= 1 else "a player chose an action it does not have"
        super().__init__(f"invariant {code} broken: {what}" + (f" ({detail})" if detail else ""))

    def __reduce__(self):
        return (IllegalState, (self.code, self.detail))


@dataclass(frozen=True, slots=True)
class Observation:
    """What a player sees: the static tables, the current state, who it is, the turn number."""

    tables: Tables
    state: State
    seat: int
    turn: int


@dataclass(slots=True)
class GameRecord:
    """Outcome and counters of one game."""

    winner: int = -1  # seat, -1 when none
    end: str = END_STALEMATE
    turns: int = 0  # player turns played
    sunk_by: list = field(
        default_factory=list
    )  # seat -> opponents' ships it sank (boarding or explosion)
    lost: list = field(default_factory=list)  # seat -> own ships lost (any cause)
    boardings: int = 0
    explosions: int = 0  # fire ships used
    exploded: int = 0  # ships destroyed by explosions (not counting the fire ship)
    cyclone_losses: int = 0
    rerolls: int = 0  # one-two extra rolls
    loads: int = 0  # treasure loaded from an island
    wrecks: int = 0  # wreck squares at the end
    max_fleet: int = 1  # largest stack seen


class DiceBag:
    """Dice drawn in blocks from one generator (fast, and the same draws for the same seed)."""

    __slots__ = ("buf", "pos", "rng", "sides")

    def __init__(self, rng: np.random.Generator, sides: int):
        self.rng, self.sides, self.buf, self.pos = rng, sides, [], 0

    def roll(self, k: int) -> tuple[int, ...]:
        if self.pos + k > len(self.buf):
            self.buf = self.rng.integers(1, self.sides + 1, size=4096).tolist()
            self.pos = 0
        out = tuple(self.buf[self.pos : self.pos + k])
        self.pos += k
        return out


def initial_state(t: Tables, rules) -> State:
    """Ships on their berths (base), or per variant 1 (devil's island) or 9 (fleet)."""
    b = t.board
    ship_node = [-1] * len(t.ship_owner)
    taken: set[int] = set()
    away: list[tuple[int, int]] = []  # (ship, port) still to place on an anchorage
    for _seat, ships in enumerate(t.seat_ships):
        by_port: dict[int, list[int]] = {}
        for s in ships:
            by_port.setdefault(t.ship_home[s], []).append(s)
        for port, group in by_port.items():
            if rules.start == "fleet":
                for s in group:
                    ship_node[s] = b.anchor_node[port]
                continue
            in_port = group if rules.start == "berths" else group[: rules.devil_ships_in_port]
            for s, berth in zip(in_port, b.berth_nodes[port]):
                ship_node[s] = berth
            away.extend((s, port) for s in group[len(in_port) :])
    # devil's island: round-robin in seat order, each ship takes the free anchorage nearest its
    # anchor
    rounds: dict[int, list] = {}
    for s, port in away:
        rounds.setdefault(port, []).append(s)
    order = [p for ports in t.seat_ports for p in ports]
    while any(rounds.get(p) for p in order):
        for p in order:
            if rounds.get(p):
                s = rounds[p].pop(0)
                anchor = b.anchor_node[p]
                free = [a for a in b.anchorage_nodes if a not in taken]
                best = min(free, key=lambda a: (t.dist[anchor][a], a))
                taken.add(best)
                ship_node[s] = best
    n_ships = len(ship_node)
    return State(tuple(ship_node), (-1,) * n_ships, tuple(range(t.num_treasures)), frozenset())


def alive_seats(t: Tables, st: State) -> list[int]:
    seats = sorted({t.ship_owner[s] for s, n in enumerate(st.ship_node) if n >= 0})
    return seats


def cyclone_victim(t: Tables, st: State, seat: int) -> int:
    """The seat's ship farthest from its home anchor by path distance (lowest number on ties)."""
    best, best_d = -1, -1
    for s in t.seat_ships[seat]:
        n = st.ship_node[s]
        if n < 0:
            continue
        d = t.dist[t.board.anchor_node[t.ship_home[s]]][n]
        if d > best_d:
            best, best_d = s, d
    return best


def remove_ships(st: State, ships: Sequence[int], wreck: bool) -> State:
    """Sink ``ships`` where they are; a sunk carrier's treasure goes back to its island."""
    ship_node = list(st.ship_node)
    carrying = list(st.carrying)
    treasure = list(st.treasure_island)
    wrecks = set(st.wrecks)
    for s in ships:
        if ship_node[s] < 0:
            continue
        if wreck:
            wrecks.add(ship_node[s])
        ship_node[s] = -1
        if carrying[s] >= 0:
            treasure[carrying[s]] = carrying[s]
            carrying[s] = -1
    return State(tuple(ship_node), tuple(carrying), tuple(treasure), frozenset(wrecks))


def fire_ship_targets(t: Tables, st: State, ship: int, length: int) -> list[int]:
    """Open-sea squares exactly ``length`` away in a straight orthogonal line, over free sea."""
    b = t.board
    node = st.ship_node[ship]
    occupied = {n for n in st.ship_node if n >= 0}
    out = []
    for r, c in b.cells[node]:
        for d in ORTHO:
            dr, dc = DIRS[d]
            ok = True
            m = -1
            for k in range(1, length + 1):
                m = b.cell_node.get((r + dr * k, c + dc * k), -1)
                if m < 0 or b.kind[m] not in (SEA, ANCHORAGE) or m in st.wrecks:
                    ok = False
                    break
                if k < length and m in occupied:
                    ok = False
                    break
            if ok and m not in out:
                out.append(m)
    return out


def explosion_victims(t: Tables, st: State, centre: int, radius: int) -> list[int]:
    """Every ship (any owner) within Chebyshev ``radius`` of the centre node's squares."""
    b = t.board
    ccells = b.cells[centre]
    out = []
    for s, n in enumerate(st.ship_node):
        if n < 0:
            continue
        if any(
            max(abs(r - cr), abs(c - cc)) <= radius for (r, c) in b.cells[n] for (cr, cc) in ccells
        ):
            out.append(s)
    return out


def check_state(t: Tables, st: State, before: State | None = None) -> None:
    """Raise :class:`IllegalState` when ``st`` breaks an invariant of the rules."""
    n_nodes = t.board.num_nodes
    owners: dict[int, set] = {}
    count: dict[int, int] = {}
    for s, n in enumerate(st.ship_node):
        if not -1 <= n < n_nodes:
            raise IllegalState(1, f"ship {s} on node {n}")
        if before is not None and before.ship_node[s] < 0 and n >= 0:
            raise IllegalState(2, f"ship {s}")
        if n < 0:
            if st.carrying[s] >= 0:
                raise IllegalState(3, f"ship {s}")
            continue
        owners.setdefault(n, set()).add(t.ship_owner[s])
        count[n] = count.get(n, 0) + 1
    for n, o in owners.items():
        if len(o) > 1:
            raise IllegalState(4, f"{t.board.node_name(n)} holds ships of seats {sorted(o)}")
        if count[n] > 1 and not t.fleet:
            raise IllegalState(5, f"{t.board.node_name(n)} holds {count[n]} ships")
    for k in range(t.num_treasures):
        aboard = [s for s, c in enumerate(st.carrying) if c == k]
        on_island = st.treasure_island[k] == k
        if len(aboard) + on_island != 1:
            raise IllegalState(6, f"treasure {k}: {len(aboard)} carriers, on island {on_island}")
        if st.treasure_island[k] not in (-1, k):
            raise IllegalState(6, f"treasure {k} on the wrong island")
    if st.wrecks and not t.wrecks:
        raise IllegalState(7, f"{len(st.wrecks)} wreck(s)")
    if before is not None and not before.wrecks <= st.wrecks:
        raise IllegalState(8)


TurnHook = Callable[[State, int, tuple, Option], None]


def play_game(
    t: Tables,
    rules,
    policies: Sequence,
    dice_rng: np.random.Generator,
    policy_rng: np.random.Generator,
    check: bool = False,
    on_turn: TurnHook | None = None,
    start: State | None = None,
) -> GameRecord:
    """Play one game; ``policies[seat]`` chooses for each seat.

    Args:
        t: compiled tables for the rules and player count.
        rules: the :class:`~simulator.hunt.rules.HuntRules` (variant switches).
        policies: one policy object per seat (see :mod:`simulator.hunt.players`).
        dice_rng: generator for every die of the game.
        policy_rng: generator handed to the players (they never see the dice generator).
        check: run :func:`check_state` after every change; an :class:`IllegalState` it raises
            carries the turn (``exc.turn``, 0 for the set-up).
        on_turn: called as ``on_turn(state_before, seat, dice, option_chosen)`` for every roll
            played.
        start: the position to start from (default: :func:`initial_state`).
    """
    rec = GameRecord(sunk_by=[0] * t.num_players, lost=[0] * t.num_players)
    try:
        return _play(t, rules, policies, dice_rng, policy_rng, check, on_turn, start, rec)
    except IllegalState as exc:
        exc.turn = rec.turns
        raise


def _play(t, rules, policies, dice_rng, policy_rng, check, on_turn, start, rec) -> GameRecord:
    n_seats = t.num_players
    st = initial_state(t, rules) if start is None else start
    if check:
        check_state(t, st)
    bag = DiceBag(dice_rng, rules.die_sides)
    n_dice = rules.num_dice + (rules.cyclone.extra_dice if rules.cyclone.enabled else 0)
    cyc = rules.cyclone
    fire = rules.fire_ship
    one_two = rules.one_two
    wreck_on_sink = rules.shipwreck.enabled
    seat = 0
    owner = t.ship_owner

    def finish(state: State, mover: int) -> bool:
        if has_won(t, state, mover):
            rec.winner, rec.end = mover, END_WIN
            return True
        alive = alive_seats(t, state)
        if len(alive) == 1:
            rec.winner, rec.end = alive[0], END_WIN
            return True
        if not alive:
            rec.winner, rec.end = -1, END_DRAW
            return True
        return False

    def count_losses(before: State, after: State, by: int | None) -> int:
        lost = 0
        for s, (a, b) in enumerate(zip(before.ship_node, after.ship_node)):
            if a >= 0 and b < 0:
                rec.lost[owner[s]] += 1
                if by is not None and owner[s] != by:
                    rec.sunk_by[by] += 1
                    lost += 1
        return lost

    while True:
        if rec.turns >= rules.max_turns:
            rec.end, rec.winner = END_STALEMATE, -1
            break
        if not any(st.ship_node[s] >= 0 for s in t.seat_ships[seat]):
            seat = (seat + 1) % n_seats
            continue
        rec.turns += 1
        policy = policies[seat]
        done = False
        if fire.enabled:
            obs = Observation(t, st, seat, rec.turns)
            ship = policy.fire_ship(obs, policy_rng)
            if ship is not None:
                if owner[ship] != seat or st.ship_node[ship] < 0:
                    raise IllegalState(0, f"seat {seat} chose ship {ship} as fire ship")
                dice = bag.roll(fire.dice)
                targets = fire_ship_targets(t, st, ship, sum(dice))
                centre = st.ship_node[ship]
                low = min(dice)
                radius = ceil(low / 2) if fire.radius == "half" else low
                if targets:
                    centre = targets[policy.fire_target(obs, ship, targets, radius, policy_rng)]
                moved = st._replace(
                    ship_node=st.ship_node[:ship] + (centre,) + st.ship_node[ship + 1 :]
                )
                victims = explosion_victims(t, moved, centre, radius)
                before = st
                st = remove_ships(moved, victims, wreck_on_sink)
                rec.explosions += 1
                rec.exploded += count_losses(before, st, seat)
                if check:
                    check_state(t, st, before)
                done = finish(st, seat)
                if done:
                    break
                if fire.ends_turn:
                    seat = (seat + 1) % n_seats
                    continue
        extra_roll = True
        first_roll = True
        while extra_roll:
            extra_roll = False
            dice = bag.roll(n_dice)
            if cyc.enabled and max(dice.count(v) for v in set(dice)) >= cyc.equal_dice:
                victim = cyclone_victim(t, st, seat)
                before = st
                st = remove_ships(st, [victim], False)
                rec.cyclone_losses += 1
                count_losses(before, st, None)
                if check:
                    check_state(t, st, before)
                if finish(st, seat):
                    done = True
                    break
                if not cyc.play_roll_after_loss or not any(
                    st.ship_node[s] >= 0 for s in t.seat_ships[seat]
                ):
                    break
            options = turn_options(t, st, seat, dice)
            if len(options) == 1:
                choice = options[0]
            else:
                obs = Observation(t, st, seat, rec.turns)
                choice = options[policy.choose(obs, options, policy_rng)]
            if on_turn is not None:
                on_turn(st, seat, dice, choice)
            before = st
            st = choice.state
            for step in choice.steps:
                if step.load:
                    rec.loads += 1
            if t.fleet:
                for s in t.seat_ships[seat]:
                    n = st.ship_node[s]
                    if n >= 0:
                        k = st.ship_node.count(n)
                        if k > rec.max_fleet:
                            rec.max_fleet = k
            rec.boardings += count_losses(before, st, seat)
            if check:
                check_state(t, st, before)
            if choice.won or finish(st, seat):
                if choice.won:
                    rec.winner, rec.end = seat, END_WIN
                done = True
                break
            if one_two.enabled and 1 in dice and 2 in dice and (first_roll or one_two.chain):
                extra_roll = True
                first_roll = False
                rec.rerolls += 1
        if done:
            break
        seat = (seat + 1) % n_seats
    rec.wrecks = len(st.wrecks)
    return rec
