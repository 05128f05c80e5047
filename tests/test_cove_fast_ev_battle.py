"""The expected-value players' battle policy compiled (simulator.cove.fast.players_ev_battle)
against the readable one (simulator.cove.heuristic.HeuristicPlayer), decision by decision.

The readable players' battle decisions are recorded from seeded full games of the default mix
(every battle card, Overboard, broadside and Royal Navy aim they took, with the view they saw, the
hand, their per-seat state and their generator before and after); each one is rebuilt as the
compiled battle state and answered by the compiled policy, which must give the same answer, the
same values (stand and flee, ``==``), the same battle tracks and leave the generator in the same
state (the tie-break draws). Exact throughout: no tolerance, nothing random in an assertion.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scenarios.loader import load_scenario
from simulator.cove.combat_policies import SECTIONS
from simulator.cove.fast import company, lone
from simulator.cove.fast import players_ev_battle as eb
from simulator.cove.fast.odds import new_cache
from simulator.cove.fast.packed import NONE
from simulator.cove.rules import CoveRules
from tests.cove_ev_battle_support import Decision, Packed, record_games

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = (None, ROOT / "scenarios/cove/artisan-per-section.toml")
SEEDS = (1601, 1602, 1603)


class Ctx:
    """One scenario's compiled tables, solver and estimate memos, and its recorded decisions."""

    def __init__(self, path, monkeypatch):
        self.rules = load_scenario(path, CoveRules).rules
        self.P = Packed(self.rules)
        self.lt, self.lmemo = lone.tables(self.rules), lone.new_memo()
        self.ct, self.cmemo = company.tables(self.rules), company.new_memo()
        names = tuple(self.rules.default_mix)
        self.decisions = record_games(self.rules, names, SEEDS, monkeypatch)
        self.text = {c: t for t, c in self.P.codes.items()}


@pytest.fixture(scope="module", params=range(len(SCENARIOS)), ids=("standard", "artisan"))
def ctx(request):
    mp = pytest.MonkeyPatch()
    try:
        yield Ctx(SCENARIOS[request.param], mp)
    finally:
        mp.undo()


def _n(d: Decision) -> int:
    return max([s.seat for s in d.view.ships] + [d.seat]) + 1


def answer(c: Ctx, d: Decision):
    """The compiled policy's answer to recorded decision ``d``, in the readable form, and the
    decider's generator state after it."""
    P = c.P
    tab = P.tab
    gs = P.gs(_n(d), d)
    oc = (*new_cache(), np.zeros(256, np.int64))
    view = d.view
    if d.method == "navy_target":
        bt, idx = P.bt(view)
        tgt, sec = eb.navy_target(tab, gs, bt, d.seat)
        got = (view.ships[tgt].seat, SECTIONS[sec])
    elif d.method == "battle_card":
        hand = d.args[0]
        bt, idx = P.bt(view)
        playable = np.array([P.codes[h] for h in hand] + [0], np.int64)
        code = eb.battle_card(
            tab, gs, oc, bt, idx[view.me], playable, len(hand), c.lt, c.lmemo, d.stake,
            d.hv_chest,
        )  # fmt: skip
        got = None if code == NONE else c.text[code]
    elif d.method == "overboard_chests":
        bt, idx = P.bt(view)
        got = int(
            eb.overboard_chests(
                tab, gs, oc, bt, idx[view.me], d.args[0], c.lt, c.lmemo, d.stake, d.hv_chest
            )
        )
    else:
        hand = d.args[0]
        bt, idx = P.bt(view, hand)
        volley = np.full(3, -1, np.int64)
        flee, tgt, sec = eb.broadside(
            tab, gs, oc, bt, idx[view.me], volley, c.lt, c.lmemo, c.ct, c.cmemo, d.stake,
            d.gold,
        )  # fmt: skip
        if flee:
            got = (True, None, "hull", ())
        else:
            target = view.ships[tgt].seat if tgt >= 0 else int(tgt)
            got = (False, target, SECTIONS[sec], tuple(c.text[v] for v in volley if v >= 0))
    return got, gs[6][1 + d.seat].copy()


def readable(d: Decision):
    a = d.answer
    if d.method == "broadside":
        return (bool(a.flee), a.target, a.section, tuple(a.volley))
    if d.method == "navy_target":
        return (a[0], a[1])
    return a


def test_the_recorded_games_cover_every_battle_decision(ctx):
    """The sample holds every kind of decision, lone and company battles against non-player
    ships, player battles, and ties broken by the generator (else a test below would pass on a
    branch it never ran)."""
    kinds = {d.method for d in ctx.decisions}
    assert kinds >= {"battle_card", "broadside"}
    bs = [d for d in ctx.decisions if d.method == "broadside"]
    npc = [d for d in bs if d.view.npc_fighting]
    lone_ = [d for d in npc if sum(s.present for s in d.view.ships) == 1]
    assert lone_ and len(lone_) < len(npc) < len(bs)
    assert any((d.rng_before != d.rng_after).any() for d in ctx.decisions)


def test_every_decision_is_the_readable_one(ctx):
    """Each recorded decision: the same answer and the same generator state after it."""
    bad = []
    for i, d in enumerate(ctx.decisions):
        got, rng = answer(ctx, d)
        if got != readable(d) or (rng != d.rng_after).any():
            bad.append((i, d.method, got, readable(d)))
    assert bad == []


def test_stand_and_flee_values_are_the_same_floats(ctx):
    """``_stand_and_flee_values`` at every recorded broadside, compared with ``==``."""
    bad = []
    for d in ctx.decisions:
        if d.method != "broadside":
            continue
        view, hand = d.view, d.args[0]
        pl = d.player
        pl._stake, pl._hv_chest, pl._gold = d.stake, d.hv_chest, d.gold
        me = view.ship(view.me)
        others = [s for s in view.ships if s.seat != view.me and s.present]
        want = pl._stand_and_flee_values(view, me, others, hand)
        bt, idx = ctx.P.bt(view, hand)
        gs = ctx.P.gs(_n(d), d)
        oc = (*new_cache(), np.zeros(256, np.int64))
        got = eb.stand_and_flee_values(
            ctx.P.tab, gs, oc, bt, idx[view.me], ctx.lt, ctx.lmemo, ctx.ct, ctx.cmemo, d.stake,
            d.gold,
        )  # fmt: skip
        if tuple(got) != tuple(want):
            bad.append((got, want))
    assert bad == []


def test_battle_tracks_are_the_readable_ones(ctx):
    """``_battle_track`` of every present ship of every recorded view."""
    bad = []
    trk = np.zeros(64, np.int64)
    for d in ctx.decisions:
        bt, idx = ctx.P.bt(d.view)
        for s in d.view.ships:
            if not s.present:
                continue
            h, track = d.player._battle_track(s)
            got = eb.battle_track(ctx.P.tab, ctx.lt, bt, idx[s.seat], trk)
            if got != h or tuple(trk[: h + 1]) != track:
                bad.append((s, h, track, got, tuple(trk[: got + 1])))
    assert bad == []
