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
from scenarios.populations import load_population, population_text
from simulator.errors import UserError
from simulator.metagame import (
    MAX_MULTISETS,
    PayoffTable,
    alpha_rank,
    equilibrium,
    measure,
    metagame,
    multisets,
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
# Equilibria with known answers (exact payoff tables)


def test_rock_paper_scissors_is_uniform():
    table = table_from_function(["rock", "paper", "scissors"], 2, lambda x, o: RPS[x][o[0]])
    sigma = solve_two_player(table)
    np.testing.assert_allclose(sigma, [1 / 3] * 3, atol=1e-9)
    np.testing.assert_allclose(table.regret(sigma), 0.0, atol=1e-12)


def test_dominated_strategy_gets_no_weight_and_positive_regret():
    """The dud scores 0.4 against every other row and 0.5 against itself: at the uniform RPS
    mixture it scores 0.4 against u(σ, σ) = 0.5, a regret of exactly 0.1."""
    names = ["rock", "paper", "scissors", "dud"]
    table = table_from_function(names, 2, lambda x, o: RPS[x][o[0]])
    eq = equilibrium(table, np.random.default_rng(0))
    assert eq.method == "linprog"
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
    assert eq.method == "replicator"
    assert len(eq.rest_points) == 1 and eq.rest_points[0][1] == eq.starts >= 20
    assert eq.sigma[0] == pytest.approx(float(Fraction(5, 13)), abs=1e-7)
    np.testing.assert_allclose(table.regret(eq.sigma), 0.0, atol=1e-7)


def test_three_player_cycle_falls_back_to_alpha_rank():
    """Pairwise rock-paper-scissors at three seats: the replicator orbits the centre (no start
    converges), so α-Rank decides; by symmetry it ranks the three equally and the dud last."""

    def score(x, opp):
        return 1 / 3 + (1 / 3) * sum(RPS[x][y] - 0.5 for y in opp)

    table = table_from_function(["rock", "paper", "scissors", "dud"], 3, score)
    eq = equilibrium(table, np.random.default_rng(2))
    assert eq.method == "alpha-rank" and eq.not_converged == eq.starts
    np.testing.assert_allclose(eq.sigma, [1 / 3, 1 / 3, 1 / 3, 0.0], atol=1e-6)


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
    lo, hi = first["exploitability_ci95"]
    assert lo < 0.27 < hi and lo > 0
    assert res.table.population == ("rock", "paper", "br1_matrix")
    assert (res.eq.sigma > 0.1).all()  # rock, paper and the new scissors all mix


# --------------------------------------------------------------------------------------------
# Populations as scenario data


def _population_file(tmp_path, scen, **over):
    text = population_text(
        scenario=scen,
        players=2,
        population=["rock", "paper", "extra"],
        equilibrium={"rock": 0.25, "paper": 0.25, "extra": 0.5},
        method="linprog",
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
    }
    for key, (old, new) in bad.items():
        with pytest.raises(ScenarioError) as exc:
            load_population(_population_file(tmp_path, scen, **{old: new}), scen)
        assert key in str(exc.value) and "\n" not in str(exc.value)
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
        "population", "equilibrium", "rest_points", "regret", "verdict", "method",
        "schema_version", "provenance",
    }  # fmt: skip
    assert one["method"] == "linprog" and "--jobs" not in one["provenance"]["command"]
    assert (tmp_path / "a" / "payoffs.parquet").is_file()
    pop = load_population(tmp_path / "a" / "population.toml", toy.load())
    assert pop.names == ("rock", "paper", "scissors", "dud")


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
    """No member beats the LP's σ against σ; u(σ, σ) = 1/2 in a symmetric constant-sum game."""
    table = _random_table([f"s{i}" for i in range(k)], 2, seed)
    sigma = solve_two_player(table)
    assert sigma.sum() == pytest.approx(1.0) and (sigma >= 0).all()
    regret = table.regret(sigma)
    assert regret.min() > -1e-9
    assert float(sigma @ table.payoffs(sigma)) == pytest.approx(0.5, abs=1e-12)


@settings(max_examples=10, deadline=None)
@given(k=st.integers(2, 4), players=st.integers(3, 4), seed=st.integers(0, 2**32 - 1))
def test_replicator_rest_points_are_nash(k, players, seed):
    """Rest points reached from interior starts are Nash equilibria (no member gains against
    them, up to the integration's tolerance), and u(σ, σ) = 1/P."""
    table = _random_table([f"s{i}" for i in range(k)], players, seed)
    eq = equilibrium(table, np.random.default_rng(seed))
    if eq.method == "replicator":
        for point, _ in eq.rest_points:
            assert table.regret(point).min() > -1e-6
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
        "method": "linprog",
        "games_per_table": 64,
        "command": "broadside metagame ...",
        "verdict": "v",
    }
    plain = ExpressStrategy(kind="matrix", params=FrozenMap({"row": "paper"}))
    assert "[strategies.br1]" in population_text(**kw, extra={"br1": plain})
    seated = ExpressStrategy(kind="matrix", params=FrozenMap({"row": "paper"}), nation="spain")
    with pytest.raises(ScenarioError, match=r"strategies\.br1: sets nation, which a population"):
        population_text(**kw, extra={"br1": seated})
