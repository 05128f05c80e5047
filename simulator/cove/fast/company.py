"""The compiled players' company estimate: the same floats as ``company_odds`` of the oracle
``tests/cove_odds_oracle.py`` (which plays the battles from Python through
:func:`simulator.cove.combat_kernel.simulate_battles_kernel`; the tests hold this module to it).

A player at an island with other player ships and a non-player ship weighs the battle by an
estimate: ``COMPANY_TRIALS`` battles of the compiled battle kernel, everyone standing, no cards,
from a generator seeded by the situation (``docs/rules-cove.md``, "Players"). This module gives
the same three float64 values, from the situation as the int rows the compiled players hold:

1. the order: every ship at the island, ours included, sorted as the oracle's ``company_key``
   sorts them (ring, Artisans as (section, hits absorbed) pairs, parrot key or ``""``, wounds):
   the battle is the set of ships, whoever asks;
2. the seed: the oracle's ``company_seed_words``, then
   ``derive_seed(_COMPANY_SEED, "company-odds", *words)`` and ``Block(0, 0, 1, seed).rng("sample")``
   by numpy's SeedSequence and PCG64 seeding (:mod:`simulator.cove.fast.seedseq`);
3. the battles: :func:`simulator.cove.combat_kernel.simulate_battles_kernel`'s loop -- bulk int8
   dice (the same bulk sizes, the unused tail kept, a battle that ran out replayed) into the
   kernel's own compiled ``_run``, with its tables (``_tables``, ``_card_tables``,
   ``_duel_table``) built here for the everyone-standing, no-cards :class:`BattlePolicy` case;
4. the reductions, for every ship of the battle from the same battles: P(the pirate sunk while
   it is there), its share ``fame // present``, P(routed); against the Royal Navy (fought at an
   outer island, the survivors fight on) its pirate fame. The asker's values are those of the
   first ship in the order equal to its own (equal ships have equal facts).

One simulation serves every ship of a battle (issue 28): the opponent model asks, in the last
month, the same battle of every opponent (all ships against the pirate at Treasure Island), which
was one simulation per opponent and about half of a game's time.

Encodings (the stage's interface): ``npc`` = row in ``rules.pirates`` order, then the Royal Navy;
``ships`` int64[>= m, 7] rows = ring positions x4 (0: destroyed, repaired at the Cove as the
Python does), parrot row or -1, parrot wounds; ``art`` int64[>= m, 4] = hits already absorbed by
the Artisan on each section, -1 where there is none. The memo (:func:`new_memo`) is keyed on the
complete seed words, compared exactly, and holds every ship's values: it changes only the time,
never a value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simulator import compiled
from simulator.cove.combat_kernel import (
    _TARGETS,
    C_ART,
    C_PBONES,
    C_PFIXED,
    C_PHP,
    C_POS,
    C_PSEC,
    C_PSPEED,
    C_SEAT,
    CANNONS,
    CREW,
    D_EVERY_SECTION,
    F_PIRATE,
    FIRST_DICE_PER_BATTLE,
    K_COLS,
    MAX_BULK,
    MIN_BULK,
    N_PARAMS,
    NPC_FIGHTS,
    NPC_GALLEON,
    P_ABSORBS,
    P_EXCH_BOUND,
    P_FAME_DIE,
    P_FLIGHT_FAME,
    P_GRAPE_BEATS_SMOKE,
    P_GRAPE_HIT_ON,
    P_GRAPE_SELF,
    P_HIT_ON,
    P_MAX_EXCH,
    P_MISFIRE,
    P_MISFIRE_POS,
    P_MUTINY_LOSS,
    P_MUTINY_ON,
    P_NPC,
    P_NPC_DAMAGE,
    P_NPC_DICE,
    P_NPC_FAME,
    P_NPC_HULL,
    P_NPC_REGEN,
    P_NPC_SAILS,
    P_NPC_TARGET,
    P_PARROT_LOSS,
    P_ROUT_FAME,
    P_S,
    P_SMOKE_BLOCKS_MISFIRE,
    P_SMOKE_HIT_ON,
    P_TI,
    P_TI_FASTEST,
    ROUTED,
    SHIP_COLS,
    STAYED,
    T_CONTROLLER,
    WON,
    X_B,
    X_P,
    X_USED,
    _run,
)
from simulator.cove.fast.rng import R_COLS, d6_bulk_int8
from simulator.cove.fast.seedseq import generate_state32, int_words, pcg64_seed, seed_pool
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.runner import _BLOCK_TAG, _DERIVED_TAG, stream_id

#: battles per company estimate (its sampling SE is at most 0.5 / sqrt(COMPANY_TRIALS) = 0.025)
COMPANY_TRIALS = 400
_COMPANY_SEED = 0x0C0FE13  # fixed root: the estimate is a pure function of the situation

# ships row columns (the interface)
SH_RING = 0  # 4 columns: ring positions, SECTIONS order (0: destroyed)
SH_PARROT = 4  # parrot row in rules.parrots order, -1: none
SH_WOUNDS = 5  # parrot wounds
SH_COLS = 7  # columns allocated (6 used)

# cst (int64 vector of ct): the rule constants the estimate reads
(
    Q_N_PIRATES,  # len(rules.pirates): the Royal Navy's npc row
    Q_START,  # ship_mat.start_position (a destroyed section is repaired there)
    Q_ABSORBS,  # combat.artisan_absorbs
    Q_PARROT_HP,  # combat.parrot_hits_to_kill
    Q_TRIALS,  # battles per estimate (COMPANY_TRIALS)
    Q_MAX_DICE,  # max of the crew and cannons values on the mat (the exchange bound's part)
    Q_SEED,  # 3 columns: the derive_seed spawn key head (derived tag, name tag low, high word)
) = range(7)
Q_STREAM = Q_SEED + 3  # the "sample" stream's id (Block(0, 0, 1, seed).rng("sample"))
Q_COLS = Q_STREAM + 1

# npc_prm (int64[n_pirates + 1, N_PARAMS]): the kernel's parameter vector per non-player ship,
# island-free and ship-free parts only (P_S, P_TI, P_EXCH_BOUND are the situation's)
# par (int64[n_parrots, 5]) columns
A_SEC, A_FIXED, A_BONES, A_SPEED, A_RANK = range(5)  # A_RANK: 1 + its key's rank in str order

#: npc_prm[row, P_NPC] of a pirate the kernel does not play (damages='controller' without a
#: controller): an estimate against it raises, as simulate_battles_kernel does
NPC_REFUSED = -1

MEMO_SLOTS = 1 << 12  # open-addressing slots of one memo (cleared when 3/4 full)
MAX_SHIPS = 5  # the battle kernel's most player ships
MEMO_WIDTH = 1 + 10 * MAX_SHIPS  # words of the largest situation (npc + 10 per ship)


#: the fields of the estimate's tables ``ct`` (:func:`tables`) and of its memo (:func:`new_memo`)
CT_FIELDS = ("cst", "val", "npc_prm", "par", "root")
CM_FIELDS = ("keys", "vals", "count")


class CompanyTablesType(compiled.StateType):
    """numba's type of :class:`CompanyTables`."""


class CompanyTables(compiled.State):
    """The estimate's constant arrays ``ct`` as one object (:data:`CT_FIELDS`): a tuple of five
    arrays cost ten reference counts at every compiled call that held it
    (:class:`simulator.compiled.State`)."""

    FIELDS = CT_FIELDS


class CompanyMemoType(compiled.StateType):
    """numba's type of :class:`CompanyMemo`."""


class CompanyMemo(compiled.State):
    """The estimates' memo as one object (:data:`CM_FIELDS`)."""

    FIELDS = CM_FIELDS


@njit(cache=True)
def _new_company_tables(*values):
    """:class:`CompanyTables`' constructor, cached (:class:`simulator.compiled.State`)."""
    return CompanyTables(*values)


@njit(cache=True)
def _new_company_memo(*values):
    """:class:`CompanyMemo`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return CompanyMemo(*values)


CompanyTables = compiled.define_state(CompanyTables, CompanyTablesType, _new_company_tables)
CompanyMemo = compiled.define_state(CompanyMemo, CompanyMemoType, _new_company_memo)


def tables(rules: CoveRules) -> CompanyTables:
    """``ct``: the constant arrays of the estimate for ``rules`` (:class:`CompanyTables`:
    ``cst``, ``val``, ``npc_prm``, ``par``, and ``root``, the entropy words of the derive_seed
    root)."""
    c = rules.combat
    mat = rules.ship_mat
    pirates = list(rules.pirates)
    val = np.zeros((4, mat.num_positions + 1), np.int64)  # value by position (0 = destroyed)
    for k, sec in enumerate(SECTIONS):
        val[k, 1:] = getattr(mat, sec)
    base = np.zeros(N_PARAMS, np.int64)
    base[P_HIT_ON] = c.hit_on
    base[P_FLIGHT_FAME] = c.flight_fame_if_hit
    base[P_ROUT_FAME] = c.rout_fame
    base[P_MUTINY_ON] = c.mutiny_on
    base[P_MUTINY_LOSS] = c.mutiny_fame_loss
    base[P_PARROT_LOSS] = c.parrot_death_fame_loss
    base[P_MAX_EXCH] = c.max_exchanges
    base[P_ABSORBS] = int(c.parrot_absorbs_hits)
    base[P_TI_FASTEST] = int(rules.decisions.cacafuego_at_treasure_island == "fastest")
    base[P_NPC_DAMAGE] = -1
    base[P_SMOKE_HIT_ON] = c.smoke_hit_on
    base[P_GRAPE_HIT_ON] = c.grapeshot_hit_on
    base[P_GRAPE_SELF] = c.grapeshot_self_hits
    base[P_GRAPE_BEATS_SMOKE] = int(c.grapeshot_beats_smoke)
    base[P_SMOKE_BLOCKS_MISFIRE] = int(c.smoke_blocks_misfire)
    npc_prm = np.zeros((len(pirates) + 1, N_PARAMS), np.int64)
    for row, card in enumerate([*(rules.pirates[k] for k in pirates), rules.royal_navy]):
        p = npc_prm[row]
        p[:] = base
        p[P_NPC] = NPC_FIGHTS if card.fights else NPC_GALLEON
        p[P_NPC_DICE] = card.dice if card.fights else 0
        p[P_NPC_HULL] = card.hull
        p[P_NPC_SAILS] = card.sails
        p[P_NPC_FAME] = card.fame
        p[P_NPC_REGEN] = card.regenerate_per_exchange
        p[P_FAME_DIE] = int(card.fame_die)
        if card.fights:
            p[P_MISFIRE] = int(card.misfire_redirect)
            p[P_MISFIRE_POS] = card.misfire_positions
            if row == len(pirates) or card.first_target == "controller":
                p[P_NPC_TARGET] = T_CONTROLLER
            elif card.damages == "controller":  # the kernel refuses it (kernel_applies)
                p[P_NPC] = NPC_REFUSED
            else:
                p[P_NPC_TARGET] = _TARGETS.index(card.first_target)
                p[P_NPC_DAMAGE] = (
                    D_EVERY_SECTION
                    if card.damages == "every_section"
                    else SECTIONS.index(card.damages)
                )
    keys = list(rules.parrots)
    par = np.zeros((max(len(keys), 1), 5), np.int64)
    for i, key in enumerate(keys):
        pr = rules.parrots[key]
        par[i] = (
            SECTIONS.index(pr.section),
            pr.fixed_dice,
            int(pr.dice_equal_cannons),
            pr.speed_bonus,
            1 + sorted(keys).index(key),
        )
    tag = int.from_bytes(b"company-odds"[:8].ljust(8, b"\0"), "little")
    cst = np.zeros(Q_COLS, np.int64)
    cst[Q_N_PIRATES] = len(pirates)
    cst[Q_START] = mat.start_position
    cst[Q_ABSORBS] = c.artisan_absorbs
    cst[Q_PARROT_HP] = c.parrot_hits_to_kill
    cst[Q_TRIALS] = COMPANY_TRIALS
    cst[Q_MAX_DICE] = max(int(val[CREW].max()), int(val[CANNONS].max()))
    cst[Q_SEED] = _DERIVED_TAG
    cst[Q_SEED + 1] = tag & 0xFFFFFFFF
    cst[Q_SEED + 2] = tag >> 32
    cst[Q_STREAM] = stream_id("sample")
    assert _BLOCK_TAG == 0  # the block's spawn key (0, 0, stream): Block(0, 0, 1, seed)
    return CompanyTables(cst, val, npc_prm, par, int_words(_COMPANY_SEED))


def new_memo(slots: int = MEMO_SLOTS) -> CompanyMemo:
    """An empty memo of estimates (:class:`CompanyMemo`): ``keys[slot, 0]`` the number of seed
    words (0: empty slot), then the words; ``vals[slot, 3 * j : 3 * j + 3]`` the three floats
    of the ``j``-th ship in the battle's order (:func:`company_order`); ``count[0]`` the entries
    held. ``slots`` (tests use a small one) bounds it: when 3/4 full it is emptied before the next
    entry."""
    if slots < 2:
        raise ValueError(f"memo slots={slots} (allowed: 2 or more)")
    return CompanyMemo(
        np.zeros((slots, 1 + MEMO_WIDTH), np.int64),
        np.zeros((slots, 3 * MAX_SHIPS), np.float64),
        np.zeros(1, np.int64),
    )


# ------------------------------------------------------------------------------------------
@njit(cache=True)
def _cmp_ships(par, ships, art, i, j):
    """-1, 0 or 1: ship ``i`` before, level with or after ship ``j`` in company_key's order
    (ring, Artisans as (section, hits) pairs in section order, parrot key or "", wounds);
    ``par`` = ``ct.par``."""
    for k in range(4):
        a, b = ships[i, SH_RING + k], ships[j, SH_RING + k]
        if a != b:
            return -1 if a < b else 1
    # the Artisan pairs, compared as tuples of tuples: pair by pair, then the shorter first
    si = 0
    sj = 0
    while True:
        while si < 4 and art[i, si] < 0:
            si += 1
        while sj < 4 and art[j, sj] < 0:
            sj += 1
        if si == 4 or sj == 4:
            if si == 4 and sj == 4:
                break
            return -1 if si == 4 else 1
        if si != sj:
            return -1 if si < sj else 1
        if art[i, si] != art[j, sj]:
            return -1 if art[i, si] < art[j, sj] else 1
        si += 1
        sj += 1
    pi, pj = ships[i, SH_PARROT], ships[j, SH_PARROT]
    ri = par[pi, A_RANK] if pi >= 0 else 0
    rj = par[pj, A_RANK] if pj >= 0 else 0
    if ri != rj:
        return -1 if ri < rj else 1
    wi, wj = ships[i, SH_WOUNDS], ships[j, SH_WOUNDS]
    if wi != wj:
        return -1 if wi < wj else 1
    return 0


@njit(cache=True)
def company_order(ct, ships, art, m, order):
    """``order[:m]``: every ship (ours in row 0 included) as company_key sorts them (a stable
    insertion sort, as Python's ``sorted`` of ``[ours, *others]``)."""
    par = ct.par
    for i in range(m):
        order[i] = i
    for i in range(1, m):
        x = order[i]
        j = i - 1
        while j >= 0 and _cmp_ships(par, ships, art, order[j], x) > 0:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = x


@njit(cache=True)
def seed_words(npc, ships, art, order, m, words):
    """``company_seed_words`` of the ordered situation into ``words``; returns their number."""
    words[0] = npc
    n = 1
    for t in range(m):
        i = order[t]
        for k in range(4):
            words[n + k] = ships[i, SH_RING + k]
        for k in range(4):
            words[n + 4 + k] = art[i, k] + 1 if art[i, k] >= 0 else 0
        words[n + 8] = ships[i, SH_PARROT] + 1 if ships[i, SH_PARROT] >= 0 else 0
        words[n + 9] = ships[i, SH_WOUNDS]
        n += 10
    return n


@njit(cache=True)
def sample_rng(ct, words, n_words, rs):
    """Row 0 of ``rs`` := ``Block(0, 0, 1, derive_seed(_COMPANY_SEED, "company-odds",
    *words)).rng("sample")``."""
    cst = ct.cst
    root = ct.root
    key = np.empty(3 + n_words, np.int64)
    for k in range(3):
        key[k] = cst[Q_SEED + k]
    for k in range(n_words):
        key[3 + k] = words[k]
    pool = np.empty(4, np.uint64)
    seed_pool(root, root.shape[0], key, key.shape[0], pool)
    derived = np.empty(4, np.uint64)
    generate_state32(pool, np.int64(4), derived)  # the 128-bit derived seed's words, low first
    ent = np.empty(4, np.int64)
    for k in range(4):
        ent[k] = np.int64(derived[k])
    blk = np.zeros(3, np.int64)  # (_BLOCK_TAG, block index 0, stream id)
    blk[2] = cst[Q_STREAM]
    # int_words(derived) drops zero high words, and numpy pads them back (a spawn key follows)
    seed_pool(ent, np.int64(4), blk, np.int64(3), pool)
    pcg64_seed(pool, rs, np.int64(0))


@njit(cache=True)
def kernel_tables(ct, npc, ships, art, order, m, ship, prm):
    """The kernel's ``_tables`` for the ordered situation, everyone a :class:`BattlePolicy`
    (stands, no cards): ``ship[:m]`` (int64[m, SHIP_COLS], zeroed by the caller) and ``prm``."""
    cst, npc_prm, par = ct.cst, ct.npc_prm, ct.par
    start = cst[Q_START]
    absorbs = cst[Q_ABSORBS]
    max_dice = cst[Q_MAX_DICE]
    for s in range(m):
        i = order[s]
        for k in range(4):
            q = ships[i, SH_RING + k]
            ship[s, C_POS + k] = q if q > 0 else start
            ship[s, C_ART + k] = absorbs - art[i, k] if art[i, k] >= 0 else 0
        p = ships[i, SH_PARROT]
        ship[s, C_PSEC] = -1
        if p >= 0:
            ship[s, C_PHP] = cst[Q_PARROT_HP] - (1 if ships[i, SH_WOUNDS] > 0 else 0)
            ship[s, C_PSEC] = par[p, A_SEC]
            ship[s, C_PFIXED] = par[p, A_FIXED]
            ship[s, C_PBONES] = par[p, A_BONES]
            ship[s, C_PSPEED] = par[p, A_SPEED]
            if par[p, A_FIXED] > max_dice:
                max_dice = par[p, A_FIXED]
        ship[s, C_SEAT] = s
    for k in range(prm.shape[0]):
        prm[k] = npc_prm[npc, k]
    prm[P_S] = m
    prm[P_TI] = 0 if npc == cst[Q_N_PIRATES] else 1  # the Royal Navy: at an outer island
    prm[P_EXCH_BOUND] = m * (max_dice + 1) + prm[P_NPC_DICE] + 1


@njit(cache=True, inline="always")
def _estimate(ct, npc, ships, art, order, m, words, n_words, res):
    """The estimate itself: the battles and their reductions, ``res[j]`` = (p_sink, share,
    p_routed) of the ``j``-th ship in ``order``."""
    cst, val = ct.cst, ct.val
    n = cst[Q_TRIALS]
    S = m
    ship = np.zeros((S, SHIP_COLS), np.int64)
    prm = np.zeros(N_PARAMS, np.int64)
    kernel_tables(ct, npc, ships, art, order, m, ship, prm)
    rs = np.zeros((1, R_COLS), np.uint64)
    sample_rng(ct, words, n_words, rs)
    out_outcome = np.zeros((n, S), np.int8)
    out_fame = np.zeros((n, S, 6), np.int16)
    out_pos = np.zeros((n, S, 4), np.int8)
    out_sunk = np.zeros(n, np.bool_)
    out_captured = np.full(n, -1, np.int8)
    out_exch = np.zeros(n, np.int16)
    out_capped = np.zeros(n, np.bool_)
    ctx = np.zeros(4, np.int64)
    # _scratch(S)
    pos = np.zeros((S, 4), np.int64)
    artl = np.zeros((S, 4), np.int64)
    php = np.zeros(S, np.int64)
    present = np.zeros(S, np.bool_)
    was_hit = np.zeros(S, np.bool_)
    fired = np.zeros(S, np.bool_)
    order_k = np.zeros(2 * S + 2, np.int64)
    keys = np.zeros(S + 1, np.int64)
    rolls = np.zeros(S + 1, np.int64)
    stack = np.zeros((2 * S + 4, 2), np.int64)
    npc_state = np.zeros(5, np.int64)
    clockwise = np.zeros(S, np.int64)
    victims = np.zeros(S, np.int64)
    cstate = np.zeros((S, K_COLS), np.int64)
    flags = np.zeros(3, np.int64)
    # _card_tables / _duel_table without battle or volley cards: the battle as it starts
    card_index = np.full(1, -1, np.int64)
    card_res = np.zeros((1, S, 5), np.int64)
    card_flags = np.zeros((1, 2), np.int64)
    tab = np.zeros((2, 0), np.int64)
    dice = np.empty(0, np.int8)
    while ctx[X_B] < n:
        # simulate_battles_kernel's bulk: the remaining battles at the rate seen so far (+3 %)
        b = ctx[X_B]
        if b:
            rate = np.float64(ctx[X_USED]) / np.float64(b)
        else:
            rate = np.float64(FIRST_DICE_PER_BATTLE)
        x = np.float64(n - b) * rate * 1.03 + 64.0
        if x < MIN_BULK:
            x = np.float64(MIN_BULK)
        if x > MAX_BULK:
            x = np.float64(MAX_BULK)
        want = np.int64(x)
        t0 = ctx[X_P]
        tail = dice.shape[0] - t0 if dice.shape[0] > t0 else 0
        fresh = np.empty(tail + want, np.int8)
        for k in range(tail):
            fresh[k] = dice[t0 + k]
        d6_bulk_int8(rs, np.int64(0), fresh[tail:])
        dice = fresh
        ctx[X_P] = 0
        status = _run(
            dice,
            ctx,
            val,
            ship,
            prm,
            out_outcome,
            out_fame,
            out_pos,
            out_sunk,
            out_captured,
            out_exch,
            out_capped,
            pos,
            artl,
            php,
            present,
            was_hit,
            fired,
            order_k,
            keys,
            rolls,
            stack,
            npc_state,
            clockwise,
            victims,
            cstate,
            flags,
            card_index,
            card_res,
            card_flags,
            tab,
        )
        if status == 2:  # no card decision is ever asked without cards
            raise ValueError("company estimate: the kernel asked for a card decision")
    # every ship's counts, battle by battle (the ships present counted once a battle)
    sunk = np.zeros(S, np.int64)
    total = np.zeros(S, np.int64)
    routed = np.zeros(S, np.int64)
    navy = npc == cst[Q_N_PIRATES]  # the Royal Navy: its pirate fame, the survivors fight on
    pf = prm[P_NPC_FAME]
    for b in range(n):
        if navy:
            for j in range(S):
                f = np.int64(out_fame[b, j, F_PIRATE])
                if f > 0:
                    sunk[j] += 1
                total[j] += f
        elif out_sunk[b]:
            cnt = 0
            for j in range(S):
                if out_outcome[b, j] == WON or out_outcome[b, j] == STAYED:
                    cnt += 1
            share = pf // max(cnt, 1)
            for j in range(S):
                if out_outcome[b, j] == WON or out_outcome[b, j] == STAYED:
                    sunk[j] += 1
                    total[j] += share
        for j in range(S):
            if out_outcome[b, j] == ROUTED:
                routed[j] += 1
    fn = np.float64(n)
    for j in range(S):
        res[j, 0] = np.float64(sunk[j]) / fn
        res[j, 1] = np.float64(total[j]) / fn
        res[j, 2] = np.float64(routed[j]) / fn


@njit(cache=True)
def _hash(words, n):
    h = np.uint64(1469598103934665603)
    for k in range(n):
        h ^= np.uint64(words[k])
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def company_odds_art(ct, memo, npc, ships, art, m):
    """The oracle's ``company_odds(rules, company_key(mine, others, npc))``: (p_sink, share,
    p_routed) of our ship, ``ships[0]``/``art[0]``; ``ships[1:m]`` the others in any order. The
    battle of the ``m`` ships is simulated once for all of them (the memo keeps every ship's
    values): asked from another ship's seat, the same battle answers from the memo."""
    if m < 1 or m > MAX_SHIPS:
        raise ValueError("company estimate: 1-5 ships (the battle kernel's)")
    if ct.npc_prm[npc, P_NPC] == NPC_REFUSED:
        raise ValueError("company estimate: damages='controller' without a controller")
    order = np.empty(m, np.int64)
    company_order(ct, ships, art, m, order)
    words = np.empty(1 + 10 * m, np.int64)
    n_words = seed_words(npc, ships, art, order, m, words)
    me = 0  # our place in the order: the stable sort keeps row 0 first among its equals
    while order[me] != 0:
        me += 1
    keys, vals, count = memo.keys, memo.vals, memo.count
    slots = keys.shape[0]
    h = np.int64(_hash(words, n_words) % np.uint64(slots))
    while keys[h, 0] != 0:
        if keys[h, 0] == n_words:
            same = True
            for k in range(n_words):
                if keys[h, 1 + k] != words[k]:
                    same = False
                    break
            if same:
                return vals[h, 3 * me], vals[h, 3 * me + 1], vals[h, 3 * me + 2]
        h = (h + 1) % slots
    res = np.zeros((m, 3), np.float64)
    _estimate(ct, npc, ships, art, order, m, words, n_words, res)
    if n_words <= keys.shape[1] - 1:
        if 4 * (count[0] + 1) > 3 * slots:  # full: start again (values never change)
            keys[:, 0] = 0
            count[0] = 0
            h = np.int64(_hash(words, n_words) % np.uint64(slots))
        keys[h, 0] = n_words
        for k in range(n_words):
            keys[h, 1 + k] = words[k]
        for j in range(m):
            for c in range(3):
                vals[h, 3 * j + c] = res[j, c]
        count[0] += 1
    return res[me, 0], res[me, 1], res[me, 2]


@njit(cache=True)
def company_odds(ct, memo, npc, ships, m):
    """:func:`company_odds_art` without Artisans."""
    art = np.full((m, 4), -1, np.int64)
    return company_odds_art(ct, memo, npc, ships, art, m)


__all__ = [
    "MAX_SHIPS",
    "MEMO_SLOTS",
    "SH_COLS",
    "CompanyMemo",
    "CompanyTables",
    "company_odds",
    "company_odds_art",
    "company_order",
    "kernel_tables",
    "new_memo",
    "sample_rng",
    "seed_words",
    "tables",
]
