"""Pirate's Cove: vectorised battles -- one battle at one island, many independent trials at once.

Same rules as the scalar reference :mod:`simulator.cove.battle` (sections "Combat", "Non-player
ships" and "Tavern deck" of ``../shared/rules/pirates-cove.md``; readings in
``docs/rules-cove-combat.md``), on numpy arrays with a leading trial axis. Every trial starts from
the same ships; chance makes them diverge. Branches of the rules are masks: at each slot of an
exchange, the trials are grouped by which ship acts there (speed order differs between trials
once sails are damaged) and each group is handled with array operations on its rows.

The Battle-card rounds depend only on the starting state and the speed-tie order, so they are
played once per distinct tie order with the scalar engine's own code and broadcast to the trials
that drew that order. Volley cards, flight, targeting and the Royal Navy's controller are asked of
the policies on the batch (:meth:`BattlePolicy.broadside_batch`,
:meth:`RoyalNavyPolicy.target_batch`).

Speed ties and the pirates' target ties are settled by uniform random keys (the scalar engine rolls
dice until they differ; both give every order of the tied ships the same probability).

Battles without cards (the common case: duels, lethality, the benchmark) are dispatched to the
compiled kernel :mod:`simulator.cove.combat_kernel` (same rules, dice pre-generated in bulk by the
same generator); this module's numpy path plays the rest (cards in hand, custom policies). The
rule is :func:`dispatch`, and every :class:`BatchResult` says which engine played it. Battles
with several non-player ships are the scalar engine's only.

Public API: :func:`simulate_battles` -> :class:`BatchResult`, :func:`dispatch`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simulator.cove.battle import (
    FAME_CAUSES,
    OUTCOMES,
    ROYAL_NAVY,
    TREASURE_ISLAND,
    BattleShip,
    _Battle,
    npc_keys,
)
from simulator.cove.combat_policies import VOLLEY_CARDS, BattlePolicy, RoyalNavyPolicy
from simulator.cove.rules import SECTIONS, CoveRules

HULL, CREW, CANNONS, SAILS = range(4)
WON, ROUTED, FLED, MUTINY, STAYED = range(5)  # outcome codes, OUTCOMES order
F_FLIGHT, F_ROUT, F_PIRATE, F_CAPTURE, F_PARROT, F_MUTINY = range(6)  # FAME_CAUSES order
GRAPESHOT, POWDER_KEG, CANNONADE = range(3)  # VOLLEY_CARDS order
_NEG = -(10**6)


class BatchState:
    """Arrays of a batch of battles. Ships are stored in seat order (index = rank of the seat).

    Shapes: ``n`` trials, ``S`` player ships.
    """

    def __init__(self, n: int, S: int, parrot_absorbs_hits: bool = True):
        self.n, self.S = n, S
        self.parrot_absorbs_hits = parrot_absorbs_hits  # rules.combat.parrot_absorbs_hits
        self.pos = np.zeros((n, S, 4), np.int8)  # ring positions, SECTIONS order (0 = destroyed)
        self.art = np.zeros((n, S, 4), np.int8)  # Artisan hits left per section
        self.php = np.zeros((n, S), np.int8)  # parrot hits left (0: no parrot / dead)
        self.parrot_sec = np.full(S, -1, np.int64)  # section index of each ship's parrot
        self.start_pos = np.zeros((S, 4), np.int16)
        self.present = np.ones((n, S), bool)
        self.outcome = np.zeros((n, S), np.int8)  # OUTCOMES codes
        self.was_hit = np.zeros((n, S), bool)
        self.destroyed = np.zeros((n, S), bool)  # some section of the ship is destroyed
        self.smoke = np.zeros((n, S), bool)
        self.speed_bonus = np.zeros((n, S), np.int16)  # Favourable wind + Overboard
        self.can_fire = np.ones((n, S), bool)
        self.hand = np.zeros((n, S, 3), np.int8)  # volley cards left, VOLLEY_CARDS order
        self.played_volley = np.zeros((n, S, 3), np.int8)
        self.grapple = np.zeros(n, bool)
        self.becalmed = np.zeros(n, bool)
        self.fame = np.zeros((n, S, 6), np.int16)  # FAME_CAUSES order
        self.npc_hull = np.zeros(n, np.int16)
        self.npc_present = np.zeros(n, bool)  # a fighting non-player ship still afloat
        self.npc_sunk = np.zeros(n, bool)
        self.npc_fired = np.zeros((n, S), bool)  # ships the pirate fired at in its current cycle
        self.npc_acted = np.zeros(n, bool)  # the non-player ship fired in the current exchange
        self.active = np.ones(n, bool)
        self.exchanges = np.zeros(n, np.int16)
        self.captured_by = np.full(n, -1, np.int8)  # ship index that took the Cacafuego
        self.card_group = np.zeros(n, np.int16)  # which card-phase result the trial drew
        self.dice_used = 0
        # flat views (same memory): index (trial * S + ship) * 4 + section, or trial * S + ship
        self.pos_f = self.pos.reshape(-1)
        self.art_f = self.art.reshape(-1)
        self.php_f = self.php.reshape(-1)
        self.present_f = self.present.reshape(-1)
        self.was_hit_f = self.was_hit.reshape(-1)
        self.destroyed_f = self.destroyed.reshape(-1)
        self.smoke_f = self.smoke.reshape(-1)

    @property
    def npc_fighting(self) -> np.ndarray:
        return self.npc_present

    def parrot_prot(self, idx: np.ndarray) -> np.ndarray:
        """(m, S, 4) hits absorbed by the living parrots on their sections (for policies)."""
        out = np.zeros((len(idx), self.S, 4), np.int8)
        if self.parrot_absorbs_hits:
            for s in range(self.S):
                if self.parrot_sec[s] >= 0:
                    out[:, s, self.parrot_sec[s]] = self.php[idx, s]
        return out


@dataclass
class BatchResult:
    """Per-trial results; ship axis in the order of the ``ships`` argument."""

    outcome: np.ndarray  # (n, S) int8, OUTCOMES codes
    fame: np.ndarray  # (n, S, 6) int16, FAME_CAUSES order
    positions: np.ndarray  # (n, S, 4) final ring positions (0 = destroyed)
    npc_sunk: np.ndarray  # (n,) bool
    captured_by: np.ndarray  # (n,) ship index (argument order) or -1
    exchanges: np.ndarray  # (n,)
    capped: np.ndarray  # (n,) bool
    dice_used: int
    engine: str = "numpy"  # which engine played the batch ("kernel" or "numpy", see dispatch)
    engine_reason: str = ""  # why (the dispatch rule's words)

    @property
    def n(self) -> int:
        return len(self.npc_sunk)

    def outcome_counts(self, ship: int = 0) -> dict[str, int]:
        c = np.bincount(self.outcome[:, ship], minlength=len(OUTCOMES))
        return {k: int(v) for k, v in zip(OUTCOMES, c)}


class _Engine:
    def __init__(
        self,
        rules: CoveRules,
        ships: Sequence[BattleShip],
        npc: str | None,
        policies: Sequence[BattlePolicy],
        n: int,
        rng: np.random.Generator,
        island: str,
        royal_navy_policy: RoyalNavyPolicy | None,
    ):
        # the scalar battle validates the input and plays the battle-card rounds
        self.args = (rules, list(ships), npc, list(policies), rng, island, None, royal_navy_policy)
        self.proto = _Battle(*self.args)
        self.rules, self.c, self.rng, self.island = rules, rules.combat, rng, island
        self.seat_order = sorted(range(len(ships)), key=lambda i: ships[i].seat)  # internal -> arg
        self.S = S = len(ships)
        self.policies = [policies[i] for i in self.seat_order]
        self.rn_policy = royal_navy_policy or RoyalNavyPolicy()
        self.npc = self.proto.npc
        self.npc_key = npc
        self.npc_fights = self.proto.npc_fights
        mat = rules.ship_mat
        # value tables indexed by position (0 = destroyed -> 0)
        self.val = np.zeros((4, mat.num_positions + 1), np.int16)
        for k, sec in enumerate(SECTIONS):
            self.val[k, 1:] = getattr(mat, sec)
        st = self.st = BatchState(n, S, self.c.parrot_absorbs_hits)
        self.parrot_fixed = np.zeros(S, np.int16)
        self.parrot_bones = np.zeros(S, bool)
        self.parrot_speed = np.zeros(S, np.int16)
        for j, i in enumerate(self.seat_order):
            ps = self.proto.ships[i]
            st.pos[:, j] = ps.pos
            st.start_pos[j] = ps.pos
            st.art[:, j] = ps.art
            st.php[:, j] = ps.parrot_hp
            if ps.parrot is not None:
                par = rules.parrots[ps.parrot]
                st.parrot_sec[j] = SECTIONS.index(par.section)
                self.parrot_fixed[j] = par.fixed_dice
                self.parrot_bones[j] = par.dice_equal_cannons
                self.parrot_speed[j] = par.speed_bonus
        if self.npc_fights:
            st.npc_hull[:] = self.npc.hull
            st.npc_present[:] = True
        self.max_dice = int(
            max(
                self.val[CREW].max(),
                self.val[CANNONS].max(),
                self.parrot_fixed.max(initial=0),
                self.npc.dice if self.npc is not None else 0,
            )
        )
        self.card_results: list[dict] = []
        self.volley_in_hand = np.zeros(S, bool)

    # ------------------------------------------------------------------ helpers
    def speeds(self, idx: np.ndarray) -> np.ndarray:
        st = self.st
        sp = self.val[SAILS][st.pos[idx, :, SAILS]] + st.speed_bonus[idx]
        sp = sp + np.where(st.php[idx] > 0, self.parrot_speed[None, :], 0)
        return sp.astype(np.int32)

    def num_dice(self, idx: np.ndarray, a: int) -> np.ndarray:
        st = self.st
        crew = self.val[CREW][st.pos[idx, a, CREW]]
        can = self.val[CANNONS][st.pos[idx, a, CANNONS]]
        n = np.where(st.grapple[idx], crew, np.minimum(crew, can))
        alive = st.php[idx, a] > 0
        if self.parrot_fixed[a]:
            n = np.where(alive, self.parrot_fixed[a], n)
        if self.parrot_bones[a]:
            n = np.where(alive, can, n)
        return n.astype(np.int16)

    def roll_hits(self, n_dice: np.ndarray, thr: np.ndarray, width: int):
        m = len(n_dice)
        width = int(n_dice.max(initial=0))  # roll only as many columns as the largest volley needs
        dice = self.rng.integers(1, 7, size=(m, width), dtype=np.int8)
        used = np.arange(width)[None, :] < n_dice[:, None]
        self.st.dice_used += int(n_dice.sum())
        hits = ((dice >= thr[:, None]) & used).sum(axis=1).astype(np.int16)
        return dice, used, hits

    def hit(self, t: np.ndarray, s, sec, k: np.ndarray) -> None:
        """``k`` hits on section ``sec`` of ship ``s`` in trials ``t`` (one row per trial).

        Works on flat views of the state arrays (1-D fancy indexing is several times faster than
        indexing with three index arrays).
        """
        st = self.st
        fs = t * self.S + s  # flat (trial, ship) index
        m = (k > 0) & st.present_f[fs]
        if not m.all():
            if not m.any():
                return
            t, fs, k = t[m], fs[m], k[m]
            if not np.isscalar(sec):
                sec = sec[m]
            if not np.isscalar(s):
                s = s[m]
        k = k.astype(np.int16)
        fi = fs * 4 + sec
        st.was_hit_f[fs] = True
        art = st.art_f[fi]
        if art.any():
            a = np.minimum(k, art)
            st.art_f[fi] = art - a
            k = k - a
        psec = self.st.parrot_sec[s]
        par = (psec == sec) & (k > 0)
        if par.any():
            php = st.php_f[fs]
            par &= php > 0
            p = np.where(par, np.minimum(k, php), 0).astype(np.int16)
            st.php_f[fs] = php - p
            died = par & (php - p == 0)
            if self.c.parrot_absorbs_hits:
                k = k - p
            if died.any():
                st.fame[t[died], (fs[died] - t[died] * self.S), F_PARROT] -= (
                    self.c.parrot_death_fame_loss
                )
        new = np.maximum(st.pos_f[fi] - k, 0)
        st.pos_f[fi] = new
        gone = new == 0
        if gone.any():
            st.destroyed_f[fs[gone]] = True

    def resolve(self, t: np.ndarray, sharers: np.ndarray) -> None:
        """After a broadside in trials ``t``: sink the NPC, rout ships, hand out fame."""
        st = self.st
        if self.npc_fights:
            sunk = st.npc_present[t] & (st.npc_hull[t] <= 0)
            if sunk.any():
                ts = t[sunk]
                st.npc_hull[ts] = 0
                st.npc_present[ts] = False
                st.npc_sunk[ts] = True
                sh = sharers[sunk]
                cnt = np.maximum(sh.sum(axis=1), 1)
                share = (self.npc.fame // cnt).astype(np.int16)
                st.fame[ts, :, F_PIRATE] += np.where(sh, share[:, None], 0).astype(np.int16)
        routed = st.present[t] & st.destroyed[t]
        if routed.any():
            rows = routed.any(axis=1)
            tr = t[rows]
            r = routed[rows]
            pres = st.present[tr] & ~r
            st.present[tr] = pres
            out = st.outcome[tr]
            out[r] = ROUTED
            st.outcome[tr] = out
            st.fame[tr, :, F_ROUT] += (
                pres * (r.sum(axis=1, keepdims=True) * self.c.rout_fame)
            ).astype(np.int16)
        self.update_active(t)

    def update_active(self, t: np.ndarray) -> None:
        st = self.st
        players = st.present[t].sum(axis=1)
        if self.island == TREASURE_ISLAND:
            over = ~st.npc_present[t] | (players == 0)
        else:
            over = np.where(st.npc_present[t], players == 0, players <= 1)
        st.active[t] = st.active[t] & ~over

    # ------------------------------------------------------------------ card phase
    def card_phase(self) -> None:
        st, proto = self.st, self.proto
        pr_order = self.seat_order  # internal j -> argument i
        if not proto.has_battle_cards():
            groups = np.zeros(st.n, np.int64)
            results = [self._card_result(None)]
        else:
            sp = np.array([proto.speed(proto.ships[i]) for i in pr_order], float)
            keys = sp[None, :] + self.rng.random((st.n, self.S))
            order = np.argsort(-keys, axis=1)  # card order per trial (internal indices)
            uniq, groups = np.unique(order, axis=0, return_inverse=True)
            groups = groups.reshape(-1)
            results = [self._card_result([pr_order[j] for j in row]) for row in uniq]
        st.card_group[:] = groups
        for g, res in enumerate(results):
            rows = groups == g
            st.smoke[rows] = res["smoke"]
            st.speed_bonus[rows] = res["speed_bonus"]
            st.hand[rows] = res["hand"]
            st.grapple[rows] = res["grapple"]
            st.becalmed[rows] = res["becalmed"]
        self.card_results = results
        self.volley_in_hand = st.hand.any(axis=(0, 2))  # per ship: any volley card in any trial

    def _card_result(self, order_args: list[int] | None) -> dict:
        """Play the battle-card rounds once on a fresh scalar battle in the given order."""
        b = _Battle(*self.args)
        if order_args is not None:
            b.card_phase([b.ships[i] for i in order_args])
        c = self.c
        ships = [b.ships[i] for i in self.seat_order]
        return {
            "smoke": np.array([s.smoke for s in ships]),
            "speed_bonus": np.array(
                [
                    s.wind * c.favourable_wind_speed + s.overboard * c.overboard_speed_per_chest
                    for s in ships
                ],
                np.int16,
            ),
            "hand": np.array([[s.hand.count(v) for v in VOLLEY_CARDS] for s in ships], np.int8),
            "grapple": b.grapple,
            "becalmed": b.becalmed,
            "played": [list(s.played) for s in ships],
            "overboard": [s.overboard for s in ships],
            "chests": [s.chests for s in ships],
        }

    # ------------------------------------------------------------------ turns
    def player_turn(self, a: int, idx: np.ndarray) -> None:
        st, c = self.st, self.c
        d = self.policies[a].broadside_batch(st, a, idx)
        flee = np.asarray(d["flee"], bool)
        if flee.any():
            t = idx[flee]
            st.present[t, a] = False
            st.outcome[t, a] = FLED
            hit = st.was_hit[t, a]
            st.fame[t, :, F_FLIGHT] += (st.present[t] & hit[:, None]) * np.int16(
                c.flight_fame_if_hit
            )
            if c.mutiny_on > 0:
                die = self.rng.integers(1, 7, size=len(t), dtype=np.int8)
                st.dice_used += len(t)
                mut = t[die <= c.mutiny_on]
                st.outcome[mut, a] = MUTINY
                st.fame[mut, a, F_MUTINY] -= c.mutiny_fame_loss
            self.update_active(t)
        stay = ~flee
        reload = stay & ~st.can_fire[idx, a]
        if reload.any():
            st.can_fire[idx[reload], a] = True
        fire = stay & ~reload
        if fire.all():  # the common case: nobody flees or reloads
            f = idx
            target = np.asarray(d["target"])
            section = np.asarray(d["section"])
        else:
            if not fire.any():
                return
            f = idx[fire]
            target = np.asarray(d["target"])[fire]
            section = np.asarray(d["section"])[fire]
        if self.volley_in_hand[a]:
            volley = (
                np.asarray(d["volley"], bool)[fire] & (st.hand[f, a] > 0) & ~st.becalmed[f][:, None]
            )
            st.hand[f, a] -= volley.astype(np.int8)
            st.played_volley[f, a] += volley.astype(np.int8)
            grape, keg, canno = volley[:, GRAPESHOT], volley[:, POWDER_KEG], volley[:, CANNONADE]
        else:  # nobody in this batch holds a volley card for ship a
            grape = keg = canno = np.zeros(len(f), bool)
        at_npc = st.npc_present[f]
        tgt = np.where(at_npc, 0, target)
        tgt_smoke = st.smoke_f[f * self.S + tgt] & ~at_npc
        thr = np.where(tgt_smoke, c.smoke_hit_on, c.hit_on)
        g_thr = (
            c.grapeshot_hit_on if c.grapeshot_beats_smoke else np.maximum(thr, c.grapeshot_hit_on)
        )
        thr = np.where(grape, g_thr, thr).astype(np.int8)
        sharers = st.present[f] if self.npc_fights else None  # only pirate fame needs them
        _, _, hits = self.roll_hits(self.num_dice(f, a), thr, self.max_dice)
        if at_npc.any():
            st.npc_hull[f[at_npc]] -= hits[at_npc]
        ship = ~at_npc
        if ship.any():
            fs, ts, ks = f[ship], tgt[ship], hits[ship]
            cn = canno[ship]
            sec = section[ship]
            self.hit(fs[~cn], ts[~cn], sec[~cn], ks[~cn])
            for k in range(4):
                self.hit(fs[cn], ts[cn], k, ks[cn])
        if keg.any():
            fk, kk = f[keg], hits[keg]
            for s in range(self.S):
                self.hit(fk, s, HULL, kk)
            if self.npc_fights:
                on = st.npc_present[fk]
                st.npc_hull[fk[on]] -= kk[on]
        if grape.any():
            fg = f[grape]
            self.hit(fg, a, CANNONS, np.full(len(fg), c.grapeshot_self_hits, np.int16))
        if canno.any():
            st.can_fire[f[canno], a] = False
        self.resolve(f, sharers)

    def npc_turn(self, idx: np.ndarray) -> None:
        st, c, npc = self.st, self.c, self.npc
        m = len(idx)
        rows = np.arange(m)
        if self.npc_key == ROYAL_NAVY or npc.first_target == "controller":
            tgt, sec = self.rn_policy.target_batch(st, idx)
            secs = None
        elif self.S == 1:  # a lone ship is always the target
            tgt = np.zeros(m, np.int64)
            secs = [0, 1, 2, 3] if npc.damages == "every_section" else [SECTIONS.index(npc.damages)]
            sec = None
        else:
            pres = st.present[idx]
            cand = pres & ~st.npc_fired[idx]
            reset = ~cand.any(axis=1)
            if reset.any():
                st.npc_fired[idx[reset]] = False
                cand[reset] = pres[reset]
            crit = npc.first_target
            if crit == "most_cannons":
                v = self.val[CANNONS][st.pos[idx, :, CANNONS]]
            elif crit == "largest_crew":
                v = self.val[CREW][st.pos[idx, :, CREW]]
            elif crit == "strongest_hull":
                v = self.val[HULL][st.pos[idx, :, HULL]]
            else:
                v = self.speeds(idx)
            score = np.where(cand, v.astype(float) + self.rng.random((m, self.S)), _NEG)
            tgt = np.argmax(score, axis=1)
            st.npc_fired[idx, tgt] = True
            secs = [0, 1, 2, 3] if npc.damages == "every_section" else [SECTIONS.index(npc.damages)]
            sec = None
        sharers = st.present[idx].copy()
        thr = np.where(st.smoke_f[idx * self.S + tgt], c.smoke_hit_on, c.hit_on).astype(np.int8)
        dice, used, hits = self.roll_hits(np.full(m, npc.dice, np.int16), thr, npc.dice)
        misfire = None
        if npc.misfire_redirect and self.S > 1:
            S = self.S
            others = sharers.copy()
            others[rows, tgt] = False
            rel = (np.arange(S)[None, :] - tgt[:, None]) % S  # clockwise distance from the target
            rel = np.where(others, rel, S + 1)
            number = np.argsort(np.argsort(rel, axis=1), axis=1) + 1  # 1 = next clockwise
            number = np.where(others & (number <= npc.misfire_positions), number, 0)
            miss = used & (dice < thr[:, None])  # (m, dice)
            face = np.where(miss, dice, 0)
            misfire = (face[:, :, None] == number[:, None, :]) & (
                number[:, None, :] > 0
            )  # (m, dice, S)
            if c.smoke_blocks_misfire:  # a smoked victim is hit only by a face that beats Smoke
                misfire &= ~(st.smoke[idx][:, None, :] & (face[:, :, None] < c.smoke_hit_on))
            misfire = misfire.sum(axis=1).astype(np.int16)  # (m, S) hull hits
        if secs is None:
            self.hit(idx, tgt, sec, hits)
        else:
            for k in secs:
                self.hit(idx, tgt, k, hits)
        if misfire is not None:
            for s in range(self.S):
                self.hit(idx, s, HULL, misfire[:, s])
        self.resolve(idx, sharers)

    # ------------------------------------------------------------------ main loop
    def run(self) -> BatchResult:
        st, c = self.st, self.c
        npc = self.npc
        if npc is not None and not npc.fights and self.island == TREASURE_ISLAND:
            st.active[:] = False
        else:
            self.update_active(np.arange(st.n))
            if st.active.any():
                self.card_phase()
        S = self.S
        capped = np.zeros(st.n, bool)
        exch = 0
        while True:
            A = np.flatnonzero(st.active)
            if len(A) == 0:
                break
            if exch >= c.max_exchanges:
                capped[A] = True
                pres = st.present[A]
                out = st.outcome[A]
                out[pres] = STAYED
                st.outcome[A] = out
                break
            exch += 1
            st.exchanges[A] += 1
            st.npc_acted[A] = False
            hull_start = st.npc_hull[A].copy()
            sp = np.full((len(A), S + 1), _NEG, float)
            sp[:, :S] = np.where(st.present[A], self.speeds(A), _NEG)
            if self.npc_fights:
                sp[:, S] = np.where(st.npc_present[A], npc.sails, _NEG)
            n_slots = S + (1 if self.npc_fights else 0)
            if n_slots == 2:  # two ships: compare, with a fair coin on ties
                a0, a1 = (sp[:, 0], sp[:, 1]) if S == 2 else (sp[:, 0], sp[:, S])
                first0 = a0 > a1
                tie = a0 == a1
                if tie.any():
                    first0[tie] = self.rng.random(int(tie.sum())) < 0.5
                other = 1 if S == 2 else S
                order = np.empty((len(A), 2), np.int64)
                order[:, 0] = np.where(first0, 0, other)
                order[:, 1] = np.where(first0, other, 0)
            else:
                order = np.argsort(-(sp + self.rng.random(sp.shape)), axis=1)
            actors = [j for j in range(S + 1) if j < S or self.npc_fights]
            for slot in range(n_slots):
                actor = order[:, slot]
                for a in actors:
                    sel = A[actor == a]
                    if len(sel) == 0:
                        continue
                    if a == S:
                        sel = sel[st.active[sel] & st.npc_present[sel]]
                        if len(sel):
                            self.npc_turn(sel)
                            st.npc_acted[sel] = True
                    else:
                        sel = sel[st.active[sel] & st.present[sel, a]]
                        if len(sel):
                            self.player_turn(a, sel)
            if self.npc_fights and npc.regenerate_per_exchange:
                on = st.npc_present[A]
                lost = hull_start - st.npc_hull[A]
                regen = np.minimum(lost, npc.regenerate_per_exchange)
                new = np.minimum(st.npc_hull[A] + regen, npc.hull)
                st.npc_hull[A] = np.where(on, new, st.npc_hull[A])
        if npc is not None and not npc.fights:
            self.capture()
        return self.result(capped)

    def capture(self) -> None:
        st = self.st
        pres = st.present
        cnt = pres.sum(axis=1)
        if self.island == TREASURE_ISLAND:
            if self.rules.decisions.cacafuego_at_treasure_island != "fastest":
                return
            all_t = np.arange(st.n)
            sp = np.where(pres, self.speeds(all_t) + self.rng.random(pres.shape), _NEG)
            who = np.argmax(sp, axis=1)
            ok = cnt >= 1
        else:
            who = np.argmax(pres, axis=1)
            ok = cnt == 1
        t = np.flatnonzero(ok)
        st.captured_by[t] = who[t]
        if self.npc.fame_die:
            fame = self.rng.integers(1, 7, size=len(t), dtype=np.int16)
            st.dice_used += len(t)
        else:
            fame = np.full(len(t), self.npc.fame, np.int16)
        st.fame[t, who[t], F_CAPTURE] += fame

    def result(self, capped: np.ndarray) -> BatchResult:
        st = self.st
        inv = np.argsort(self.seat_order)  # argument i -> internal j
        cap = st.captured_by.astype(np.int64)
        cap_arg = np.where(cap >= 0, np.asarray(self.seat_order)[np.maximum(cap, 0)], -1)
        return BatchResult(
            outcome=st.outcome[:, inv],
            fame=st.fame[:, inv],
            positions=st.pos[:, inv],
            npc_sunk=st.npc_sunk.copy(),
            captured_by=cap_arg.astype(np.int8),
            exchanges=st.exchanges.copy(),
            capped=capped,
            dice_used=st.dice_used,
        )


def dispatch(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | Sequence[str] | None,
    policies: Sequence[BattlePolicy],
    island: str,
    royal_navy_policy: RoyalNavyPolicy | None = None,
    engine: str = "auto",
) -> tuple[str, str]:
    """Which engine plays a batch of battles, and why: the stated dispatch rule.

    * Several non-player ships in one battle (a Legendary Pirate and the Royal Navy): no batch
      engine plays them -- only the scalar engine :func:`simulator.cove.battle.resolve_battle`
      does (the full game's engine): refused here with that reason.
    * ``engine="auto"``: the compiled kernel when :func:`combat_kernel.kernel_applies` says it
      covers the battle (no cards in hand, ``RulePolicy`` / base policies, the default Royal Navy
      controller); otherwise the numpy engine, with the kernel's reason.
    * ``engine="kernel"`` / ``"numpy"``: that engine (the kernel refuses what it does not cover).

    The full game plays every battle with the scalar engine (it takes the game's dice one at a
    time and asks the players at each decision), ``fight.GAME_BATTLE_ENGINE``.

    Returns:
        ``(engine, reason)`` with engine ``"kernel"`` or ``"numpy"``.

    Raises:
        ValueError: an unknown engine, several non-player ships, or a forced kernel that does
        not cover the battle.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} (allowed: {', '.join(ENGINES)})")
    if len(npc_keys(npc)) > 1:
        raise ValueError(
            f"{len(npc_keys(npc))} non-player ships in one battle: only the scalar engine "
            "(battle.resolve_battle) plays them (allowed here: at most one)"
        )
    if engine == "numpy":
        return "numpy", "forced (engine='numpy')"
    from simulator.cove import combat_kernel  # numba: imported only when needed

    why = combat_kernel.kernel_applies(rules, ships, npc, policies, island, royal_navy_policy)
    if engine == "kernel":
        if why is not None:
            raise ValueError(f"the compiled kernel does not play this battle: {why}")
        return "kernel", "forced (engine='kernel')"
    if why is None:
        return "kernel", "the kernel covers it"
    return "numpy", f"not the kernel's: {why}"


def simulate_battles(
    rules: CoveRules,
    ships: Sequence[BattleShip],
    npc: str | None,
    policies: Sequence[BattlePolicy],
    n: int,
    rng: np.random.Generator,
    *,
    island: str = "hull",
    royal_navy_policy: RoyalNavyPolicy | None = None,
    engine: str = "auto",
) -> BatchResult:
    """Play ``n`` independent trials of one battle (same ships, same policies) at once.

    Args:
        rules: scenario rules.
        ships: the player ships (as for :func:`simulator.cove.battle.resolve_battle`).
        npc: legendary pirate key, ``"royal_navy"`` or ``None`` (one non-player ship: see
            :func:`dispatch`).
        policies: one policy per ship; their batch methods decide.
        n: number of trials.
        rng: the only source of chance.
        island: the island of the battle.
        royal_navy_policy: the Royal Navy controller's targeting.
        engine: ``"auto"``, ``"kernel"`` or ``"numpy"``: the rule of :func:`dispatch`. The two
            paths use the generator differently: same seed, same engine, same results; across
            engines, same distribution.

    Returns:
        :class:`BatchResult` with per-trial arrays (ship axis in argument order) and the engine
        that played them (``engine``, ``engine_reason``).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    chosen, reason = dispatch(rules, ships, npc, policies, island, royal_navy_policy, engine)
    if chosen == "kernel":
        from simulator.cove import combat_kernel

        res = combat_kernel.simulate_battles_kernel(
            rules, ships, npc, policies, n, rng, island=island, royal_navy_policy=royal_navy_policy
        )
    else:
        res = _Engine(rules, ships, npc, policies, n, rng, island, royal_navy_policy).run()
    res.engine, res.engine_reason = chosen, reason
    return res


ENGINES = ("auto", "kernel", "numpy")


__all__ = ["FAME_CAUSES", "OUTCOMES", "BatchResult", "BatchState", "simulate_battles"]
