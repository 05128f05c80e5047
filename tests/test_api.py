"""The public Python API (simulator.api, reports.api; docs/python.md): the same numbers as the
commands, one-line UserErrors for bad input (never a print or an exit), and exact answers where
they are known. The columns of every returned table are pinned in tests/test_contracts.py; the
docstrings' examples run in tests/test_docs.py."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from runner_tasks import run_main

from reports import api as reports_api
from simulator import api
from simulator.errors import UserError


def _cli_json(*args: str) -> dict:
    code, out, err = run_main([*args, "--format", "json", "--quiet"])
    assert code == 0, err
    return json.loads(out)


def test_volley_is_the_commands_and_exact():
    """The dice odds are the command's (exact, and Monte Carlo on the same seed), and the exact
    ones are the binomial's: 3 dice at 5+ hit 0..3 times with 8/27, 12/27, 6/27, 1/27."""
    res = api.volley(3, 5, reroll_misses=1, mc=3000, seed=4)
    cli = _cli_json("odds", "volley", "--dice", "3", "--hit-on", "5", "--reroll-misses", "1",
                    "--mc", "3000", "--seed", "4")  # fmt: skip
    assert res.summary["probabilities"] == cli["probabilities"]
    assert res.summary["monte_carlo"] == cli["monte_carlo"] and str(res.seed) == cli["seed"]
    plain = api.volley(3, 5)
    assert [plain.exact[k] for k in range(4)] == [Fraction(c, 27) for c in (8, 12, 6, 1)]
    assert plain.mean == 1 and plain.method == "exact" and plain.seed is None
    board = api.boarding(3, 2, extra_dice=1)
    assert sum(board.exact.values()) == 1
    cli = _cli_json("odds", "boarding", "--masts", "3", "--vs", "2", "--extra-dice", "1")
    for key in ("probabilities", "boarder_wins", "tie", "defender_wins", "mean"):
        assert board.summary[key] == cli[key], key


def test_duel_and_lethality_are_the_commands():
    """The exact duel against Blackbeard, with and without Smoke, is the command's; a lethality
    row is the duel of its build (exact both ways)."""
    ship = "hull=4,crew=4,cannons=4,sails=4"
    for cards in (None, ["smoke"]):
        res = api.duel(ship, "blackbeard", cards=cards)
        extra = ["--cards", "smoke"] if cards else []
        cli = _cli_json("cove", "duel", "--ship", ship, "--vs", "blackbeard", *extra)
        for outcome in ("win", "routed", "fled", "mutiny"):
            assert res.probability(outcome) == cli[outcome]
        assert res.expected_fame == cli["expected_fame"]
        assert list(res.cards_played) == cli["battle_cards_played"]
    assert res.probability("win") > api.duel(ship, "blackbeard").probability("win")
    table = api.lethality([ship], cards=["smoke"]).table
    row = table[table["pirate"] == "blackbeard"].iloc[0]
    assert row["p_sink"] == res.probability("win") and row["cards"] == "smoke"
    ships = api.duel("hull=3", "crew=3,cannons=3")
    assert ships.table["probability"].iloc[:3].sum() == pytest.approx(1.0)


def test_play_is_the_rooms_play_with_the_default_mix():
    """``play`` with no strategies seats the scenario's default mix and plays the room's games,
    die for die (Les Pirates: the same seats table as its api.play)."""
    from simulator.hunt import api as hunt

    res = api.play("hunt", n=30, seed=3)
    mix = list(hunt.default_mix(hunt.load(None)))
    direct = hunt.play(hunt.load(None), mix, n=30, seed=3)
    pd.testing.assert_frame_equal(res.seats, direct.seats)
    assert list(res.seats.loc[res.seats["game"] == 0, "strategy"]) == mix
    one = api.play("hunt", "runner", n=5, players=3, seed=1)
    assert set(one.seats["strategy"]) == {"runner"} and one.seats["seat"].max() == 3


def test_metagame_and_equilibrium_are_the_commands():
    """The meta-game's weights and regrets are ``broadside metagame``'s; solving its table again
    gives the same equilibrium, checked by its Nash gap."""
    res = api.metagame("hunt", ["runner", "hunter"], n=32, seed=5)
    cli = _cli_json("metagame", "--game", "hunt", "--population", "runner,hunter", "-n", "32",
                    "--seed", "5")  # fmt: skip
    assert dict(zip(res.strategies["strategy"], res.strategies["weight"])) == cli["equilibrium"]
    assert res.equilibrium is not None and res.equilibrium.nash_gap == cli["nash_gap"]["value"]
    again = api.equilibrium(res.table, rng=np.random.default_rng(1))
    assert np.allclose(again.sigma, res.equilibrium.sigma, atol=1e-9)
    ranking = api.metagame("hunt", ["runner", "hunter"], n=32, seed=5, solver="alpha-rank")
    assert ranking.equilibrium is None and list(ranking.strategies["rank"]) == [1, 2]


def test_equilibrium_of_known_games():
    """Exact answers: rock-paper-scissors' only equilibrium is uniform (gap 0); a dominated
    strategy gets no weight; a 3-player table too."""
    beats = {"rock": "scissors", "paper": "rock", "scissors": "paper"}

    def rps(x, opp):
        return 1.0 if beats[x] == opp[0] else 0.0 if beats[opp[0]] == x else 0.5

    eq = api.equilibrium(api.table_from_function(list(beats), 2, rps))
    assert np.allclose(eq.sigma, 1 / 3) and eq.nash_gap < 1e-12
    assert set(eq.equilibria["equilibrium"]) == {1}

    def dominated(x, opp):  # "strong" beats "weak" at any table; equal strategies tie
        mine = 1.0 if x == "strong" else 0.0
        return (mine + sum(o == x for o in opp)) / (1 + len(opp)) if x == "strong" else 0.2

    eq3 = api.equilibrium(api.table_from_function(["strong", "weak"], 3, dominated))
    assert eq3.weights.set_index("strategy")["weight"].to_dict() == pytest.approx(
        {"strong": 1.0, "weak": 0.0}
    )


def test_compare_is_the_commands():
    res = reports_api.compare("standard", "one-two", game="hunt", max_games=100, seed=2,
                              metrics=["game-length", "seat-advantage"])  # fmt: skip
    metrics = ["--metric", "game-length", "--metric", "seat-advantage"]
    cli = _cli_json("compare", "standard", "one-two", "--game", "hunt", "--max-games", "100",
                    "--seed", "2", *metrics)  # fmt: skip
    for row, expect in zip(res.metrics.to_dict("records"), cli["metrics"]):
        assert row["name"] == expect["name"] and row["difference"] == expect["difference"]
        assert [row["ci95_low"], row["ci95_high"]] == expect["ci95"]
        assert row["verdict"] == expect["verdict"]
    assert res.headline == cli["headline"] and res.n_games == cli["n_games"]


@pytest.mark.parametrize(
    "call,fragment",
    [
        (lambda: api.load("chess"), "game 'chess' (allowed: cove, express, hunt)"),
        (lambda: api.load("cove", "no-such-rules"), "no-such-rules"),
        (lambda: api.load("cove", variants=["cyclone"]), "variants are Les Pirates'"),
        (lambda: api.play("hunt", ["runner", "nobody"], n=5), "nobody"),
        (lambda: api.play("hunt", n=0), "n 0 (allowed"),
        (lambda: api.play("hunt", n=5, engine="gpu"), "engine 'gpu'"),
        (lambda: api.play("cove", n=5, scenario=api.load("hunt")), "is a hunt scenario"),
        (lambda: api.volley(3, 8), "hit_on 8 (allowed: an integer 1..7)"),
        (lambda: api.volley(-1, 5), "dice -1"),
        (lambda: api.boarding(3, 31), "vs 31"),
        (lambda: api.duel("hull=9", "blackbeard"), "hull='9'"),
        (lambda: api.duel("hull=4", "kraken"), "vs 'kraken' (allowed: "),
        (lambda: api.duel("hull=4", "blackbeard", cards=["smoek"]), "did you mean 'smoke'"),
        (lambda: api.duel("hull=4", "hull=3", cards=["smoke"]), "cards are for a lone ship"),
        (lambda: api.duel("hull=4", "blackbeard", policy="hide"), "policy"),
        (lambda: api.lethality("hull=4"), "builds: a list of ship specs"),
        (lambda: api.lethality([]), "builds: an empty list"),
        (lambda: api.strategies("hunt", "missing.toml"), "missing.toml"),
        (lambda: api.tune("hunt", "nokind", budget=896), "kind"),
        (lambda: api.tune("hunt", "hunter", budget=10), "--budget 10"),
        (lambda: api.metagame("hunt", ["runner"], n=32), "at least 2 strategies"),
        (lambda: api.metagame("hunt", ["runner", "hunter"], n=0), "n 0"),
        (lambda: api.table_from_function(["a"], 2, lambda x, o: 0.5), "at least 2 distinct"),
        (lambda: api.equilibrium("not a table"), "allowed: a PayoffTable"),
        (lambda: api.balance("express", "fairness", budget=896), "fairness"),
        (lambda: api.balance("express", [], budget=896), "targets: none given"),
        (lambda: reports_api.compare("standard", "x", game="chess"), "game 'chess'"),
        (lambda: reports_api.compare("standard", "one-two", game="hunt", max_games=5), "5"),
    ],
)
def test_bad_input_is_one_line_user_error_never_a_print(call, fragment, capsys):
    with pytest.raises(UserError) as info:
        call()
    message = str(info.value)
    assert fragment in message and "\n" not in message, message
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_a_scenario_files_mistake_is_a_user_error_with_its_cause(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "cove"\nrules_version = "x"\nextends = "standard"\ncolour = 1\n')
    with pytest.raises(UserError, match="colour") as info:
        api.load("cove", str(bad))
    assert type(info.value.__cause__).__name__ == "ScenarioError"
