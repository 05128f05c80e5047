"""Pirates express: commanders see only what a player at the table sees (issue 27, item 5).

Crews are assigned face down before the game (seed "Équipage") and a crew is public from its first
use on (decision D23: ``S_REVEALED``, set by the engine). The engine asks a commander for its
orders through :func:`commanders.orders`, which hands it :func:`core.observe`'s view of the state.
The property: in any position, every commander's orders are the same whatever crews the enemy
still hides (which ships carry one, and which roles they are). The same positions show that the
property can fail: read the true state (what the commanders were given before D23) and
``gunline`` and ``boarder`` change their orders when only the hidden crews change; a revealed crew
may change them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.express import api
from simulator.express.commanders import (
    Admiral,
    Boarder,
    Gunline,
    RandomCommander,
    Skirmisher,
    decide,
    orders,
)
from simulator.express.core import (
    A_ATTACK,
    A_DX,
    A_N,
    A_TARGET,
    ATTACK_BOARD,
    ATTACK_CANNON,
    CAPTAIN,
    CARPENTER,
    F_N,
    GUNNER,
    MUSKETEER,
    NO_CREW,
    RI_MAX_TURNS,
    S_ACTED,
    S_CAPT_USED,
    S_CARP_USED,
    S_CONVOY,
    S_CREW,
    S_GUN_USED,
    S_HULL,
    S_HULL0,
    S_MASTS,
    S_MUSK_USED,
    S_N,
    S_OARS,
    S_PIR_USED,
    S_REPAIRED,
    S_REVEALED,
    S_START,
    S_STATUS,
    ST_AFLOAT,
    ST_EXITED,
    ST_SUNK,
    TR_N,
    TR_SHIP,
    TR_SIDE,
    TR_STATE,
    TR_X,
    TR_Y,
    nation_array,
    observe,
    pack_rules,
)
from simulator.express.rules import CREW_ROLES, ExpressRules

SCEN_DIR = Path(__file__).resolve().parent.parent / "scenarios" / "express"
SCENARIOS = {p.stem: load_scenario(p, ExpressRules).rules for p in sorted(SCEN_DIR.glob("*.toml"))}
STD = SCENARIOS["standard"]
NATIONS = [*STD.matrix_nations, "none"]
TABLE = api.volley_table()
#: every kind with its defaults, and variants that read the crews through other paths
COMMANDERS = [
    Gunline(),
    Gunline(0.5, 1, False),
    Boarder(),
    Boarder(-1.0, 1),
    Skirmisher(),
    RandomCommander(),
    Admiral(),
    Admiral(aggression=0.0, split_threat=False, board_bias=3.0, margin_cm=10.0),
]
USED_FLAG = {CAPTAIN: S_CAPT_USED, MUSKETEER: S_MUSK_USED, GUNNER: S_GUN_USED}
USED_FLAG[CARPENTER] = S_CARP_USED


class _Hypothesis:
    """Draws from hypothesis (the property tests: shrinkable examples)."""

    def __init__(self, draw):
        self._draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self._draw(st.integers(lo, hi))

    def real(self, lo: float, hi: float) -> float:
        return self._draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))

    def pick(self, seq):
        return self._draw(st.sampled_from(list(seq)))


class _Numpy:
    """The same draws from a seeded numpy generator (a fixed sample of positions)."""

    def __init__(self, rng: np.random.Generator):
        self._rng = rng

    def int(self, lo: int, hi: int) -> int:
        return int(self._rng.integers(lo, hi + 1))

    def real(self, lo: float, hi: float) -> float:
        return float(self._rng.uniform(lo, hi))

    def pick(self, seq):
        seq = list(seq)
        return seq[int(self._rng.integers(len(seq)))]


def _deal_crews(src, si, side, ships, roles):
    """Put ``roles`` (all, or all but one or two) face down on distinct ``ships`` of ``side``."""
    ships = list(ships)
    roles = list(roles)
    for j in ships:
        si[side, j, S_CREW] = NO_CREW
    for _ in range(max(0, min(len(ships), len(roles)) - src.int(0, 2))):
        j = ships.pop(src.int(0, len(ships) - 1))
        si[side, j, S_CREW] = roles.pop(src.int(0, len(roles) - 1))


def position(src) -> dict:
    """A battle position: fleets, masts, crews (some revealed), positions, engagements,
    scenario state, and the ship to give orders to. Enemy ships are often placed near it."""
    scen = src.pick(sorted(SCENARIOS))
    rules = SCENARIOS[scen]
    name = src.pick(["pitched", "treasure", "convoy"])
    packed = pack_rules(rules, name)
    w, d = packed.rf[0], packed.rf[1]
    n = src.int(1, 5)
    si = np.zeros((2, n, S_N), dtype=np.int64)
    sf = np.zeros((2, n, F_N))
    nations = np.stack([nation_array(rules, src.pick(NATIONS)) for _ in range(2)])
    s = src.int(0, 1)
    i = 0
    for side in range(2):
        k = n if side == 1 - s else src.int(1, n)
        for j in range(n):
            if j >= k:
                continue  # an empty slot
            start = src.int(1, 5)
            si[side, j, S_START] = start
            si[side, j, S_MASTS] = 0 if src.int(0, 5) == 0 else src.int(1, start)
            hull0 = src.int(0, 1)
            si[side, j, S_HULL0] = hull0
            si[side, j, S_HULL] = src.int(0, hull0)
            si[side, j, S_OARS] = src.int(0, 1)
            si[side, j, S_STATUS] = src.pick([ST_AFLOAT] * 10 + [ST_SUNK, ST_EXITED])
            si[side, j, S_ACTED] = src.int(0, 1)
            si[side, j, S_PIR_USED] = src.int(0, 1)
            if name == "convoy" and side == 1 and j >= k - 2:
                si[side, j, S_CONVOY] = 1
        _deal_crews(src, si, side, range(k), range(len(CREW_ROLES)))
        for j in range(k):  # some crews already used once (public), perhaps this turn too
            c = si[side, j, S_CREW]
            if c != NO_CREW and src.int(0, 2) == 0:
                si[side, j, S_REVEALED] = 1
                if c in USED_FLAG:
                    si[side, j, USED_FLAG[c]] = src.int(0, 1)
                    if c == CARPENTER and si[side, j, S_CARP_USED] == 1:
                        si[side, j, S_REPAIRED] = 1
    i = src.int(0, int((si[s, :, S_START] > 0).sum()) - 1)
    si[s, i, S_STATUS] = ST_AFLOAT
    si[s, i, S_ACTED] = 1
    x, y = src.real(0.0, w), src.real(0.0, d)
    sf[s, i] = (x, y)
    for side in range(2):
        for j in range(n):
            if (side, j) == (s, i):
                continue
            if side == 1 - s and src.int(0, 1) == 0:
                # near the ship: in contact, within a move and a boarding, or within gun range
                r = src.pick([0.5, src.real(0.0, 1.0), src.real(1.0, 22.0), src.real(5.0, 40.0)])
                a = src.real(0.0, 2 * np.pi)
                sf[side, j] = (
                    min(max(x + r * np.cos(a), 0.0), w),
                    min(max(y + r * np.sin(a), 0.0), d),
                )
            else:
                sf[side, j] = (src.real(0.0, w), src.real(0.0, d))
    eng = np.zeros((n, n), dtype=np.bool_)
    for a_ in range(n):
        for b_ in range(n):
            near = np.hypot(*(sf[0, a_] - sf[1, b_])) <= packed.rf[3]
            eng[a_, b_] = near and src.int(0, 2) > 0
    tr = np.zeros(TR_N)
    tr[TR_X], tr[TR_Y] = src.real(0.0, w), src.real(0.0, d)
    if name == "treasure":
        tr[TR_STATE] = src.int(0, 2)
        if tr[TR_STATE] == 1:
            tr[TR_SIDE] = src.int(0, 1)
            tr[TR_SHIP] = src.int(0, int((si[int(tr[TR_SIDE]), :, S_START] > 0).sum()) - 1)
            tr[TR_X], tr[TR_Y] = sf[int(tr[TR_SIDE]), int(tr[TR_SHIP])]
    edges = np.array([0, 1]) if src.int(0, 1) == 0 else np.array([1, 0])
    turn = src.int(1, int(packed.ri[RI_MAX_TURNS]))
    return {
        "packed": packed,
        "nations": nations,
        "si": si,
        "sf": sf,
        "eng": eng,
        "tr": tr,
        "edges": edges,
        "s": s,
        "i": i,
        "turn": turn,
    }


def rehide(src, pos) -> np.ndarray:
    """The same position with the enemy's still-hidden crews dealt again: any ship whose crew is
    not revealed may get any role not revealed in that fleet, or none."""
    si = pos["si"].copy()
    o = 1 - pos["s"]
    hidden = [j for j in range(si.shape[1]) if si[o, j, S_START] > 0 and not si[o, j, S_REVEALED]]
    shown = {int(si[o, j, S_CREW]) for j in range(si.shape[1]) if si[o, j, S_REVEALED]}
    _deal_crews(src, si, o, hidden, [r for r in range(len(CREW_ROLES)) if r not in shown])
    return si


def _call(fn, cmd, pos, si, seed=0):
    """One commander's orders in ``pos`` with ship state ``si`` (the random commander's own
    generator seeded alike for every call)."""
    act = np.zeros(A_N)
    p = pos["packed"]
    args = (
        pos["sf"], pos["eng"], pos["nations"], pos["s"], pos["i"], p.ri, p.rf, p.hit_on_cm,
        p.islands, p.move_cm, pos["tr"], pos["edges"], np.random.default_rng(seed), pos["turn"],
        TABLE,
    )  # fmt: skip
    if fn is orders:
        orders(act, cmd.kind, cmd.params(), si, np.zeros_like(si), *args)
    else:
        decide(act, cmd.kind, cmd.params(), si, *args)
    return act


@st.composite
def positions_and_rehidden(draw):
    src = _Hypothesis(draw)
    pos = position(src)
    return pos, rehide(src, pos)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions_and_rehidden())
def test_orders_do_not_depend_on_the_enemys_hidden_crews(case):
    """Every commander gives the same orders whatever crews the enemy still hides."""
    pos, other = case
    o = 1 - pos["s"]
    assert np.array_equal(np.delete(pos["si"], S_CREW, axis=2), np.delete(other, S_CREW, axis=2))
    assert np.array_equal(pos["si"][pos["s"]], other[pos["s"]])
    for cmd in COMMANDERS:
        a = _call(orders, cmd, pos, pos["si"])
        b = _call(orders, cmd, pos, other)
        assert np.array_equal(a, b, equal_nan=True), (cmd, pos["si"][o], other[o])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions_and_rehidden())
def test_the_observation_hides_exactly_the_unrevealed_enemy_crews(case):
    pos, _ = case
    si, s = pos["si"], pos["s"]
    obs = np.zeros_like(si)
    observe(si, s, obs)
    assert np.array_equal(obs[s], si[s])
    o = 1 - s
    for j in range(si.shape[1]):
        if si[o, j, S_REVEALED]:
            assert np.array_equal(obs[o, j], si[o, j])
        else:
            assert obs[o, j, S_CREW] == NO_CREW
            keep = [k for k in range(S_N) if k != S_CREW]
            assert np.array_equal(obs[o, j, keep], si[o, j, keep])  # its used flags are all 0


def count_changes(n: int, seed: int, fn) -> dict[str, int]:
    """Positions of a fixed sample (n, seed) where a commander's orders change when only the
    enemy's hidden crews are dealt again, with ``fn`` the way it is asked (``orders``: the engine's
    observation; ``decide`` on the true state: what the commanders were given before D23)."""
    rng = np.random.default_rng(seed)
    changed = {type(c).__name__ + repr(c.params().tolist()): 0 for c in COMMANDERS}
    for _ in range(n):
        src = _Numpy(rng)
        pos = position(src)
        other = rehide(src, pos)
        for cmd in COMMANDERS:
            a = _call(fn, cmd, pos, pos["si"])
            b = _call(fn, cmd, pos, other)
            if not np.array_equal(a, b, equal_nan=True):
                changed[type(cmd).__name__ + repr(cmd.params().tolist())] += 1
    return changed


def test_the_property_fails_when_a_commander_reads_the_true_state():
    """On 300 fixed positions, the old path (``decide`` on the true state) lets ``gunline`` and
    ``boarder`` change their orders with the enemy's hidden crews; the engine's path never does.
    So the property test above can fail, and does on the code before D23."""
    old = count_changes(300, 27, decide)
    new = count_changes(300, 27, orders)
    assert all(v == 0 for v in new.values()), new
    by_kind = {}
    for key, v in old.items():
        kind = key.split("[")[0]
        by_kind[kind] = by_kind.get(kind, 0) + v
    assert by_kind["Gunline"] > 0 and by_kind["Boarder"] > 0, old
    # the others never read an enemy crew, even on the true state
    assert by_kind["Skirmisher"] == by_kind["RandomCommander"] == by_kind["Admiral"] == 0, old


def _duel(enemy_spec: str, scenario: str = "pitched"):
    """Ship 0 of side 0 alone against one enemy ship 40 cm away (out of reach this turn)."""
    pairing = api.make_pairing("none:2", enemy_spec, STD, "gunline", scenario)
    n = pairing.fleets.shape[1]
    si = np.zeros((2, n, S_N), dtype=np.int64)
    for side in range(2):
        si[side, :, S_START] = si[side, :, S_MASTS] = pairing.fleets[side, :, 0]
        si[side, :, S_CREW] = pairing.fleets[side, :, 2]
        si[side, :, S_STATUS] = np.where(pairing.fleets[side, :, 0] > 0, ST_AFLOAT, 3)
    sf = np.zeros((2, n, F_N))
    sf[0, 0] = (20.0, 30.0)
    sf[1, 0] = (60.0, 30.0)
    tr = np.zeros(TR_N)
    pos = {
        "packed": pack_rules(STD, scenario),
        "nations": pairing.nations,
        "si": si,
        "sf": sf,
        "eng": np.zeros((n, n), dtype=np.bool_),
        "tr": tr,
        "edges": np.array([0, 1]),
        "s": 0,
        "i": 0,
        "turn": 2,
    }
    return pos


def test_a_revealed_gunner_changes_the_gunlines_orders():
    """Two 2-mast ships: the duel is even (2 dice against 2), so the gunline closes in to the
    automatic band. An enemy Gunner once revealed (and not yet used this turn) makes it 2 dice
    against 3: the gunline then stands off just out of range. Hidden, the Gunner changes nothing."""
    pos = _duel("none:2 gunner@0")
    hidden = _call(orders, Gunline(), pos, pos["si"])
    bare = _duel("none:2")
    assert np.array_equal(hidden, _call(orders, Gunline(), bare, bare["si"]))
    assert hidden[A_DX] > 20.0  # closes in
    shown = pos["si"].copy()
    shown[1, 0, S_REVEALED] = 1
    act = _call(orders, Gunline(), pos, shown)
    assert act[A_DX] < 60.0 - 30.0  # stays beyond the 30 cm of the last band
    shown[1, 0, S_GUN_USED] = 1  # its die spent this turn: an even duel again
    assert np.array_equal(_call(orders, Gunline(), pos, shown), hidden)


def test_a_revealed_musketeer_changes_the_boarders_orders():
    """A 2-mast boarder within reach of a 2-mast enemy: the even boarding is worth 0 expected VP
    and a boarder with ``min_edge = -0.1`` boards; a revealed enemy Musketeer (3 dice against 2)
    makes the swing clearly negative and it fires instead. Hidden, the Musketeer changes
    nothing."""
    boarder = Boarder(min_edge=-0.1)
    pos = _duel("none:2 musketeer@0")
    pos["sf"][1, 0] = (30.0, 30.0)  # within its 12 cm move and contact
    hidden = _call(orders, boarder, pos, pos["si"])
    assert hidden[A_ATTACK] == ATTACK_BOARD and hidden[A_TARGET] == 0
    bare = _duel("none:2")
    bare["sf"][1, 0] = (30.0, 30.0)
    assert np.array_equal(hidden, _call(orders, boarder, bare, bare["si"]))
    shown = pos["si"].copy()
    shown[1, 0, S_REVEALED] = 1
    act = _call(orders, boarder, pos, shown)
    assert act[A_ATTACK] == ATTACK_CANNON
