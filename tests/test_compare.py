"""`broadside compare`: paired seeds, sequential stopping, Holm, honest "no difference".

The statistics themselves are tested in ``test_sequential.py`` (boundaries against published
tables, type-I error of 6,000 simulated sequential runs). Here: the whole command path on a
synthetic game (false-positive rate over repeated seeds, power) and on the real Les Pirates engine
(identical scenarios give exactly no difference under common random numbers; one-two, which
shortens games, is decided before the last look).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import cli
from reports import compare as compare_mod
from reports.engines import Engine


@dataclass(frozen=True)
class _Scenario:
    name: str
    p_first: float  # chance that seat 1 (the first player) wins

    def provenance(self):
        return {
            "scenario": self.name,
            "game": "synthetic",
            "rules_version": "t",
            "scenario_hash": self.name,
        }


class _SyntheticEngine(Engine):
    """A 2-seat game: seat 1 wins with p_first; length ~ Poisson(20). Seeded, so CRN applies."""

    def defaults(self, scenario, players):
        return 2, ("a", "b")

    def resolve(self, ref):
        return _Scenario(ref, {"fair": 0.5, "same": 0.5, "lopsided": 0.62}[ref])

    def play(self, scenario, *, n, seed, jobs, quiet, players=None, strategies=None, engine=None):
        rng = np.random.default_rng(seed)
        u = rng.random(n)
        turns = rng.poisson(20, n)
        won0 = (u < scenario.p_first).astype(float)
        games = np.repeat(np.arange(n), 2)
        seat = np.tile([1, 2], n)
        won = np.column_stack([won0, 1 - won0]).ravel()
        return pd.DataFrame(
            {
                "game": games,
                "rotation": 0,
                "seat": seat,
                "strategy": np.tile(["a", "b"], n),
                "outcome": np.where(won == 1, "win", "loss"),
                "score": won,
                "turns": np.repeat(turns, 2),
                "stalemate": False,
            }
        )


@pytest.fixture
def synthetic(monkeypatch):
    eng = _SyntheticEngine("hunt", ("win-rate", "seat-advantage", "game-length"))
    monkeypatch.setattr(compare_mod, "engine_of", lambda game: eng)
    return eng


@pytest.mark.slow
def test_false_positive_rate_over_repeated_seeds_stays_within_alpha(synthetic):
    reps, alpha = 200, 0.05
    rejections = 0
    for seed in range(reps):
        res = compare_mod.run_compare(
            "fair",
            "same",
            game="hunt",
            metrics=["seat-advantage", "game-length"],
            alpha=alpha,
            max_games=200,
            looks=4,
            pairing="independent",
            seed=seed,
        )
        rejections += any(m["decided"] for m in res["metrics"])
    rate = rejections / reps
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps), rate


def test_identical_scenarios_under_crn_report_exactly_no_difference(synthetic):
    res = compare_mod.run_compare(
        "fair",
        "same",
        game="hunt",
        max_games=300,
        looks=3,
        seed=1,
        metrics=["seat-advantage", "game-length", "win-rate:a"],
    )
    assert res["n_games"] == 300 and not res["stopped_early"]
    for m in res["metrics"]:
        assert (
            m["difference"] == 0 and not m["decided"] and m["p_holm"] == pytest.approx(1, abs=1e-3)
        )
        assert m["verdict"].startswith("no detectable difference at this n")
    assert "no detectable difference at this n" in res["headline"]


def test_large_effect_stops_early_with_holm(synthetic):
    res = compare_mod.run_compare(
        "fair",
        "lopsided",
        game="hunt",
        metrics=["seat-advantage", "win-rate:b"],
        max_games=20_000,
        looks=10,
        seed=2,
    )
    assert res["stopped_early"] and res["n_games"] <= 6000
    rows = {m["name"]: m for m in res["metrics"]}
    for name, sign in (("seat-advantage", 1), ("win-rate:b", -1)):
        r = rows[name]
        assert r["decided"] and r["p_holm"] <= 0.05 and r["p_holm"] >= r["p_value"]
        lo, hi = r["ci95"]
        assert (lo <= sign * 0.12 <= hi and sign * lo > 0) or sign * hi < 0


def test_bad_metric_is_a_one_line_error(synthetic):
    from simulator.errors import UserError

    with pytest.raises(UserError, match="allowed: win-rate:STRATEGY"):
        compare_mod.run_compare(
            "fair", "same", game="hunt", metrics=["fame:a"], max_games=100, seed=1
        )
    with pytest.raises(UserError, match="not at the table"):
        compare_mod.run_compare(
            "fair", "same", game="hunt", metrics=["win-rate:zzz"], max_games=100, seed=1
        )


# --------------------------------------------------------------------------------------------
# Real engine (Les Pirates)


def test_cli_identical_hunt_scenarios_json():
    res = CliRunner().invoke(
        cli.cli,
        [
            "compare",
            "standard",
            "standard",
            "--game",
            "hunt",
            "--max-games",
            "60",
            "--looks",
            "2",
            "--seed",
            "5",
            "--jobs",
            "1",
            "--quiet",
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["n_games"] == 60
    keys = {
        "name",
        "base",
        "variant",
        "difference",
        "ci95",
        "p_value",
        "p_holm",
        "decided",
        "n_games",
    }
    for m in out["metrics"]:
        assert keys <= set(m)
        assert m["difference"] == 0 and m["decided"] is False
    assert out["base"]["scenario_hash"] == out["variant"]["scenario_hash"]


def test_one_two_is_decided_before_the_last_look():
    # one-two gives an extra roll on a 1-2: games are ~2 player turns shorter (~7%).
    res = compare_mod.run_compare(
        "standard",
        "one-two",
        game="hunt",
        metrics=["game-length"],
        max_games=2000,
        looks=5,
        spending="pocock",
        seed=11,
        jobs=1,
    )
    m = res["metrics"][0]
    assert res["stopped_early"], res["headline"]
    assert m["decided"] and m["difference"] < 0 and m["ci95"][1] < 0
    assert res["variant"]["scenario"] == "one-two"


def test_unknown_scenario_name_is_a_one_line_error():
    res = CliRunner().invoke(
        cli.cli, ["compare", "standard", "one-too", "--game", "hunt", "--max-games", "20"]
    )
    assert res.exit_code != 0
    assert "did you mean 'one-two'" in str(res.exception) or "one-two" in res.output


def test_cli_cove_identical_scenarios_table_says_no_difference():
    res = CliRunner().invoke(
        cli.cli,
        [
            "compare",
            "standard",
            "standard",
            "--game",
            "cove",
            "--max-games",
            "20",
            "--looks",
            "2",
            "--seed",
            "3",
            "--jobs",
            "1",
            "--quiet",
            "--metric",
            "win-rate:brawler",
            "--metric",
            "fame:tavern",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "no detectable difference at this n" in res.stdout
    assert "win-rate:brawler" in res.stdout and "fame:tavern" in res.stdout


def test_population_tables_are_paired_and_identical_rules_show_no_difference(tmp_path):
    """compare --population: seats drawn from an equilibrium mixture, the same draws and dice
    under both rule sets, so identical rules differ by exactly 0; a strategy's own metric is
    refused (the strategies at a table are random)."""
    pop = tmp_path / "pop.toml"
    pop.write_text(
        'format = "broadside-population/1"\ngame = "hunt"\nscenario_hash = "x"\nplayers = 2\n'
        'population = ["runner", "hunter"]\nmethod = "linprog"\n'
        "[equilibrium]\nrunner = 0.5\nhunter = 0.5\n"
    )
    res = compare_mod.run_compare(
        "standard", "standard", game="hunt", max_games=300, looks=2, seed=4,
        population=str(pop), jobs=1,
    )  # fmt: skip
    assert res["population"]["equilibrium"] == {"runner": 0.5, "hunter": 0.5}
    assert all(r["difference"] == 0 for r in res["metrics"]) and res["n_games"] == 300
    with pytest.raises(compare_mod.UserError, match="with --population"):
        compare_mod.run_compare(
            "standard", "one-two", game="hunt", max_games=100, metrics=["win-rate:runner"],
            population=str(pop), jobs=1,
        )  # fmt: skip
