"""Batches of one battle (simulator.cove.combat.simulate_battles, the compiled kernel) against the
scalar oracle played one battle at a time (tests/cove_battle_oracle.py, ``simulate_scalar``): on
one die stream they play the same battles, die for die, on constructed battles that use every
card, parrot and pirate special; the oracle's batch is resolve_battle in a row on the caller's
generator; custom policies and a custom Royal Navy controller are refused by the product, with the
reason, and played by the oracle; seeding, invariants and the scenario switches on both.

(The vectorised numpy engine these tests used to check against the scalar oracle was retired in
issue 16; its distribution tests became the die-for-die tests below.)"""

from __future__ import annotations

import numpy as np
import pytest

from scenarios import load_scenario
from simulator.cove.combat import BatchResult, simulate_battles
from simulator.cove.combat_policies import (
    HeuristicCardPolicy,
    RoyalNavyPolicy,
    RulePolicy,
    policy_from_name,
)
from simulator.cove.duel import FIGHTING_OPPONENTS, DuelShip, exact_duel
from simulator.cove.lethality import Build, duel_engine, lethality_table
from simulator.cove.rules import CoveRules
from tests.cove_battle_oracle import (
    FAME_CAUSES,
    OUTCOMES,
    BattleShip,
    resolve_battle,
    simulate_scalar,
)
from tests.test_cove_combat_kernel import DieStream

RULES = load_scenario(None, CoveRules).rules


def S(seat, pos=(2, 2, 2, 2), **kw):
    return BattleShip(seat=seat, positions=list(pos), **kw)


# (name, ships, npc, policies, island)
BATTLES = [
    (
        "pvp-cards",
        [
            S(0, battle_cards=["smoke", "grapeshot"]),
            S(
                2,
                (3, 3, 3, 2),
                parrot="long_john_silver",
                battle_cards=["favourable_wind", "cannonade"],
            ),
            S(
                1,
                (2, 4, 2, 3),
                artisans={"crew": 0},
                parrot="billy_bones",
                battle_cards=["grapple"],
            ),
        ],
        None,
        [
            RulePolicy(battle_cards=("smoke",), volley_cards=("grapeshot",)),
            RulePolicy(
                "when-critical", battle_cards=("favourable_wind",), volley_cards=("cannonade",)
            ),
            RulePolicy(1, battle_cards=("grapple",)),
        ],
        "sails",
    ),
    (
        "becalmed-overboard",
        [
            S(0, battle_cards=["becalmed", "powder_keg"]),
            S(
                1,
                (3, 2, 2, 2),
                chests=3,
                parrot="squire_trelawney",
                battle_cards=["overboard", "smoke"],
            ),
        ],
        "blackbeard",
        [
            RulePolicy(battle_cards=("becalmed",), volley_cards=("powder_keg",)),
            RulePolicy("when-hit", battle_cards=("overboard", "smoke")),
        ],
        "crew",
    ),
    (
        "hook-misfire",
        [
            S(0, (4, 2, 2, 3)),
            S(1, (2, 3, 3, 2), parrot="flint"),
            S(3, battle_cards=["smoke"]),
            S(2, (3, 2, 2, 4), artisans={"hull": 1}),
        ],
        "captain_hook",
        [
            RulePolicy(),
            RulePolicy("when-critical"),
            RulePolicy(battle_cards=("smoke",)),
            RulePolicy(),
        ],
        "hull",
    ),
    (
        "dutchman",
        [
            S(0, (3, 4, 4, 2), parrot="long_john_silver", battle_cards=["powder_keg"]),
            S(1, (3, 3, 3, 3)),
        ],
        "flying_dutchman",
        [RulePolicy(volley_cards=("powder_keg",)), RulePolicy(2)],
        "cannons",
    ),
    (
        "bonny-treasure",
        [S(0, (3, 3, 3, 5)), S(1, (4, 2, 2, 2), artisans={"sails": 0}), S(2)],
        "bonny_and_read",
        [RulePolicy("when-critical"), RulePolicy(), RulePolicy("when-hit")],
        "treasure_island",
    ),
    (
        "royal-navy",
        [S(0, (2, 3, 3, 2), battle_cards=["grapeshot"]), S(1, (3, 2, 2, 3), parrot="billy_bones")],
        "royal_navy",
        [RulePolicy(volley_cards=("grapeshot",)), RulePolicy()],
        "tavern",
    ),
    (
        "cacafuego",
        [S(0, (3, 3, 3, 3)), S(1, (2, 2, 2, 4))],
        "cacafuego",
        [RulePolicy(), RulePolicy("when-hit")],
        "hull",
    ),
]


FIELDS = ("outcome", "fame", "positions", "npc_sunk", "captured_by", "exchanges", "capped")
ENGINES = ("kernel", "scalar")  # the product's kernel; the scalar oracle


def play(engine, rules, ships, npc, pols, n, rng, island="hull", royal_navy_policy=None):
    """A batch on the kernel (``simulate_battles``) or on the scalar oracle."""
    if engine == "scalar":
        return simulate_scalar(rules, ships, npc, pols, n, rng, island, royal_navy_policy)
    return simulate_battles(
        rules, ships, npc, pols, n, rng, island=island, royal_navy_policy=royal_navy_policy,
        engine=engine,
    )  # fmt: skip


def assert_same_battles(a: BatchResult, b: BatchResult, what) -> None:
    for f in FIELDS:
        assert getattr(a, f).tolist() == getattr(b, f).tolist(), (what, f)
    assert a.dice_used == b.dice_used, what


class CustomRule(RulePolicy):
    """RulePolicy's rule under another type: not the kernel's (refused; the oracle plays it)."""


@pytest.mark.parametrize("name,ships,npc,pols,island", BATTLES, ids=[b[0] for b in BATTLES])
def test_kernel_and_scalar_oracle_play_the_same_battles_die_for_die(name, ships, npc, pols, island):
    """simulate_battles and the scalar oracle on one die stream: every array of the two results
    equal, and every die used (the kernel's bulk refills replay a cut battle from its first die).
    The oracle's batch is resolve_battle itself, so this checks the kernel's rules and its
    bookkeeping (argument order, outcome codes, fame causes, the captor's index) at once."""
    n = 300
    k = simulate_battles(RULES, ships, npc, pols, n, DieStream(7), island=island, engine="kernel")
    s = play("scalar", RULES, ships, npc, pols, n, DieStream(7), island)
    assert (k.engine, s.engine) == ("kernel", "scalar")
    assert k.engine_reason == "forced (engine='kernel')"
    assert_same_battles(k, s, name)


def test_a_battle_the_kernel_does_not_play_is_refused_and_the_oracle_batch_is_resolve_battle():
    """A battle the kernel does not play (a policy of another type) is refused by simulate_battles
    with the kernel's reason and the allowed policies (no second engine plays it). The oracle's
    batch is resolve_battle called n times on the same generator. The Cacafuego at Treasure
    Island goes to the fastest ship: ``captured_by`` is an argument index, not a seat (the seats
    are given out of order)."""
    ships = [S(2, (2, 2, 2, 5)), S(0, (3, 3, 3, 5)), S(1, (2, 2, 2, 5), parrot="flint")]
    pols = [CustomRule(), RulePolicy(), CustomRule("when-hit")]
    n = 400
    with pytest.raises(ValueError, match=r"policy CustomRule \(allowed policies: RulePolicy"):
        simulate_battles(
            RULES, ships, "cacafuego", pols, n, np.random.default_rng(3), island="treasure_island"
        )
    res = simulate_scalar(
        RULES, ships, "cacafuego", pols, n, np.random.default_rng(3), "treasure_island", None
    )
    rng = np.random.default_rng(3)
    dice = 0
    for b in range(n):
        r = resolve_battle(RULES, ships, "cacafuego", pols, rng, island="treasure_island")
        assert res.outcome[b].tolist() == [OUTCOMES.index(s.outcome) for s in r.ships], b
        assert res.fame[b].tolist() == [[s.fame[c] for c in FAME_CAUSES] for s in r.ships], b
        assert res.positions[b].tolist() == [s.positions for s in r.ships], b
        assert int(res.captured_by[b]) == [s.seat for s in ships].index(r.captured_by), b
        assert (bool(res.npc_sunk[b]), int(res.exchanges[b])) == (r.npc_sunk, r.exchanges), b
        dice += r.dice_rolled
    assert res.dice_used == dice
    # the three ships tie on speed: each of them captures it in some battle (roll-offs)
    assert sorted(set(res.captured_by.tolist())) == [0, 1, 2]


def test_every_batch_a_command_builds_is_the_kernels():
    """The batches the commands build, as they build them (simulator/cove/commands.py ``duel -n``
    and lethality.lethality_table's company rows): every one is the kernel's -- each policy name,
    every fighting opponent and a ship duel, the two card policies with a hand, 1-4 company ships
    (the pirates at Treasure Island, the Royal Navy at an outer island)."""
    ship, mate = Build("a", (4, 4, 4, 4), "hull"), Build("b", (2, 2, 2, 2), None)
    cards = ("smoke", "grapeshot", "powder_keg")
    for name in ("stand", "flee-when-hit", "flee-when-critical", "flee-after-3"):
        for opp in FIGHTING_OPPONENTS:
            assert duel_engine(RULES, (ship,), opp, (name,))[0] == "kernel", (name, opp)
            for company in range(1, 5):
                island = "hull" if opp == "royal_navy" else "treasure_island"
                builds = (ship,) + (mate,) * company
                got = duel_engine(RULES, builds, opp, (name,) * (company + 1), island)
                assert got == ("kernel", "the kernel covers it"), (name, opp, company)
        assert duel_engine(RULES, (ship, mate), None, (name, "stand"))[0] == "kernel", name
        flee = policy_from_name(name)
        solved = exact_duel(RULES, ship.duel_ship(), "blackbeard", flee, cards=cards)
        for pol in (
            solved.card_play.policy(flee),
            HeuristicCardPolicy.from_rules(RULES, flee),
        ):
            got = duel_engine(RULES, (ship,), "blackbeard", (pol,), cards=cards)
            assert got == ("kernel", "the kernel covers it"), (name, type(pol).__name__)
    table = lethality_table(RULES, [ship], company=4, n=200, seed=1)
    assert set(table["engine"]) == {"kernel"}


def test_royal_navy_controller_policy_is_used_on_the_batch():
    """A custom controller is not the kernel's: simulate_battles refuses it; the oracle asks it at
    every broadside."""

    class AimAtSeatOneCannons(RoyalNavyPolicy):
        def target(self, view):
            return (1 if view.ship(1).present else 0), "cannons"

    ships = [S(0, (8, 2, 2, 8)), S(1, (8, 2, 2, 8))]
    pols = [RulePolicy(), RulePolicy()]
    with pytest.raises(ValueError, match="Royal Navy controller AimAtSeatOneCannons"):
        simulate_battles(
            RULES, ships, "royal_navy", pols, 500, np.random.default_rng(3),
            royal_navy_policy=AimAtSeatOneCannons(),
        )  # fmt: skip
    b = play(
        "scalar", RULES, ships, "royal_navy", pols, 500, np.random.default_rng(3), "hull",
        AimAtSeatOneCannons(),
    )  # fmt: skip
    # the Royal Navy won: only its fire hit the ships, all of it at the cannons (the default
    # controller would have aimed at the crew, the first of the weakest sections)
    afloat = ~b.npc_sunk
    assert afloat.sum() > 25
    assert (b.positions[afloat][:, :, [0, 1, 3]] == [8, 2, 8]).all()
    assert (b.positions[afloat][:, :, 2] == 0).all()


@pytest.mark.parametrize("engine", ENGINES)
def test_same_seed_same_batch_other_seed_other_batch_and_empty_batch(engine):
    ships, npc, pols, island = BATTLES[0][1:]
    n = 500 if engine == "kernel" else 200

    def run(seed, size=n):
        rng = np.random.default_rng(seed)
        return play(engine, RULES, ships, npc, pols, size, rng, island)

    a, b, c = run(5), run(5), run(6)
    assert_same_battles(a, b, engine)
    assert a.outcome.tolist() != c.outcome.tolist()
    e = run(5, 0)
    assert e.n == 0 and e.outcome.shape == (0, len(ships)) and e.engine == engine
    with pytest.raises(ValueError, match="allowed"):  # bad input refused even for n = 0
        simulate_battles(RULES, [S(0, (9, 2, 2, 2))], "blackbeard", [RulePolicy()], 0, None)


@pytest.mark.parametrize("engine", ENGINES)
def test_invariants_on_a_random_batch(engine):
    ships, npc, pols, island = BATTLES[2][1:]
    n = 5000 if engine == "kernel" else 500
    b = play(engine, RULES, ships, npc, pols, n, np.random.default_rng(8), island)
    won = b.outcome == OUTCOMES.index("won")
    routed = b.outcome == OUTCOMES.index("routed")
    # a routed ship has a destroyed section; a winner has none; at most one winner outside
    # Treasure Island; the pirate is sunk whenever somebody won
    assert ((b.positions.min(axis=2) == 0) == routed).all()
    assert (won.sum(axis=1) <= 1).all()
    assert (b.npc_sunk[won.any(axis=1)]).all()
    assert (
        b.fame[:, :, FAME_CAUSES.index("pirate_share")].sum(axis=1)
        <= RULES.pirates["captain_hook"].fame
    ).all()
    assert not b.capped.any()


def _rules_with(**combat):
    import dataclasses

    return dataclasses.replace(RULES, combat=dataclasses.replace(RULES.combat, **combat))


@pytest.mark.parametrize("engine", ENGINES)
def test_parrot_absorbs_hits_switch_in_exact_and_batch_engines(engine):
    """Flint on the hull against Captain Hook (3 dice on the hull): whether the parrot's two hits
    also move the ring changes the exact odds by more than 0.2; each engine's win rate is within
    4 SE of the exact chain's under both settings (n = 20,000 kernel battles: 4 SE <= 0.015;
    n = 3,000 scalar ones: 4 SE <= 0.037 -- an engine ignoring the switch is off by > 0.2)."""
    ship = DuelShip((4, 4, 4, 4), parrot="flint")
    odds = {}
    n = 20_000 if engine == "kernel" else 3_000
    for absorbs in (True, False):
        rules = _rules_with(parrot_absorbs_hits=absorbs)
        exact = exact_duel(rules, ship, "captain_hook", RulePolicy())
        odds[absorbs] = exact.win
        b = play(
            engine,
            rules,
            [BattleShip(0, list(ship.positions), {}, "flint")],
            "captain_hook",
            [RulePolicy()],
            n,
            np.random.default_rng(31),
        )
        won = b.outcome_counts(0)["won"] / n
        assert abs(won - exact.win) <= 4 * np.sqrt(exact.win * (1 - exact.win) / n), (
            absorbs,
            won,
            exact.win,
        )
    assert odds[True] - odds[False] > 0.2, odds


def test_smoke_blocks_misfire_switch_in_both_engines():
    """Smoke against Captain Hook's misfires under both settings of the switch: the two engines
    play the same battles die for die on one die stream, and blocking the misfire keeps more hull
    on the smoking ship (the difference of the kernel's means over 50,000 battles a setting is
    above 4 SE of a difference)."""
    _name, ships, npc, pols, island = BATTLES[2]  # hook-misfire: seat 3 plays Smoke
    smoked = 2  # argument index of seat 3
    hull = {}
    n = 50_000
    for blocks in (True, False):
        rules = _rules_with(smoke_blocks_misfire=blocks)
        k = simulate_battles(rules, ships, npc, pols, 300, DieStream(9), island=island)
        s = play("scalar", rules, ships, npc, pols, 300, DieStream(9), island)
        assert_same_battles(k, s, blocks)
        kb = simulate_battles(rules, ships, npc, pols, n, np.random.default_rng(41), island=island)
        assert kb.engine == "kernel"
        hull[blocks] = kb.positions[:, smoked, 0].astype(float)
    se = np.sqrt((hull[True].var() + hull[False].var()) / n)
    assert hull[True].mean() - hull[False].mean() > 4 * se, (hull[True].mean(), hull[False].mean())
