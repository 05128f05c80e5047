"""The meta-game (simulator/metagame.py): equilibria of games with known answers, regrets, the
verdict, payoff tables measured through the protocol against exact expected scores, --iterate,
populations as scenario data, and the command (same output at --jobs 1 and 2)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import protocol_games as toy
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import cli
from scenarios.loader import ScenarioError
from scenarios.populations import MAX_NASH_GAP, load_population, population_text
from simulator.errors import UserError
from simulator.metagame import (
    MAX_MULTISETS,
    NoEquilibriumFound,
    PayoffTable,
    alpha_rank,
    duplicates,
    equilibrium,
    gain_test,
    measure,
    metagame,
    multisets,
    nash_gap,
    num_multisets,
    play_population,
    solve_two_player,
    table_from_function,
    verdict,
)
from simulator.search import Mixture, Player

RPS = {
    "rock": {"rock": 0.5, "paper": 0.2, "scissors": 0.8, "dud": 0.6},
    "paper": {"rock": 0.8, "paper": 0.5, "scissors": 0.2, "dud": 0.6},
    "scissors": {"rock": 0.2, "paper": 0.8, "scissors": 0.5, "dud": 0.6},
    "dud": {"rock": 0.4, "paper": 0.4, "scissors": 0.4, "dud": 0.5},
}


def invoke(*args: str) -> dict:
    result = CliRunner().invoke(
        cli.cli, list(args), obj={"game_apis": {"toy": toy}}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --------------------------------------------------------------------------------------------
# Equilibria with known answers (exact payoff tables), each checked by a brute-force gap


def brute_force_gap(population, players, score, sigma) -> float:
    """``max_X u(X, σ) - u(σ, σ)`` by brute force, independently of the payoff table: every
    ordered profile of the ``P - 1`` opponents (``K^(P-1)`` of them), weighted by the product
    of its members' weights, scored by ``score`` itself (once per multiset of opponents)."""
    k = len(population)
    profiles = np.array(list(np.ndindex(*([k] * (players - 1)))), dtype=np.int64)
    prob = np.prod(np.asarray(sigma, dtype=float)[profiles], axis=1)
    keys = np.sort(profiles, axis=1) @ (k ** np.arange(players - 1))
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    scores = np.array(
        [[score(x, tuple(population[i] for i in profiles[f])) for x in population] for f in first]
    )
    u = prob @ scores[inverse]
    return float(u.max() - np.asarray(sigma, dtype=float) @ u)


def test_rock_paper_scissors_is_uniform():
    table = table_from_function(["rock", "paper", "scissors"], 2, lambda x, o: RPS[x][o[0]])
    sigma = solve_two_player(table)
    np.testing.assert_allclose(sigma, [1 / 3] * 3, atol=1e-9)
    np.testing.assert_allclose(table.regret(sigma), 0.0, atol=1e-12)
    eq = equilibrium(table, np.random.default_rng(0))
    np.testing.assert_allclose(eq.sigma, [1 / 3] * 3, atol=1e-9)
    assert eq.solver == "nash" and len(eq.equilibria) == 1 and eq.nash_gap <= MAX_NASH_GAP


def test_dominated_strategy_gets_no_weight_and_positive_regret():
    """The dud scores 0.4 against every other row and 0.5 against itself: at the uniform RPS
    mixture it scores 0.4 against u(σ, σ) = 0.5, a regret of exactly 0.1."""
    names = ["rock", "paper", "scissors", "dud"]
    table = table_from_function(names, 2, lambda x, o: RPS[x][o[0]])
    eq = equilibrium(table, np.random.default_rng(0))
    assert eq.nash_gap <= MAX_NASH_GAP and len(eq.equilibria) == 1
    np.testing.assert_allclose(eq.sigma, [1 / 3, 1 / 3, 1 / 3, 0.0], atol=1e-9)
    np.testing.assert_allclose(table.regret(eq.sigma), [0, 0, 0, 0.1], atol=1e-12)


def _minority(x: str, opponents: tuple[str, ...]) -> float:
    """Three players, A and B: a lone A scores 1/2 (the Bs 1/4 each), two As score 1/5 each (the
    B 3/5), a table of one kind 1/3 each. u(A, x) - u(B, x) = 1/6 - 13x/30 for x = P(A), so
    the symmetric equilibrium puts x = 5/13 on A (and it is stable: the difference falls)."""
    j = opponents.count("A")
    return [0.5, 0.2, 1 / 3][j] if x == "A" else [1 / 3, 0.25, 0.6][j]


def test_three_player_mixed_equilibrium_is_five_thirteenths():
    table = table_from_function(["A", "B"], 3, _minority)
    eq = equilibrium(table, np.random.default_rng(1))
    assert len(eq.equilibria) == 1 and eq.equilibria[0].stable
    assert eq.sigma[0] == pytest.approx(float(Fraction(5, 13)), abs=1e-12)
    assert brute_force_gap(["A", "B"], 3, _minority, eq.sigma) <= MAX_NASH_GAP


#: weighted rock-paper-scissors (the issue's game): R beats S by 1, P beats R by 1, S beats P
#: by 3 (the loser loses as much)
WRPS = {"R": {"S": 1, "P": -1}, "P": {"R": 1, "S": -3}, "S": {"P": 3, "R": -1}}


def _pairwise(matrix, players):
    """Each table scores 1/P plus the player's pairwise results against every opponent:
    ``u(X, σ) = 1/P + (P - 1) (A σ)_X``, affine in σ, so the symmetric equilibria are those of
    the two-player zero-sum game A, at every table size."""
    return lambda x, o: 1 / players + sum(matrix[x].get(y, 0) for y in o)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_weighted_rock_paper_scissors_has_its_closed_form_equilibrium(players):
    """(A σ) = 0 on a full support: (A σ)_R = σ_S - σ_P = 0 and (A σ)_P = σ_R - 3 σ_S = 0, so
    σ = (3, 1, 1) / 5 = (0.6, 0.2, 0.2) at every P. No smaller support is one: every pure
    strategy is beaten by another, and on two members the third wins. The dynamics orbit it
    (not stable), where the former replicator-then-α-Rank solver answered (1/3, 1/3, 1/3)."""
    names = ["R", "P", "S"]
    score = _pairwise(WRPS, players)
    closed = [Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)]
    assert all(sum(WRPS[x].get(y, 0) * w for y, w in zip(names, closed)) == 0 for x in names)
    table = table_from_function(names, players, score)
    eq = equilibrium(table, np.random.default_rng(players))
    np.testing.assert_allclose(eq.sigma, [float(w) for w in closed], atol=1e-12)
    assert len(eq.equilibria) == 1 and not eq.equilibria[0].stable
    assert eq.nash_gap <= MAX_NASH_GAP
    assert brute_force_gap(names, players, score, eq.sigma) <= MAX_NASH_GAP
    # the uniform mixture the old solver reported is far from one: S gains against it
    assert brute_force_gap(names, players, score, [1 / 3] * 3) > 100 * MAX_NASH_GAP


#: a weighted 5-cycle: member i beats i + 1 (mod 5) by i + 1 and scores 0 against the others
CYCLE5 = {
    f"c{i}": {f"c{(i + 1) % 5}": i + 1, f"c{(i - 1) % 5}": -((i - 1) % 5 + 1)} for i in range(5)
}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_weighted_five_cycle_at_every_table_size(players):
    """(A σ)_i = w_i σ_(i+1) - w_(i-1) σ_(i-1) = 0 with w_i = i + 1 gives
    σ_(i+2) = σ_i w_i / w_(i+1): from σ_0 = 1, σ_2 = 1/2, σ_4 = 3/8, σ_1 = 15/8, σ_3 = 5/4,
    and back to σ_0 = 1; normalised (8, 15, 4, 10, 3) / 40, checked exactly below."""
    names = list(CYCLE5)
    closed = [Fraction(w, 40) for w in (8, 15, 4, 10, 3)]
    assert sum(closed) == 1
    for x in names:
        assert sum(CYCLE5[x].get(y, 0) * w for y, w in zip(names, closed)) == 0
    score = _pairwise(CYCLE5, players)
    eq = equilibrium(table_from_function(names, players, score), np.random.default_rng(0))
    np.testing.assert_allclose(eq.sigma, [float(w) for w in closed], atol=1e-12)
    assert brute_force_gap(names, players, score, eq.sigma) <= MAX_NASH_GAP


def _volunteer(x: str, opponents: tuple[str, ...]) -> float:
    """A scores 1 when no opponent plays A, else 0; B scores 1/2."""
    return float("A" not in opponents) if x == "A" else 0.5


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_nonlinear_two_strategy_game_at_every_table_size(players):
    """u(A, x) - u(B, x) = (1 - x)^(P - 1) - 1/2, x = P(A): one root, x = 1 - 2^(-1/(P - 1)),
    falling through 0 (stable); neither pure strategy is one (B gains 1/2 against A, A gains 1/2
    against B). A polynomial of degree P - 1, unlike the pairwise games."""
    table = table_from_function(["A", "B"], players, _volunteer)
    eq = equilibrium(table, np.random.default_rng(0))
    assert eq.sigma[0] == pytest.approx(1 - 2 ** (-1 / (players - 1)), abs=1e-12)
    assert len(eq.equilibria) == 1 and eq.equilibria[0].stable
    assert brute_force_gap(["A", "B"], players, _volunteer, eq.sigma) <= MAX_NASH_GAP


def test_several_equilibria_are_each_reported_and_the_rule_chooses():
    """Two players: A and B play hawk-dove (A 0 against A, 3 against B; B 1 and 2), C
    coordinates with C only (4 against C, 0 otherwise; A and B score 0 against C). Equilibria:
    (1/2, 1/2, 0) (A and B earn 3/2 each, C 0: stable, as hawk-dove's mix is), C alone (strict:
    stable) and the mixtures with C where its 4 z equals the hawk-dove's 3/2 (1 - z): z = 3/11
    (unstable). The rule picks the most mixed stable one, (1/2, 1/2, 0)."""
    m = {
        "A": {"A": 0, "B": 3, "C": 0},
        "B": {"A": 1, "B": 2, "C": 0},
        "C": {"A": 0, "B": 0, "C": 4},
    }
    names = ["A", "B", "C"]
    table = table_from_function(names, 2, lambda x, o: m[x][o[0]])
    eq = equilibrium(table, np.random.default_rng(3))
    np.testing.assert_allclose(eq.sigma, [0.5, 0.5, 0.0], atol=1e-12)
    points = {tuple(np.round(p.sigma, 9)): p for p in eq.equilibria}
    mixed = (round(0.5 * 8 / 11, 9), round(0.5 * 8 / 11, 9), round(3 / 11, 9))
    assert set(points) == {(0.5, 0.5, 0.0), (0.0, 0.0, 1.0), mixed}
    assert points[(0.0, 0.0, 1.0)].stable and not points[mixed].stable
    assert all(p.reached >= 1 for p in eq.equilibria)
    assert sum(p.reached for p in eq.equilibria) <= eq.starts
    for p in eq.equilibria:
        assert brute_force_gap(names, 2, lambda x, o: m[x][o[0]], p.sigma) <= MAX_NASH_GAP


def test_duplicated_strategies_are_solved_as_one():
    """A copy of R (R2: the same scores, and the same as an opponent) shares R's weight: the
    solver puts it on R and says so; the game stays weighted RPS at four players."""
    names = ["R", "P", "S", "R2"]

    def score(x, o):
        return _pairwise(WRPS, 4)(x.rstrip("2"), tuple(y.rstrip("2") for y in o))

    table = table_from_function(names, 4, score)
    assert duplicates(table) == [0, 1, 2, 0]
    eq = equilibrium(table, np.random.default_rng(0))
    assert eq.duplicates == {"R2": "R"}
    np.testing.assert_allclose(eq.sigma, [0.6, 0.2, 0.2, 0.0], atol=1e-12)
    assert brute_force_gap(names, 4, score, eq.sigma) <= MAX_NASH_GAP
    # the anti-coordination game is swap-symmetric but its two members are not copies
    anti = table_from_function(["a", "b"], 2, lambda x, o: float(x != o[0]))
    assert duplicates(anti) == [0, 1]
    np.testing.assert_allclose(equilibrium(anti, np.random.default_rng(0)).sigma, [0.5, 0.5])


def test_exact_ties_and_a_constant_game():
    """Four players, two payoffs exactly 1/4 among ties (the Pirate's Cove case that failed
    every replicator start); and a game where everything ties (every mixture is an
    equilibrium: the members are all copies, the first holds the weight)."""
    names = ["a", "b", "c"]

    def score(x, o):
        if (x == "a" and o.count("b") == 3) or (x == "b" and o.count("a") == 3):
            return 0.25
        return 0.25 + 0.1 * (o.count(x) - 1) * (x == "c") - 0.05 * (x == "a") * o.count("c")

    table = table_from_function(names, 4, score)
    eq = equilibrium(table, np.random.default_rng(0))
    assert brute_force_gap(names, 4, score, eq.sigma) <= MAX_NASH_GAP
    flat = table_from_function(names, 4, lambda x, o: 0.25)
    eq = equilibrium(flat, np.random.default_rng(0))
    assert eq.duplicates == {"b": "a", "c": "a"} and list(eq.sigma) == [1.0, 0.0, 0.0]


def test_eight_strategies_at_eight_players():
    """K = 8 at P = 8 (3,432 opponent multisets): the weighted 5-cycle and three members that
    every cycle member beats, by 1, 2 and 3. The equilibrium is the 5-cycle's
    (8, 15, 4, 10, 3) / 40 and no other: with π that mixture, π A = 0 on the cycle (A is
    antisymmetric and A π = 0), so any σ with weight s on the weak members gives the cycle
    members π-average gain s * (1..3) > 0, and some cycle member gains. The brute-force gap
    sums 8^7 profiles."""
    matrix = {x: dict(row) for x, row in CYCLE5.items()}
    for loss in (1, 2, 3):
        matrix[f"w{loss}"] = dict.fromkeys(CYCLE5, -loss)
        for x in CYCLE5:
            matrix[x][f"w{loss}"] = loss
    names = list(matrix)
    score = _pairwise(matrix, 8)
    table = table_from_function(names, 8, score)
    eq = equilibrium(table, np.random.default_rng(8))
    expected = [w / 40 for w in (8, 15, 4, 10, 3)] + [0.0, 0.0, 0.0]
    np.testing.assert_allclose(eq.sigma, expected, atol=1e-12)
    assert len(eq.equilibria) == 1 and eq.supports == 2**8 - 1
    assert brute_force_gap(names, 8, score, eq.sigma) <= MAX_NASH_GAP


def test_a_failed_gap_check_is_never_reported(monkeypatch):
    """With every root made worthless, nothing passes the gap check: the solver raises rather
    than report a mixture as an equilibrium."""
    import simulator.metagame as mg

    monkeypatch.setattr(mg, "_solve_face", lambda face, x0: np.full(len(face.members), -1.0))
    table = table_from_function(["R", "P", "S"], 3, _pairwise(WRPS, 3))
    with pytest.raises(NoEquilibriumFound, match="nothing is reported"):
        mg.equilibrium(table, np.random.default_rng(0))


def test_alpha_rank_puts_a_dominant_strategy_first():
    """Transitive strengths a > b > c: every mutant a fixates, so α-Rank's mass sits on a."""
    level = {"a": 2, "b": 1, "c": 0}
    table = table_from_function(
        ["a", "b", "c"], 2, lambda x, o: 0.5 + 0.1 * (level[x] - level[o[0]])
    )
    pi = alpha_rank(table)
    assert pi.argmax() == 0 and pi[0] > 0.99


def test_multisets_are_all_of_them():
    for k in range(1, 6):
        for size in range(5):
            ms = multisets(k, size)
            assert len(ms) == len(set(ms)) == num_multisets(k, size)
            assert all(sum(m) == size for m in ms)


def test_expected_payoff_weights_are_multinomial():
    """u(X, σ) against two opponents drawn from σ = (1/2, 1/4, 1/4): hand-computed."""
    table = table_from_function(["a", "b", "c"], 3, lambda x, o: float(o.count("a")))
    sigma = np.array([0.5, 0.25, 0.25])
    # E[number of a among two opponents] = 2 * 1/2 = 1 for every X
    np.testing.assert_allclose(table.payoffs(sigma), 1.0)
    np.testing.assert_allclose(table.coefficients(sigma).sum(), 1.0)


# --------------------------------------------------------------------------------------------
# Verdicts


def test_verdict_dominates_only_with_every_other_regret_above_zero():
    names = ["a", "b", "c"]
    pure = np.array([1.0, 0.0, 0.0])
    assert verdict(names, pure, {"a": [-0.01, 0.01], "b": [0.02, 0.1], "c": [0.01, 0.2]}) == (
        "a dominates: it alone is the equilibrium and every other regret is above 0"
    )
    text = verdict(names, pure, {"a": [0, 0], "b": [-0.01, 0.1], "c": [0.01, 0.2]})
    assert "no dominance shown" in text and "b" in text
    mixed = np.array([0.5, 0.5, 0.0])
    assert verdict(names, mixed, {"a": [0, 0], "b": [0, 0], "c": [1, 2]}).startswith(
        "no dominant strategy; the equilibrium mixes a 0.500, b 0.500"
    )
    # another equilibrium found: a alone is no longer dominance, whatever the intervals
    ci = {"a": [-0.01, 0.01], "b": [0.02, 0.1], "c": [0.01, 0.2]}
    assert verdict(names, pure, ci, found=2) == (
        "a alone is the equilibrium chosen; 1 of 2 equilibria found: no dominance shown"
    )


# --------------------------------------------------------------------------------------------
# Payoff tables measured through the protocol


def _check_against_exact(table: PayoffTable, rules, k: float = 4.0) -> None:
    """Every measured entry within k standard errors of the toy's exact expected score."""
    pop = table.population
    for j, counts in enumerate(table.opponents):
        opp = tuple(n for n, c in zip(pop, counts) for _ in range(c))
        for i, x in enumerate(pop):
            exact = toy.expected_scores(rules, (x, *opp))[0]
            values = table.per_game[:, i, j]
            se = values.std(ddof=1) / np.sqrt(len(values))
            if se == 0:
                assert table.u[i, j] == pytest.approx(exact, abs=1e-12)
            else:
                assert abs(table.u[i, j] - exact) < k * se, (x, opp, table.u[i, j], exact, se)


@pytest.mark.slow
def test_two_player_payoffs_match_exact_scores():
    """25,600 games per table: SE <= 0.0025 per entry, so k = 4 catches a 1-point bias."""
    scen = toy.load()
    player = Player(toy, scen, 2)
    table = measure(
        player, ["rock", "paper", "scissors", "dud"], games_per_table=25_600, entropy=11
    )
    assert table.games_per_table == 25_600 and not table.sampled
    _check_against_exact(table, scen.rules)


@pytest.mark.slow
def test_three_player_payoffs_match_exact_scores():
    """Mixed tables (tuners and matrix rows) at three seats, every opponent multiset;
    25,608 games per table: SE <= 0.003 per entry, so k = 4 catches a bias of 1.2 points."""
    scen = toy.load()
    player = Player(toy, scen, 3)
    table = measure(player, ["steady", "rock", "paper"], games_per_table=25_608, entropy=12)
    assert len(table.opponents) == num_multisets(3, 2) == 6
    _check_against_exact(table, scen.rules)


def test_many_multisets_are_sampled_and_said(monkeypatch):
    import simulator.metagame as mg

    monkeypatch.setattr(mg, "MAX_MULTISETS", 5)
    scen = toy.load()
    player = Player(toy, scen, 3)
    table = mg.measure(player, ["steady", "rock", "paper", "wild"], games_per_table=33, entropy=3)
    assert table.sampled and len(table.opponents) == 5 and table.total_multisets == 10
    sigma = np.full(4, 0.25)
    assert table.coefficients(sigma).sum() == pytest.approx(1.0)
    assert MAX_MULTISETS == 500


def test_dominated_strategy_through_the_game():
    """The dud loses 0.4 to every row (draws score 1/2): measured regret's interval excludes 0
    and holds the exact 0.1 * 0.9 = 0.09 (10 % of games are draws)."""
    res = metagame(
        toy,
        toy.load(),
        ["rock", "paper", "scissors", "dud"],
        games=2048,
        players=2,
        seed=5,
    )
    out = res.summary()
    assert out["equilibrium"]["dud"] == 0.0
    lo, hi = out["regret"]["dud"]["ci95"]
    assert 0 < lo < 0.09 < hi
    # the measured table's LP solution is an exact equilibrium of that table, mixing the three
    assert res.table.regret(res.eq.sigma).min() > -1e-12
    assert {n for n, w in out["equilibrium"].items() if w > 0.1} == {"rock", "paper", "scissors"}
    for name in ("rock", "paper", "scissors"):
        lo, hi = out["regret"][name]["ci95"]
        assert lo <= 1e-12 and hi >= -1e-12
    assert out["verdict"].startswith("no dominant strategy")


def test_iterate_adds_the_best_response():
    """[rock, paper]: paper is the equilibrium, so the best response among matrix rows is
    scissors (exact score 0.9 * 0.8 + 0.05 = 0.77 against paper): exploitability 0.27."""
    res = metagame(
        toy,
        toy.load(),
        ["rock", "paper"],
        games=320,
        players=2,
        seed=6,
        iterate=1,
        tune_kinds=["matrix"],
        tune_budget=2000,
    )
    first = res.iterations[0]
    assert first["equilibrium"] == {"rock": 0.0, "paper": 1.0}
    assert first["best_response_params"] == {"row": "scissors"}
    lo, hi = first["exploitability_lower_bound_ci95"]
    assert lo < 0.27 < hi and first["joined"]
    assert first["exploitability"] == first["exploitability_lower_bound"]  # the old key kept
    assert first["figure"] == (
        "exploitability lower bound (searched kinds matrix, budget 2,000 games per kind)"
    )
    assert res.table.population == ("rock", "paper", "br1_matrix")
    assert (res.eq.sigma > 0.1).all()  # rock, paper and the new scissors all mix


def test_a_best_response_that_does_not_beat_the_equilibrium_does_not_join():
    """[rock, paper, scissors]: the uniform equilibrium scores exactly 1/2 against every matrix
    row (the dud 0.41), so no tuned row gains: its gain is not above 0 with 95 % confidence,
    it does not join and the iteration stops (the second iteration allowed never runs)."""
    res = metagame(
        toy,
        toy.load(),
        ["rock", "paper", "scissors"],
        games=320,
        players=2,
        seed=6,
        iterate=2,
        tune_kinds=["matrix"],
        tune_budget=2000,
    )
    assert len(res.iterations) == 1
    row = res.iterations[0]
    lo, hi = row["exploitability_lower_bound_ci95"]
    assert not row["joined"] and lo <= 0 < hi and "does not join" in row["stopped"]
    assert res.table.population == ("rock", "paper", "scissors") and not res.extra


@pytest.mark.parametrize("slices", [20, 40, 100])
@pytest.mark.parametrize(
    ("players", "deltas"),
    [
        (2, (-0.2, 0.1, 0.3)),
        (2, (0.2, -0.1, -0.3)),
        (4, (-0.15, 0.05, 0.25)),
        (4, (0.15, -0.05, -0.25)),
    ],
)
def test_a_best_response_that_gains_nothing_joins_at_most_five_percent_of_the_time(
    slices, players, deltas
):
    """The join test (gain_test) under the null: 4,000 best responses whose true gain is 0,
    each measured on ``slices`` slices (20 is the fewest a validation plays) of 32 games; a
    slice's own mean is 1/P plus a skewed shift from its opponents' draw (shifts of mean 0,
    either skew), its games Bernoulli. The joins (measured: 1.4 to 3.6 %) must stay within
    α = 0.05 plus 3 binomial standard errors (0.0603): a true rate of 6.5 % fails with
    probability 0.88, 7 % with 0.99."""
    rng = np.random.default_rng(1000 * players + slices + int(deltas[0] > 0))
    shift = rng.choice(deltas, p=(0.5, 0.25, 0.25), size=(4000, slices))
    means = rng.binomial(32, 1 / players + shift) / 32
    joins = np.mean([gain_test(m, players)[3] for m in means])
    assert joins <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)


# --------------------------------------------------------------------------------------------
# Populations as scenario data


def _population_file(tmp_path, scen, **over):
    text = population_text(
        scenario=scen,
        players=2,
        population=["rock", "paper", "extra"],
        equilibrium={"rock": 0.25, "paper": 0.25, "extra": 0.5},
        nash_gap=0.0,
        nash_gap_ci95=[0.0, 0.01],
        games_per_table=64,
        command="broadside metagame ...",
        verdict="v",
        extra={"extra": toy.load().rules.strategies["scissors"]},
    )
    for old, new in over.items():
        text = text.replace(old, new)
    path = tmp_path / "pop.toml"
    path.write_text(text)
    return path


def test_population_round_trip_and_refusals(tmp_path):
    scen = toy.load()
    pop = load_population(_population_file(tmp_path, scen), scen)
    assert pop.names == ("rock", "paper", "extra")
    assert pop.mixture() == {"rock": 0.25, "paper": 0.25, "extra": 0.5}
    assert "extra" in pop.scenario.rules.strategies
    bad = {
        "scenario_hash": ('scenario_hash = "', 'scenario_hash = "0'),
        "equilibrium": ("extra = 0.5", "extra = 0.6"),
        "colour": ('verdict = "v"', 'verdict = "v"\ncolour = 1'),
        "population": ('"paper", "extra"]', '"papr", "extra"]'),
        "nash_gap": ("nash_gap = 0.0", "nash_gap = 0.001"),
        "command": ('command = "broadside metagame ..."', 'command = ""'),
        "solver": ('solver = "nash"', 'solver = "alpha-rank"'),
        "format": ("broadside-population/2", "broadside-population/1"),
    }
    for key, (old, new) in bad.items():
        with pytest.raises(ScenarioError) as exc:
            load_population(_population_file(tmp_path, scen, **{old: new}), scen)
        assert key in str(exc.value) and "\n" not in str(exc.value)
    for key in ("solver", "nash_gap", "command"):  # a file without them: refused, one line
        text = _population_file(tmp_path, scen).read_text()
        path = tmp_path / "without.toml"
        path.write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith(key)))
        with pytest.raises(ScenarioError, match=f"{key}: missing required key") as exc:
            load_population(path, scen)
        assert "\n" not in str(exc.value)
    # another scenario: refused, unless the caller plays it under other rules on purpose
    path = _population_file(tmp_path, scen, **{'scenario_hash = "': 'scenario_hash = "0'})
    assert load_population(path, scen, check_hash=False).names[0] == "rock"


def test_play_population_draws_seats_from_the_mixture():
    """Every seat drawn from (1/4, 3/4): over 200 slices x 2 seats the share of seats of
    'paper' is within 4 standard errors (0.087) of 3/4; the same seed plays the same games."""
    scen = toy.load()
    mix = Mixture.from_weights({"rock": 0.25, "paper": 0.75})
    a = play_population(toy, scen, mix, players=2, n=6400, seed=9)
    b = play_population(toy, scen, mix, players=2, n=6400, seed=9)
    assert a.equals(b)
    per_slice = a.groupby("slice").first()  # one row per slice: its first strategy
    seats = a.drop_duplicates(["slice", "strategy"]).groupby("strategy")["seats"].sum()
    share = seats["paper"] / seats.sum()
    se = np.sqrt(0.75 * 0.25 / seats.sum())
    assert abs(share - 0.75) < 4 * se and len(per_slice) == 200
    totals = (a["score"] * a["seats"]).groupby(a["game"]).sum()
    np.testing.assert_allclose(totals, 1.0)


# --------------------------------------------------------------------------------------------
# The command


def test_metagame_command_same_output_at_any_jobs(tmp_path):
    args = [
        "metagame", "--game", "toy", "--population", "rock,paper,scissors,dud",
        "--players", "2", "-n", "256", "--seed", "7", "--format", "json", "--quiet",
    ]  # fmt: skip
    one = invoke(*args, "--jobs", "1", "--out", str(tmp_path / "a"))
    two = invoke(*args, "--jobs", "2", "--out", str(tmp_path / "b"))
    assert one == two
    assert set(one) == {
        "population", "solver", "equilibrium", "nash_gap", "equilibria", "regret", "verdict",
        "schema_version", "provenance",
    }  # fmt: skip
    assert one["solver"] == "nash" and "--jobs" not in one["provenance"]["command"]
    gap = one["nash_gap"]
    assert gap["value"] <= MAX_NASH_GAP and 0 <= gap["ci95"][0] <= gap["ci95"][1]
    assert one["equilibria"][0]["weights"] == one["equilibrium"]
    assert (tmp_path / "a" / "payoffs.parquet").is_file()
    pop = load_population(tmp_path / "a" / "population.toml", toy.load())
    assert pop.names == ("rock", "paper", "scissors", "dud")
    assert pop.file.solver == "nash" and pop.file.nash_gap == gap["value"]
    assert list(pop.file.nash_gap_ci95) == gap["ci95"]


def test_alpha_rank_is_printed_as_a_ranking_and_never_saved(tmp_path):
    """--solver alpha-rank: a ranking (no equilibrium, regret or gap), not saved; asking to
    save it, or to answer it with best responses, is refused in one line."""
    args = [
        "metagame", "--game", "toy", "--population", "rock,paper,dud", "--players", "2",
        "-n", "64", "--seed", "3", "--format", "json", "--quiet", "--solver", "alpha-rank",
    ]  # fmt: skip
    out = invoke(*args, "--out", str(tmp_path / "a"))
    assert set(out) == {
        "population",
        "solver",
        "ranking",
        "verdict",
        "schema_version",
        "provenance",
    }
    assert out["solver"] == "alpha-rank" and "not an equilibrium" in out["verdict"]
    assert [r["strategy"] for r in out["ranking"]][-1] == "dud"
    assert sum(r["mass"] for r in out["ranking"]) == pytest.approx(1.0)
    assert not (tmp_path / "a" / "population.toml").exists()
    for extra, words in (
        (["--save-population", str(tmp_path / "p.toml")], "never saved as an equilibrium"),
        (["--iterate", "1", "--tune-kind", "matrix", "--tune-budget", "2000"], "a ranking"),
    ):
        with pytest.raises(UserError, match=words):
            CliRunner().invoke(
                cli.cli, [*args, *extra], obj={"game_apis": {"toy": toy}}, catch_exceptions=False
            )
    assert not (tmp_path / "p.toml").exists()


# --------------------------------------------------------------------------------------------
# Invariants of the solvers on random games (hypothesis)


def _random_table(population, players, seed) -> PayoffTable:
    """A symmetric constant-sum game: each table's seats share 1 by random member weights."""
    rng = np.random.default_rng(seed)
    k = len(population)
    weights = {}
    for counts in multisets(k, players):
        weights[counts] = rng.uniform(0.05, 1.0, size=k)

    def score(x, opp):
        counts = [0] * k
        for n in (x, *opp):
            counts[population.index(n)] += 1
        w = weights[tuple(counts)]
        return float(w[population.index(x)] / sum(c * w[i] for i, c in enumerate(counts)))

    return table_from_function(population, players, score)


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_two_player_equilibrium_is_nash(k, seed):
    """The LP's σ (an independent solver) and the support enumeration's: no member beats
    either against itself, and u(σ, σ) = 1/2 in a symmetric constant-sum game."""
    table = _random_table([f"s{i}" for i in range(k)], 2, seed)
    sigma = solve_two_player(table)
    assert sigma.sum() == pytest.approx(1.0) and (sigma >= 0).all()
    assert nash_gap(table, sigma) <= MAX_NASH_GAP
    eq = equilibrium(table, np.random.default_rng(seed))
    assert eq.nash_gap <= MAX_NASH_GAP and nash_gap(table, eq.sigma) == eq.nash_gap
    for s in (sigma, eq.sigma):
        assert float(s @ table.payoffs(s)) == pytest.approx(0.5, abs=1e-12)


def _tied_table(population, players, seed, grid) -> PayoffTable:
    """A general symmetric game (not constant-sum) whose payoffs sit on a grid of ``grid + 1``
    values: many exact ties, weakly dominated members, continua of equilibria."""
    rng = np.random.default_rng(seed)
    k = len(population)
    values = {c: rng.integers(0, grid + 1, size=k) / grid for c in multisets(k, players - 1)}
    return table_from_function(
        population,
        players,
        lambda x, opp: float(values[_counts(population, opp)][population.index(x)]),
    )


def _counts(population, names):
    return tuple(names.count(n) for n in population)


@settings(max_examples=30, deadline=None)
@given(
    k=st.integers(2, 5),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    grid=st.sampled_from([0, 1, 2, 4]),
)
def test_every_game_gets_an_equilibrium_checked_by_brute_force(k, players, seed, grid):
    """Random games, constant-sum (grid 0) or on a coarse grid of payoffs (ties): the solver
    always returns a symmetric equilibrium whose brute-force gap is within MAX_NASH_GAP, and
    every equilibrium it lists is one; in a constant-sum game u(σ, σ) = 1/P."""
    names = [f"s{i}" for i in range(k)]
    table = (
        _random_table(names, players, seed)
        if grid == 0
        else _tied_table(names, players, seed, grid)
    )

    def score(x, opp):
        return float(table.u[names.index(x), table.opponents.index(_counts(names, opp))])

    eq = equilibrium(table, np.random.default_rng(seed))
    assert eq.sigma.sum() == pytest.approx(1.0) and (eq.sigma >= 0).all()
    for point in eq.equilibria:
        assert brute_force_gap(names, players, score, point.sigma) <= MAX_NASH_GAP
    if grid == 0:
        assert float(eq.sigma @ table.payoffs(eq.sigma)) == pytest.approx(1 / players, abs=1e-9)


def test_metagame_on_dask_equals_loky(tmp_path):
    args = [
        "metagame", "--game", "toy", "--population", "rock,paper,dud", "--players", "2",
        "-n", "64", "--seed", "3", "--format", "json", "--quiet", "--jobs", "2",
    ]  # fmt: skip
    loky = invoke(*args)
    dask = invoke(*args, "--backend", "dask")
    assert loky == dask


def test_metagame_saves_a_population_and_refuses_bad_input(tmp_path, capsys):
    path = tmp_path / "pops" / "rps.toml"
    args = ["metagame", "--game", "toy", "--population", "rock,paper,scissors", "-n", "64"]
    table = CliRunner().invoke(
        cli.cli,
        [*args, "--seed", "1", "--quiet", "--save-population", str(path)],
        obj={"game_apis": {"toy": toy}},
        catch_exceptions=False,
    )
    assert table.exit_code == 0 and "payoffs" in table.stdout and "regret" in table.stdout
    pop = load_population(path, toy.load())
    assert pop.file.command.startswith("broadside metagame --game toy")
    assert sum(pop.weights) == pytest.approx(1.0)
    for bad, words in (
        (["--population", "rock"], "at least 2"),
        (["--population", "rock,rock"], "listed twice"),
        (["--population", "rock,papr"], "did you mean 'paper'"),
        (["--population", "rock,paper,dud", "--iterate", "6"], "at most 8"),
        (["--population", "rock,paper", "--iterate", "1", "--tune-budget", "10"], "--budget 10"),
    ):
        with pytest.raises(UserError, match=words):
            CliRunner().invoke(
                cli.cli,
                ["metagame", "--game", "toy", "-n", "64", *bad],
                obj={"game_apis": {"toy": toy}},
                catch_exceptions=False,
            )
    with pytest.raises(SystemExit) as exc:
        cli.main(["metagame", "--game", "cove2", "--population", "a,b", "-n", "10"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "is not a game" in err
    with pytest.raises(SystemExit) as exc:  # every game's largest table is 8
        cli.main(
            ["metagame", "--game", "hunt", "--population", "a,b", "-n", "10", "--players", "9"]
        )
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "'--players': 9" in err


def test_a_population_never_drops_a_seats_nation_or_fleet():
    """A best response that carries a game's seat fields (Pirates express: nation, fleet) is
    refused by name rather than saved without them; one with the defaults is saved."""
    from scenarios.loader import FrozenMap
    from simulator.express.rules import ExpressStrategy

    scen = toy.load()
    kw = {
        "scenario": scen,
        "players": 2,
        "population": ["rock", "br1"],
        "equilibrium": {"rock": 0.5, "br1": 0.5},
        "nash_gap": 0.0,
        "games_per_table": 64,
        "command": "broadside metagame ...",
        "verdict": "v",
    }
    plain = ExpressStrategy(kind="matrix", params=FrozenMap({"row": "paper"}))
    assert "[strategies.br1]" in population_text(**kw, extra={"br1": plain})
    seated = ExpressStrategy(kind="matrix", params=FrozenMap({"row": "paper"}), nation="spain")
    with pytest.raises(ScenarioError, match=r"strategies\.br1: sets nation, which a population"):
        population_text(**kw, extra={"br1": seated})
