"""The search player, compiled (kind ``rollout``, simulator.cove.fast.rollout): what it may know,
where its randomness comes from, that its rollouts play the real month, and that its games are
legal and replayable.

The checks run the compiled functions on a real game state: the engine's buffers hold the state
of the last game it played (the end of month 12), which the rollout functions read as they read
a navigation's state. Every check is exact (integers, card multisets, floats by ``==``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from scenarios.loader import FrozenMap, load_scenario
from scenarios.strategies import StrategyDecl, with_strategies
from simulator.cove.api import choose_engine, play
from simulator.cove.fast import game, rollout
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import (
    C_ARTISAN,
    C_PARROT0,
    CK_ARG,
    CK_KIND,
    D_DISCARD,
    D_PDISC,
    D_PIRATE,
    D_TAVERN,
    G_BLACK,
    G_DISC_N,
    G_MONTH,
    G_N,
    G_NBLACK,
    G_PDISC_N,
    G_PIR_N,
    G_TAV_N,
    GS_FIELDS,
    K_FAME,
    K_PARROT,
    OPP_MIX,
    PP,
    PP_CANDIDATES,
    PP_GOLD_SEEN,
    PP_HV_CHEST,
    PP_IS_EV,
    PP_IS_ROLLOUT,
    PP_MONTH_SEEN,
    PP_OPP_MODEL,
    PP_ROLLOUTS,
    PP_STAKE,
    S_ART,
    S_CHESTS,
    S_FAME,
    S_GOLD,
    S_HAND,
    S_HAND_N,
    S_PARROT,
    S_RING,
    compiled,
    player_row,
    rollout_models,
)
from simulator.cove.fast.rng import state_of
from simulator.cove.rules import CoveRules
from simulator.runner import Block

SCEN = load_scenario(None, CoveRules)
RULES = SCEN.rules
NAMES = ("rollout", "plunderer", "brawler", "tavern")


def _played(names=NAMES, seed=13):
    """An engine whose buffers hold the final state of one game on ``names``."""
    eng = FastGames(RULES, names)
    eng.play([names], [Block(0, 0, 1, seed)])
    gs, sc, bt = eng._buffers(len(names), False, False)
    return eng, gs


def _hand(st, s):
    return list(st[s, S_HAND : S_HAND + st[s, S_HAND_N]])


def _stream(seed: int) -> np.ndarray:
    return state_of(np.random.default_rng(seed))


def test_the_search_player_is_compiled_with_its_parameters():
    row = player_row(RULES, "rollout")
    assert compiled(RULES, "rollout") and row[PP_IS_ROLLOUT] == 1.0 and row[PP_IS_EV] == 1.0
    assert (row[PP_ROLLOUTS], row[PP_CANDIDATES], row[PP_OPP_MODEL]) == (8.0, 3.0, OPP_MIX)
    assert player_row(RULES, "balanced")[PP_IS_ROLLOUT] == 0.0
    models = rollout_models(RULES)  # balanced, then the default mix (no search player)
    assert np.array_equal(models[0], player_row(RULES, "balanced"))
    for i, name in enumerate(RULES.default_mix):
        assert np.array_equal(models[1 + i], player_row(RULES, name))
    assert choose_engine(None, RULES, ("rollout", "brawler", "tavern"))[0] == "fast"


def test_unseen_cards_are_the_deck_less_our_hand_and_the_ships_parrots_and_artisans():
    eng, gs = _played()
    g, st = gs.g, gs.seats
    out = np.empty(len(eng.tables.tdeck) + 1, np.int64)
    for seat in range(g[G_N]):
        m = rollout.unseen_cards(eng.tables.arrays(), gs, seat, out)
        want = Counter(int(c) for c in eng.tables.tdeck)
        want.subtract(int(c) for c in _hand(st, seat))
        for s in range(g[G_N]):
            if st[s, S_PARROT] >= 0:
                want[C_PARROT0 + int(st[s, S_PARROT])] -= 1
            want[C_ARTISAN] -= int((st[s, S_ART : S_ART + 4] >= 0).sum())
        assert Counter(int(c) for c in out[:m]) == +want
        assert list(out[:m]) == sorted(out[:m])


def test_determinize_keeps_what_the_player_knows_and_deals_the_rest():
    eng, gs = _played()
    tab = eng.tables.arrays()
    g, st, dk = gs.g, gs.seats, gs.dk
    n, seat = int(g[G_N]), 1
    ckind = eng.tables.ckind
    templates = []
    for seed in (5, 5, 6):
        tm = rollout.new_state(gs)
        rollout.determinize(tab, gs, tm, seat, _stream(seed))
        templates.append(tm)
        tg, tst, tdk = tm.g, tm.seats, tm.dk
        # the public board and our hand are the game's; every hand keeps its size
        assert np.array_equal(np.delete(tst, np.s_[S_HAND:], axis=1), st[:, :S_HAND])
        assert _hand(tst, seat) == _hand(st, seat)
        for k in (G_MONTH, G_NBLACK, G_PDISC_N, G_PIR_N, G_TAV_N):
            assert tg[k] == g[k]
        assert np.array_equal(tg[G_BLACK : G_BLACK + 9], g[G_BLACK : G_BLACK + 9])
        assert np.array_equal(tdk[D_PDISC, : g[G_PDISC_N]], dk[D_PDISC, : g[G_PDISC_N]])
        # every Tavern card is somewhere: hands, deck, discard, the ships' parrots and Artisans
        cards = Counter(int(c) for s in range(n) for c in _hand(tst, s))
        cards.update(int(c) for c in tdk[D_TAVERN, : tg[G_TAV_N]])
        cards.update(int(c) for c in tdk[D_DISCARD, : tg[G_DISC_N]])
        for s in range(n):
            if tst[s, S_PARROT] >= 0:
                cards[C_PARROT0 + int(tst[s, S_PARROT])] += 1
            cards[C_ARTISAN] += int((tst[s, S_ART : S_ART + 4] >= 0).sum())
        assert cards == Counter(int(c) for c in eng.tables.tdeck)
        for s in range(n):  # a parrot goes on a ship when drawn: never in a hand
            assert all(ckind[c, CK_KIND] != K_PARROT for c in _hand(tst, s))
        # the pirate deck: the pirate cards not on a black ship or discarded
        seen = {int(g[G_BLACK + 3 * b + 1]) for b in range(g[G_NBLACK])}
        seen |= {int(x) for x in dk[D_PDISC, : g[G_PDISC_N]]}
        unseen = [int(k) for k in eng.tables.pdeck if int(k) not in seen]
        assert sorted(tdk[D_PIRATE, : tg[G_PIR_N]]) == sorted(unseen)
    same, other = templates[0], templates[2]
    for k in GS_FIELDS:
        a, b = getattr(templates[0], k), getattr(templates[1], k)
        assert np.array_equal(a, b)  # the same stream deals the same cards
    opp = [s for s in range(n) if s != seat]
    assert any(_hand(same.seats, s) != _hand(other.seats, s) for s in opp)


def test_the_value_at_the_end_of_the_month_by_hand():
    """Fame, gold and chests (chests up to the hull's value) at the holding values, fame cards
    at their fame, other cards at w_card, ring levels up to the target at 0.75 x prio."""
    eng, gs = _played()
    tab = eng.tables.arrays()
    work = rollout.new_state(gs)
    rollout.restore(work, gs)
    st, pp = work.seats, gs.pp
    seat = 0
    st[seat, S_FAME], st[seat, S_GOLD], st[seat, S_CHESTS], st[seat, S_PARROT] = 17, 5, 9, -1
    st[seat, S_RING : S_RING + 4] = [2, 5, 1, 3]
    fame2 = next(c for c in range(len(eng.tables.ckind)) if eng.tables.ckind[c, CK_KIND] == K_FAME)
    st[seat, S_HAND_N] = 2
    st[seat, S_HAND : S_HAND + 2] = [fame2, C_ARTISAN]
    hv_gold, hv_chest = 0.3, 0.7
    p = pp[seat]
    hull = RULES.ship_mat.hull[2 - 1]
    want = 17 + hv_gold * 5 + hv_chest * min(9, hull)
    want += int(eng.tables.ckind[fame2, CK_ARG])
    want += p[PP["w_card"]]
    for sec, name in enumerate(("hull", "crew", "cannons", "sails")):
        want += (
            rollout.LEVEL_WEIGHT
            * p[PP[f"prio_{name}"]]
            * min(float(st[seat, S_RING + sec]), p[PP[f"target_{name}"]])
        )
    assert rollout.state_value(tab, gs, work, seat, hv_gold, hv_chest) == want


def test_the_search_writes_only_its_own_stream_and_state():
    """One navigation of the search player (the game's ``_navigate``, into which the rollouts
    are compiled): the game's state, the dice stream and the other seats' streams are as they
    were; its own stream moved (the noise and K seeds), and its _stake and _hv_chest are set,
    with the month and gold every asked decision notes. From the same stream state it chooses
    the same island. (Its opponents' picks and one simulated month, inlined there, are checked
    with the JIT off: ``tests/cove_readable/test_cove_rollout_readable.py``.)"""
    eng, gs = _played()
    _, sc, _ = eng._buffers(len(NAMES), False, False)
    tab, oc = eng.tables.arrays(), eng.oc
    seat = 0
    arrays = [getattr(gs, k) for k in GS_FIELDS]
    before = [a.copy() for a in arrays]
    choice = game._navigate(tab, gs, oc, sc, seat)
    assert 0 <= choice < 6
    rs, pp = gs.rs, gs.pp
    for i, (a, b) in enumerate(zip(arrays, before, strict=True)):
        if i not in (6, 7):
            assert np.array_equal(a, b), i
    assert np.array_equal(np.delete(rs, 1 + seat, axis=0), np.delete(before[6], 1 + seat, axis=0))
    assert not np.array_equal(rs[1 + seat], before[6][1 + seat])
    changed = np.flatnonzero(pp != before[7])
    own = (PP_STAKE, PP_HV_CHEST, PP_MONTH_SEEN, PP_GOLD_SEEN)
    assert set(changed) <= {seat * pp.shape[1] + k for k in own}
    rs[1 + seat] = before[6][1 + seat]
    assert game._navigate(tab, gs, oc, sc, seat) == choice


@pytest.mark.parametrize(
    "params",
    [
        {"rollouts": 1},
        {"rollouts": 2, "rollout_candidates": 2, "rollout_opponents": "balanced"},
        {"rollouts": 3, "rollout_candidates": 6},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()),
)
def test_search_games_are_legal_conserve_everything_and_replay(params):
    """Games with search players (the invariant checker after every phase, 3-5 seats) end in
    whole win shares, and the same seed plays the same games."""
    rules = with_strategies(
        SCEN, {"quick": StrategyDecl(kind="rollout", params=FrozenMap(params))}
    ).rules
    for names in (
        ("quick", "brawler", "tavern"),
        ("plunderer", "quick", "random", "quick", "balanced-v1"),
    ):
        eng = FastGames(rules, names)
        deals = [Block(index=i, start=i, size=1, entropy=3) for i in range(2)]
        a = eng.play([names] * 2, deals, check=True, trace=True)
        b = eng.play([names] * 2, deals, check=True, trace=True)
        assert np.allclose(a.win.sum(axis=1), 1.0)
        assert np.array_equal(a.trace_rows, b.trace_rows) and np.array_equal(a.seats, b.seats)


def test_cove_play_seats_the_search_player_on_the_compiled_engine():
    res = play(None, ["rollout", "brawler", "tavern"], n=2, seed=4)
    assert res.summary["engine"] == "fast"
    assert len(res.seats) == 6
