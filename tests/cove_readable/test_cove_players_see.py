"""Players see only what a player at the table sees, and draw only from their own stream.

On random positions (hypothesis draws the seed of each, the deciding kind and, per test, the
decision), every decision the engine asks a player -- through the function the engine calls
for it, the random kind's pick included -- is asked twice: on the position, and on the same
position with everything the player cannot see changed: the other seats' hands (each keeps its
size and its number of battle and volley cards, which a battle shows; the cards dealt again
with the Tavern draw pile from the cards the player has not seen), the order of the draw pile,
the pirate deck's order, the Treasure stacks under the face-up cards, the dice to come (the
buffer and its position), the dice stream and every other seat's stream, and the other seats'
strategies (their parameter rows). The answer, the player's own stream after it and its own row
(the expected-value players' memory of the month) must be the same; and the decision moves no
stream but the player's own and rolls no die.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.cove.fast import core, game, players, players_ev
from simulator.cove.fast.packed import (
    BATTLE_HI,
    BATTLE_LO,
    BG_CARD_ROUND,
    BG_EXCHANGE,
    BS_SEAT,
    BT_HAND_N,
    BT_SMOKE,
    D_PIRATE,
    D_STACK,
    D_TAVERN,
    G_PIR_N,
    G_STACK_N,
    G_TAV_N,
    NONE,
    NS_HAS_FIRED,
    NS_HULL,
    P_NPOS,
    P_SWAP_COST,
    PP_IS_EV,
    PP_IS_RANDOM,
    S_FAME,
    S_GOLD,
    S_HAND,
    S_HAND_N,
    S_LOC,
    S_PARROT,
    S_PLUNDER_BY,
    S_RING,
    VOLLEY_HI,
    player_row,
)
from simulator.cove.fast.rng import state_of
from simulator.cove.rules import CoveRules
from tests.cove_table import KINDS, Table, random_position

RULES = load_scenario(None, CoveRules).rules
OUTER = 5
COVE = 6
OFF_BATTLE = (
    "navigate",
    "sneak_away",
    "royal_navy",
    "letter_of_marque",
    "parrot_swap",
    "buy_cards",
    "upgrade",
    "bury_gold",
    "treasure_island_upgrade",
    "artisan",
    "artisan_repair",
    "shipwright",
    "arm",
    "cove_reward",
    "plunder",
)
IN_BATTLE = ("battle_card", "overboard_chests", "broadside", "navy_target")


def hide(t: Table, me: int, seed: int) -> None:
    """Change, in place, everything seat ``me`` cannot see (see the module docstring)."""
    rng = np.random.default_rng(seed ^ 0x5EED)
    st, dk, g = t.st, t.dk, t.g

    def is_battle(code):
        return BATTLE_LO <= code <= VOLLEY_HI

    others = [s for s in range(t.n) if s != me]
    pool = list(dk[D_TAVERN, : g[G_TAV_N]])
    counts = {}
    for s in others:
        hand = list(st[s, S_HAND : S_HAND + st[s, S_HAND_N]])
        counts[s] = (sum(map(is_battle, hand)), len(hand))
        pool += hand
    pool = list(rng.permutation(pool))
    for s in others:
        nb, nh = counts[s]
        hand = []
        for want_battle, k in ((True, nb), (False, nh - nb)):
            for _ in range(k):
                i = next(i for i, c in enumerate(pool) if is_battle(c) == want_battle)
                hand.append(pool.pop(i))
        st[s, S_HAND : S_HAND + nh] = hand
    dk[D_TAVERN, : len(pool)] = pool
    g[G_TAV_N] = len(pool)
    dk[D_PIRATE, : g[G_PIR_N]] = rng.permutation(dk[D_PIRATE, : g[G_PIR_N]])
    for i in range(OUTER):
        k = g[G_STACK_N + i]
        dk[D_STACK + i, :k] = rng.integers(0, len(t.tcard), k)
    dice = t.gs.dice
    dice[:] = rng.integers(1, 7, len(dice))
    t.gs.dctx[core.DX_P] = int(rng.integers(0, len(dice)))
    rs = t.gs.rs
    for r in range(t.n + 1):
        if r != 1 + me:
            rs[r] = state_of(np.random.default_rng(rng.integers(2**63)))
    for s in others:
        t.pp[s] = player_row(t.rules, str(rng.choice(KINDS)))


# ------------------------------------------------------------------ the decisions
def _pick(t: Table, me: int, legal, call):
    """The engine's branch: the random kind picks uniformly, the others call their function."""
    legal = np.array(list(legal) + [0] * 4, np.int64)
    nl = len(legal) - 4
    if t.pp[me, PP_IS_RANDOM] != 0.0:
        return int(game._random_pick(t.gs, me, legal, nl))
    return call(legal, nl)


def ask(t: Table, decision: str, me: int, seed: int):
    """Seat ``me``'s answer to ``decision`` on the table (legal choices as the engine offers
    them; the battle built from the table); a tuple of ints."""
    rng = np.random.default_rng(seed ^ 0xA5C)
    tab, gs, oc, sc, st, pp = t.tab, t.gs, t.oc, t.sc, t.st, t.pp
    prm, step = tab.prm, tab.step
    if decision == "navigate":
        return (
            _pick(
                t,
                me,
                range(6),
                lambda lg, nl: players.navigate(tab, gs, oc, me, sc.scores, sc.pir, sc.opp),
            ),
        )
    if decision == "sneak_away":
        legal = [NONE] + [i for i in range(OUTER) if not game._occupied(tab, gs, i)]
        legal += [5] if st[me, S_LOC] != 5 else []
        return (
            _pick(
                t,
                me,
                legal,
                lambda lg, nl: players.sneak_away(
                    tab, gs, oc, me, lg, nl, sc.scores, sc.pir, sc.opp
                ),
            ),
        )
    if decision in ("royal_navy", "letter_of_marque"):
        legal = [NONE] + [i for i in range(OUTER) if i != st[me, S_LOC]]
        fn = players.royal_navy if decision == "royal_navy" else players.letter_of_marque
        return (_pick(t, me, legal, lambda lg, nl: fn(gs, me, lg, nl, sc.cands)),)
    if decision == "parrot_swap":
        st[me, S_FAME] = max(st[me, S_FAME], prm[P_SWAP_COST])
        if st[me, S_PARROT] < 0:
            st[me, S_PARROT] = 0
        drawn = (st[me, S_PARROT] + 1) % len(t.parrots)
        return (_pick(t, me, (0, 1), lambda lg, nl: players.parrot_swap(tab, gs, me, drawn)),)
    if decision == "buy_cards":
        most = int(rng.integers(1, 4))
        return (_pick(t, me, range(most + 1), lambda lg, nl: players.buy_cards(tab, gs, me, most)),)
    if decision == "upgrade":
        sec, most = int(rng.integers(4)), int(rng.integers(1, 4))
        return (
            _pick(t, me, range(most + 1), lambda lg, nl: players.upgrade(tab, gs, me, sec, most)),
        )
    if decision == "bury_gold":
        most = int(rng.integers(1, 5))
        return (_pick(t, me, range(most + 1), lambda lg, nl: players.bury_gold(tab, gs, me, most)),)
    if decision in ("treasure_island_upgrade", "artisan", "shipwright"):
        legal = [NONE, *sorted(rng.choice(4, int(rng.integers(1, 5)), replace=False))]
        if decision == "treasure_island_upgrade":
            return (_pick(t, me, legal, lambda lg, nl: players.ti_upgrade(tab, gs, me, lg, nl)),)
        if decision == "artisan":
            return (_pick(t, me, legal, lambda lg, nl: players.artisan(tab, gs, me, lg, nl)),)
        return (_pick(t, me, legal, lambda lg, nl: players.shipwright(gs, me, lg, nl)),)
    if decision == "artisan_repair":
        return (_pick(t, me, (0, 1), lambda lg, nl: players.artisan_repair(tab, gs, me)),)
    if decision == "arm":
        ring = np.array(st[me, S_RING : S_RING + 4])
        gold = int(st[me, S_GOLD])
        legal = [NONE] + [
            k for k in range(4) if 0 < ring[k] < prm[P_NPOS] and step[ring[k]] <= gold
        ]
        return (_pick(t, me, legal, lambda lg, nl: players.arm(tab, gs, me, ring, gold, lg, nl)),)
    if decision == "cove_reward":

        def reward(lg, nl):
            if pp[me, PP_IS_EV] != 0.0:
                return players_ev.cove_reward(tab, gs, me)
            return 0 if pp[me, players.COVE_CARDS] != 0.0 else 1

        return (_pick(t, me, (0, 1), reward),)
    if decision == "plunder":
        legal = [NONE] + [v for v in range(t.n) if v != me and st[v, S_PLUNDER_BY] < 0]

        def victim(lg, nl):
            if pp[me, players.USE_PLUNDER] == 0.0:
                return NONE
            return players.most_famous(st, gs.rs, me, lg[1:], nl - 1)

        return (_pick(t, me, legal, victim),)
    return ask_in_battle(t, decision, me, rng)


def ask_in_battle(t: Table, decision: str, me: int, rng) -> tuple:
    """A battle at our island: us (seat ``me``) and one or two other ships, with a non-player
    ship or two (the Royal Navy controlled by us for ``navy_target``)."""
    tab, gs, oc = t.tab, t.gs, t.oc
    others = [s for s in range(t.n) if s != me]
    company = sorted(rng.choice(others, int(rng.integers(1, 3)), replace=False))
    seats = sorted([me, *company])
    npcs = []
    if decision == "navy_target" or rng.random() < 0.4:
        keys = [k for k in t.npc_keys if k != "royal_navy"]
        if rng.random() < 0.5 or decision == "navy_target":
            npcs.append(keys[int(rng.integers(len(keys)))])
        npcs.append("royal_navy" if decision == "navy_target" or rng.random() < 0.5 else keys[0])
        npcs = list(dict.fromkeys(npcs))
    bt = t.start_battle(seats, npcs, island=int(rng.integers(0, 6)), controller=me)
    a = seats.index(me)
    bt.bg[BG_CARD_ROUND] = int(rng.integers(1, 3))
    bt.bg[BG_EXCHANGE] = int(rng.integers(0, 3))
    for i in range(len(seats)):
        bt.bst[i, BT_SMOKE] = int(rng.random() < 0.2)
    for j in range(len(npcs)):
        bt.nst[j, NS_HULL] = max(1, bt.nst[j, NS_HULL] - int(rng.integers(0, 3)))
        bt.nst[j, NS_HAS_FIRED] = int(rng.random() < 0.5)
    if decision == "battle_card":
        hand = [c for c in bt.bhand[a, : bt.bst[a, BT_HAND_N]] if BATTLE_LO <= c <= BATTLE_HI]
        playable = np.array(hand + [0], np.int64)
        return (int(players.battle_card(tab, gs, oc, bt, a, playable, len(hand))),)
    if decision == "overboard_chests":
        chests = int(rng.integers(0, 6))
        return (int(players.overboard_chests(tab, gs, oc, bt, a, chests)),)
    if decision == "broadside":
        volley = np.full(3, -1, np.int64)
        flee, target, sec = players.broadside(tab, gs, oc, bt, a, volley)
        return (int(flee), int(target), int(sec), *(int(v) for v in volley))
    if "royal_navy" in npcs:
        tgt, sec = players.navy_target(tab, gs, bt, me)
        return (int(bt.bsh[tgt, BS_SEAT]), int(sec))
    raise AssertionError("the Royal Navy must be in the battle")


def answer(seed: int, kind: str, decision: str, hidden: bool):
    t = random_position(seed, kind, decision)
    if hidden:
        hide(t, 0, seed)
    rs_before = t.gs.rs.copy()
    dice_at = int(t.gs.dctx[core.DX_P])
    got = ask(t, decision, 0, seed)
    rs = t.gs.rs
    moved = [r for r in range(t.n + 1) if r != 1 and (rs[r] != rs_before[r]).any()]
    assert moved == [], f"{decision} moved the streams {moved}"
    assert int(t.gs.dctx[core.DX_P]) == dice_at and int(t.gs.dctx[core.DX_FAIL]) == 0
    return got, rs[1].copy(), t.pp[0].copy()


def _same(seed, kind, decision):
    got, rs, row = answer(seed, kind, decision, hidden=False)
    got_h, rs_h, row_h = answer(seed, kind, decision, hidden=True)
    assert got == got_h, (kind, decision)
    assert (rs == rs_h).all(), (kind, decision)
    assert np.array_equal(row, row_h), (kind, decision)


@pytest.mark.parametrize("decision", OFF_BATTLE)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS))
def test_decisions_off_the_battle_depend_only_on_what_the_player_sees(decision, seed, kind):
    _same(seed, kind, decision)


@pytest.mark.parametrize("decision", IN_BATTLE)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS))
def test_battle_decisions_depend_only_on_what_the_player_sees(decision, seed, kind):
    _same(seed, kind, decision)


def test_the_check_sees_a_player_that_reads_another_hand(monkeypatch):
    """The check can fail: a navigation that counts the next seat's Tavern cards by name (a
    hidden fact) answers differently once the hidden cards are dealt again."""

    def peeking(tab, gs, oc, seat, *scratch):
        st = gs.seats
        nxt = (seat + 1) % gs.g[0]
        return int(sum(st[nxt, S_HAND : S_HAND + st[nxt, S_HAND_N]])) % 6

    monkeypatch.setattr(players, "navigate", peeking)
    differs = 0
    for seed in range(20):
        got, _, _ = answer(seed, "balanced-v1", "navigate", hidden=False)
        seen, _, _ = answer(seed, "balanced-v1", "navigate", hidden=True)
        differs += got != seen
    assert differs > 0
