"""Independent oracles of the players' battle odds (rules sections "Combat", "Non-player ships",
"Tavern deck"), in plain Python, for the tests (and the benchmarks that time the compiled odds
against them). The product holds none of this: the compiled players' odds are
:mod:`simulator.cove.fast.odds`, :mod:`simulator.cove.fast.lone` and
:mod:`simulator.cove.fast.company`, held to these to the float (``==``).

* :func:`win_probability` -- the old players' (``*-v1``) chain: one ship against a pirate or
  another player ship over (hits the opponent can still take, hits our ship can still take),
  both standing, no cards, no Artisan/parrot detail on the opponent's side, and
  ``combat.parrot_absorbs_hits`` ignored (:mod:`simulator.cove.fast.odds`).
* :class:`PirateOdds` -- exact P(sink) of one player ship against one non-player ship with the
  cards in its hand: the chain of :mod:`simulator.cove.duel` (equal to ``duel.exact_duel`` without
  cards, to rounding -- tested), battle cards as battle parameters, Grapeshot and Powder keg in the
  state and played optimally; :func:`lone_pirate_odds` the players' plan over it
  (:mod:`simulator.cove.fast.lone`).
* :func:`company_odds` -- other player ships at the island: ``COMPANY_TRIALS`` battles of the
  compiled combat kernel (:mod:`simulator.cove.combat_kernel`) with every ship standing and no
  cards, on a generator seeded from the situation's integers, driven from Python
  (:mod:`simulator.cove.fast.company`). Its distance from the truth is measured in
  ``tests/test_cove_odds.py`` and docs/rules-cove.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from math import comb
from typing import NamedTuple

import numpy as np

from simulator.cove.fast.company import _COMPANY_SEED, COMPANY_TRIALS
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.runner import Block, derive_seed


@cache
def _pmf(n: int, p: float) -> tuple[float, ...]:
    q = 1.0 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


def win_probability(
    my_dice,
    my_p: float,
    their_hits: int,
    their_dice: int,
    their_p: float,
    my_hits: int,
    i_fire_first: bool,
    regen: int = 0,
    regen_cap: int = 99,
) -> float:
    """P(we sink / rout the opponent before it routs us), both standing and firing every exchange.

    Args:
        my_dice: our dice per broadside: an int, or a tuple giving them after 0, 1, 2... hits
            taken (a pirate that damages crew or every section takes dice away).
        my_p: the chance one of our dice hits.
        their_hits: hits that sink (hull) or rout the opponent.
        their_dice, their_p: the opponent's dice and hit chance.
        my_hits: hits on the section the opponent aims at that rout us.
        i_fire_first: our speed beats the opponent's.
        regen: hull the opponent regains per exchange (Flying Dutchman), never above ``regen_cap``.
    """
    if isinstance(my_dice, int):
        my_dice = (my_dice,) * (my_hits + 1)
    return _win(
        tuple(my_dice),
        my_p,
        their_hits,
        their_dice,
        their_p,
        my_hits,
        i_fire_first,
        regen,
        regen_cap,
        my_hits,
    )


@lru_cache(maxsize=200_000)
def _win(
    dice_by_taken: tuple[int, ...],
    my_p: float,
    their_hits: int,
    their_dice: int,
    their_p: float,
    my_hits: int,
    i_fire_first: bool,
    regen: int,
    regen_cap: int,
    start_hits: int,
) -> float:
    if their_hits <= 0:
        return 1.0
    if my_hits <= 0:
        return 0.0
    taken = start_hits - my_hits
    last = len(dice_by_taken) - 1
    theirs = _pmf(their_dice, their_p) if their_dice > 0 else (1.0,)
    total = 0.0
    loop = 0.0
    for y, py in enumerate(theirs):
        if py == 0.0:
            continue
        # our dice: as we start the exchange if we fire first, else after their broadside
        d = dice_by_taken[min(taken if i_fire_first else taken + min(y, my_hits), last)]
        mine = _pmf(d, my_p) if d > 0 else (1.0,)
        for x, px in enumerate(mine):
            if px == 0.0:
                continue
            p = px * py
            if i_fire_first:
                if x >= their_hits:
                    total += p
                    continue
                if y >= my_hits:
                    continue
            else:
                if y >= my_hits:
                    continue
                if x >= their_hits:
                    total += p
                    continue
            h = min(regen_cap, their_hits - x + min(x, regen))
            k = my_hits - y
            if h == their_hits and k == my_hits:
                loop += p
            else:
                total += p * _win(
                    dice_by_taken,
                    my_p,
                    h,
                    their_dice,
                    their_p,
                    k,
                    i_fire_first,
                    regen,
                    regen_cap,
                    start_hits,
                )
    if loop >= 1.0:
        return 0.0
    return total / (1.0 - loop)


# ---------------------------------------------------------------------------------------------
# One player ship against a non-player ship, with the cards in its hand (the improved players)
# ---------------------------------------------------------------------------------------------
#: damage state of one player ship: ring positions (SECTIONS order, 0 = destroyed), Artisan hits
#: left per section, parrot hits left (0: no living parrot) -- the state of simulator.cove.duel
S_POS, S_ART, S_PARROT = 0, 4, 8
STATE_LEN = 9
#: volley cards the solver plays against a non-player ship (Cannonade only hits its hull like a
#: plain broadside and then skips a turn, so it is never worth playing against one)
PIRATE_VOLLEYS = ("grapeshot", "powder_keg")
NO_VOLLEY = 0
V_GRAPESHOT, V_KEG = 1, 2  # bits of a volley choice
VOLLEY_MODES = ("optimal", "first", "never")


def ship_state(
    rules: CoveRules,
    ring: Sequence[int],
    artisans: Iterable[tuple[int, int]] = (),
    parrot: str | None = None,
    parrot_wounds: int = 0,
) -> tuple[int, ...]:
    """The 9-tuple damage state of a ship from its public table view (``artisans``: (section
    index, hits already absorbed) pairs, as in :class:`~simulator.cove.observation.ShipView`)."""
    c = rules.combat
    art = [0, 0, 0, 0]
    for sec, used in artisans:
        art[sec] += c.artisan_absorbs - used
    php = c.parrot_hits_to_kill - parrot_wounds if parrot is not None else 0
    return (*ring, *art, max(php, 0))


def battle_ship_state(rules: CoveRules, ship) -> tuple[int, ...]:
    """The damage state of a :class:`~simulator.cove.combat_policies.ShipView` in a battle (its
    ``protection`` adds the living parrot's hits to its section when parrots absorb hits)."""
    c = rules.combat
    php = 0
    if ship.parrot is not None:
        php = 1 if ship.parrot_wounded else c.parrot_hits_to_kill
    art = list(ship.protection)
    if ship.parrot is not None and c.parrot_absorbs_hits:
        art[SECTIONS.index(rules.parrots[ship.parrot].section)] -= php
    return (*ship.positions, *art, php)


class PirateOdds:
    """Exact P(sink) of one player ship against one non-player ship, cards in hand included.

    The chain is the one of :mod:`simulator.cove.duel` (and of :func:`battle.resolve_battle` for
    one player ship): exchange by exchange in speed order (re-read from the damage state, an exact
    tie a fair coin), binomial broadsides, hits through Artisan then parrot then ring
    (``combat.parrot_absorbs_hits`` honoured), a destroyed section routs, the Flying Dutchman's
    regeneration at the end of each exchange, the Royal Navy firing at the weakest section (its
    default controller). The ship stands (never flees). Cards:

    * battle cards are fixed for the battle (:meth:`p_sink` arguments): Smoke (the non-player
      ship hits only on ``smoke_hit_on``), extra speed (Favourable wind, Overboard), Grapple
      (dice = crew unless a dice parrot overrides);
    * volley cards are part of the state (Grapeshot and Powder keg left in hand) and are played
      optimally: at each broadside the subset that maximises P(sink) (Grapeshot: hits on
      ``grapeshot_hit_on``, then its own cannons take ``grapeshot_self_hits``; Powder keg: each
      hit also hits the pirate's hull and this ship's hull once more).

    Values are memoised per solver (one per rules object; players of a chunk share it).
    """

    def __init__(self, rules: CoveRules, canonical: bool = True):
        c = rules.combat
        self.rules = rules
        self.canonical = canonical
        mat = rules.ship_mat
        self.values = (mat.hull, mat.crew, mat.cannons, mat.sails)
        self.hit_on = c.hit_on
        self.smoke_hit_on = c.smoke_hit_on
        self.grapeshot_hit_on = c.grapeshot_hit_on
        self.grapeshot_self_hits = c.grapeshot_self_hits
        self.absorbs = c.parrot_absorbs_hits
        self._pmf: dict[tuple[int, int], tuple[float, ...]] = {}
        # per section: position -> the first position with the same value (0 stays 0)
        self._first_pos = tuple(
            tuple(0 if q == 0 else 1 + vals.index(vals[q - 1]) for q in range(len(vals) + 1))
            for vals in self.values
        )
        self._memo: dict = {}
        self._parrots = {
            k: (SECTIONS.index(p.section), p.fixed_dice, p.dice_equal_cannons, p.speed_bonus)
            for k, p in rules.parrots.items()
        }
        npcs = dict(rules.pirates)
        if rules.royal_navy is not None:
            npcs["royal_navy"] = rules.royal_navy
        self._npcs = {}
        for k, n in npcs.items():
            if not n.fights:
                continue
            if k == "royal_navy" or n.damages == "controller":
                secs: tuple[int, ...] = ()  # the controller's weakest section, per state
            elif n.damages == "every_section":
                secs = (0, 1, 2, 3)
            else:
                secs = (SECTIONS.index(n.damages),)
            self._npcs[k] = (n.dice, secs, n.hull, n.sails, n.regenerate_per_exchange)

    # ------------------------------------------------------------------ small pieces
    def pmf(self, n: int, thr: int) -> tuple[float, ...]:
        """Binomial pmf of hits from ``n`` dice hitting on ``thr`` or more."""
        key = (n, thr)
        got = self._pmf.get(key)
        if got is None:
            p = min(max((7 - thr) / 6.0, 0.0), 1.0)
            q = 1.0 - p
            got = self._pmf[key] = (
                tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)) if n > 0 else (1.0,)
            )
        return got

    def value(self, st, sec: int) -> int:
        p = st[sec]
        return self.values[sec][p - 1] if p > 0 else 0

    def dice(self, st, parrot, grapple: bool) -> int:
        if parrot is not None and st[S_PARROT] > 0:
            _sec, fixed, bones, _speed = self._parrots[parrot]
            if fixed:
                return fixed
            if bones:
                return self.value(st, 2)
        if grapple:
            return self.value(st, 1)
        return min(self.value(st, 1), self.value(st, 2))

    def speed(self, st, parrot, extra: int) -> int:
        sp = self.value(st, 3) + extra
        if parrot is not None and st[S_PARROT] > 0:
            sp += self._parrots[parrot][3]
        return sp

    def hit(self, st, parrot, sec: int, k: int):
        """``k`` hits on one section (Artisan, then the parrot sitting there, then the ring)."""
        if k <= 0:
            return st
        s = list(st)
        a = min(k, s[S_ART + sec])
        s[S_ART + sec] -= a
        k -= a
        if k and parrot is not None and s[S_PARROT] > 0 and self._parrots[parrot][0] == sec:
            p = min(k, s[S_PARROT])
            s[S_PARROT] -= p
            if self.absorbs:
                k -= p
        if k:
            s[sec] = max(s[sec] - k, 0)
        return tuple(s)

    def weakest_section(self, st, parrot) -> int:
        """The Royal Navy controller's default aim: fewest hits to destroy, first of equals."""
        best, best_h = 0, None
        for sec in range(4):
            h = st[sec] + st[S_ART + sec]
            if self.absorbs and parrot is not None and self._parrots[parrot][0] == sec:
                h += st[S_PARROT]
            if best_h is None or h < best_h:
                best, best_h = sec, h
        return best

    # ------------------------------------------------------------------ canonical states
    def canon(self, cfg, st, g: int, k: int):
        """An equivalent (cfg, state) that many ships share, so the memo serves them all.

        Only the sections the battle can damage (the pirate's, the hull while a Powder keg is
        held, the cannons while a Grapeshot is) ever change; every other section is read only
        through its value (dice, speed), so its position becomes the first with that value and
        its Artisan is dropped; a parrot that cannot be hit keeps only "alive"; when the sails
        cannot be hit the speed order against the pirate is fixed and is all that is kept (in
        ``extra_speed``), and a parrot whose only power is then speed or chests is dropped;
        positions that no longer decide the dice (a dice parrot alive for good, Grapple) go
        to 1. Tested equal to the plain chain."""
        npc, parrot, smoke, extra, grapple, mode = cfg
        secs = self._npcs[npc][1]
        if not secs:  # the Royal Navy's controller may aim at any section
            return cfg, st
        dmg = set(secs)
        if k:
            dmg.add(0)
        if g:
            dmg.add(2)
        s = list(st)
        if parrot is not None and s[S_PARROT] <= 0:
            parrot, s[S_PARROT] = None, 0  # a dead parrot has no power left
        psec, fixed, bones, bonus = self._parrots[parrot] if parrot is not None else (-1, 0, 0, 0)
        hit_parrot = parrot is not None and psec in dmg
        if parrot is not None and not hit_parrot:
            s[S_PARROT] = 1  # never hit: alive to the end, its hits left do not matter
        for sec in range(4):
            if sec not in dmg:
                s[S_ART + sec] = 0
                s[sec] = self._first_pos[sec][s[sec]]
        if 3 not in dmg:  # sails never hit: only the order against the pirate matters
            sails = self._npcs[npc][3]
            sp = self.speed(tuple(s), parrot, extra)
            if parrot is not None and not hit_parrot and not fixed and not bones:
                parrot, s[S_PARROT], bonus = None, 0, 0  # speed (or chests) only: folded
            base = self.values[3][0] + (bonus if parrot is not None else 0)
            s[3] = 1
            extra = sails + (sp > sails) - (sp < sails) - base
        if parrot is not None and not hit_parrot and fixed:
            for sec in (1, 2):  # six dice for good: crew and cannons decide nothing
                if sec not in dmg:
                    s[sec] = 1
        elif parrot is not None and not hit_parrot and bones:
            if 1 not in dmg:
                s[1] = 1  # dice = cannons for good: the crew decides nothing
        elif grapple and 2 not in dmg and not (parrot is not None and (fixed or bones)):
            s[2] = 1  # dice = crew (no dice parrot): the cannons decide nothing
        return (npc, parrot, smoke, extra, grapple, mode), tuple(s)

    # ------------------------------------------------------------------ the chain
    def p_sink(
        self,
        npc: str,
        st: tuple[int, ...],
        *,
        parrot: str | None = None,
        hull: int | None = None,
        grapeshot: int = 0,
        powder_keg: int = 0,
        smoke: bool = False,
        extra_speed: int = 0,
        grapple: bool = False,
        volley: str = "optimal",
    ) -> float:
        """P(the non-player ship ``npc`` is sunk while our ship is still in the battle).

        Args:
            npc: a fighting key of ``rules.pirates`` or ``"royal_navy"``.
            st: our damage state (:func:`ship_state`).
            parrot: our parrot's key (its hits left are ``st[8]``).
            hull: the non-player ship's hull now (default: full).
            grapeshot, powder_keg: volley cards of that kind in our hand.
            smoke, extra_speed, grapple: battle cards in effect (Favourable wind and Overboard
                are ``extra_speed``).
            volley: ``"optimal"`` (the subset maximising P(sink) at each broadside), ``"first"``
                (every volley card held is played at the first broadside, as
                :class:`~simulator.cove.combat_policies.RulePolicy` does) or ``"never"``.
        """
        if volley not in VOLLEY_MODES:
            raise ValueError(f"volley {volley!r} (allowed: {', '.join(VOLLEY_MODES)})")
        spec = self._npcs[npc]
        h = spec[2] if hull is None else hull
        g, k = min(grapeshot, 1), min(powder_keg, 1)
        cfg = (npc, parrot, bool(smoke), int(extra_speed), bool(grapple), volley)
        if self.canonical:
            cfg, st = self.canon(cfg, st, g, k)
        return self._v(cfg, st, h, g, k)

    def best_volley(
        self,
        npc: str,
        st: tuple[int, ...],
        *,
        parrot: str | None = None,
        hull: int | None = None,
        grapeshot: int = 0,
        powder_keg: int = 0,
        smoke: bool = False,
        extra_speed: int = 0,
        grapple: bool = False,
        pirate_to_fire: bool = True,
    ) -> tuple[tuple[str, ...], float]:
        """The volley cards to play on this broadside (the chain's optimal choice) and the P(sink)
        it gives; ``pirate_to_fire``: the non-player ship still fires after us this exchange."""
        spec = self._npcs[npc]
        h = spec[2] if hull is None else hull
        cfg = (npc, parrot, bool(smoke), int(extra_speed), bool(grapple), "optimal")
        g, k = min(grapeshot, 1), min(powder_keg, 1)
        if self.canonical:
            cfg, st = self.canon(cfg, st, g, k)
        loop = (st, h, g, k)
        v_start = self._v(cfg, *loop)
        best, best_v = NO_VOLLEY, -1.0
        for a in self._actions(cfg, g, k):
            alpha, beta = self._my_turn(cfg, st, h, g, k, a, pirate_to_fire, h, loop)
            v = alpha + beta * v_start
            if v > best_v + 1e-12:
                best, best_v = a, v
        names = tuple(n for n, bit in zip(PIRATE_VOLLEYS, (V_GRAPESHOT, V_KEG)) if best & bit)
        return names, best_v

    @staticmethod
    def _actions(cfg, g: int, k: int) -> tuple[int, ...]:
        mode = cfg[5]
        if mode == "never":
            return (NO_VOLLEY,)
        if mode == "first":
            return ((V_GRAPESHOT if g else 0) | (V_KEG if k else 0),)
        out = [NO_VOLLEY]
        if g:
            out.append(V_GRAPESHOT)
        if k:
            out.append(V_KEG)
        if g and k:
            out.append(V_GRAPESHOT | V_KEG)
        return tuple(out)

    def _v(self, cfg, st, h: int, g: int, k: int) -> float:
        """P(sink) from the start of an exchange in state (st, hull h, volleys g, k)."""
        key = (cfg, st, h, g, k)
        got = self._memo.get(key)
        if got is not None:
            return got
        npc, parrot, _smoke, extra = cfg[:4]
        sails = self._npcs[npc][3]
        sp = self.speed(st, parrot, extra)
        if sp > sails:
            orders: tuple[tuple[float, bool], ...] = ((1.0, True),)
        elif sp < sails:
            orders = ((1.0, False),)
        else:  # an exact tie: a die roll-off, each first half of the time
            orders = ((0.5, True), (0.5, False))
        loop = (st, h, g, k)
        # V = c + sum over the looping decision nodes of w * max_a (alpha_a + beta_a V)
        c = 0.0
        nodes = []  # (weight, [(alpha, beta) per action])
        for w, me_first in orders:
            if me_first:
                acts = [
                    self._my_turn(cfg, st, h, g, k, a, True, h, loop)
                    for a in self._actions(cfg, g, k)
                ]
                nodes.append((w, acts))
                continue
            for py, st1 in self._npc_fire(cfg, st):
                if st1 is None:
                    continue  # routed
                if st1 == st:
                    acts = [
                        self._my_turn(cfg, st, h, g, k, a, False, h, loop)
                        for a in self._actions(cfg, g, k)
                    ]
                    nodes.append((w * py, acts))
                else:
                    c += w * py * self._mid(cfg, st1, h, g, k)
        v = self._solve(c, nodes)
        self._memo[key] = v
        return v

    def _mid(self, cfg, st, h: int, g: int, k: int) -> float:
        """P(sink) at our turn after the pirate's broadside damaged us (no loop possible)."""
        key = ("mid", cfg, st, h, g, k)
        got = self._memo.get(key)
        if got is None:
            got = 0.0
            for a in self._actions(cfg, g, k):
                alpha, _ = self._my_turn(cfg, st, h, g, k, a, False, h, None)
                got = max(got, alpha)
            self._memo[key] = got
        return got

    @staticmethod
    def _solve(c: float, nodes: list) -> float:
        """max over the nodes' choices of the fixed point V = c + sum w (alpha + beta V)."""
        best = c
        combos = [(c, 0.0)]
        for w, acts in nodes:
            combos = [(a0 + w * al, b0 + w * be) for a0, b0 in combos for al, be in acts]
        for a0, b0 in combos:
            d = 1.0 - b0
            v = a0 / d if d > 1e-15 else 0.0
            if v > best:
                best = v
        return min(best, 1.0)

    def _npc_fire(self, cfg, st):
        """The non-player ship's broadside at us: (prob, our state after or None when routed)."""
        key = ("fire", cfg[0], cfg[1], cfg[2], st)
        got = self._memo.get(key)
        if got is not None:
            return got
        npc, parrot, smoke = cfg[:3]
        n_dice, secs, _hull, _sails, _regen = self._npcs[npc]
        out = []
        pmf = self.pmf(n_dice, self.smoke_hit_on if smoke else self.hit_on)
        if not secs:
            secs = (self.weakest_section(st, parrot),)
        for y, py in enumerate(pmf):
            if py == 0.0:
                continue
            s2 = st
            for sec in secs:
                s2 = self.hit(s2, parrot, sec, y)
            out.append((py, None if min(s2[:4]) <= 0 else s2))
        got = self._memo[key] = tuple(out)
        return got

    def _shot(self, parrot, grapple: bool, a: int, st):
        """Our broadside with volley choice ``a``: (hits x, prob, hull damage to the pirate, our
        state after, routed by our own card)."""
        key = ("shot", parrot, grapple, a, st)
        got = self._memo.get(key)
        if got is not None:
            return got
        grape, keg = a & V_GRAPESHOT, a & V_KEG
        n = self.dice(st, parrot, grapple)
        out = []
        for x, px in enumerate(self.pmf(n, self.grapeshot_hit_on if grape else self.hit_on)):
            if px == 0.0:
                continue
            s1 = st
            if keg and x:
                s1 = self.hit(s1, parrot, 0, x)
            if grape:
                s1 = self.hit(s1, parrot, 2, self.grapeshot_self_hits)
            # a Powder keg hit also hits the pirate's hull
            out.append((px, x + (x if keg else 0), s1, min(s1[:4]) <= 0))
        got = self._memo[key] = tuple(out)
        return got

    def _my_turn(self, cfg, st, h, g, k, a, pirate_to_fire, h_start, loop):
        """Our broadside with volley choice ``a``, then (if ``pirate_to_fire``) the pirate's,
        then the end of the exchange. Returns (alpha, beta): P(sink) = alpha + beta * V(loop),
        beta the probability of coming back to the exchange-start state ``loop`` (``None``: no
        loop possible)."""
        g2 = g - (1 if a & V_GRAPESHOT else 0)
        k2 = k - (1 if a & V_KEG else 0)
        alpha = beta = 0.0
        for px, dmg, s1, routed in self._shot(cfg[1], cfg[4], a, st):
            h1 = h - dmg
            if h1 <= 0:
                alpha += px  # sunk (the firer's share even if its own keg routs it)
                continue
            if routed:
                continue  # routed by its own keg or grapeshot recoil
            if pirate_to_fire:
                for py, s2 in self._npc_fire(cfg, s1):
                    if s2 is None:
                        continue
                    al, be = self._next(cfg, s2, h1, h_start, g2, k2, loop)
                    alpha += px * py * al
                    beta += px * py * be
            else:
                al, be = self._next(cfg, s1, h1, h_start, g2, k2, loop)
                alpha += px * al
                beta += px * be
        return alpha, beta

    def _next(self, cfg, st, h, h_start, g, k, loop):
        """End of the exchange (regeneration), then the next exchange: (alpha, beta)."""
        regen, max_hull = self._npcs[cfg[0]][4], self._npcs[cfg[0]][2]
        if regen:
            h = min(h + min(h_start - h, regen), max_hull)
        if loop is not None and (st, h, g, k) == loop:
            return 0.0, 1.0
        return self._v(cfg, st, h, g, k), 0.0


# ---------------------------------------------------------------------------------------------
# What the players ask: lone odds with their hand, company estimates
# ---------------------------------------------------------------------------------------------
class LonePlan(NamedTuple):
    """A lone ship's best battle-card plan against a non-player ship and its P(sink)."""

    p_sink: float
    smoke: bool
    wind: int  # Favourable wind cards to play
    grapple: bool
    overboard: int  # chests to throw (0: do not play Overboard)


def lone_pirate_odds(
    solver: PirateOdds,
    npc: str,
    st: tuple[int, ...],
    parrot: str | None,
    hand: Sequence[str] = (),
    chests: int = 0,
    *,
    chest_value: float | None = None,
    stake: float = 1.0,
    hull: int | None = None,
    extra_speed: int = 0,
    smoke_on: bool = False,
    grapple_on: bool = False,
) -> LonePlan:
    """Exact odds that our ship alone sinks ``npc`` with the cards in ``hand`` played well.

    Smoke is played when held (it never hurts against a non-player ship), Grapple when it adds
    dice; the number of Favourable wind cards and of chests thrown with Overboard maximise
    ``stake * P(sink) - chest_value * chests`` (ties: the fewest cards, then chests), so wind
    and chests are spent only where they change the speed order for the better
    (``chest_value=None``: never throw chests); volley cards are in the chain.
    In a battle already under way, ``hull``, ``extra_speed`` (wind and Overboard already
    played), ``smoke_on`` and ``grapple_on`` give what is in effect; the plan's ``wind`` and
    ``overboard`` are then what is still to play.

    This is the players' one entry point to the exact odds with cards.
    """
    smoke = smoke_on or "smoke" in hand
    g, keg = hand.count("grapeshot"), hand.count("powder_keg")
    base_dice = solver.dice(st, parrot, False)
    grapple = grapple_on or ("grapple" in hand and solver.dice(st, parrot, True) > base_dice)

    def p(extra: int) -> float:
        return solver.p_sink(
            npc,
            st,
            parrot=parrot,
            hull=hull,
            grapeshot=g,
            powder_keg=keg,
            smoke=smoke,
            extra_speed=extra_speed + extra,
            grapple=grapple,
        )

    wind_step = solver.rules.combat.favourable_wind_speed
    per = solver.rules.combat.overboard_speed_per_chest
    throw = chests if "overboard" in hand and chest_value is not None and per > 0 else 0
    # every count of wind cards and of chests: the best expected value, ties to the fewest
    best, wind, overboard, best_ev = p(0), 0, 0, None
    for w in range(hand.count("favourable_wind") + 1):
        for n in range(throw + 1):
            v = p(w * wind_step + n * per)
            ev = stake * v - (chest_value or 0.0) * n
            if (
                best_ev is None
                or ev > best_ev + 1e-12
                or (abs(ev - best_ev) <= 1e-12 and v > best + 1e-12)
            ):
                best, wind, overboard, best_ev = v, w, n, ev
    return LonePlan(best, smoke and not smoke_on, wind, grapple and not grapple_on, overboard)


class CompanyOdds(NamedTuple):
    """Our ship with company against a non-player ship (estimate, see :func:`company_odds`)."""

    p_sink: float  # the pirate is sunk while we are still in the battle
    share: float  # expected fame share (0 when not sunk)
    p_routed: float


def _company_order(f):
    """The order of a ship's facts (ring, Artisans, parrot or ``""``, wounds)."""
    return (f[0], f[1], f[2] or "", f[3])


def company_key(ship, others, npc: str) -> tuple:
    """The public facts a company estimate depends on (``ship``/``others``: observation
    :class:`~simulator.cove.observation.ShipView` objects; the others sorted, seats ignored)."""

    def facts(v):
        return (v.ring, v.artisans, v.parrot, v.parrot_wounds)

    return (npc, facts(ship), tuple(sorted((facts(o) for o in others), key=_company_order)))


def company_battle(key: tuple) -> tuple[list, int]:
    """The battle of a company estimate: every ship's facts, ours included, in company order
    (the battle is the set of ships, whoever asks), and our place in it (the first equal)."""
    _, mine, theirs = key
    ships = sorted([mine, *theirs], key=_company_order)
    return ships, ships.index(mine)


def company_seed_words(rules: CoveRules, key: tuple) -> list[int]:
    """The situation as small integers (the estimate's seed): the non-player ship's index among
    ``rules.pirates`` then the Royal Navy, and per ship of :func:`company_battle`'s order its
    four ring positions, Artisan hits absorbed + 1 per section (0: none), parrot index + 1 (0:
    none) and parrot wounds."""
    npc = key[0]
    npcs = [*rules.pirates, "royal_navy"]
    parrots = list(rules.parrots)
    words = [npcs.index(npc)]
    for ring, artisans, parrot, wounds in company_battle(key)[0]:
        art = [0, 0, 0, 0]
        for sec, used in artisans:
            art[sec] = used + 1
        words += [*ring, *art, parrots.index(parrot) + 1 if parrot else 0, wounds]
    return words


def company_odds(rules: CoveRules, key: tuple, trials: int = COMPANY_TRIALS) -> CompanyOdds:
    """Estimate by simulation: our ship (``key`` from :func:`company_key`) and the others fight
    the non-player ship in the compiled kernel, in :func:`company_battle`'s order (the same
    battles whichever ship asks; our values read from our place), everyone standing, no cards,
    ``trials`` battles,
    with Treasure Island semantics (the battle ends when the pirate sinks: what comes after is
    the caller's). The generator is seeded from the situation's integers
    (:func:`company_seed_words`): same situation, same estimate in every process."""
    from simulator.cove.combat_kernel import (
        F_PIRATE,
        ROUTED,
        STAYED,
        WON,
        simulate_battles_kernel,
    )
    from simulator.cove.combat_policies import BattlePolicy
    from tests.cove_battle_oracle import BattleShip

    npc = key[0]
    battle, me = company_battle(key)
    start = rules.ship_mat.start_position
    ships = []
    for seat, (ring, artisans, parrot, wounds) in enumerate(battle):
        ships.append(
            BattleShip(
                seat=seat,
                positions=[q if q > 0 else start for q in ring],  # repaired at the Cove
                artisans={SECTIONS[sec]: used for sec, used in artisans},
                parrot=parrot,
                parrot_wounded=wounds > 0,
            )
        )
    # a pure function of the situation (so estimates are cached and decisions reproducible): its
    # own stream of the runner's seed tree, keyed by the situation, never a game's dice
    situation = Block(
        0, 0, 1, derive_seed(_COMPANY_SEED, "company-odds", *company_seed_words(rules, key))
    )
    navy = npc == "royal_navy"  # never at Treasure Island: fought at an outer island
    res = simulate_battles_kernel(
        rules,
        ships,
        npc,
        [BattlePolicy()] * len(ships),
        trials,
        situation.rng("sample"),
        island="hull" if navy else "treasure_island",
    )
    if navy:  # the survivors fight on: our share of its fame says we were there when it sank
        share = res.fame[:, me, F_PIRATE].astype(float)
        return CompanyOdds(
            float((share > 0).mean()),
            float(share.mean()),
            float((res.outcome[:, me] == ROUTED).mean()),
        )
    here = (res.outcome == WON) | (res.outcome == STAYED)
    mine_sunk = res.npc_sunk & here[:, me]
    fame = rules.pirates[npc].fame
    present = np.maximum(here.sum(axis=1), 1)
    share = np.where(mine_sunk, fame // present, 0)
    return CompanyOdds(
        float(mine_sunk.mean()),
        float(share.mean()),
        float((res.outcome[:, me] == ROUTED).mean()),
    )
