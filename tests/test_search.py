"""The strategy search (simulator/search.py, `broadside tune`): the schedule, the field, a planted
optimum found, validation on fresh seeds without winner's curse, the overlay (loads, plays, is
refused on another base), the same output at --jobs 1 and 2, and a resumed run."""

from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import numpy as np
import protocol_games as toy
import pytest
from click.testing import CliRunner

import cli
from scenarios.loader import ScenarioError, content_hash, read_merged
from simulator.errors import UserError
from simulator.search import (
    BATCH,
    RUNGS,
    Field,
    Mixture,
    Player,
    Unit,
    check_game,
    plan,
    slice_games,
    starting_points,
    tune,
)

TOY = Path(toy.__file__).parent / "data" / "toy"


def invoke(*args: str, expect: int = 0):
    result = CliRunner().invoke(
        cli.cli, list(args), obj={"game_apis": {"toy": toy}}, catch_exceptions=False
    )
    assert result.exit_code == expect, result.output
    return result


def exact_score(rules, params: dict, opponent: str = "steady") -> float:
    """The toy's exact expected score of a tuner with ``params`` against one opponent."""
    from scenarios.loader import FrozenMap
    from scenarios.strategies import StrategyDecl, with_strategies

    scen = with_strategies(
        toy.load(), {"probe": StrategyDecl(kind="tuner", params=FrozenMap(params))}
    )
    return float(toy.expected_scores(scen.rules, ["probe", opponent])[0])


# --------------------------------------------------------------------------------------------
# Schedule and field


@pytest.mark.parametrize("starts", [1, 3])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("budget", [2_000, 10_000, 100_000, 1_000_000])
def test_schedule_spends_at_most_the_budget(budget, players, starts):
    sched = plan(budget, players, starts=starts)
    s = slice_games(players)
    assert s % players == 0 and s >= 32
    assert sched.batches >= 1 and sched.search_games <= budget
    # the next batch would not have fitted
    assert sched.search_games + sched.batch_slices * s > budget
    lo, hi = sched.rung_slices(RUNGS - 1)
    assert hi == sched.top_slices and sched.batch_slices == sched.base_slices * (
        BATCH + sum((BATCH >> r) * 2 ** (r - 1) for r in range(1, RUNGS))
    )


def test_too_small_a_budget_is_one_line():
    with pytest.raises(UserError, match="allowed: at least 896 games"):
        plan(895, 2)
    assert plan(896, 2).batches == 1


def test_field_fixed_or_drawn():
    fixed = Field.of(["steady"], 2)
    assert fixed.fixed == ("steady",) and fixed.opponents(1, 5, 2, 32) == ("steady",)
    drawn = Field.of(["steady", "wild"], 2)  # two names for one seat: drawn per slice
    assert drawn.fixed is None and drawn.mixture.weights == (0.5, 0.5)
    draws = [drawn.opponents(1, j, 2, 32)[0] for j in range(400)]
    assert draws == [drawn.opponents(1, j, 2, 32)[0] for j in range(400)]
    share = draws.count("wild") / 400  # SE 0.025: within 4 SE of 1/2
    assert abs(share - 0.5) < 0.1
    assert Mixture.of(["a", "b", "a"]).as_dict() == {"a": 2 / 3, "b": 1 / 3}


def test_a_game_without_the_protocol_is_refused():
    with pytest.raises(UserError, match="does not speak the game protocol yet"):
        check_game(types.ModuleType("simulator.nogame.api"))


def test_common_random_numbers_pair_every_candidate():
    """Two strategies played on the same slice meet the same dice: in the toy a game's winner
    is decided by one uniform draw, so identical strategies score identically."""
    scen = toy.load()
    player = Player(toy, scen, 2)
    units = [Unit(("steady", "wild"), 123), Unit(("steady", "wild"), 123)]
    a, b = player.run(units, "crn", 1)
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------------
# The search finds a planted optimum and validates honestly


@pytest.fixture(scope="module")
def planted():
    scen = toy.load()
    field = Field.of(["steady"], 2)
    res = tune(toy, scen, "tuner", budget=20_000, field=field, seed=5, validation_games=25_600)
    return scen, res


def test_tuner_finds_the_planted_optimum(planted):
    """The toy's strength peaks at x = 0.73, k = 6, mode b, flag on; each discrete miss costs
    at least 5 points of exact score against `steady`. The tuned strategy's exact score is
    within 1 point of the optimum's (0.7619) and far above the defaults' (0.0500)."""
    scen, res = planted
    optimum = {"x": 0.73, "k": 6, "mode": "b", "flag": True}
    best = exact_score(scen.rules, optimum)
    assert res.params["k"] == 6 and res.params["mode"] == "b" and res.params["flag"] is True
    assert exact_score(scen.rules, res.params) > best - 0.01
    assert exact_score(scen.rules, {"x": 0.2, "k": 2, "mode": "a", "flag": False}) < 0.06
    assert res.games_searched <= 20_000 and res.history["trial"].nunique() > 100


def test_validation_is_unbiased_and_paired(planted):
    """The validated score and gain come from fresh seeds: each lies within 4 standard errors
    of its exact value (the winner's curse would bias the search score, not these). At
    n = 25,600 fresh games the SEs are at most 0.0025, so k = 4 catches a 1-point bias."""
    scen, res = planted
    v = res.validation
    exact = exact_score(scen.rules, res.params)
    base = exact_score(scen.rules, {"x": 0.2, "k": 2, "mode": "a", "flag": False})
    for value, ci, truth in (
        (v["score"], v["ci95"], exact),
        (v["baseline_score"], v["baseline_ci95"], base),
        (v["gain"], v["gain_ci95"], exact - base),
    ):
        se = (ci[1] - ci[0]) / (2 * 1.959963984540054)
        assert abs(value - truth) < 4 * se, (value, truth, se)
    assert v["n"] == res.schedule.validation_slices * 32
    history = res.history
    assert not history.duplicated(["trial", "rung"]).any()
    assert (history["games"] <= res.schedule.top_slices * 32).all()


def test_the_kinds_strategies_are_starting_points(planted):
    """The scenario's strategies of the tuned kind whose parameters differ from the defaults
    (steady, wild; novice is the defaults) are played on every top slice before the first batch,
    and the search's winner scores at least as well as each of them on the search's seeds."""
    scen, res = planted
    kinds = scen.rules.kinds
    starts = starting_points(scen, kinds, "tuner")
    assert starts == {
        "steady": {"x": 0.5, "k": 5, "mode": "b", "flag": False},
        "wild": {"x": 0.9, "k": 9, "mode": "c", "flag": True},
    }
    h = res.history.set_index("source")
    top = res.schedule.top_slices * 32
    assert res.schedule.starts == 3
    assert h.loc["strategy steady", "trial"] == 1 and h.loc["strategy wild", "trial"] == 2
    assert h.loc["strategy steady", "games"] == top == h.loc["defaults", "games"]
    best = res.history.loc[res.history["trial"] == res.best_trial, "score"].max()
    assert best >= h.loc["strategy steady", "score"] and best >= h.loc["strategy wild", "score"]


def test_history_spends_few_games_on_weak_candidates(planted):
    _, res = planted
    h = res.history[res.history["source"] == "tpe"]
    per_trial = h.groupby("trial")["games"].max()
    top = res.schedule.top_slices * 32
    # per batch of 8: one finalist plays every top slice, half stop after the first rung
    assert (per_trial == top).sum() == res.schedule.batches
    assert (per_trial == res.schedule.base_slices * 32).sum() == res.schedule.batches * BATCH // 2


# --------------------------------------------------------------------------------------------
# The command: overlay, jobs, resume


def _base(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(TOY / "standard.toml", out / "standard.toml")
    return out


ARGS = ("tune", "--game", "toy", "--strategy", "tuner", "--field", "steady", "--players", "2")


def test_overlay_round_trip_and_refused_on_another_base(tmp_path):
    out = _base(tmp_path)
    args = (*ARGS, "--budget", "2000", "--seed", "4", "--scenario", str(out / "standard.toml"))
    res = invoke(*args, "--out", str(out), "--format", "json", "--quiet")
    summary = json.loads(res.stdout)
    assert set(summary) == {
        "strategy", "base", "params", "validation", "overlay", "schema_version", "provenance"
    }  # fmt: skip
    assert set(summary["validation"]) == {
        "score", "ci95", "n", "baseline_score", "gain", "gain_ci95"
    }  # fmt: skip
    overlay = Path(summary["overlay"])
    assert overlay == out / "tuner_tuned.toml"
    scen = toy.load(overlay)
    decl = scen.rules.strategies["tuner_tuned"]
    assert decl.kind == "tuner" and decl.tuned.base == "tuner"
    assert decl.tuned.seed == "4" and decl.tuned.budget == 2000
    assert decl.tuned.scenario_hash == toy.load(out / "standard.toml").content_hash
    assert decl.tuned.score == summary["validation"]["score"]
    assert "broadside tune --game toy" in decl.tuned.command
    played = toy.play(scen, ["tuner_tuned", "steady"], n=64, seed=1, rotate_seats=True)
    assert len(played.seats) == 128
    assert (out / "history.csv").is_file() and (out / "history.parquet").is_file()
    # the base changes: the overlay is refused with one line naming base_hash
    text = (out / "standard.toml").read_text().replace("beta = 1.0", "beta = 2.0")
    (out / "standard.toml").write_text(text)
    with pytest.raises(ScenarioError) as exc:
        toy.load(overlay)
    msg = str(exc.value)
    assert "base_hash" in msg and "tuner_tuned.toml" in msg and "\n" not in msg


def test_base_hash_is_the_merged_base_chain(tmp_path):
    base, _ = read_merged(TOY / "standard.toml")
    (tmp_path / "standard.toml").write_text((TOY / "standard.toml").read_text())
    good = (
        'game = "toy"\nrules_version = "x"\nextends = "standard"\n'
        f'base_hash = "{content_hash(base)}"\n'
    )
    (tmp_path / "o.toml").write_text(good)
    merged, _ = read_merged(tmp_path / "o.toml")
    assert "base_hash" not in merged and merged["rules_version"] == "x"
    (tmp_path / "lone.toml").write_text('game = "toy"\nrules_version = "x"\nbase_hash = "ab"\n')
    with pytest.raises(ScenarioError, match="needs extends"):
        read_merged(tmp_path / "lone.toml")
    (tmp_path / "num.toml").write_text(good.replace(f'"{content_hash(base)}"', "12"))
    with pytest.raises(ScenarioError, match="allowed: string"):
        read_merged(tmp_path / "num.toml")


def test_tune_same_output_at_any_jobs(tmp_path):
    out = _base(tmp_path)
    args = (*ARGS, "--budget", "2000", "--seed", "8", "--scenario", str(out / "standard.toml"))
    one = json.loads(invoke(*args, "--jobs", "1", "--format", "json", "--quiet").stdout)
    two = json.loads(invoke(*args, "--jobs", "2", "--format", "json", "--quiet").stdout)
    assert one == two


def test_tune_resumes_to_the_same_result(tmp_path):
    """A run cut short (its last rungs and some chunks gone) resumes with --resume DIR to the
    very result of the uninterrupted run."""
    out = _base(tmp_path)
    args = (*ARGS, "--budget", "2000", "--seed", "9", "--scenario", str(out / "standard.toml"))
    full = json.loads(invoke(*args, "--out", str(out), "--format", "json", "--quiet").stdout)
    chunks = out / "chunks"
    runs = sorted(p for p in chunks.iterdir() if p.name.startswith("run-"))
    assert len(runs) > 5
    for run in runs[-3:]:
        shutil.rmtree(run)
    for f in sorted(runs[2].glob("chunk-*.npz"))[::2]:
        f.unlink()
    resumed = json.loads(
        invoke(
            "tune", "--game", "toy", "--strategy", "tuner", "--field", "steady", "--players",
            "2", "--budget", "2000", "--scenario", str(out / "standard.toml"), "--resume",
            str(out), "--format", "json", "--quiet",
        ).stdout
    )  # fmt: skip
    assert resumed == full


def test_bad_options_are_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["tune", "--game", "chess", "--strategy", "x", "--budget", "1000"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "allowed: cove, express, hunt" in err
    with pytest.raises(UserError, match="did you mean 'tuner'"):
        invoke("tune", "--game", "toy", "--strategy", "tunr", "--budget", "1000")
    with pytest.raises(UserError, match="--field: unknown strategy 'stedy'"):
        invoke(
            "tune", "--game", "toy", "--strategy", "tuner", "--field", "stedy", "--budget", "1000"
        )
    with pytest.raises(UserError, match="--players 7"):
        invoke(*ARGS[:5], "--players", "7", "--budget", "1000")
    with pytest.raises(UserError, match="is not a game"):
        invoke("tune", "--game", "chess", "--strategy", "x", "--budget", "1000")


def test_tune_table_and_csv_formats(tmp_path):
    out = _base(tmp_path)
    args = (*ARGS, "--budget", "2000", "--seed", "2", "--scenario", str(out / "standard.toml"))
    table = invoke(*args, "--quiet").stdout
    assert "validation.gain" in table and "param.x" in table
    csv = invoke(*args, "--format", "csv", "--quiet").stdout.splitlines()
    assert csv[0] == "item,value,ci95_low,ci95_high" and len(csv) == 1 + 4 + 4


def test_the_toy_game_speaks_the_protocol():
    from simulator.protocol import check_seats_table

    check_game(toy)
    scen = toy.load()
    res = toy.play(scen, ["steady", "wild", "rock"], n=96, seed=3, rotate_seats=True)
    check_seats_table(res.seats)
    again = toy.play(scen, ["steady", "wild", "rock"], n=96, seed=3, rotate_seats=True, jobs=2)
    assert res.seats.equals(again.seats)


def test_the_scenario_loader_checks_base_hash_for_every_game(tmp_path):
    """load_scenario (the real games' loader) runs the same check on a built-in base."""
    from scenarios.loader import load_scenario
    from simulator.hunt.rules import HuntRules

    base = load_scenario(None, HuntRules)
    text = (
        f'game = "hunt"\nrules_version = "{base.rules_version}"\nextends = "standard"\n'
        f'base_hash = "{base.content_hash}"\n'
    )
    (tmp_path / "ok.toml").write_text(text)
    assert load_scenario(tmp_path / "ok.toml", HuntRules).rules == base.rules
    (tmp_path / "bad.toml").write_text(text.replace(base.content_hash, "0" * 16))
    with pytest.raises(ScenarioError, match=r"bad\.toml: base_hash: made for a base scenario"):
        load_scenario(tmp_path / "bad.toml", HuntRules)


def _real_games():
    from cli import GAME_APIS

    return sorted(GAME_APIS)


@pytest.mark.parametrize("name", _real_games())
def test_real_games_once_they_speak_the_protocol(name, tmp_path):
    """Each real game, as soon as its api.py speaks the protocol: a smallest tune and a
    two-strategy meta-game run end to end on the real engine (skipped, saying why, before)."""
    from cli import GAME_APIS
    from scenarios.populations import MAX_NASH_GAP
    from simulator.metagame import metagame

    game = GAME_APIS[name]()
    try:
        check_game(game)
    except UserError as exc:
        pytest.skip(str(exc))
    scen = game.load(None)
    players = min(game.player_counts(scen))
    kinds = game.kinds(scen)
    kind = CHEAP_KIND.get(name) or next(k for k in kinds if search_space_of(kinds, k))
    starts = 1 + len(starting_points(scen, kinds, kind))
    budget = plan_minimum(players, starts)
    res = tune(
        game,
        scen,
        kind,
        budget=budget,
        players=players,
        seed=1,
        validation_games=slice_games(players),
    )
    assert res.validation["n"] > 0 and set(res.params) == set(search_space_of(kinds, kind))
    names = list(game.strategies(scen))[:2]
    mg = metagame(game, scen, names, games=slice_games(players), players=players, seed=1)
    assert abs(sum(mg.eq.sigma) - 1) < 1e-9 and mg.eq.nash_gap <= MAX_NASH_GAP


def search_space_of(kinds, kind):
    from scenarios.strategies import search_space

    return search_space(kinds, kind)


#: the kind a real game's smallest tune searches (Pirate's Cove: its cheapest players)
CHEAP_KIND = {"cove": "heuristic-v1"}


def plan_minimum(players: int, starts: int = 1) -> int:
    return (20 + 8 * starts) * slice_games(players)
