"""The search player's rollout, read with the JIT off (kind ``rollout``,
``simulator.cove.fast.rollout``): its opponents' picks and one simulated month are inlined into
the compiled game's navigation, so they are checked here, as plain functions, on the state a
real game left in the engine's buffers (the end of month 12). Every check is exact."""

from __future__ import annotations

import numpy as np

from scenarios.loader import load_scenario
from simulator.cove.fast import battle, game, rollout
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import G_N, GS_FIELDS, S_HAND
from simulator.cove.fast.rng import R_COLS
from simulator.cove.rules import CoveRules
from simulator.runner import Block

RULES = load_scenario(None, CoveRules).rules
#: a game without a search player (its rollouts would be slow here); our seat's row is an
#: expected-value player's, which is what the rollout plays for us
NAMES = ("plunderer", "plunderer", "brawler", "tavern")


def test_a_rollout_is_the_same_for_every_candidate_and_leaves_the_template_alone():
    """Common random numbers: the opponents' picks do not depend on our island; simulating an
    island twice on one seed gives the same value; the template is never written."""
    eng = FastGames(RULES, NAMES)
    eng.play([NAMES], [Block(0, 0, 1, 13)])
    gs = eng._buffers(len(NAMES), False, False)[0]
    tab, oc = eng.tables.arrays(), eng.oc
    n, seat = int(gs.g[G_N]), 0
    streams = np.empty((rollout.ST_PICK0 + 2 * n, R_COLS), np.uint64)
    rollout.rollout_streams(np.uint64(12345), n, streams)
    models = np.empty(n, np.int64)
    rollout.seat_players(gs, oc, seat, streams, models)
    assert models[seat] == -1 and all(1 <= m < len(oc.rm) for m in np.delete(models, seat))
    tm, work = rollout.new_state(gs), rollout.new_state(gs)
    sc = game.game_scratch(n, RULES.ship_mat.num_positions, gs.dk.shape[1])
    bt = battle.scratch(gs.seats.shape[1] - S_HAND)
    rollout.determinize(tab, gs, tm, seat, streams[rollout.ST_DEAL])
    kept = [getattr(tm, k).copy() for k in GS_FIELDS]
    picks = np.empty(n, np.int64)
    rollout.opponent_picks(tab, gs, oc, tm, work, sc, seat, models, streams, picks)
    again = picks.copy()
    rollout.opponent_picks(tab, gs, oc, tm, work, sc, seat, models, streams, again)
    assert (
        np.array_equal(picks, again) and picks[seat] == -1 and (np.delete(picks, seat) >= 0).all()
    )
    values = []
    for island in (2, 4, 2):
        v = rollout.simulate(tab, gs, oc, tm, work, sc, bt, seat, models, streams, picks, island,
                             0.3, 0.7)  # fmt: skip
        values.append(v)
    assert values[0] == values[2]
    for a, b in zip((getattr(tm, k) for k in GS_FIELDS), kept, strict=True):
        assert np.array_equal(a, b)
