"""One game of Les Pirates: set-up, the turn loop, the variants acting on a whole turn.

Rules (``shared/rules/les-pirates.md``), *Board* (set-up, seat order), *Movement* (a turn), *Win*
(end, stalemate), variants 1 and 9 (set-up), 2 cyclone, 5 fire ship and 6 one-two. Moves are
in :mod:`simulator.hunt.moves`, choices in :mod:`simulator.hunt.players`. Seat 0 moves first (it
stands for the winner of the opening roll-off), then seat 1, 2... (clockwise by the ``seats``
table). A game reaching ``max_turns`` player turns is a stalemate (recorded, never dropped).

A game's position is ``G[NOW]`` and the one before the last change ``G[BEFORE]`` (rows as in
:mod:`simulator.hunt.packed`), its wrecks ``wreck[node]``. :func:`run_games` (what the API
calls) plays each game from two 64-bit seeds drawn from the block's generator (the dice and the
players' streams, :mod:`simulator.hunt.rng`); :func:`trace_game` also records every decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.hunt import moves
from simulator.hunt import packed as pk
from simulator.hunt.players import choose, fire_choice, fire_target, policy_arrays
from simulator.hunt.rng import randint

# Codes, constants at calls and the seat counter are int64, not literals: one compile per
# function (simulator.compiled.code; docs/DEVELOPING.md, as play_turn/play_roll's inlining).
NOW, BEFORE = compiled.codes(2)  # rows of the game's position buffer G
END_CODES = ("win", "stalemate", "draw")  # O_END values 0, 1, 2
END_WIN, END_STALEMATE, END_DRAW = 0, 1, 2

#: The invariants :func:`check_state` enforces, numbered from 1 (O_ERROR, ``--check``).
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
ERR_BUFFERS = 9  # O_ERROR: a roll had more distinct outcomes than the buffers hold

#: the record of a game: out[O_*] (the names the API's games table gives the columns), then
#: out[O_FIXED + seat] the opponents' ships the seat sank (boarding or explosion) and
#: out[O_FIXED + seats + seat] its own ships lost (any cause)
RECORD = (
    "winner",  # seat, -1 when none
    "end",  # END_CODES
    "turns",  # player turns played (a one-two extra roll is not a turn)
    "boardings",
    "explosions",  # fire ships used
    "exploded",  # opponent ships destroyed by explosions
    "cyclone_losses",
    "rerolls",  # one-two extra rolls
    "loads",  # treasures loaded from an island
    "wrecks",  # wreck squares at the end
    "max_fleet",  # largest stack seen
)
(O_WINNER, O_END, O_TURNS, O_BOARDINGS, O_EXPLOSIONS, O_EXPLODED, O_CYCLONE, O_REROLLS, O_LOADS,
 O_WRECKS, O_MAXFLEET) = range(len(RECORD))  # fmt: skip
O_ERROR = 11  # 0 fine, 1..8 the invariant broken (INVARIANTS), ERR_BUFFERS
O_TRACED = 12  # trace rows written
O_FIXED = 13

# a trace row: trace[i, T_*], then the dice (P_NDICE columns, unused ones -1), then the position
# after the event (packed position row)
T_KIND = 0  # T_ROLL, T_FIRE or T_CYCLONE
T_SEAT = 1  # the seat whose turn it is
T_SHIP = 2  # the fire ship, or the ship the cyclone took (-1 for a roll)
T_CENTRE = 3  # the node where the fire ship exploded
T_DICE = 4
T_ROLL, T_FIRE, T_CYCLONE = compiled.codes(3)


def initial_position(t) -> tuple[np.ndarray, np.ndarray]:
    """``(position row, wrecks)`` at the start. Rules, *Board*: each player's ships on its
    port's berths; variant 1 (devil's island): ``devil_ships_in_port`` in port, the others on
    island anchorages (decision: round-robin in seat order, each ship the free anchorage nearest
    its anchor, lowest node on ties); variant 9: every ship stacked on its anchor."""
    rules, b = t.rules, t.board
    node = [-1] * len(t.ship_owner)
    rounds: dict[int, list[int]] = {}  # port -> ships still to place on an anchorage
    for s, port in enumerate(t.ship_home):
        group = [x for x in t.seat_ships[t.ship_owner[s]] if t.ship_home[x] == port]
        k = group.index(s)
        if rules.start == "fleet":
            node[s] = b.anchor_node[port]
        elif rules.start == "berths" or k < rules.devil_ships_in_port:
            node[s] = b.berth_nodes[port][k]
        else:
            rounds.setdefault(port, []).append(s)
    order = [p for ports in t.seat_ports for p in ports]
    taken: set[int] = set()
    while any(rounds.get(p) for p in order):
        for p in order:
            if rounds.get(p):
                free = [a for a in b.anchorage_nodes if a not in taken]
                best = min(free, key=lambda a, p=p: (t.dist[b.anchor_node[p], a], a))
                taken.add(best)
                node[rounds[p].pop(0)] = best
    row = node + [-1] * len(node) + list(range(t.num_treasures))
    return np.array(row, dtype=np.int64), np.zeros(b.num_nodes, dtype=np.int64)


@njit(cache=True)
def afloat(P, G, row, seat):
    """The number of ``seat``'s ships afloat."""
    n = 0
    for s in range(P[P[pk.P_AT_SEAT_LO] + seat], P[P[pk.P_AT_SEAT_HI] + seat]):
        if G[row, s] >= 0:
            n += 1
    return n


@njit(cache=True)
def game_over(P, G, out):
    """Rules, *Win*: when one seat is left afloat it wins; when none is, a draw (decision).
    Sets ``out[O_END]``, ``out[O_WINNER]`` and returns True when the game is over."""
    n_alive, last = 0, -1
    for seat in range(P[pk.P_NSEATS]):
        if afloat(P, G, NOW, seat) > 0:
            n_alive, last = n_alive + 1, seat
    if n_alive > 1:
        return False
    out[O_END], out[O_WINNER] = (END_WIN, last) if n_alive == 1 else (END_DRAW, -1)
    return True


@njit(cache=True)
def check_state(P, G, wreck, wreck_before):
    """0 when ``G[NOW]`` keeps every invariant (:data:`INVARIANTS`) after ``G[BEFORE]``, else the
    number of the first one broken."""
    ns, n_nodes = P[pk.P_NSHIPS], P[pk.P_NNODES]
    for s in range(ns):
        n = G[NOW, s]
        if n < -1 or n >= n_nodes:
            return 1
        if G[BEFORE, s] < 0 and n >= 0:
            return 2
        if n < 0 and G[NOW, ns + s] >= 0:
            return 3
        for s2 in range(s + 1, ns):
            if n >= 0 and G[NOW, s2] == n:
                if P[P[pk.P_AT_OWNER] + s] != P[P[pk.P_AT_OWNER] + s2]:
                    return 4
                if P[pk.P_FLEET] == 0:
                    return 5
    for k in range(P[pk.P_NTRE]):
        aboard = 0
        for s in range(ns):
            if G[NOW, ns + s] == k:
                aboard += 1
        place = G[NOW, 2 * ns + k]
        if aboard + (place == k) != 1 or (place != k and place != -1):
            return 6
    for n in range(n_nodes):
        if wreck[n] and P[pk.P_WRECKS] == 0:
            return 7
        if wreck[n] < wreck_before[n]:
            return 8
    return 0


@njit(cache=True)
def checked(P, G, wreck, wreck_before, out):
    """With ``P[P_CHECK]``: record the first invariant broken; True when one is."""
    if P[pk.P_CHECK] == 1 and out[O_ERROR] == 0:
        out[O_ERROR] = check_state(P, G, wreck, wreck_before)
    return out[O_ERROR] != 0


@njit(cache=True)
def save_before(P, G, wreck, wreck_before):
    """``G[BEFORE] = G[NOW]``, and the wrecks when the invariants are checked."""
    for col in range(G.shape[1]):
        G[BEFORE, col] = G[NOW, col]
    for n in range(wreck.shape[0] if P[pk.P_CHECK] == 1 else 0):
        wreck_before[n] = wreck[n]


@njit(cache=True)
def count_losses(P, G, seat, out):
    """Ships sunk since ``G[BEFORE]``: each counts a loss for its owner and, when ``seat`` is not
    -1 and another player owns it, a sinking for ``seat``. Returns the sinkings."""
    n_seats = P[pk.P_NSEATS]
    sunk = 0
    for s in range(P[pk.P_NSHIPS]):
        if G[BEFORE, s] >= 0 and G[NOW, s] < 0:
            owner = P[P[pk.P_AT_OWNER] + s]
            out[O_FIXED + n_seats + owner] += 1
            if seat >= 0 and owner != seat:
                out[O_FIXED + seat] += 1
                sunk += 1
    return sunk


@njit(cache=True)
def remove_ship(P, G, wreck, s, make_wreck):
    """Sink ship ``s`` where it is (variants 2 and 5); its treasure goes back to its island."""
    ns = P[pk.P_NSHIPS]
    if G[NOW, s] < 0:
        return
    if make_wreck:
        wreck[G[NOW, s]] = 1
    G[NOW, s] = -1
    cargo = G[NOW, ns + s]
    if cargo >= 0:
        G[NOW, 2 * ns + cargo] = cargo
        G[NOW, ns + s] = -1


@njit(cache=True)
def trace_event(P, G, trace, out, kind, seat, ship, centre, dice):
    """Write one decision into ``trace`` (while rows are left)."""
    i = out[O_TRACED]
    if i >= min(P[pk.P_TRACE], trace.shape[0]):
        return
    trace[i, :] = -1
    trace[i, T_KIND], trace[i, T_SEAT] = kind, seat
    trace[i, T_SHIP], trace[i, T_CENTRE] = ship, centre
    trace[i, T_DICE : T_DICE + dice.shape[0]] = dice
    at = T_DICE + P[pk.P_NDICE]
    trace[i, at : at + G.shape[1]] = G[NOW, :]
    out[O_TRACED] = i + 1


@njit(cache=True)
def fire_radius(P, dice):
    """Variant 5: the explosion's radius, ceil(lowest die / 2) (switch: the lowest die)."""
    low = min(dice[0], dice[1])
    return (low + 1) // 2 if P[pk.P_FIRE_HALF] == 1 else low


@njit(cache=True)
def fire_ship(P, G, wreck, wreck_before, seat, ptype, w, drng, prng, out, trace):
    """Variant 5, before the roll: the player may sacrifice a ship; two dice move it their sum in
    one straight line (:func:`~simulator.hunt.moves.fire_targets`; no line: it explodes where it
    is) and it destroys every ship (its owner's too) within Chebyshev radius ceil(lowest die / 2)
    (``fire_ship.radius = "lowest"``: the lowest die); a destroyed carrier's treasure goes back
    to its island. Returns -1 when no ship is sent, 1 when the game is over, else 0."""
    ship = fire_choice(P, G, NOW, seat, ptype, w, prng)
    if ship < 0:
        return -1
    dice = np.empty(2, dtype=np.int64)
    dice[0] = 1 + randint(drng, P[pk.P_SIDES])
    dice[1] = 1 + randint(drng, P[pk.P_SIDES])
    radius = fire_radius(P, dice)
    targets = np.empty(16, dtype=np.int64)
    n_targets = moves.fire_targets(P, G, NOW, wreck, ship, dice[0] + dice[1], targets)
    centre = fire_target(P, G, NOW, seat, ship, ptype, targets, n_targets, radius, prng)
    save_before(P, G, wreck, wreck_before)
    G[NOW, ship] = centre
    for s in range(P[pk.P_NSHIPS]):
        if G[NOW, s] >= 0 and moves.within_radius(P, G[NOW, s], centre, radius):
            remove_ship(P, G, wreck, s, P[pk.P_WRECKS] == 1)
    trace_event(P, G, trace, out, T_FIRE, seat, ship, centre, dice)
    out[O_EXPLOSIONS] += 1
    out[O_EXPLODED] += count_losses(P, G, seat, out)
    return 1 if checked(P, G, wreck, wreck_before, out) or game_over(P, G, out) else 0


@njit(cache=True)
def cyclone_strikes(P, dice):
    """Variant 2: does the roll show ``cyclone.equal_dice`` equal dice?"""
    most = 0
    for i in range(dice.shape[0]):
        k = 0
        for j in range(dice.shape[0]):
            if dice[j] == dice[i]:
                k += 1
        most = max(most, k)
    return most >= P[pk.P_CYC_EQ]


@njit(cache=True)
def cyclone_victim(A, P, G, seat):
    """Variant 2: the seat's ship farthest from its home anchor by path distance (decision:
    the lowest-numbered on ties)."""
    D = A[pk.A_DIST]
    victim, best = -1, -1
    for s in range(P[P[pk.P_AT_SEAT_LO] + seat], P[P[pk.P_AT_SEAT_HI] + seat]):
        n = G[NOW, s]
        if n >= 0 and D[P[P[pk.P_AT_ANCHOR] + P[P[pk.P_AT_HOME] + s]], n] > best:
            victim, best = s, D[P[P[pk.P_AT_ANCHOR] + P[P[pk.P_AT_HOME] + s]], n]
    return victim


@njit(cache=True)
def rolls_again(P, dice, first_roll):
    """Variant 6: a roll showing a 1 and a 2 is played, then the player rolls again (a 1-2 on
    the extra roll too when ``one_two.chain``)."""
    if P[pk.P_ONETWO] == 0 or not (first_roll or P[pk.P_ONETWO_CHAIN] == 1):
        return False
    has1, has2 = False, False
    for i in range(dice.shape[0]):
        has1 = has1 or dice[i] == 1
        has2 = has2 or dice[i] == 2
    return has1 and has2


@njit(cache=True, inline="always")
def play_roll(A, P, G, wreck, wreck_before, seat, ptype, w, dice, prng, WB, out, trace):
    """Rules, *Movement*: the player plays one roll of ``dice`` (one of the distinct outcomes
    using the most dice); ships ending on an opponent board it (variant 4: a wreck stays there).
    Returns True when the game is over (a win, the last opponent sunk, an error)."""
    n = moves.enumerate_options(A, P, G, NOW, wreck, seat, np.sort(dice), WB)
    if n < 0:
        out[O_ERROR] = ERR_BUFFERS
        return True
    k = choose(A, P, WB, n, seat, ptype, w, prng)
    save_before(P, G, wreck, wreck_before)
    leaf = WB[moves.B_LEAF]
    for col in range(G.shape[1]):
        G[NOW, col] = leaf[k, col]
    out[O_LOADS] += WB[moves.B_INFO][k, moves.L_LOADS]
    trace_event(P, G, trace, out, T_ROLL, seat, np.int64(-1), np.int64(-1), dice)
    for s in range(P[pk.P_NSHIPS]):
        if G[BEFORE, s] >= 0 and G[NOW, s] < 0 and P[pk.P_WRECKS] == 1:
            wreck[G[BEFORE, s]] = 1
    out[O_BOARDINGS] += count_losses(P, G, seat, out)
    if P[pk.P_FLEET] == 1:
        for s in range(P[P[pk.P_AT_SEAT_LO] + seat], P[P[pk.P_AT_SEAT_HI] + seat]):
            stack = 0
            for s2 in range(P[pk.P_NSHIPS]):
                if G[NOW, s] >= 0 and G[NOW, s2] == G[NOW, s]:
                    stack += 1
            out[O_MAXFLEET] = max(out[O_MAXFLEET], stack)
    if checked(P, G, wreck, wreck_before, out):
        return True
    if WB[moves.B_INFO][k, moves.L_WON] == 1:
        out[O_END], out[O_WINNER] = END_WIN, seat
        return True
    return game_over(P, G, out)


@njit(cache=True, inline="always")
def play_turn(A, P, G, wreck, wreck_before, seat, ptype, w, drng, prng, dice, nd, WB, out, trace):
    """One player turn: the fire ship (variant 5), then a roll of ``nd`` dice (into ``dice``),
    again after a 1-2 (variant 6); a cyclone (variant 2) first takes a ship, then the roll is
    played (decision, switch ``cyclone.play_roll_after_loss``). Returns True when the game is
    over."""
    if P[pk.P_FIRE] == 1:
        fired = fire_ship(P, G, wreck, wreck_before, seat, ptype, w, drng, prng, out, trace)
        if fired == 1:
            return True
        if fired == 0 and P[pk.P_FIRE_ENDS] == 1:
            return False
    first_roll = True
    roll = dice[:nd]
    while True:
        for i in range(nd):
            roll[i] = 1 + randint(drng, P[pk.P_SIDES])
        if P[pk.P_CYC] == 1 and cyclone_strikes(P, roll):
            victim = cyclone_victim(A, P, G, seat)
            save_before(P, G, wreck, wreck_before)
            remove_ship(P, G, wreck, victim, np.bool_(False))
            trace_event(P, G, trace, out, T_CYCLONE, seat, victim, np.int64(-1), roll)
            out[O_CYCLONE] += 1
            count_losses(P, G, np.int64(-1), out)
            if checked(P, G, wreck, wreck_before, out) or game_over(P, G, out):
                return True
            if P[pk.P_CYC_PLAY] == 0 or afloat(P, G, NOW, seat) == 0:
                return False
        if play_roll(A, P, G, wreck, wreck_before, seat, ptype, w, roll, prng, WB, out, trace):
            return True
        if not rolls_again(P, roll, first_roll):
            return False
        first_roll = False
        out[O_REROLLS] += 1


@njit(cache=True)
def handicap_dice(P, turn):
    """House rule ``opening`` (not printed; ``handicap_turns = 0`` as printed): the first player's
    first ``handicap_turns`` turns (``turn`` counts them from 1) roll ``handicap_dice`` dice, every
    other turn the full roll. A handicap turn's 1-2 reroll (variant 6) rolls as many; its fire
    ship (variant 5) is unchanged."""
    if turn <= P[pk.P_OPEN_TURNS]:
        return P[pk.P_OPEN_DICE]
    return P[pk.P_NDICE]


@njit(cache=True)
def play_one(
    A, P, start, start_wreck, ptypes, weights, seat_pol, dice_seed, pol_seed, WB, out, trace
):
    """Play one game from ``start`` (a position row) and ``start_wreck``; ``seat_pol[seat]`` is
    the index of the seat's player in ``ptypes`` and ``weights``. Writes the record into ``out``
    (``O_*``) and, with ``P[P_TRACE]`` rows, the decisions into ``trace`` (``T_*``)."""
    G = np.empty((2, start.shape[0]), dtype=np.int64)
    G[NOW, :] = start
    G[BEFORE, :] = start
    wreck, wreck_before = start_wreck.copy(), start_wreck.copy()
    drng = np.full(1, dice_seed, dtype=np.uint64)
    prng = np.full(1, pol_seed, dtype=np.uint64)
    dice = np.empty(P[pk.P_NDICE], dtype=np.int64)
    out[:] = 0
    out[O_WINNER], out[O_END], out[O_MAXFLEET] = -1, END_STALEMATE, 1
    seat, turns, first_turns = np.int64(0), 0, 0  # seat: int64 from the start (see NOW)
    over = checked(P, G, wreck, wreck_before, out)
    while not over:
        if turns >= P[pk.P_MAXTURNS]:
            break
        if afloat(P, G, NOW, seat) > 0:
            turns += 1
            nd = P[pk.P_NDICE]
            if seat == 0:
                first_turns += 1
                nd = handicap_dice(P, first_turns)
            pol = seat_pol[seat]
            w = weights[pol]
            over = play_turn(
                A, P, G, wreck, wreck_before, seat, ptypes[pol], w, drng, prng, dice, nd, WB, out,
                trace,
            )  # fmt: skip
        seat = (seat + 1) % P[pk.P_NSEATS]
    out[O_TURNS] = turns
    out[O_WRECKS] = np.sum(wreck)


@njit(cache=True)
def play_many(A, P, start, start_wreck, ptypes, weights, seat_pols, seeds, WB, out):
    trace = np.zeros((1, 1), dtype=np.int64)  # (P[P_TRACE] == 0: nothing is traced)
    for g in range(seeds.shape[0]):
        pols, dice_seed, pol_seed = seat_pols[g], seeds[g, 0], seeds[g, 1]
        play_one(
            A, P, start, start_wreck, ptypes, weights, pols, dice_seed, pol_seed, WB, out[g], trace
        )


def _packed_run(t, check: bool, trace_rows: int = 0) -> np.ndarray:
    """A copy of ``t.P`` set for one run."""
    P = t.P.copy()
    P[pk.P_CHECK], P[pk.P_TRACE] = int(check), trace_rows
    return P


def run_games(t, start, players, seat_pols, rng, check: bool = False) -> np.ndarray:
    """Play ``len(seat_pols)`` games from ``start = (position row, wrecks)``, seat ``k`` of game
    ``g`` played by ``players[seat_pols[g][k]]``, seeds drawn from ``rng``; returns the int64
    records ``(n_games, O_FIXED + 2 * seats)``."""
    ptypes, weights = policy_arrays(players)
    n = len(seat_pols)
    seeds = rng.integers(0, 2**63 - 1, size=(n, 2), dtype=np.int64).astype(np.uint64)
    out = np.zeros((n, O_FIXED + 2 * t.num_players), dtype=np.int64)
    pols = np.asarray(seat_pols, dtype=np.int64).reshape(n, t.num_players)
    with np.errstate(over="ignore"):  # the JIT off: uint64 hashes and streams wrap (as compiled)
        P, WB = _packed_run(t, check), moves.work_buffers(t)
        play_many(t.A, P, *start, ptypes, weights, pols, seeds, WB, out)
    return out


def trace_game(t, start, players, seat_pol, dice_seed: int, pol_seed: int, check: bool = True):
    """Play one game with the given seeds; returns ``(record, trace rows)`` (``O_*``, ``T_*``)."""
    ptypes, weights = policy_arrays(players)
    rows = 8 * t.rules.max_turns + 64
    trace = np.full((rows, T_DICE + int(t.P[pk.P_NDICE]) + t.width), -1, dtype=np.int64)
    out = np.zeros(O_FIXED + 2 * t.num_players, dtype=np.int64)
    with np.errstate(over="ignore"):
        P, WB = _packed_run(t, check, rows), moves.work_buffers(t)
        seats = np.asarray(seat_pol, dtype=np.int64)
        seeds = np.array([dice_seed, pol_seed], dtype=np.uint64)
        play_one(t.A, P, *start, ptypes, weights, seats, seeds[0], seeds[1], WB, out, trace)
    if out[O_TRACED] >= rows:
        raise RuntimeError(f"trace buffer full ({rows} rows)")
    return out, trace[: out[O_TRACED]]
