"""The compiled battle kernel (simulator.cove.combat_kernel): die for die the scalar reference on
the same die stream (buffer refills included), agreement in distribution with the scalar engine
and with the exact duels (4 SE), seeding, dispatch; the rule core's pointer roll-off against its
dctx one, and numba's cache of the kernel dropped when the rule core changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarios import load_scenario
from simulator.cove import combat_kernel, fast
from simulator.cove.combat import simulate_battles
from simulator.cove.combat_kernel import kernel_applies, simulate_battles_kernel
from simulator.cove.combat_policies import (
    BattlePolicy,
    RoyalNavyPolicy,
    RulePolicy,
    ScriptedPolicy,
    policy_from_name,
)
from simulator.cove.duel import DuelShip, exact_duel
from simulator.cove.fast import core
from simulator.cove.fast.rng import R_COLS
from simulator.cove.rules import CoveRules
from tests.cove_battle_oracle import FAME_CAUSES, OUTCOMES, BattleShip, resolve_battle

RULES = load_scenario(None, CoveRules).rules


def S(seat, pos=(2, 2, 2, 2), **kw):
    return BattleShip(seat=seat, positions=list(pos), **kw)


class DieStream:
    """A stand-in generator serving one fixed stream of d6 faces to whoever asks, in order: the
    kernel (in bulk) and the scalar engine (a few at a time) then see the same dice."""

    def __init__(self, seed: int, size: int = 400_000):
        self.faces = np.random.default_rng(seed).integers(1, 7, size=size, dtype=np.int8)
        self.used = 0

    def integers(self, low, high=None, size=None, dtype=np.int64):
        assert (low, high) == (1, 7)
        k = 1 if size is None else int(size)
        assert self.used + k <= len(self.faces), "stream exhausted"
        out = self.faces[self.used : self.used + k].astype(dtype)
        self.used += k
        return out if size is not None else out[0]


# (name, ships, npc, policies, island): no cards, every pirate, parrots, Artisans, each flee rule
BATTLES = [
    (
        "pvp-duel",
        [S(0, (4, 4, 3, 3)), S(1, (3, 3, 4, 4), artisans={"hull": 0})],
        None,
        [RulePolicy(), RulePolicy("when-critical")],
        "hull",
    ),
    (
        "pvp-three-ties",
        [S(0), S(1), S(2)],
        None,
        [RulePolicy(), RulePolicy(2), RulePolicy("when-hit")],
        "crew",
    ),
    (
        "blackbeard-company",
        [S(0, (6, 5, 5, 5), artisans={"hull": 0}), S(2, (3, 3, 3, 3)), S(1, (3, 3, 3, 3))],
        "blackbeard",
        [RulePolicy(), RulePolicy(), BattlePolicy()],
        "hull",
    ),
    (
        "hook-five",
        [
            S(4),
            S(1, (2, 3, 2, 2), parrot="flint"),
            S(2, artisans={"crew": 1}),
            S(0, parrot="billy_bones"),
            S(3),
        ],
        "captain_hook",
        [
            RulePolicy(1),
            RulePolicy("when-hit"),
            RulePolicy(),
            RulePolicy("when-critical"),
            RulePolicy(),
        ],
        "hull",
    ),
    (
        "bonny-treasure",
        [S(0, (3, 3, 3, 5)), S(1, (4, 2, 2, 2), artisans={"sails": 0}), S(2)],
        "bonny_and_read",
        [RulePolicy("when-critical"), RulePolicy(), RulePolicy("when-hit")],
        "treasure_island",
    ),
    (
        "dutchman",
        [S(0, (3, 4, 4, 2), parrot="long_john_silver"), S(1, (3, 3, 3, 3))],
        "flying_dutchman",
        [RulePolicy(), RulePolicy(2)],
        "cannons",
    ),
    (
        "royal-navy",
        [S(0, (2, 3, 3, 2)), S(1, (3, 2, 2, 3), parrot="squire_trelawney", parrot_wounded=True)],
        "royal_navy",
        [RulePolicy(), RulePolicy()],
        "tavern",
    ),
    (
        "cacafuego",
        [S(0, (3, 3, 3, 3)), S(1, (2, 2, 2, 4)), S(2, (2, 2, 2, 4))],
        "cacafuego",
        [RulePolicy(), RulePolicy("when-hit"), RulePolicy()],
        "hull",
    ),
    (
        "cacafuego-treasure",
        [S(0, (3, 3, 3, 3)), S(1, (2, 2, 2, 4)), S(2, (2, 2, 2, 4))],
        "cacafuego",
        [RulePolicy(), RulePolicy(), RulePolicy()],
        "treasure_island",
    ),
]
IDS = [b[0] for b in BATTLES]


@pytest.mark.parametrize("name,ships,npc,pols,island", BATTLES, ids=IDS)
def test_kernel_plays_the_scalar_battle_die_for_die(name, ships, npc, pols, island, monkeypatch):
    # small bulks: many battles are cut by an empty buffer and replayed from their first die
    monkeypatch.setattr(combat_kernel, "MIN_BULK", 97)
    monkeypatch.setattr(combat_kernel, "MAX_BULK", 211)
    n = 300
    k = simulate_battles_kernel(RULES, ships, npc, pols, n, DieStream(7), island=island)
    stream = DieStream(7)
    seats = [s.seat for s in ships]
    for b in range(n):
        r = resolve_battle(RULES, ships, npc, pols, stream, island=island)
        assert k.outcome[b].tolist() == [OUTCOMES.index(s.outcome) for s in r.ships], (name, b)
        assert k.fame[b].tolist() == [[s.fame[c] for c in FAME_CAUSES] for s in r.ships], (name, b)
        assert k.positions[b].tolist() == [s.positions for s in r.ships], (name, b)
        assert bool(k.npc_sunk[b]) == r.npc_sunk and int(k.exchanges[b]) == r.exchanges, (name, b)
        assert int(k.captured_by[b]) == (
            -1 if r.captured_by is None else seats.index(r.captured_by)
        )
    assert k.dice_used == stream.used


@pytest.mark.parametrize(
    "name,ships,npc,pols,island", [BATTLES[i] for i in (1, 3, 6)], ids=[IDS[i] for i in (1, 3, 6)]
)
def test_kernel_and_scalar_agree_in_distribution(name, ships, npc, pols, island):
    n_s, n_k = 800, 40000
    rng = np.random.default_rng(11)
    sc = np.zeros((len(ships), len(OUTCOMES)))
    for _ in range(n_s):
        for j, s in enumerate(resolve_battle(RULES, ships, npc, pols, rng, island=island).ships):
            sc[j, OUTCOMES.index(s.outcome)] += 1
    kb = simulate_battles(
        RULES, ships, npc, pols, n_k, np.random.default_rng(12), island=island, engine="kernel"
    )
    for j in range(len(ships)):
        kc = np.bincount(kb.outcome[:, j], minlength=len(OUTCOMES))
        for o in range(len(OUTCOMES)):
            p = (sc[j, o] + kc[o]) / (n_s + n_k)
            se = np.sqrt(p * (1 - p) * (1 / n_s + 1 / n_k)) + 1e-12
            assert abs(sc[j, o] / n_s - kc[o] / n_k) <= 4 * se + 1e-9, (name, j, OUTCOMES[o])


DUELS = [
    ("blackbeard", "stand", DuelShip((6, 6, 6, 6), {"hull": 0}, "long_john_silver")),
    ("flying_dutchman", "flee-when-critical", DuelShip((4, 4, 4, 4), {"crew": 0})),
    ("captain_hook", "flee-after-2", DuelShip((3, 3, 3, 3), parrot="billy_bones")),
    ("bonny_and_read", "stand", DuelShip((5, 5, 5, 5), {}, "squire_trelawney")),
    ("royal_navy", "flee-when-hit", DuelShip((2, 4, 4, 2), {"hull": 0})),
    (DuelShip((3, 3, 3, 3), {"crew": 0}, seat=1), "stand", DuelShip((3, 3, 3, 3), {}, "flint")),
    (
        DuelShip((2, 2, 2, 2), seat=1),
        "flee-when-hit",
        DuelShip((2, 2, 2, 2)),
    ),  # tied speeds: roll-offs
]


@pytest.mark.parametrize("opp,pol,ship", DUELS)
def test_kernel_matches_exact_duels_within_4_se(opp, pol, ship):
    exact = exact_duel(RULES, ship, opp, policy_from_name(pol))
    ships = [BattleShip(0, list(ship.positions), dict(ship.artisans), ship.parrot)]
    pols = [policy_from_name(pol)]
    npc = opp
    if isinstance(opp, DuelShip):
        ships.append(BattleShip(1, list(opp.positions), dict(opp.artisans), opp.parrot))
        pols.append(RulePolicy())
        npc = None
    n = 100_000
    b = simulate_battles(RULES, ships, npc, pols, n, np.random.default_rng(99), engine="kernel")
    c = b.outcome_counts(0)
    mc = {
        "win": c["won"],
        "routed": c["routed"],
        "fled": c["fled"] + c["mutiny"],
        "mutiny": c["mutiny"],
    }
    for k, v in mc.items():
        p = getattr(exact, k)
        se = max(np.sqrt(p * (1 - p) / n), 1 / n)
        assert abs(v / n - p) <= 4 * se, (k, v / n, p)
    fame = b.fame[:, 0].sum(axis=1).astype(float)
    assert abs(fame.mean() - exact.expected_fame) <= 4 * max(fame.std() / np.sqrt(n), 1e-3)


def test_same_seed_same_results_and_different_seed_differs():
    _, ships, npc, pols, island = BATTLES[3]
    a = simulate_battles_kernel(
        RULES, ships, npc, pols, 3000, np.random.default_rng(5), island=island
    )
    b = simulate_battles_kernel(
        RULES, ships, npc, pols, 3000, np.random.default_rng(5), island=island
    )
    c = simulate_battles_kernel(
        RULES, ships, npc, pols, 3000, np.random.default_rng(6), island=island
    )
    for f in ("outcome", "fame", "positions", "npc_sunk", "exchanges", "captured_by", "capped"):
        assert (getattr(a, f) == getattr(b, f)).all(), f
    assert a.dice_used == b.dice_used
    assert not (a.outcome == c.outcome).all()
    assert (
        simulate_battles_kernel(
            RULES, ships, npc, pols, 0, np.random.default_rng(5), island=island
        ).n
        == 0
    )


def test_dispatch_and_refusals():
    ships = [S(0), S(1)]
    assert kernel_applies(RULES, ships, None, [RulePolicy(), RulePolicy()], "hull") is None
    carded = [S(0, battle_cards=["smoke"]), S(1)]
    # cards in hand are the kernel's too (rule, heuristic and solved-duel card policies)
    assert kernel_applies(RULES, carded, None, [RulePolicy(), RulePolicy()], "hull") is None
    scripted = [ScriptedPolicy(), RulePolicy()]
    assert "ScriptedPolicy" in kernel_applies(RULES, carded, None, scripted, "hull")

    class Custom(RulePolicy):
        pass

    assert "Custom" in kernel_applies(RULES, ships, None, [Custom(), RulePolicy()], "hull")

    class Aim(RoyalNavyPolicy):
        pass

    assert "Aim" in kernel_applies(RULES, ships, "royal_navy", [RulePolicy()] * 2, "hull", Aim())
    with pytest.raises(ValueError, match="ScriptedPolicy"):
        simulate_battles(
            RULES, carded, None, scripted, 10, np.random.default_rng(1), engine="kernel"
        )
    with pytest.raises(ValueError, match="allowed"):
        simulate_battles(
            RULES, ships, None, [RulePolicy()] * 2, 10, np.random.default_rng(1), engine="gpu"
        )
    # bad input is refused like the scalar oracle refuses it
    with pytest.raises(ValueError, match="allowed"):
        simulate_battles_kernel(
            RULES, [S(0, (9, 2, 2, 2))], "blackbeard", [RulePolicy()], 10, np.random.default_rng(1)
        )
    # the retired scalar path is refused, naming the engines there are
    with pytest.raises(ValueError, match=r"engine 'scalar' \(allowed: auto, kernel\)"):
        simulate_battles(
            RULES, ships, None, [RulePolicy()] * 2, 50, np.random.default_rng(1), engine="scalar"
        )


def test_exchange_cap_leaves_ships_stayed():
    import dataclasses

    rules = dataclasses.replace(RULES, combat=dataclasses.replace(RULES.combat, max_exchanges=1))
    b = simulate_battles_kernel(
        rules,
        [S(0, (8, 8, 8, 8)), S(1, (8, 8, 8, 8))],
        None,
        [RulePolicy()] * 2,
        2000,
        np.random.default_rng(3),
    )
    # one exchange of 5 dice each cannot rout a ship 8 hits from a rout: every battle is capped
    assert (
        b.capped.all()
        and (b.outcome == OUTCOMES.index("stayed")).all()
        and (b.exchanges == 1).all()
    )


# ---------------------------------------------------------------- battles with cards in hand
def _card_battles():
    from simulator.cove.combat_policies import HeuristicCardPolicy

    heur = HeuristicCardPolicy.from_rules(RULES)
    heur_crit = HeuristicCardPolicy.from_rules(RULES, RulePolicy("when-critical"))
    duel = exact_duel(
        RULES,
        DuelShip((5, 5, 5, 5), {"hull": 0}),
        "blackbeard",
        cards=("smoke", "grapeshot", "powder_keg", "cannonade"),
    ).card_play.policy(RulePolicy())
    duel_hook = exact_duel(
        RULES,
        DuelShip((3, 4, 4, 2), parrot="long_john_silver", chests=3),
        "captain_hook",
        RulePolicy("when-critical"),
        cards=("overboard", "favourable_wind", "powder_keg", "powder_keg"),
    ).card_play.policy(RulePolicy("when-critical"))
    every = RulePolicy(
        battle_cards=("becalmed", "smoke", "favourable_wind", "grapple", "overboard"),
        volley_cards=("grapeshot", "powder_keg", "cannonade"),
        overboard=2,
    )
    return [
        (
            "pvp-card-rounds-with-ties",
            [
                S(0, battle_cards=["smoke", "grapeshot"]),
                S(1, battle_cards=["favourable_wind", "cannonade"]),
                S(2, (3, 3, 2, 2), battle_cards=["grapple", "powder_keg", "becalmed"]),
            ],
            None,
            [
                RulePolicy(battle_cards=("smoke",), volley_cards=("grapeshot",)),
                RulePolicy(2, battle_cards=("favourable_wind",), volley_cards=("cannonade",)),
                RulePolicy(battle_cards=("grapple", "becalmed"), volley_cards=("powder_keg",)),
            ],
            "sails",
        ),
        (
            "pvp-every-card",
            [
                S(0, (3, 3, 3, 3), chests=3, battle_cards=["overboard", "smoke", "cannonade"]),
                S(1, (3, 3, 3, 3), battle_cards=["becalmed", "grapeshot", "powder_keg"]),
            ],
            None,
            [every, every],
            "hull",
        ),
        (
            "hook-heuristic-smoke-misfires",
            [
                S(0, (5, 3, 3, 2), battle_cards=["smoke", "powder_keg"]),
                S(1, (2, 4, 2, 3), artisans={"hull": 0}, battle_cards=["grapple", "grapeshot"]),
                S(2, (3, 3, 4, 4), parrot="billy_bones", battle_cards=["smoke", "cannonade"]),
            ],
            "captain_hook",
            [heur, heur_crit, heur],
            "hull",
        ),
        (
            "dutchman-kegs",
            [
                S(0, (6, 5, 5, 4), battle_cards=["powder_keg", "powder_keg"]),
                S(1, (4, 4, 4, 4), parrot="flint", battle_cards=["favourable_wind"]),
            ],
            "flying_dutchman",
            [
                RulePolicy(volley_cards=("powder_keg",)),
                RulePolicy(battle_cards=("favourable_wind",)),
            ],
            "crew",
        ),
        (
            "navy-smoke-grapeshot",
            [
                S(0, (3, 4, 4, 3), battle_cards=["smoke", "grapeshot"]),
                S(1, (3, 3, 3, 3), parrot="squire_trelawney", battle_cards=["cannonade"]),
            ],
            "royal_navy",
            [heur, heur],
            "tavern",
        ),
        (
            "bonny-fastest-with-wind",
            [
                S(0, (4, 4, 4, 2), battle_cards=["favourable_wind", "favourable_wind"]),
                S(1, (4, 4, 4, 5)),
            ],
            "bonny_and_read",
            [RulePolicy(battle_cards=("favourable_wind",)), RulePolicy()],
            "treasure_island",
        ),
        (
            "cacafuego-fastest-with-overboard",
            [S(0, (3, 3, 3, 3), chests=4, battle_cards=["overboard"]), S(1, (3, 3, 3, 4))],
            "cacafuego",
            [RulePolicy(battle_cards=("overboard",)), RulePolicy()],
            "treasure_island",
        ),
        (
            "solved-duel-blackbeard",
            [
                S(
                    0,
                    (5, 5, 5, 5),
                    artisans={"hull": 0},
                    battle_cards=["smoke", "grapeshot", "powder_keg", "cannonade"],
                )
            ],
            "blackbeard",
            [duel],
            "hull",
        ),
        (
            "solved-duel-hook-overboard",
            [
                S(
                    0,
                    (3, 4, 4, 2),
                    parrot="long_john_silver",
                    chests=3,
                    battle_cards=["overboard", "favourable_wind", "powder_keg", "powder_keg"],
                )
            ],
            "captain_hook",
            [duel_hook],
            "hull",
        ),
    ]


CARD_BATTLES = _card_battles()


@pytest.mark.parametrize(
    "name,ships,npc,pols,island", CARD_BATTLES, ids=[b[0] for b in CARD_BATTLES]
)
def test_kernel_plays_card_battles_die_for_die(name, ships, npc, pols, island, monkeypatch):
    """Cards in hand (every battle and volley card; rule, heuristic and solved-duel card
    policies; card rounds with speed roll-offs): the kernel and the scalar engine play the same
    battles on the same die stream."""
    assert kernel_applies(RULES, ships, npc, pols, island) is None
    monkeypatch.setattr(combat_kernel, "MIN_BULK", 97)
    monkeypatch.setattr(combat_kernel, "MAX_BULK", 211)
    n = 300
    k = simulate_battles_kernel(RULES, ships, npc, pols, n, DieStream(8), island=island)
    stream = DieStream(8)
    seats = [s.seat for s in ships]
    for b in range(n):
        r = resolve_battle(RULES, ships, npc, pols, stream, island=island)
        assert k.outcome[b].tolist() == [OUTCOMES.index(s.outcome) for s in r.ships], (name, b)
        assert k.fame[b].tolist() == [[s.fame[c] for c in FAME_CAUSES] for s in r.ships], (name, b)
        assert k.positions[b].tolist() == [s.positions for s in r.ships], (name, b)
        assert bool(k.npc_sunk[b]) == r.npc_sunk and int(k.exchanges[b]) == r.exchanges, (name, b)
        assert int(k.captured_by[b]) == (
            -1 if r.captured_by is None else seats.index(r.captured_by)
        )
    assert k.dice_used == stream.used


# ------------------------------------------------------------------ the rule core's roll-offs
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    keys=st.lists(st.integers(0, 2), min_size=1, max_size=6),
    faces=st.lists(st.integers(1, 6), max_size=24),
    lo=st.integers(0, 2),
)
def test_roll_off_at_plays_the_dctx_roll_off(keys, faces, lo):
    """core.roll_off_at (the kernel's die pointer) and core.roll_off (the full game's dice
    source, here without refill) settle the same ties with the same dice: the same order and the
    same dice used, or both run out of dice (ties among 3 key values and 6 items, short buffers)."""
    m = len(keys)
    lo = min(lo, m - 1)
    k = np.array(keys + [0], np.int64)  # one spare item: the non-player ship's slot
    order0 = np.arange(m + 1, dtype=np.int64)
    core.sort_desc(order0, k, lo, m)
    dice = np.array(faces, np.int64)
    a, b = order0.copy(), order0.copy()
    rolls, stack = np.zeros(m + 1, np.int64), np.zeros((m + 4, 2), np.int64)
    p = core.roll_off_at(dice, 0, a, k, lo, m, rolls, stack)
    dctx = np.zeros(core.DX_LEN, np.int64)  # DX_REFILL = 0: running out fails
    ok = core.roll_off(dice, dctx, np.zeros((1, R_COLS), np.uint64), b, k, lo, m, rolls, stack)
    assert ok == (p >= 0)
    if ok:
        assert (a == b).all()
        assert p == dctx[core.DX_P] == dctx[core.DX_COUNT]
        assert (a[:lo] == order0[:lo]).all() and (a[m:] == order0[m:]).all()  # outside: kept
        assert (np.diff(k[a[lo:m]]) <= 0).all()  # still sorted by key
        assert sorted(a[lo:m]) == sorted(order0[lo:m])


# ------------------------------------------------------------------ numba's cache after an edit
def test_an_edited_rule_core_drops_the_kernels_compiled_cache(tmp_path):
    """The kernel's cached machine code holds core.py's rules (numba freezes a callee into its
    caller, and keys the caller's cache by the caller's file only): an edit to core.py must drop
    the kernel's cache files in ``simulator/cove/__pycache__`` with the package's own, and leave
    every other file there."""
    src = Path(fast.__file__).resolve().parent
    pkg = tmp_path / "cove" / "fast"
    pkg.mkdir(parents=True)
    for name in fast.COMPILED_MODULES:
        shutil.copy(src / f"{name}.py", pkg / f"{name}.py")
    outer = tmp_path / "cove" / "__pycache__"
    outer.mkdir()
    kernel_files = ("combat_kernel._run-703.py311.nbi", "combat_kernel._run-703.py311.1.nbc")
    others = ("combat_kernel.cpython-311.pyc", "battle.cpython-311.pyc", "other._f-9.py311.nbi")

    def write(names):
        for f in names:
            (outer / f).write_text("x")

    write(kernel_files + others)
    assert fast.drop_stale_cache(pkg)  # no stamp yet: dropped
    assert not any((outer / f).exists() for f in kernel_files)
    assert all((outer / f).exists() for f in others)
    write(kernel_files)
    assert not fast.drop_stale_cache(pkg)  # same sources: kept
    assert all((outer / f).exists() for f in kernel_files)
    with open(pkg / "core.py", "a") as f:
        f.write("\n# an edit\n")
    assert fast.drop_stale_cache(pkg)
    assert not any((outer / f).exists() for f in kernel_files)
    assert all((outer / f).exists() for f in others)
    assert not (tmp_path / "__pycache__").exists()
