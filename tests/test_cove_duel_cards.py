"""Exact lone-ship duels with Tavern cards (simulator.cove.duel_cards via duel.exact_duel):
a hand computation, the optimal card policy against an expectimax brute force over every die of
the scalar engine, each card's exact effect against the scalar engine's Monte Carlo (4 SE), the
solved policy replayed by the compiled kernel (4 SE) and by both batch engines die for die,
invariants (hypothesis), the players' memo and the CLI (``cove duel --cards``,
``cove lethality --cards``)."""

from __future__ import annotations

import dataclasses
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scenarios import load_scenario
from simulator.cove.combat import simulate_battles
from simulator.cove.combat_policies import (
    NPC_TARGET,
    VOLLEY_CARDS,
    BattlePolicy,
    Broadside,
    HeuristicCardPolicy,
    RoyalNavyPolicy,
    RulePolicy,
)
from simulator.cove.duel import DuelShip, LoneShipOdds, _Side, exact_duel
from simulator.cove.duel_cards import CardChain, CardPlay, hand_counts, heuristic_plan
from simulator.cove.lethality import Build, lethality_table
from simulator.cove.rules import CoveRules, NonPlayerShip
from tests.cove_battle_oracle import BattleShip, resolve_battle, simulate_scalar
from tests.test_cove_combat_cli import run

RULES = load_scenario(None, CoveRules).rules


def tiny_rules(hit_on=3, grapeshot_hit_on=2, smoke_hit_on=5, **pirate):
    tiny = NonPlayerShip(title="Tiny", **pirate)
    return dataclasses.replace(
        RULES,
        pirates={**RULES.pirates, "tiny": tiny},
        combat=dataclasses.replace(
            RULES.combat,
            hit_on=hit_on,
            grapeshot_hit_on=grapeshot_hit_on,
            smoke_hit_on=smoke_hit_on,
        ),
    )


def test_hand_computed_smoke_duel_against_a_one_die_pirate():
    # the 10/19 duel of test_cove_duel with Smoke: the faster pirate now hits with 1/6 only.
    # P(win) = (5/6)(5/9) / (1 - (5/6)(4/9)) = 25/34; without Smoke 10/19.
    rules = tiny_rules(hit_on=5, smoke_hit_on=6, dice=1, hull=1, sails=30, fame=5)
    ship = DuelShip((1, 1, 1, 1))
    d = exact_duel(rules, ship, "tiny", cards=("smoke",), fractions=True)
    assert d.win == Fraction(25, 34) and d.routed == Fraction(9, 34)
    assert d.battle_cards_played == ("smoke",) and d.expected_fame == 5 * Fraction(25, 34)
    assert exact_duel(rules, ship, "tiny", fractions=True).win == Fraction(10, 19)
    h = exact_duel(rules, ship, "tiny", cards=("smoke",), card_policy="heuristic", fractions=True)
    assert h.win == Fraction(25, 34)


# ---------------------------------------------------------------- expectimax brute force
class _NeedDie(Exception):
    pass


class _NeedChoice(Exception):
    def __init__(self, options):
        super().__init__()
        self.options = options


class _PrefixDice:
    def __init__(self, prefix):
        self.prefix, self.used = prefix, 0

    def integers(self, low, high=None, size=None, dtype=None):
        n = 1 if size is None else int(size)
        if self.used + n > len(self.prefix):
            raise _NeedDie
        out = np.array(self.prefix[self.used : self.used + n])
        self.used += n
        return out if size is not None else out[0]


class _Chooser(BattlePolicy):
    """Answers every card decision from a prefix of choices; past it, asks for a branch. It never
    flees (the duels below stand) and always aims at the non-player ship."""

    def __init__(self, choices):
        self.choices, self.i = choices, 0

    def _next(self, options):
        if len(options) == 1:
            return options[0]
        if self.i >= len(self.choices):
            raise _NeedChoice(options)
        self.i += 1
        return self.choices[self.i - 1]

    def battle_card(self, view, hand):
        return self._next((None, *sorted(set(hand))))

    def overboard_chests(self, view, chests):
        return self._next(tuple(range(chests + 1)))

    def broadside(self, view, hand):
        me = view.ship(view.me)
        if not me.can_fire or view.becalmed:
            return Broadside(target=NPC_TARGET)
        kinds = [c for c in VOLLEY_CARDS if c in hand]
        options = tuple(c for r in range(len(kinds) + 1) for c in itertools.combinations(kinds, r))
        return Broadside(target=NPC_TARGET, volley=self._next(options))


def die_classes(rules):
    """Faces grouped where no threshold of the rules separates them: (representative, weight)."""
    c = rules.combat
    cuts = sorted({1, 7, c.hit_on, c.smoke_hit_on, c.grapeshot_hit_on} & set(range(1, 8)))
    return [(a, (b - a) / 6) for a, b in itertools.pairwise(cuts)]


def expectimax(rules, ship, npc, eps=1e-9):
    """max over every card decision, expectation over every die, of P(sink), by replaying the
    scalar engine from the start on each prefix; returns (value, error bound of the pruning)."""
    classes = die_classes(rules)

    def node(dice, choices, reach):
        try:
            res = resolve_battle(
                rules, [ship], npc, [_Chooser(choices)], _PrefixDice(dice), island="hull"
            )
        except _NeedDie:
            if reach < eps:
                return 0.0, 1.0
            v = e = 0.0
            for face, w in classes:
                cv, ce = node((*dice, face), choices, reach * w)
                v, e = v + w * cv, e + w * ce
            return v, e
        except _NeedChoice as need:
            kids = [node(dice, (*choices, o), reach) for o in need.options]
            return max(k[0] for k in kids), max(k[1] for k in kids)
        return float(res.npc_sunk), 0.0

    return node((), (), 1.0)


def bf_rules(hit_on, grapeshot_hit_on, smoke_hit_on, crew=(1,) * 8, **pirate):
    """Small battles for the brute force: one die each (crew and cannons values 1), a tiny
    pirate, hit thresholds chosen so that few face classes matter."""
    rules = tiny_rules(hit_on, grapeshot_hit_on, smoke_hit_on, **pirate)
    mat = dataclasses.replace(rules.ship_mat, crew=crew, cannons=(1,) * 8)
    return dataclasses.replace(rules, ship_mat=mat)


#: name -> (rules, ship): each hand has a decision the optimal policy must get right
BF_CASES = {
    # two Powder kegs and a Cannonade (never worth it at a hull-only ship): when to blow the keg
    "powder-keg+cannonade": (
        {"hit_on": 2, "grapeshot_hit_on": 2, "smoke_hit_on": 2, "dice": 1, "hull": 2, "sails": 30},
        BattleShip(0, [2, 1, 1, 1], battle_cards=["cannonade", "powder_keg", "powder_keg"]),
    ),
    # Grapeshot (always hits here) against its recoil on a 3-step cannons ring, and a keg
    "grapeshot+powder-keg": (
        {"hit_on": 2, "grapeshot_hit_on": 1, "smoke_hit_on": 2, "dice": 1, "hull": 3, "sails": 30},
        BattleShip(0, [2, 1, 3, 1], battle_cards=["grapeshot", "powder_keg"]),
    ),
    # Smoke, and Favourable wind against a pirate faster by less than 6
    "smoke+favourable-wind": (
        {"hit_on": 2, "grapeshot_hit_on": 2, "smoke_hit_on": 4, "dice": 1, "hull": 2, "sails": 8},
        BattleShip(0, [1, 1, 1, 1], battle_cards=["smoke", "favourable_wind"]),
    ),
    # Grapple (crew 2 above cannons 1) and Overboard with two chests to throw for speed
    "grapple+overboard": (
        {"hit_on": 2, "grapeshot_hit_on": 2, "smoke_hit_on": 2, "dice": 1, "hull": 3, "sails": 8}
        | {"crew": (1, 1, 1, 2, 2, 2, 2, 2)},
        BattleShip(0, [1, 4, 1, 2], chests=2, battle_cards=["grapple", "overboard"]),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BF_CASES))
def test_optimal_card_policy_equals_expectimax_brute_force(case):
    """The optimal P(sink) equals the max over every card decision and the expectation over every
    die of the scalar engine (each branch replayed from the start), within the pruned mass."""
    kw, ship = BF_CASES[case]
    rules = bf_rules(**kw, fame=2)
    bf, err = expectimax(rules, ship, "tiny", eps=1e-7)
    assert err < 1e-4
    ds = DuelShip(tuple(ship.positions), dict(ship.artisans), ship.parrot, chests=ship.chests)
    exact = exact_duel(rules, ds, "tiny", cards=tuple(ship.battle_cards))
    assert abs(exact.win - bf) <= err + 1e-12, (exact.win, bf, err)
    # the cards matter in every case: without them the same ship does worse
    bare = exact_duel(rules, ds, "tiny").win
    assert bare < bf - 0.05


# ---------------------------------------------------------------- each card vs the scalar engine
def _chain_with_rule(rules, ship: DuelShip, opp, rule, cards):
    """The exact chain under a fixed card rule (any policy that answers battle_card and plays
    volley cards in broadside), as exact_duel's heuristic path builds it."""
    side = _Side(rules, ship)
    npc = rules.royal_navy if opp == "royal_navy" else rules.pirates[opp]
    counts = hand_counts(cards)
    plan = heuristic_plan(rules, side, opp, npc, rule, counts, ship.chests)
    hand = (0, 0, 0) if plan.becalmed else tuple(counts.get(v, 0) for v in VOLLEY_CARDS)
    n_battle = len(cards) - sum(hand) - len(plan.played) if not plan.becalmed else 0
    chain = CardChain(
        rules, side, opp, npc, rule, RoyalNavyPolicy(), plan, ship.chests, n_battle, rule, 1.0
    )
    v = chain.value((side.start, npc.hull, hand, True))
    return v[0] + v[1], plan


MC_N = 16_000
#: (ship, opponent, cards, card policy): each card played where it changes P(sink), which stays
#: at or below 0.11 or at or above 0.89 so that 4 SE <= 1 point at MC_N
EFFECT_CASES = {
    "smoke": (DuelShip((6, 7, 2, 3), {"hull": 0}), "captain_hook", ("smoke",), "optimal"),
    "favourable_wind": (
        DuelShip((8, 8, 8, 8)),
        "royal_navy",
        ("favourable_wind", "favourable_wind"),
        "optimal",
    ),
    "grapple": (DuelShip((7, 7, 2, 4)), "captain_hook", ("grapple",), "optimal"),
    "overboard": (
        DuelShip((5, 6, 7, 6), {"hull": 0}, chests=5),
        "captain_hook",
        ("overboard",),
        "optimal",
    ),
    "grapeshot": (DuelShip((6, 7, 7, 7)), "royal_navy", ("grapeshot",), "optimal"),
    "powder_keg": (
        DuelShip((8, 6, 6, 4), {"hull": 0}),
        "flying_dutchman",
        ("powder_keg",),
        "optimal",
    ),
    # Cannonade is never worth playing at a non-player ship: a rule that plays it anyway
    "cannonade": (
        DuelShip((4, 4, 4, 4)),
        "captain_hook",
        ("cannonade", "cannonade"),
        RulePolicy(volley_cards=("cannonade",)),
    ),
    # Becalmed played first stops the ship's own Grapeshot
    "becalmed": (
        DuelShip((8, 8, 8, 8)),
        "captain_hook",
        ("becalmed", "grapeshot"),
        RulePolicy(battle_cards=("becalmed",), volley_cards=("grapeshot",)),
    ),
    # the players' rule on a mixed hand
    "heuristic-hand": (
        DuelShip((6, 6, 6, 4)),
        "bonny_and_read",
        ("smoke", "grapeshot", "powder_keg"),
        "heuristic",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("card", sorted(EFFECT_CASES))
def test_each_cards_exact_effect_matches_the_sampled_battles_within_4_se(card):
    """Exact P(sink) with the card against 16,000 sampled battles playing the same card policy
    (the solved one for ``optimal``): the battle kernel, which plays the scalar oracle's card
    battles die for die (``tests/test_cove_combat_kernel.py``), so the sample is independent of
    the exact chain at the oracle's speed. 4 SE <= 1 point at the cases' probabilities, so a
    1-point bias fails (asserted below)."""
    ship, opp, cards, how = EFFECT_CASES[card]
    flee = RulePolicy()
    if isinstance(how, str):
        exact = exact_duel(RULES, ship, opp, flee, cards=cards, card_policy=how)
        p = float(exact.win)
        pol = (
            exact.card_play.policy(flee)
            if how == "optimal"
            else HeuristicCardPolicy.from_rules(RULES, flee)
        )
        base = float(exact_duel(RULES, ship, opp, flee).win)
    else:
        p, _ = _chain_with_rule(RULES, ship, opp, how, cards)
        pol = how
        base = float(exact_duel(RULES, ship, opp, flee).win)
    if card == "cannonade":
        assert p < base - 0.02  # a broadside lost per Cannonade
    elif card == "becalmed":
        assert p == pytest.approx(base, abs=1e-12)
    else:
        assert p > base + 0.02
    rng = np.random.default_rng(20260613)
    bs = BattleShip(
        0,
        list(ship.positions),
        dict(ship.artisans),
        ship.parrot,
        chests=ship.chests,
        battle_cards=list(cards),
    )
    res = simulate_battles(RULES, [bs], opp, [pol], MC_N, rng, island="hull", engine="kernel")
    sunk = int(res.npc_sunk.sum())
    se = max(np.sqrt(p * (1 - p) / MC_N), 1 / MC_N)
    assert 4 * se <= 0.01  # the case detects a 1-point bias
    assert abs(sunk / MC_N - p) <= 4 * se, (card, sunk / MC_N, p)


def _solved_four_card_hand():
    ship = DuelShip((5, 5, 5, 5), {"hull": 0})
    cards = ("smoke", "grapeshot", "powder_keg", "cannonade")
    exact = exact_duel(RULES, ship, "blackbeard", cards=cards)
    assert exact.battle_cards_played == ("smoke",)
    bs = BattleShip(0, [5, 5, 5, 5], {"hull": 0}, battle_cards=list(cards))
    return exact, bs, exact.card_play.policy(RulePolicy())


def test_the_solved_policy_replays_in_the_kernel_within_4_se():
    """The optimal policy of a four-card hand, played by the compiled kernel on 60,000 battles
    (4 SE <= 0.82 points at any p: a 1-point bias fails)."""
    exact, bs, pol = _solved_four_card_hand()
    n = 60_000
    rng = np.random.default_rng(11)
    res = simulate_battles(RULES, [bs], "blackbeard", [pol], n, rng)
    assert res.engine == "kernel"
    p = exact.win
    se = np.sqrt(p * (1 - p) / n)
    assert 4 * se <= 0.01
    assert abs(res.npc_sunk.mean() - p) <= 4 * se
    sunk_routed = ((res.outcome[:, 0] == 1) & res.npc_sunk).mean()
    q = exact.routed_while_sinking
    assert abs(sunk_routed - q) <= 4 * max(np.sqrt(q * (1 - q) / n), 1 / n)


def test_the_solved_policy_plays_the_same_battles_on_both_batch_engines():
    """The solved policy on the scalar oracle (its decisions asked of the card play at each
    broadside) and in the kernel (its table looked up by state code): one die stream, the same
    300 battles, every array equal."""
    from tests.test_cove_combat import assert_same_battles
    from tests.test_cove_combat_kernel import DieStream

    _, bs, pol = _solved_four_card_hand()
    k = simulate_battles(RULES, [bs], "blackbeard", [pol], 300, DieStream(5), engine="kernel")
    s = simulate_scalar(RULES, [bs], "blackbeard", [pol], 300, DieStream(5), "hull", None)
    assert (k.engine, s.engine) == ("kernel", "scalar")
    assert_same_battles(k, s, "solved four-card hand")
    assert k.outcome_counts(0)["won"] > 0 and k.outcome_counts(0)["routed"] > 0


def test_card_play_refuses_a_state_it_did_not_solve():
    play = exact_duel(RULES, DuelShip(), "captain_hook", cards=("grapeshot",)).card_play
    assert isinstance(play, CardPlay)
    from tests.cove_battle_oracle import _Battle

    b = _Battle(
        RULES,
        [BattleShip(0, [3, 3, 3, 3])],
        "captain_hook",
        [RulePolicy()],
        np.random.default_rng(0),
        "hull",
        None,
        None,
    )
    with pytest.raises(ValueError, match="no decision"):
        play.volley(b.view(b.ships[0]), ("grapeshot",))


# ---------------------------------------------------------------- invariants
HANDS = st.lists(
    st.sampled_from(("smoke", "favourable_wind", "grapple", "grapeshot", "powder_keg")),
    max_size=3,
)


@settings(max_examples=25, deadline=None)
@given(
    pos=st.tuples(*[st.integers(2, 6)] * 4),
    artisan=st.booleans(),
    opp=st.sampled_from(("blackbeard", "flying_dutchman", "captain_hook", "bonny_and_read")),
    hand=HANDS,
    extra=st.sampled_from(("smoke", "grapeshot", "powder_keg", "grapple", "becalmed")),
    flee=st.sampled_from(("stand", "when-critical")),
)
def test_optimal_beats_heuristic_more_cards_never_hurt_and_outcomes_add_up(
    pos, artisan, opp, hand, extra, flee
):
    assume(all((*hand, extra).count(c) <= getattr(RULES.tavern, c) for c in {*hand, extra}))
    ship = DuelShip(pos, {"hull": 0} if artisan else {})
    pol = RulePolicy(flee)
    o = exact_duel(RULES, ship, opp, pol, cards=tuple(hand))
    h = exact_duel(RULES, ship, opp, pol, cards=tuple(hand), card_policy="heuristic")
    more = exact_duel(RULES, ship, opp, pol, cards=(*hand, extra))
    assert o.win >= h.win - 1e-12
    assert more.win >= o.win - 1e-12
    for d in (o, h, more):
        assert d.win + d.routed + d.fled == pytest.approx(1.0, abs=1e-9)
        assert 0 <= d.routed_while_sinking <= d.win + 1e-12 and 0 <= d.mutiny <= d.fled + 1e-12


def test_bad_hands_are_refused():
    with pytest.raises(ValueError, match="no effect"):
        exact_duel(RULES, DuelShip(), "captain_hook", cards=("artisan",))
    with pytest.raises(ValueError, match="at most 2"):
        exact_duel(RULES, DuelShip(), "captain_hook", cards=("smoke",) * 3)
    with pytest.raises(ValueError, match="lone ship"):
        exact_duel(RULES, DuelShip(), DuelShip(seat=1), cards=("smoke",))
    with pytest.raises(ValueError, match="card_policy"):
        exact_duel(RULES, DuelShip(), "captain_hook", card_policy="clever")


def test_lone_ship_odds_memo_ignores_cards_without_a_battle_effect():
    odds = LoneShipOdds(RULES)
    ship = DuelShip((4, 4, 4, 3))
    p = odds.p_sink(ship, "captain_hook", ("fame:2", "smoke", "sneak_away", "artisan"))
    assert p == pytest.approx(float(exact_duel(RULES, ship, "captain_hook", cards=("smoke",)).win))
    assert odds.duel(ship, "captain_hook", ("smoke",)) is odds.duel(
        ship, "captain_hook", ("smoke",)
    )
    # chests count only with Overboard in hand
    rich = dataclasses.replace(ship, chests=4)
    assert odds.duel(rich, "captain_hook", ("smoke",)) is odds.duel(
        ship, "captain_hook", ("smoke",)
    )


# ---------------------------------------------------------------- lethality and CLI
def test_lethality_rows_gain_the_best_card_and_pair():
    builds = [Build("b", (5, 5, 5, 5), "hull"), Build("c", (3, 4, 4, 3))]
    df = lethality_table(RULES, builds, opponents=("captain_hook", "flying_dutchman"))
    assert (df.p_sink_best_card >= df.p_sink - 1e-12).all()
    assert (df.p_sink_best_pair >= df.p_sink_best_card - 1e-12).all()
    row = df[(df.pirate == "captain_hook") & (df.build == "b")].iloc[0]
    singles = {
        c: float(exact_duel(RULES, builds[0].duel_ship(), "captain_hook", cards=(c,)).win)
        for c in ("becalmed", "favourable_wind", "grapple", "smoke", "overboard", "grapeshot")
        + ("powder_keg", "cannonade")
    }
    assert row.best_card == max(singles, key=singles.get)
    assert row.p_sink_best_card == pytest.approx(max(singles.values()))
    a, b = row.best_pair.split("+")
    pair = exact_duel(RULES, builds[0].duel_ship(), "captain_hook", cards=(a, b)).win
    assert row.p_sink_best_pair == pytest.approx(float(pair))
    with_hand = lethality_table(RULES, builds[:1], opponents=("captain_hook",), cards=("smoke",))
    assert with_hand.p_sink.iloc[0] == pytest.approx(singles["smoke"])
    assert with_hand.cards.iloc[0] == "smoke"


SHIP = "hull=5,crew=4,cannons=4,sails=4"


def test_duel_cli_with_cards_exact_and_monte_carlo_agree_within_4_se():
    ex = json.loads(
        run(
            "duel",
            "--ship",
            SHIP,
            "--vs",
            "captain-hook",
            "--cards",
            "smoke,powder-keg",
            "--format",
            "json",
        ).stdout
    )
    assert ex["card_policy"] == "optimal" and ex["cards"] == ["smoke", "powder_keg"]
    assert ex["battle_cards_played"] == ["smoke"] and ex["method"] == "exact"
    assert ex["win"] + ex["routed"] + ex["fled"] == pytest.approx(1.0)
    n = 40_000
    mc = json.loads(
        run(
            "duel",
            "--ship",
            SHIP,
            "--vs",
            "captain-hook",
            "--cards",
            "smoke,powder-keg",
            "-n",
            str(n),
            "--seed",
            "9",
            "--format",
            "json",
        ).stdout
    )
    assert mc["method"] == "monte-carlo" and mc["card_policy"] == "optimal"
    assert (mc["engine"], mc["engine_reason"]) == ("kernel", "the kernel covers it")
    for k in ("win", "routed", "routed_while_sinking"):
        p = ex[k]
        assert abs(mc[k] - p) <= 4 * max((p * (1 - p) / n) ** 0.5, 1 / n), k
    heur = json.loads(
        run(
            "duel",
            "--ship",
            SHIP,
            "--vs",
            "captain-hook",
            "--cards",
            "smoke,powder-keg",
            "--card-policy",
            "heuristic",
            "--format",
            "json",
        ).stdout
    )
    assert heur["card_policy"] == "heuristic" and heur["win"] < ex["win"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (("--cards", "smok"), "did you mean 'smoke'"),
        (("--cards", "artisan"), "no effect in a battle"),
        (("--cards", "smoke,smoke,smoke"), "at most 2"),
        (("--cards", "smoke", "--card-policy", "clever"), "optimal"),
    ],
)
def test_duel_card_errors_are_one_line_exit_2(args, needle):
    proc = run("duel", "--ship", SHIP, "--vs", "captain-hook", *args, check=False)
    assert proc.returncode == 2 and needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run("duel", "--ship", SHIP, "--ship", "hull=3", "--cards", "smoke", check=False)
    assert proc.returncode == 2 and "lone ship" in proc.stderr
    proc = run("lethality", "--company", "1", "--cards", "smoke", check=False)
    assert proc.returncode == 2 and "--company 0" in proc.stderr


def test_lethality_cli_with_cards(tmp_path):
    builds = tmp_path / "b.csv"
    builds.write_text("name,hull,crew,cannons,sails,chests\nbrute,6,5,5,5,3\n")
    obj = json.loads(
        run("lethality", "--builds", str(builds), "--cards", "grapeshot", "--format", "json").stdout
    )
    assert obj["cards"] == ["grapeshot"] and obj["card_policy"] == "optimal"
    row = next(r for r in obj["rows"] if r["pirate"] == "captain_hook")
    ship = DuelShip((6, 5, 5, 5), chests=3)
    assert row["p_sink"] == pytest.approx(
        float(exact_duel(RULES, ship, "captain_hook", cards=("grapeshot",)).win)
    )
    assert row["chests"] == 3 and row["best_card"] and row["best_pair"].count("+") == 1
