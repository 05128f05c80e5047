"""Support for tests/test_cove_fast_ev_battle.py: the readable expected-value players' battle
decisions recorded from seeded games, and the compiled battle state ``bt`` of a recorded
``BattleView`` (what the compiled battle policy reads, built from what the readable one saw)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simulator.cove import api, heuristic
from simulator.cove.api import play_one
from simulator.cove.combat_policies import SECTIONS, BattleView
from simulator.cove.fast import battle as fb
from simulator.cove.fast.packed import (
    BG_BECALMED,
    BG_CARD_ROUND,
    BG_CONTROLLER,
    BG_GRAPPLE,
    BG_LEN,
    BG_NNPC,
    BG_S,
    BG_TI,
    BT_BONUS,
    BT_CAN_FIRE,
    BT_CHESTS,
    BT_HAND_N,
    BT_SMOKE,
    C_BLANK,
    D_ROWS,
    DR_COLS,
    G_LEN,
    NS_FIGHTS,
    NS_HAS_FIRED,
    NS_HULL,
    NS_PRESENT,
    NS_ROW,
    PP,
    RC_COLS,
    TR_COLS,
    hand_codes,
    pack_rules,
)
from simulator.cove.fast.rng import R_COLS, state_of
from simulator.cove.rules import CoveRules
from simulator.runner import Block

#: the recorded readable methods (the battle policy the compiled module mirrors)
METHODS = ("battle_card", "overboard_chests", "broadside", "navy_target")
#: the player's parameters the compiled battle policy reads (pp columns)
PARAMS = ("w_gold", "w_chest", "rout_cost", "fight_bias", "play_cards")
HAND_CAP = 64


@dataclass
class Decision:
    """One readable battle decision with everything it read."""

    method: str
    seat: int  # the deciding seat (the navy: its controller)
    params: dict[str, float]
    stake: float
    hv_chest: float
    gold: int
    view: BattleView
    args: tuple  # (hand,) / (chests,) / ()
    rng_before: np.ndarray
    rng_after: np.ndarray
    answer: Any
    player: heuristic.HeuristicPlayer


def record_games(rules: CoveRules, names, seeds, monkeypatch) -> list[Decision]:
    """Play one readable game per seed (``names`` seated in order) and return every battle
    decision a :class:`~simulator.cove.heuristic.HeuristicPlayer` took, in order."""
    out: list[Decision] = []
    orig = {m: getattr(heuristic.HeuristicPlayer, m) for m in METHODS}

    def wrap(method):
        f = orig[method]

        def g(self, view, *args):
            seat = view.me
            if method == "navy_target":
                seat = next(i for i, p in enumerate(current) if p is self)
            before = state_of(self.rng)
            state = (self._stake, self._hv_chest, self._gold)
            answer = f(self, view, *args)
            out.append(
                Decision(
                    method, seat, {k: float(self.p[k]) for k in PARAMS}, *state, view, args,
                    before, state_of(self.rng), answer, self,
                )
            )  # fmt: skip
            return answer

        return g

    current: list = []
    make = api.make_player

    def make_and_keep(rules_, nm, rng, cache=None):
        p = make(rules_, nm, rng, cache)
        current.append(p)
        return p

    with monkeypatch.context() as mp:
        for m in METHODS:
            mp.setattr(heuristic.HeuristicPlayer, m, wrap(m))
        mp.setattr(api, "make_player", make_and_keep)
        for seed in seeds:
            current.clear()
            play_one(rules, names, Block(index=0, start=0, size=1, entropy=seed))
    return out


class Packed:
    """The compiled tables of ``rules`` and the codes the tests translate with."""

    def __init__(self, rules: CoveRules):
        self.rules = rules
        self.tables = pack_rules(rules)
        self.tab = self.tables.arrays()
        self.codes = hand_codes(rules)
        self.npc_row = {k: i for i, k in enumerate(self.tables.npc_keys)}
        self.parrot_row = {k: i for i, k in enumerate(rules.parrots)}
        if rules.combat.parrot_hits_to_kill != 2:
            raise ValueError("the view shows a wounded parrot's hits only when it has 2")

    def gs(self, n: int, d: Decision) -> tuple:
        """A game state holding what the battle policy reads: the seats' generators (the
        decider's at its recorded state) and the decider's parameter row."""
        rs = np.zeros((n + 1, R_COLS), np.uint64)
        rs[1 + d.seat] = d.rng_before
        pp = np.zeros((n, max(PP.values()) + 2), np.float64)
        for k in PARAMS:
            pp[d.seat, PP[k]] = d.params[k]
        return (
            np.zeros(G_LEN, np.int64),
            np.zeros((n, 40), np.int64),
            np.zeros((D_ROWS, 8), np.int64),
            np.zeros((1, RC_COLS), np.int64),
            np.zeros((1, 14), np.int64),
            np.zeros((1, TR_COLS), np.int64),
            rs,
            pp,
            np.zeros(256, np.int64),
            np.zeros(5, np.int64),
            np.zeros((1, DR_COLS), np.float64),
        )

    def bt(self, view: BattleView, hand=()) -> tuple[tuple, dict[int, int]]:
        """The compiled battle state of ``view`` (ship ``i`` = ``view.ships[i]``, seat order;
        the decider's battle hand ``hand``; others' hands hold blanks of their size) and the
        seat -> ship index map."""
        rules = self.rules
        c = rules.combat
        tab = self.tab
        bt = fb.scratch(HAND_CAP)
        nn = max((n.index for n in view.npcs), default=-1) + 1
        fb.reset(bt, len(view.ships), nn, int(view.island == "treasure_island"), -1)
        bsh, pos, art, php, psec, was_hit, present, outcome, fame, bst, bhand = bt[:11]
        nst, bg = bt[12], bt[13]
        index = {}
        for i, s in enumerate(view.ships):
            index[s.seat] = i
            prow = self.parrot_row[s.parrot] if s.parrot is not None else -1
            fb.set_ship(
                tab, bt, i, s.seat, np.array(s.positions, np.int64),
                np.full(4, -1, np.int64), prow, bool(s.parrot_wounded), s.chests, 0,
            )  # fmt: skip
            hp = 0
            if s.parrot is not None:
                hp = 1 if s.parrot_wounded else c.parrot_hits_to_kill
            php[i] = hp
            psec_i = SECTIONS.index(rules.parrots[s.parrot].section) if s.parrot else -1
            for k in range(4):
                pos[i, k] = s.positions[k]
                par_k = hp if (s.parrot and c.parrot_absorbs_hits and psec_i == k) else 0
                art[i, k] = s.protection[k] - par_k
            was_hit[i] = int(s.was_hit)
            present[i] = int(s.present)
            bst[i, BT_SMOKE] = int(s.smoke)
            bst[i, BT_CAN_FIRE] = int(s.can_fire)
            bst[i, BT_CHESTS] = s.chests
            base = rules.ship_mat.sails[s.positions[3] - 1] if s.positions[3] > 0 else 0
            if s.parrot is not None:
                base += rules.parrots[s.parrot].speed_bonus
            bst[i, BT_BONUS] = s.speed - base
            if s.seat == view.me and hand:
                bst[i, BT_HAND_N] = len(hand)
                for q, card in enumerate(hand):
                    bhand[i, q] = self.codes[card]
            else:
                bst[i, BT_HAND_N] = s.hand_size
                bhand[i, : s.hand_size] = C_BLANK
        nst[:] = 0
        for n in view.npcs:
            fb.set_npc(tab, bt, n.index, self.npc_row[n.key])
            nst[n.index, NS_PRESENT] = int(n.present)
            nst[n.index, NS_HULL] = n.hull
            nst[n.index, NS_HAS_FIRED] = int(n.has_fired)
        for j in range(nn):
            if nst[j, NS_ROW] == 0 and nst[j, NS_FIGHTS] == 0:
                nst[j, NS_PRESENT] = 0
        bg[BG_GRAPPLE] = int(view.grapple)
        bg[BG_BECALMED] = int(view.becalmed)
        bg[BG_CARD_ROUND] = view.card_round
        bg[BG_CONTROLLER] = -1
        assert bg[BG_S] == len(view.ships) and bg[BG_NNPC] == nn and bg.shape[0] == BG_LEN
        assert bg[BG_TI] in (0, 1)
        return bt, index
