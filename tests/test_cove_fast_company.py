"""The compiled company estimate (``simulator/cove/fast/company.py``) against the Python one.

Everything is compared exactly (``==``, never a tolerance): numpy's SeedSequence, PCG64 seeding
and ``integers(1, 7, size, dtype=np.int8)`` against their compiled ports, the runner's
``derive_seed`` + ``Block.rng("sample")`` against the compiled seeding, the battle kernel's
tables against the ones built in numba, and ``odds.company_odds(rules, company_key(...))``
against :func:`company_odds_art` on sampled situations (2-4 ships, every non-player ship, the
Royal Navy, Artisans, parrots, wounded ones) and on the situations the default players asked
about in seeded games.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios import load_scenario
from simulator.cove import heuristic, odds
from simulator.cove.api import load, mix_for, play_one
from simulator.cove.battle import TREASURE_ISLAND, BattleShip, _Battle
from simulator.cove.combat_kernel import _card_tables, _duel_table, _tables
from simulator.cove.combat_policies import BattlePolicy
from simulator.cove.fast import company as fc
from simulator.cove.fast import seedseq
from simulator.cove.fast.rng import d6_bulk_int8, integers, state_of
from simulator.cove.heuristic import _Facts
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.runner import Block, derive_seed

RULES = load_scenario(None, CoveRules).rules
CT = fc.tables(RULES)
NPCS = [*RULES.pirates, "royal_navy"]
PARROTS = list(RULES.parrots)
WORD = st.integers(0, 2**32 - 1)


# ------------------------------------------------------------------ numpy's seeding, compiled
def _pool(entropy: int, key: list[int]) -> np.ndarray:
    ew = seedseq.int_words(entropy)
    kw = np.array(key, np.int64) if key else np.zeros(0, np.int64)
    pool = np.zeros(seedseq.POOL_SIZE, np.uint64)
    seedseq.seed_pool(ew, len(ew), kw, len(kw), pool)
    return pool


@settings(max_examples=300, deadline=None)
@given(
    entropy=st.one_of(st.integers(0, 10), st.integers(0, 2**32 - 1), st.integers(0, 2**200)),
    key=st.lists(st.one_of(st.integers(0, 9), WORD), max_size=60),
    n=st.integers(1, 20),
)
def test_seed_sequence_pool_and_state_are_numpys(entropy, key, n):
    ss = np.random.SeedSequence(entropy, spawn_key=key)
    pool = _pool(entropy, key)
    assert pool.tolist() == ss.pool.tolist()
    out = np.zeros(n, np.uint64)
    seedseq.generate_state32(pool, n, out)
    assert out.tolist() == ss.generate_state(n, np.uint32).tolist()


@settings(max_examples=200, deadline=None)
@given(entropy=st.integers(0, 2**128 - 1), key=st.lists(WORD, max_size=8))
def test_pcg64_seeding_is_numpys(entropy, key):
    rs = np.zeros((2, 6), np.uint64)
    seedseq.pcg64_seed(_pool(entropy, key), rs, 1)
    gen = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))
    assert rs[1].tolist() == state_of(gen).tolist()
    assert rs[0].tolist() == [0] * 6  # only its row


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    before=st.integers(0, 3),
    sizes=st.lists(st.integers(0, 5000), min_size=1, max_size=4),
)
def test_int8_d6_bulk_is_numpys(seed, before, sizes):
    """Each bulk as ``integers(1, 7, size, dtype=np.int8)``, after ``before`` 32-bit bounded
    draws (so a buffered 32-bit half may be waiting), the generator left where numpy leaves it."""
    gen = np.random.default_rng(seed)
    rs = state_of(gen)[None, :].copy()
    for _ in range(before):
        assert int(gen.integers(7)) == integers(rs, 0, 7)
    for n in sizes:
        want = gen.integers(1, 7, size=n, dtype=np.int8)
        got = np.empty(n, np.int8)
        d6_bulk_int8(rs, 0, got)
        assert got.tolist() == want.tolist()
        assert rs[0].tolist() == state_of(gen).tolist()


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.integers(0, 12), min_size=1, max_size=51))
def test_the_sample_stream_is_the_runners(words):
    """``Block(0, 0, 1, derive_seed(_COMPANY_SEED, "company-odds", *words)).rng("sample")``."""
    seed = derive_seed(odds._COMPANY_SEED, "company-odds", *words)
    want = state_of(Block(0, 0, 1, seed).rng("sample"))
    rs = np.zeros((1, 6), np.uint64)
    fc.sample_rng(CT, np.array(words, np.int64), len(words), rs)
    assert rs[0].tolist() == want.tolist()


# ------------------------------------------------------------------ situations
def _ship(rng: np.random.Generator, *, battle_form: bool) -> _Facts:
    """A random public view: ring positions (0 = destroyed, unless it is a battle view's
    ``max(p, 1)``), at most one Artisan (``artisan_limit = per_ship``), a parrot, wounded or not."""
    lo = 1 if battle_form else 0
    ring = tuple(
        int(rng.integers(lo, RULES.ship_mat.num_positions + 1)) if rng.random() < 0.9 else lo
        for _ in range(4)
    )
    arts = ()
    if rng.random() < 0.35:
        arts = ((int(rng.integers(4)), int(rng.integers(RULES.combat.artisan_absorbs))),)
    parrot, wounds = None, 0
    if rng.random() < 0.45:
        parrot = PARROTS[int(rng.integers(len(PARROTS)))]
        wounds = int(rng.random() < 0.4)
    return _Facts(ring, arts, parrot, wounds)


def _rows(views) -> tuple[np.ndarray, np.ndarray]:
    """The interface's int rows of public views (ShipView or _Facts)."""
    m = len(views)
    ships = np.zeros((m, fc.SH_COLS), np.int64)
    art = np.full((m, 4), -1, np.int64)
    for i, v in enumerate(views):
        ships[i, fc.SH_RING : fc.SH_RING + 4] = v.ring
        ships[i, fc.SH_PARROT] = PARROTS.index(v.parrot) if v.parrot is not None else -1
        ships[i, fc.SH_WOUNDS] = v.parrot_wounds
        for sec, used in v.artisans:
            art[i, sec] = used
    return ships, art


def _situations(n: int, seed: int):
    """(npc, our view, the others) with 2-4 ships, every non-player ship in turn, sometimes two
    equal others (a tie of the sort) and sometimes views in the battle form."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(n):
        m = 2 + t % 3
        form = bool(rng.random() < 0.5)
        views = [_ship(rng, battle_form=form) for _ in range(m)]
        if m > 2 and rng.random() < 0.3:
            views[2] = views[1]
        out.append((NPCS[t % len(NPCS)], views[0], views[1:]))
    return out


def _compiled(npc, mine, others, rng, memo=None):
    others = list(others)
    rng.shuffle(others)  # any order: the compiled estimate sorts them itself
    ships, art = _rows([mine, *others])
    memo = fc.new_memo() if memo is None else memo
    return fc.company_odds_art(CT, memo, NPCS.index(npc), ships, art, len(others) + 1)


def test_order_and_seed_words_are_company_keys():
    rng = np.random.default_rng(7)
    for npc, mine, others in _situations(300, 11):
        key = odds.company_key(mine, others, npc)
        shuffled = list(others)
        rng.shuffle(shuffled)
        ships, art = _rows([mine, *shuffled])
        m = len(others) + 1
        order = np.empty(m, np.int64)
        fc.company_order(CT, ships, art, m, order)
        words = np.empty(1 + 10 * m, np.int64)
        n = fc.seed_words(NPCS.index(npc), ships, art, order, m, words)
        assert words[:n].tolist() == odds.company_seed_words(RULES, key)


def test_kernel_tables_are_the_kernels():
    """The numba-built ``ship``/``prm`` and the no-cards card tables are what
    ``simulate_battles_kernel`` builds for ``company_odds``'s battle."""
    start = RULES.ship_mat.start_position
    for npc, mine, others in _situations(120, 12):
        key = odds.company_key(mine, others, npc)
        _, me, theirs = key
        ships = [
            BattleShip(
                seat=s,
                positions=[q if q > 0 else start for q in ring],
                artisans={SECTIONS[sec]: used for sec, used in arts},
                parrot=parrot,
                parrot_wounded=wounds > 0,
            )
            for s, (ring, arts, parrot, wounds) in enumerate((me, *theirs))
        ]
        island = "hull" if npc == "royal_navy" else TREASURE_ISLAND
        pols = [BattlePolicy()] * len(ships)
        args = (RULES, ships, npc, pols, np.random.default_rng(0), island, None, None)
        proto = _Battle(*args)
        val, ship, prm = _tables(RULES, proto, pols, npc, island)
        card_index, card_res, card_flags, phase = _card_tables(RULES, args, proto)
        tab, radix = _duel_table(pols)
        assert (card_index.tolist(), card_res.tolist(), card_flags.tolist(), phase) == (
            [-1],
            np.zeros((1, len(ships), 5), np.int64).tolist(),
            [[0, 0]],
            0,
        )
        assert tab.shape == (2, 0) and len(radix) == 0
        rows, art = _rows([mine, *others])
        m = len(ships)
        order = np.empty(m, np.int64)
        fc.company_order(CT, rows, art, m, order)
        got_ship = np.zeros_like(ship)
        got_prm = np.zeros_like(prm)
        fc.kernel_tables(CT, NPCS.index(npc), rows, art, order, m, got_ship, got_prm)
        assert val.tolist() == CT[1].tolist()
        assert got_ship.tolist() == ship.tolist()
        assert got_prm.tolist() == prm.tolist()


def test_company_odds_is_pythons_on_sampled_situations():
    """30 situations: each non-player ship (the Cacafuego and the Royal Navy too) 5 times, 2-4
    ships; the three floats equal."""
    rng = np.random.default_rng(3)
    for npc, mine, others in _situations(30, 13):
        want = odds.company_odds(RULES, odds.company_key(mine, others, npc))
        assert _compiled(npc, mine, others, rng) == tuple(want), (npc, mine, others)


def test_company_odds_without_artisans_is_the_art_form():
    rng = np.random.default_rng(4)
    for npc, mine, others in _situations(6, 14):
        mine = mine._replace(artisans=())
        others = [o._replace(artisans=()) for o in others]
        ships, _ = _rows([mine, *others])
        got = fc.company_odds(CT, fc.new_memo(), NPCS.index(npc), ships, len(others) + 1)
        assert got == _compiled(npc, mine, others, rng)


def test_a_small_memo_full_again_and_again_never_changes_a_value():
    """A 4-slot memo (cleared at 3 entries) answers repeated and new situations as fresh
    estimates do: hits return the stored floats of the same seed words, clearing loses none."""
    rng = np.random.default_rng(5)
    cases = _situations(8, 15)
    fresh = [_compiled(*c, rng) for c in cases]
    memo = fc.new_memo(slots=4)
    for _ in range(3):
        for c, want in zip(cases, fresh, strict=True):
            assert _compiled(*c, rng, memo=memo) == want
            assert 0 < memo[2][0] <= 3
    big = fc.new_memo()
    for c, want in zip(cases * 2, fresh * 2, strict=True):
        assert _compiled(*c, rng, memo=big) == want
    assert big[2][0] == len({odds.company_key(m, o, n) for n, m, o in cases})


def test_company_odds_is_pythons_on_the_default_players_situations(monkeypatch):
    """Every estimate the default mix asked for in six seeded games (3, 4 and 5 players, two
    deals each; recorded by wrapping ``heuristic.company_odds``: observation views and battle
    views both): the compiled estimate gives the same floats."""
    asked = []
    python = heuristic.company_odds

    def record(rules, key):
        got = python(rules, key)
        asked.append((key, got))
        return got

    monkeypatch.setattr(heuristic, "company_odds", record)
    rules = load(None).rules
    for deal in range(6):
        play_one(rules, mix_for(rules, 3 + deal % 3), Block(deal, deal, 1, 20261201))
    assert len({key[0] for key, _ in asked}) >= 3, "too few kinds of non-player ship asked about"
    rng = np.random.default_rng(6)
    for (npc, mine, theirs), want in asked:
        assert _compiled(npc, _Facts(*mine), [_Facts(*t) for t in theirs], rng) == tuple(want)


@pytest.mark.parametrize("npc", NPCS)
def test_company_odds_at_five_ships(npc):
    rng = np.random.default_rng(8)
    views = [_ship(rng, battle_form=False) for _ in range(5)]
    want = odds.company_odds(RULES, odds.company_key(views[0], views[1:], npc))
    assert _compiled(npc, views[0], views[1:], rng) == tuple(want)
