"""The compiled company estimate (``simulator/cove/fast/company.py``) against the Python one
(the oracle ``tests/cove_odds_oracle.py``).

Everything is compared exactly (``==``, never a tolerance): numpy's SeedSequence, PCG64 seeding
and ``integers(1, 7, size, dtype=np.int8)`` against their compiled ports, the runner's
``derive_seed`` + ``Block.rng("sample")`` against the compiled seeding, the battle kernel's
tables against the ones built in numba, and ``odds.company_odds(rules, company_key(...))``
against :func:`company_odds_art` on sampled situations (2-4 ships, every non-player ship, the
Royal Navy, Artisans, parrots, wounded ones) and on the situations the default players asked
about in seeded games of the compiled engine (read back from its memo).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios import load_scenario
from simulator.cove.api import load, mix_for
from simulator.cove.combat_kernel import _card_tables, _duel_table, _prepare, _tables
from simulator.cove.combat_policies import BattlePolicy
from simulator.cove.fast import company as fc
from simulator.cove.fast import seedseq
from simulator.cove.fast.rng import d6_bulk_int8, integers, state_of
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.runner import Block, derive_seed
from tests import cove_odds_oracle as odds
from tests.cove_battle_oracle import TREASURE_ISLAND, BattleShip


class _Facts(NamedTuple):
    """The public facts of a ship a company estimate reads (``odds.company_key``)."""

    ring: tuple[int, ...]
    artisans: tuple[tuple[int, int], ...]
    parrot: str | None
    parrot_wounds: int


RULES = load_scenario(None, CoveRules).rules
CT = fc.tables(RULES)
NPCS = [*RULES.pirates, "royal_navy"]
PARROTS = list(RULES.parrots)
WORD = st.integers(0, 2**32 - 1)
#: the rule sets the estimate is compared on: the standard game, the official several-Artisans
#: variant, and one with every combat constant the kernel's tables read moved off its default
PER_SECTION = load_scenario("scenarios/cove/artisan-per-section.toml", CoveRules).rules
MOVED = replace(
    PER_SECTION,
    combat=replace(
        PER_SECTION.combat,
        hit_on=4,
        artisan_absorbs=3,
        parrot_hits_to_kill=3,
        parrot_absorbs_hits=False,
        mutiny_on=2,
        mutiny_fame_loss=3,
        rout_fame=2,
        flight_fame_if_hit=2,
        parrot_death_fame_loss=1,
        max_exchanges=30,
    ),
    decisions=replace(PER_SECTION.decisions, cacafuego_at_treasure_island="nobody"),
)
VARIANTS = {"standard": RULES, "artisan-per-section": PER_SECTION, "moved": MOVED}


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


@settings(max_examples=150, deadline=None)
@given(
    entropy=st.one_of(st.integers(0, 10), st.integers(0, 2**128 - 1), st.integers(0, 2**200)),
    blocks=st.lists(st.one_of(st.integers(0, 100), st.integers(0, 2**40)), min_size=1, max_size=6),
    n=st.integers(3, 5),
    repeat=st.integers(1, 3),
    mixed=st.booleans(),
)
def test_the_compiled_games_streams_are_the_runners(entropy, blocks, n, repeat, mixed):
    """``engine.deal_states``: each deal's dice stream and each seat's players stream, computed
    in compiled code from the runner's entropy and spawn keys (``Block.key``), are the states of
    ``Block.rng("dice")`` and ``Block.rng("players", seat)`` -- block numbers past 2**32 (two key
    words) and 200-bit entropies included, deals of one entropy (the words in bulk) or of two;
    a deal passed again (rotations) gets the same rows."""
    from simulator.cove.fast.engine import deal_states

    deals = [Block(b, b, 1, entropy + (i % 2 if mixed else 0)) for i, b in enumerate(blocks)]
    seq = [d for d in deals for _ in range(repeat)]
    got = deal_states(seq, n)
    assert got.shape == (len(seq), n + 1, 6)
    for i, deal in enumerate(seq):
        want = [state_of(deal.rng("dice"))] + [state_of(deal.rng("players", s)) for s in range(n)]
        assert got[i].tolist() == np.stack(want).tolist()


# ------------------------------------------------------------------ situations
def _ship(rng: np.random.Generator, rules: CoveRules, *, battle_form: bool) -> _Facts:
    """A random public view: ring positions (0 = destroyed, unless it is a battle view's
    ``max(p, 1)``), Artisans (at most one a ship unless ``artisan_limit = per_section``), a
    parrot, wounded or not."""
    lo = 1 if battle_form else 0
    ring = tuple(
        int(rng.integers(lo, rules.ship_mat.num_positions + 1)) if rng.random() < 0.9 else lo
        for _ in range(4)
    )
    absorbs = rules.combat.artisan_absorbs
    if rules.combat.artisan_limit == "per_ship":
        secs = [int(rng.integers(4))] if rng.random() < 0.35 else []
    else:
        secs = [sec for sec in range(4) if rng.random() < 0.35]
    arts = tuple((sec, int(rng.integers(absorbs))) for sec in secs)
    parrot, wounds = None, 0
    if rng.random() < 0.45:
        keys = list(rules.parrots)
        parrot = keys[int(rng.integers(len(keys)))]
        wounds = int(rng.random() < 0.4)
    return _Facts(ring, arts, parrot, wounds)


def _rows(views, rules: CoveRules = RULES) -> tuple[np.ndarray, np.ndarray]:
    """The interface's int rows of public views (ShipView or _Facts)."""
    m = len(views)
    parrots = list(rules.parrots)
    ships = np.zeros((m, fc.SH_COLS), np.int64)
    art = np.full((m, 4), -1, np.int64)
    for i, v in enumerate(views):
        ships[i, fc.SH_RING : fc.SH_RING + 4] = v.ring
        ships[i, fc.SH_PARROT] = parrots.index(v.parrot) if v.parrot is not None else -1
        ships[i, fc.SH_WOUNDS] = v.parrot_wounds
        for sec, used in v.artisans:
            art[i, sec] = used
    return ships, art


def _situations(n: int, seed: int, rules: CoveRules = RULES):
    """(npc, our view, the others) with 2-4 ships, every non-player ship in turn, often others
    level on the ring (or ring and Artisans, or all but the wounds, or everything: a tie of the
    sort) and sometimes views in the battle form."""
    rng = np.random.default_rng(seed)
    npcs = [*rules.pirates, "royal_navy"]
    out = []
    for t in range(n):
        m = 2 + t % 3
        form = bool(rng.random() < 0.5)
        views = [_ship(rng, rules, battle_form=form) for _ in range(m)]
        for j in range(2, m):  # others level on the first keys of the sort, or on all of them
            r, like = rng.random(), views[int(rng.integers(1, j))]
            if r < 0.15:
                views[j] = like
            elif r < 0.4:
                views[j] = views[j]._replace(ring=like.ring)
            elif r < 0.7:
                views[j] = views[j]._replace(ring=like.ring, artisans=like.artisans)
            elif r < 0.85:
                views[j] = like._replace(parrot_wounds=1 - like.parrot_wounds)
        out.append((npcs[t % len(npcs)], views[0], views[1:]))
    return out


def _compiled(npc, mine, others, rng, memo=None, rules=RULES, ct=CT):
    others = list(others)
    rng.shuffle(others)  # any order: the compiled estimate sorts them itself
    ships, art = _rows([mine, *others], rules)
    memo = fc.new_memo() if memo is None else memo
    npcs = [*rules.pirates, "royal_navy"]
    return fc.company_odds_art(ct, memo, npcs.index(npc), ships, art, len(others) + 1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_order_and_seed_words_are_company_keys(variant):
    rules = VARIANTS[variant]
    ct = fc.tables(rules)
    npcs = [*rules.pirates, "royal_navy"]
    rng = np.random.default_rng(7)
    for npc, mine, others in _situations(300, 11, rules):
        key = odds.company_key(mine, others, npc)
        shuffled = list(others)
        rng.shuffle(shuffled)
        ships, art = _rows([mine, *shuffled], rules)
        m = len(others) + 1
        order = np.empty(m, np.int64)
        fc.company_order(ct, ships, art, m, order)
        words = np.empty(1 + 10 * m, np.int64)
        n = fc.seed_words(npcs.index(npc), ships, art, order, m, words)
        assert words[:n].tolist() == odds.company_seed_words(rules, key)


@pytest.mark.parametrize("variant", VARIANTS)
def test_kernel_tables_are_the_kernels(variant):
    """The numba-built ``ship``/``prm`` and the no-cards card tables are what
    ``simulate_battles_kernel`` builds for ``company_odds``'s battle."""
    rules = VARIANTS[variant]
    ct = fc.tables(rules)
    npcs = [*rules.pirates, "royal_navy"]
    start = rules.ship_mat.start_position
    for npc, mine, others in _situations(120, 12, rules):
        battle, _ = odds.company_battle(odds.company_key(mine, others, npc))
        ships = [
            BattleShip(
                seat=s,
                positions=[q if q > 0 else start for q in ring],
                artisans={SECTIONS[sec]: used for sec, used in arts},
                parrot=parrot,
                parrot_wounded=wounds > 0,
            )
            for s, (ring, arts, parrot, wounds) in enumerate(battle)
        ]
        island = "hull" if npc == "royal_navy" else TREASURE_ISLAND
        pols = [BattlePolicy()] * len(ships)
        starts = _prepare(rules, ships, npc, pols, island)
        val, ship, prm = _tables(rules, starts, pols, npc, island)
        card_index, card_res, card_flags, phase = _card_tables(rules, island, starts, npc)
        tab, radix = _duel_table(pols)
        assert (card_index.tolist(), card_res.tolist(), card_flags.tolist(), phase) == (
            [-1],
            np.zeros((1, len(ships), 5), np.int64).tolist(),
            [[0, 0]],
            0,
        )
        assert tab.shape == (2, 0) and len(radix) == 0
        rows, art = _rows([mine, *others], rules)
        m = len(ships)
        order = np.empty(m, np.int64)
        fc.company_order(ct, rows, art, m, order)
        got_ship = np.zeros_like(ship)
        got_prm = np.zeros_like(prm)
        fc.kernel_tables(ct, npcs.index(npc), rows, art, order, m, got_ship, got_prm)
        assert val.tolist() == ct.val.tolist()
        assert got_ship.tolist() == ship.tolist()
        assert got_prm.tolist() == prm.tolist()


@pytest.mark.parametrize("variant", VARIANTS)
def test_company_odds_is_pythons_on_sampled_situations(variant):
    """30 situations a rule set: each non-player ship (the Cacafuego and the Royal Navy too) 5
    times, 2-4 ships; the three floats equal."""
    rules = VARIANTS[variant]
    ct = fc.tables(rules)
    rng = np.random.default_rng(3)
    for npc, mine, others in _situations(30, 13, rules):
        want = odds.company_odds(rules, odds.company_key(mine, others, npc))
        got = _compiled(npc, mine, others, rng, rules=rules, ct=ct)
        assert got == tuple(want), (npc, mine, others)


def test_one_simulation_answers_every_ship_of_a_battle():
    """Asked from each ship's seat in turn, a battle is simulated once (one memo entry): each
    ship gets the Python estimate from its own seat (an equal ship's values are its own)."""
    rng = np.random.default_rng(6)
    for npc, mine, others in _situations(12, 16):
        ships = [mine, *others]
        memo = fc.new_memo()
        for j, me in enumerate(ships):
            rest = ships[:j] + ships[j + 1 :]
            want = odds.company_odds(RULES, odds.company_key(me, rest, npc))
            assert _compiled(npc, me, rest, rng, memo=memo) == tuple(want)
            assert memo.count[0] == 1


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
            assert 0 < memo.count[0] <= 3
    big = fc.new_memo()
    for c, want in zip(cases * 2, fresh * 2, strict=True):
        assert _compiled(*c, rng, memo=big) == want
    # one entry per battle: the set of ships, whichever of them asked
    battles = {(n, *odds.company_battle(odds.company_key(m, o, n))[0]) for n, m, o in cases}
    assert big.count[0] == len(battles)


def _battle_of(rules: CoveRules, words) -> tuple:
    """The non-player ship and the ships' facts of an estimate's seed words
    (``odds.company_seed_words`` read back), in the battle's order."""
    npcs = [*rules.pirates, "royal_navy"]
    parrots = list(rules.parrots)
    ships = []
    for i in range(1, len(words), 10):
        w = [int(x) for x in words[i : i + 10]]
        arts = tuple((sec, w[4 + sec] - 1) for sec in range(4) if w[4 + sec])
        ships.append(_Facts(tuple(w[:4]), arts, parrots[w[8] - 1] if w[8] else None, w[9]))
    return npcs[int(words[0])], ships


def test_company_odds_is_pythons_on_the_default_players_situations():
    """Every estimate the default mix asked for in six seeded games of the compiled engine (3, 4
    and 5 players, two deals each; read back from the engine's memo, which holds every
    estimate made): the Python estimate of the same battle, asked from each ship's seat, gives
    the same floats."""
    from simulator.cove.fast.engine import FastGames

    rules = load(None).rules
    names = tuple(rules.default_mix)
    eng = FastGames(rules, names)
    for deal in range(6):
        eng.play([mix_for(rules, 3 + deal % 3)], [Block(deal, deal, 1, 20261201)])
    cm = eng.oc.cmemo
    keys, vals, count = cm.keys, cm.vals, cm.count
    slots = np.flatnonzero(keys[:, 0])
    assert len(slots) == count[0] > 0  # never emptied: every estimate is there
    npcs = set()
    for h in slots:
        words = keys[h, 1 : 1 + keys[h, 0]]
        npc, battle = _battle_of(rules, words)
        for j, mine in enumerate(battle):  # every ship's values, asked from its own seat
            key = odds.company_key(mine, battle[:j] + battle[j + 1 :], npc)
            assert odds.company_seed_words(rules, key) == words.tolist()
            if battle.index(mine) == j:  # an equal ship before it answers for it
                want = tuple(odds.company_odds(rules, key))
                assert want == tuple(vals[h, 3 * j : 3 * j + 3]), key
        npcs.add(npc)
    assert len(npcs) >= 3, "too few kinds of non-player ship asked about"


@pytest.mark.parametrize("npc", NPCS)
def test_company_odds_at_five_ships(npc):
    """Five ships (the most at a table), several Artisans a ship (the per-section variant)."""
    rng = np.random.default_rng(8)
    ct = fc.tables(PER_SECTION)
    views = [_ship(rng, PER_SECTION, battle_form=False) for _ in range(5)]
    want = odds.company_odds(PER_SECTION, odds.company_key(views[0], views[1:], npc))
    assert _compiled(npc, views[0], views[1:], rng, rules=PER_SECTION, ct=ct) == tuple(want)


def test_what_the_kernel_refuses_is_refused():
    """A pirate that damages 'controller' without targeting by controller (the kernel refuses
    it: kernel_applies) and more than five ships raise, as the Python estimate does."""
    pirates = dict(RULES.pirates)
    pirates["blackbeard"] = replace(pirates["blackbeard"], damages="controller")
    rules = replace(RULES, pirates=pirates)
    ct = fc.tables(rules)  # the other non-player ships are still estimated
    views = [_Facts((2, 2, 2, 2), (), None, 0)] * 2
    with pytest.raises(ValueError, match="damages='controller'"):
        odds.company_odds(rules, odds.company_key(views[0], views[1:], "blackbeard"))
    with pytest.raises(ValueError, match="damages='controller'"):
        _compiled("blackbeard", views[0], views[1:], np.random.default_rng(0), rules=rules, ct=ct)
    want = odds.company_odds(rules, odds.company_key(views[0], views[1:], "captain_hook"))
    rng = np.random.default_rng(0)
    assert _compiled("captain_hook", views[0], views[1:], rng, rules=rules, ct=ct) == tuple(want)
    six = [_Facts((2, 2, 2, 2), (), None, 0)] * 6
    with pytest.raises(ValueError, match="1-5 ships"):
        _compiled("captain_hook", six[0], six[1:], np.random.default_rng(0))


def test_an_estimate_never_reads_past_its_dice():
    """Regression (issue 28): an exchange whose speed roll-offs took the dice its bound left read
    its last broadside past the bulk, so the same situation's estimate depended on what the
    previous call left in memory. Now such a battle is replayed from a longer bulk: the estimate
    is a function of the situation alone (and the same with the JIT off, where the old read
    raised IndexError)."""
    from simulator.cove.fast import company

    ct = company.tables(RULES)
    npc = list(RULES.pirates).index("flying_dutchman")
    s10 = np.array([[3, 3, 1, 3, 2, 0, 0], [4, 4, 4, 5, 1, 0, 0]])
    a10 = np.array([[0, -1, -1, -1], [-1, -1, -1, -1]])
    s14 = np.array([[3, 3, 3, 4, 0, 0, 0], [4, 4, 4, 5, 1, 0, 0]])
    a14 = np.array([[-1, 0, -1, -1], [-1, -1, -1, -1]])

    def estimate(s, a):
        return tuple(company.company_odds_art(ct, company.new_memo(), npc, s, a, 2))

    first = estimate(s14, a14)
    estimate(s10, a10)
    assert estimate(s14, a14) == first
