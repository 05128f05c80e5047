"""The balance search (simulator/balance.py, `broadside balance`) and its searchable numbers
(scenarios/searchable.py): targets as losses checked against hand-computed sums, a planted
optimum of the toy game found through noise, validation on fresh seeds that agrees with the
toy's exact odds, the same output at --jobs 1 and 2, a resumed run, overlays that load and are
refused on another base, and one-line refusals (undeclared key, value out of range)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import protocol_games as toy
import pytest
from click.testing import CliRunner

import cli
from scenarios.loader import ScenarioError
from scenarios.searchable import (
    apply_values,
    get_value,
    load_searchable,
    overlay_text,
    split_key,
)
from simulator.balance import (
    Layout,
    Target,
    balance,
    bootstrap_losses,
    losses,
    metric_values,
    parse_target,
    search_keys,
)
from simulator.errors import UserError
from simulator.stats import Z95

TOY = Path(toy.__file__).parent / "data" / "toy"
ROOT = Path(__file__).resolve().parents[1]


def invoke(*args: str, expect: int = 0):
    result = CliRunner().invoke(
        cli.cli, list(args), obj={"game_apis": {"toy": toy}}, catch_exceptions=False
    )
    assert result.exit_code == expect, result.output
    return result


def exact_first_seat_gap(params: dict) -> float:
    """The toy's exact |first seat's expected score - 1/2| under the seated rules + ``params``
    (a mirror of steady: the seat-advantage loss of a game played for ever)."""
    scen = apply_values(toy.load(TOY / "seated.toml"), params)
    return abs(float(toy.expected_scores(scen.rules, ["steady", "steady"])[0]) - 0.5)


# --------------------------------------------------------------------------------------------
# Targets and their losses: exact values on hand-made sums


LAYOUT = Layout(
    players=2,
    strategies=("a", "b"),
    length=True,
    margin=True,
    engagement=("x", "y"),
    roster=("p", "q", "r"),
)


def sums(**values: float) -> np.ndarray:
    out = np.zeros(len(LAYOUT))
    for name, v in values.items():
        out[LAYOUT.index[name.replace("__", ":")]] = v
    return out


S = sums(
    games=100, seat__1=60, seat__2=40, strategy__a__score=55, strategy__a__seats=100,
    strategy__b__score=45, strategy__b__seats=100, length=2500, margin=300, engaged__x=4,
    engaged__y=30, roster__p__score=70, roster__p__games=120, roster__q__score=50,
    roster__q__games=120, roster__r__score=60, roster__r__games=120,
)  # fmt: skip


@pytest.mark.parametrize(
    "spec, loss",
    [
        ("seat-advantage", 0.10),  # |0.60 - 0.5|
        ("seat-advantage=0.04", 0.06),
        ("seat-advantage=0.2", 0.0),
        ("strategy-spread", 0.10),  # 0.55 - 0.45
        ("strategy-spread=0.03", 0.07),
        ("nation-spread", 70 / 120 - 0.5),  # p scores 7/12
        ("nation-spread=0.05", 70 / 120 - 0.55),
        ("pirate-engagement=0.10", 0.06),  # x met in 4 % of the games
        ("pirate-engagement=0.02", 0.0),
        ("game-length=20..30", 0.0),  # 25 turns a game
        ("game-length=30..40", 5.0),
        ("game-length=10..20", 5.0),
        ("closeness", 3.0),  # a 3-point lead on average
        ("closeness=2.5", 0.5),
    ],
)
def test_each_target_is_its_distance_from_the_goal(spec, loss):
    assert losses([parse_target(spec)], LAYOUT, S)[0] == pytest.approx(loss, abs=1e-12)


def test_metrics_are_ratios_of_the_slice_sums_and_add_over_slices():
    m = metric_values(LAYOUT, np.stack([S, 2 * S]))
    assert m["seat:1"].tolist() == [0.6, 0.6] and m["game-length"].tolist() == [25.0, 25.0]
    assert m["engagement:x"][0] == 0.04 and m["nation:q"][1] == pytest.approx(50 / 120)
    assert m["win-rate:b"][0] == 0.45 and m["margin"][0] == 3.0


@pytest.mark.parametrize(
    "spec, message",
    [
        ("seat-advantag", "did you mean 'seat-advantage'"),
        ("pirate-engagement", "needs an argument"),
        ("game-length=30", "allowed: game-length=LO..HI"),
        ("game-length=30..20", "allowed: game-length=LO..HI"),
        ("seat-advantage=1.5", "X in 0..1"),
        ("closeness=-1", "X >= 0"),
    ],
)
def test_bad_targets_are_one_line(spec, message):
    with pytest.raises(UserError, match=message) as exc:
        parse_target(spec)
    assert "\n" not in str(exc.value)


def test_bootstrap_pairs_the_same_slices():
    """Base and candidate are resampled on the same slices: a candidate equal to the base has
    an improvement of exactly 0 in every replicate."""
    rows = np.stack([S * (1 + 0.1 * k) for k in range(12)])
    rows[:, LAYOUT.index["seat:1"]] += np.arange(12)
    t = [Target("seat-advantage", None), Target("closeness", None)]
    b, c, d = bootstrap_losses(t, LAYOUT, rows, rows.copy(), np.random.default_rng(1), reps=50)
    assert b.shape == (50, 2) and np.array_equal(b, c) and not d.any()


# --------------------------------------------------------------------------------------------
# Searchable numbers: keys, values, overlays, refusals


def test_keys_name_tables_fields_and_array_items():
    assert split_key("pirates.blackbeard.fame") == (["pirates", "blackbeard", "fame"], None)
    assert split_key("ship_mat.step_cost[3]") == (["ship_mat", "step_cost"], 3)
    for bad in ("", "a..b", "a[x]", "a[1].b", "a b"):
        with pytest.raises(ScenarioError, match="not a scenario key"):
            split_key(bad)


def test_a_value_left_at_the_schemas_default_is_found_and_changed():
    """komi is not written in seated.toml: it is read from the rules and set in the overlay."""
    scen = toy.load(TOY / "seated.toml")
    assert "komi" not in scen.raw and get_value(scen.rules, "komi") == 0.0
    changed = apply_values(scen, {"komi": 0.5, "handicap_seat": "last"}, "x")
    assert changed.rules.komi == 0.5 and changed.rules.handicap_seat == "last"
    assert changed.content_hash != scen.content_hash and changed.name == "toy seated + x"
    assert apply_values(scen, {}) is scen


def test_shipped_searchable_numbers_default_to_the_standard_rules():
    """Every game's declared default is its standard scenario's value, and every key's range
    ends are accepted by the game's schema (load_searchable checks both ends)."""
    from simulator.cove import api as cove
    from simulator.express import api as express
    from simulator.hunt import api as hunt

    for game, least in ((cove, 10), (express, 10), (hunt, 4)):
        scen = game.load(None)
        found = load_searchable(scen)
        assert len(found.params) >= least
        for key, decl in found.params.items():
            assert decl.coerce(decl.default, key) == found.base[key], key
            assert decl.doc, key


def test_an_array_item_overlay_writes_the_whole_array_and_loads(tmp_path):
    from simulator.cove import api as cove

    scen = cove.load(None)
    text = overlay_text(
        scen, "standard", {"ship_mat.step_cost[3]": 4}, name="probe", header="probe"
    )
    (tmp_path / "o.toml").write_text(text)
    back = cove.load(tmp_path / "o.toml")
    assert back.rules.ship_mat.step_cost == (0, 1, 1, 4, 2, 3, 3, 4)
    assert back.rules == apply_values(scen, {"ship_mat.step_cost[3]": 4}).rules
    assert "base_hash" in text and "[ship_mat]" in text and "hull" not in text


def test_undeclared_keys_and_out_of_range_values_are_refused_in_one_line():
    found = load_searchable(toy.load(TOY / "seated.toml"))
    with pytest.raises(UserError, match="did you mean 'komi'"):
        search_keys(found, ["komy"])
    with pytest.raises(UserError, match=r"out of range \(allowed: 0..2\)"):
        search_keys(found, ["komi=0..3"])
    with pytest.raises(UserError, match="no range to narrow"):
        search_keys(found, ["handicap_seat=0..1"])
    with pytest.raises(UserError, match="low above high"):
        search_keys(found, ["komi=1..0.5"])
    assert search_keys(found, ["komi=0.5..1"])["komi"].range == (0.5, 1.0)
    assert list(search_keys(found, None)) == ["komi", "handicap_seat", "draw_rate"]


def test_the_command_refuses_them_with_one_line_and_exit_2(capsys):
    base = ["balance", "--game", "toy", "--scenario", str(TOY / "seated.toml"), "--budget", "2000"]
    for extra, message in (
        (["--param", "komy", "--target", "seat-advantage"], "not a searchable number"),
        (["--param", "komi=0..9", "--target", "seat-advantage"], "out of range"),
        (["--target", "strategy-spread"], "one strategy at the table (steady)"),
        (["--target", "game-length=1..2"], "declares no game length"),
        (["--target", "seat-advantage", "--resolve"], "--resolve re-solves"),
    ):
        with pytest.raises(SystemExit) as exc:
            toy_main([*base, *extra])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.count("\n") == 1 and message in err, err


def test_a_game_without_a_roster_refuses_nation_spread():
    import types

    from simulator.protocol import PROTOCOL_NAMES

    plain = types.SimpleNamespace(**{n: getattr(toy, n) for n in PROTOCOL_NAMES})
    plain.__name__ = "plain"
    with pytest.raises(UserError, match="has no roster of nations"):
        balance(
            plain,
            toy.load(TOY / "seated.toml"),
            targets=[parse_target("nation-spread")],
            budget=4_000,
        )


def toy_main(argv: list[str]) -> None:
    """cli.main with the toy registered (what ``python tests/protocol_games.py`` does)."""
    import functools

    group = cli.cli
    saved = group.main
    group.main = functools.partial(type(group).main, group, obj={"game_apis": {"toy": toy}})
    try:
        cli.main(argv)
    finally:
        group.main = saved


@pytest.mark.parametrize(
    "line, message",
    [
        ('"komi" = { type = "float", range = [0.0, 9.0], default = 0.0 }', "rules refuse 9.0"),
        ('"komi" = { type = "float", range = [0.0, 1.0], default = 2.0 }', "out of range"),
        ('"kommi" = { type = "float", range = [0.0, 1.0], default = 0.0 }', "no such key"),
        ('"seat_edge" = { type = "int", range = [0, 1], default = 0 }', "allowed: a int value"),
        ('"komi" = { type = "float", range = [0.0, 1.0], default = 0.0, spin = 1 }', "unknown"),
    ],
)
def test_a_bad_searchable_file_is_refused_naming_the_file_and_key(tmp_path, line, message):
    (tmp_path / "balance").mkdir()
    shutil.copy(TOY / "standard.toml", tmp_path / "standard.toml")
    (tmp_path / "balance" / "searchable.toml").write_text(
        f'format = "broadside-searchable/1"\ngame = "toy"\n[params]\n{line}\n'
    )
    with pytest.raises(ScenarioError, match=message) as exc:
        load_searchable(toy.load(tmp_path / "standard.toml"))
    assert "searchable.toml" in str(exc.value) and "\n" not in str(exc.value)


# --------------------------------------------------------------------------------------------
# The search finds a planted optimum through noise, and validates honestly


@pytest.fixture(scope="module")
def planted():
    scen = toy.load(TOY / "seated.toml")
    res = balance(toy, scen, targets=[parse_target("seat-advantage")], budget=60_000, seed=0)
    return scen, res


def test_the_search_finds_the_planted_optimum(planted):
    """seated.toml gives the first seat a strength edge of 0.8 (its exact expected score
    0.671): only komi = 0.8 on the first seat balances it (the draw rate, a nuisance, shrinks
    the gap but never closes it). A search can place the optimum no finer than the noise of its
    top rung (a seat share's SE is at most 1/2 / sqrt(games)); the best candidate's exact gap
    lies within 3 such SEs of 0 (0.054 here), against the base's 0.171, and it handicaps the
    first seat."""
    _, res = planted
    best = res.candidates[0]
    top_games = res.schedule.top_slices * res.schedule.slice_games
    se = 0.5 / math.sqrt(top_games)
    assert best["params"].get("handicap_seat", "first") == "first"
    assert exact_first_seat_gap(best["params"]) < 3 * se
    assert exact_first_seat_gap({}) > 0.17
    assert res.games["search"] <= 60_000 and res.history["trial"].nunique() > 100


def test_validation_on_fresh_seeds_agrees_with_the_exact_odds(planted):
    """The base's validated loss and each candidate's improvement lie within 4 standard errors
    (from their 95 % bootstrap intervals) of the toy's exact values: at about 5,000 fresh games
    an SE is about 0.01, so a bias of 4 points (the winner's curse of the top rung) fails."""
    _, res = planted
    v = res.base["seat-advantage"]
    se = (v["ci95"][1] - v["ci95"][0]) / (2 * Z95)
    assert abs(v["value"] - exact_first_seat_gap({})) < 4 * se
    for cand in res.candidates:
        t = cand["targets"]["seat-advantage"]
        truth = exact_first_seat_gap({}) - exact_first_seat_gap(cand["params"])
        se = (t["improvement_ci95"][1] - t["improvement_ci95"][0]) / (2 * Z95)
        assert abs(t["improvement"] - truth) < 4 * se, (t, truth)
        assert cand["validation"]["search_trial"] > 0
        assert set(cand["side_effects"]) == {"seat:1", "seat:2"}
    values = [c["targets"]["seat-advantage"]["value"] for c in res.candidates]
    assert values == sorted(values)


def test_weak_candidates_stop_early(planted):
    _, res = planted
    h = res.history[res.history["source"] == "optimiser"]
    per_trial = h.groupby("trial")["slices"].max()
    assert (per_trial == res.schedule.top_slices).sum() == res.schedule.batches
    assert (per_trial == res.schedule.base_slices).sum() == res.schedule.batches * 4


# --------------------------------------------------------------------------------------------
# The command: same output at any --jobs, resume, overlays


def _folder(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    (out / "balance").mkdir(parents=True)
    for name in ("standard.toml", "seated.toml"):
        shutil.copy(TOY / name, out / name)
    shutil.copy(TOY / "balance" / "searchable.toml", out / "balance" / "searchable.toml")
    return out


def _args(out: Path, seed: int, *extra: str) -> list[str]:
    return [
        "balance", "--game", "toy", "--scenario", str(out / "seated.toml"), "--target",
        "seat-advantage", "--budget", "3000", "--seed", str(seed), *extra, "--format", "json",
        "--quiet",
    ]  # fmt: skip


def test_same_output_at_jobs_1_and_2(tmp_path):
    out = _folder(tmp_path)
    one = json.loads(invoke(*_args(out, 6, "--jobs", "1")).stdout)
    two = json.loads(invoke(*_args(out, 6, "--jobs", "2")).stdout)
    assert one == two and one["candidates"]


def test_the_json_keys_and_overlays(tmp_path):
    out = _folder(tmp_path)
    res = json.loads(invoke(*_args(out, 7, "--out", str(out))).stdout)
    assert list(res)[:11] == [
        "schema_version", "game", "players", "population", "resolved", "seed", "budget", "games",
        "base", "candidates", "note",
    ]  # fmt: skip
    assert set(res["games"]) == {"search", "resolve", "validation"}
    assert res["seed"] == "7" and res["population"] is None and res["resolved"] is False
    for k, cand in enumerate(res["candidates"], start=1):
        assert set(cand) == {"overlay", "params", "targets", "side_effects", "validation"}
        assert set(cand["targets"]["seat-advantage"]) == {
            "value", "ci95", "improvement", "improvement_ci95"
        }  # fmt: skip
        assert cand["overlay"] == f"candidate-{k}.toml"
        text = (out / cand["overlay"]).read_text()
        assert "broadside balance --game toy" in text and "--seed 7" in text
        scen = toy.load(out / cand["overlay"])
        for key, value in cand["params"].items():
            assert get_value(scen.rules, key) == value
    for stem in ("history", "before_after"):
        assert (out / f"{stem}.csv").is_file() and (out / f"{stem}.parquet").is_file()
    table = pd.read_parquet(out / "before_after.parquet").set_index(["candidate", "metric"])
    for k, cand in enumerate(res["candidates"], start=1):  # numbered like the overlays
        row = table.loc[(k, "target:seat-advantage")]
        assert row["candidate_value"] == cand["targets"]["seat-advantage"]["value"]
        assert row["difference"] == -cand["targets"]["seat-advantage"]["improvement"]
    assert (out / "before_after.png").is_file() and (out / "summary.json").is_file()
    # the base changes: an overlay is refused in one line naming base_hash
    (out / "seated.toml").write_text((out / "seated.toml").read_text().replace("0.8", "0.9"))
    with pytest.raises(ScenarioError, match="base_hash"):
        toy.load(out / res["candidates"][0]["overlay"])


def test_a_resumed_run_gives_the_same_result(tmp_path):
    out = _folder(tmp_path)
    full = json.loads(invoke(*_args(out, 9, "--out", str(out))).stdout)
    runs = sorted(p for p in (out / "chunks").iterdir() if p.name.startswith("run-"))
    assert len(runs) > 5
    for run in runs[-3:]:
        shutil.rmtree(run)
    args = _args(out, 9)
    args[args.index("--seed") : args.index("--seed") + 2] = ["--resume", str(out)]
    assert json.loads(invoke(*args).stdout) == full


def test_several_targets_give_a_pareto_set():
    """Two targets: NSGA-II, and the kept candidates are not dominated by one another on the
    search's values."""
    scen = toy.load(TOY / "standard.toml")
    res = balance(
        toy,
        scen,
        targets=[parse_target("seat-advantage"), parse_target("strategy-spread")],
        budget=4_000,
        seed=2,
    )
    assert "NSGAII" in res.provenance["optimiser"] and res.candidates
    base = np.array(list(res.provenance["base_search_value"].values()))
    vals = [np.array(list(c["validation"]["search_value"].values())) for c in res.candidates]
    for i, a in enumerate(vals):
        for j, b in enumerate(vals):
            assert i == j or not (np.all(b <= a) and np.any(b < a))
        assert not np.all(a >= base)
    assert {"loss.seat-advantage", "loss.strategy-spread"} <= set(res.history.columns)


def test_resolve_solves_the_population_again_under_each_candidate(tmp_path):
    """With --population and --resolve every kept candidate's population table is measured
    under its rules and solved again (checked by its Nash gap), and its validation seats are
    drawn from that equilibrium; the games are counted as resolve games."""
    from scenarios.populations import MAX_NASH_GAP, load_population, population_text

    scen = toy.load(TOY / "seated.toml")
    names = ["steady", "wild"]  # steady is the stronger: it alone is the equilibrium
    path = tmp_path / "pair.toml"
    path.write_text(
        population_text(
            scenario=scen, players=2, population=names, equilibrium=dict.fromkeys(names, 1 / 2),
            nash_gap=0.0, games_per_table=64, command="broadside metagame --game toy",
            verdict="as given", extra={},
        )
    )  # fmt: skip
    pop = load_population(path, scen)
    res = balance(
        toy, pop.scenario, targets=[parse_target("seat-advantage")], budget=3_000,
        population=pop, population_name="pair", resolve=True, seed=4,
    )  # fmt: skip
    assert res.candidates and res.resolved and res.population == "pair"
    assert res.games["resolve"] > 0
    assert res.provenance["players_at_table"] == {"steady": 0.5, "wild": 0.5}
    for cand in res.candidates:
        eq = cand["validation"]["resolved"]["equilibrium"]
        assert eq["nash_gap"] <= MAX_NASH_GAP and set(eq["weights"]) == set(names)
        assert abs(sum(eq["weights"].values()) - 1) < 1e-9 and eq["weights"]["steady"] == 1.0
        assert not any(m.startswith("win-rate:") for m in cand["side_effects"])


def exact_roster_scores(params: dict) -> dict[str, float]:
    """Each tuner strategy's exact mean score against the others in two-player games, both
    seat orders (the toy's roster under the seated rules + ``params``)."""
    rules = apply_values(toy.load(TOY / "seated.toml"), params).rules
    names = ["novice", "steady", "wild"]
    return {
        m: float(
            np.mean(
                [
                    toy.expected_scores(rules, table)[table.index(m)]
                    for o in names
                    if o != m
                    for table in ([m, o], [o, m])
                ]
            )
        )
        for m in names
    }


def test_a_roster_round_robin_measures_nation_spread():
    """nation-spread plays every pair of the game's roster (the toy's: its three tuner
    strategies) on every slice; the base's validated loss and each candidate's improvement lie
    within 4 standard errors of the exact odds (at about 1,000 fresh games per pair an SE is
    about 0.015: a 6-point bias fails)."""
    scen = toy.load(TOY / "seated.toml")
    res = balance(toy, scen, targets=[parse_target("nation-spread")], budget=4_000, seed=3)

    def loss(params: dict) -> float:
        return max(abs(v - 0.5) for v in exact_roster_scores(params).values())

    assert set(res.provenance["roster"]) == {"novice", "steady", "wild"}
    v = res.base["nation-spread"]
    se = (v["ci95"][1] - v["ci95"][0]) / (2 * Z95)
    assert abs(v["value"] - loss({})) < 4 * se
    assert res.candidates
    for cand in res.candidates:
        t = cand["targets"]["nation-spread"]
        se = (t["improvement_ci95"][1] - t["improvement_ci95"][0]) / (2 * Z95)
        assert abs(t["improvement"] - (loss({}) - loss(cand["params"]))) < 4 * se
        assert {"nation:novice", "nation:steady", "nation:wild"} <= set(cand["side_effects"])


def test_express_roster_keeps_legal_fleets_and_falls_back_without_playing():
    """Pirates express's roster hook at effort 0 plays nothing: each nation keeps the fleet it
    is given where the rules allow it, else fields its study fleet, else the plain mirrored
    fleet (the Americans' two 4-mast ships with only one allowed)."""
    from simulator.express import api as express

    scen = express.load(None)
    start = {"spain": types_ns(fleet="spain:5,4,3 helmsman@0 musketeer@1 carpenter@2")}
    roster, played = express.balance_roster(scen, seed=1, effort=0, start=start)
    assert played == 0 and list(roster) == list(scen.rules.matrix_nations)
    assert roster["spain"].fleet == "spain:5,4,3 helmsman@0 musketeer@1 carpenter@2"
    assert roster["american"].fleet.startswith("american:4,4,2,1,1")
    assert all(d.kind == "admiral" and d.nation == n for n, d in roster.items())
    one = apply_values(scen, {"nations.american.max_four_mast_ships": 1})
    roster, _ = express.balance_roster(one, seed=1, effort=0)
    assert roster["american"].fleet.startswith("american:5,3,2,1,1")


def types_ns(**kw):
    import types

    return types.SimpleNamespace(**kw)


def test_a_population_with_members_of_its_own_gets_overlays_of_the_plain_rules(tmp_path):
    """A population file may define members the scenario lacks (a tuned best response); the
    search plays them, but the overlays extend the plain scenario and record its hash, so they
    load (and the JSON's scenario_hash is the plain scenario's)."""
    from scenarios.loader import FrozenMap
    from scenarios.populations import population_text
    from scenarios.strategies import StrategyDecl

    out = _folder(tmp_path)
    scen = toy.load(out / "seated.toml")
    extra = {"br1": StrategyDecl(kind="tuner", params=FrozenMap({"x": 0.6, "k": 6}))}
    (out / "pop.toml").write_text(
        population_text(
            scenario=scen, players=2, population=["steady", "br1"],
            equilibrium={"steady": 0.5, "br1": 0.5}, nash_gap=0.0, games_per_table=64,
            command="broadside metagame --game toy", verdict="as given", extra=extra,
        )
    )  # fmt: skip
    args = _args(out, 5, "--population", str(out / "pop.toml"), "--out", str(out))
    res = json.loads(invoke(*args).stdout)
    assert res["candidates"] and res["provenance"]["scenario_hash"] == scen.content_hash
    for cand in res["candidates"]:
        loaded = toy.load(out / cand["overlay"])
        assert loaded.rules.strategies.keys() == scen.rules.strategies.keys()


# --------------------------------------------------------------------------------------------
# The report: a balance run's candidates join its game's verdicts


def test_a_balance_run_joins_its_games_verdict_as_a_remedy(tmp_path):
    """report --balance DIR: each kept candidate's validated improvement is a row of
    balance_candidates and a claim, and a remedy (balance-run) of the axis its target concerns
    at its table size only; verdicts.csv then names it."""
    from reports.html import Section
    from reports.report import ReportContext
    from reports.sections import balance as balance_section
    from reports.sections import findings as findings_section
    from reports.sections.common import claim as make_claim
    from reports.verdicts import Axis

    out = _folder(tmp_path)
    invoke(*_args(out, 7, "--out", str(out)))
    run = balance_section.load_run(out)
    balance_section.check_run(run, run["summary"]["provenance"]["scenario_hash"], ("toy",))
    report = tmp_path / "report"
    report.mkdir()
    ctx = ReportContext(size="test", entropy=1, jobs=1, quiet=True, out=report, balance=[run])
    game = Section("toy", "Toy")
    seat = pd.DataFrame({"seat": [1, 2], "share": [0.6, 0.4], "ci_low": [0.5, 0.3],
                         "ci_high": [0.7, 0.5]})  # fmt: skip
    game.tables["toy_seats"], game.keys["toy_seats"] = seat, ("seat",)
    for s in (1, 2):
        game.claims.append(
            make_claim(
                seat, "toy_seats", {"seat": s}, "share", game="toy", claim_key=f"toy/seat/{s}",
                quantity=f"seat {s}", sentence="{value} {ci}", null=0.5, null_words="1/2",
                players="steady mirror", n=100, anchor="tbl-toy_seats", unit="share",
            )
        )  # fmt: skip
    for players in (2, 3):
        game.axes.append(
            Axis(game="toy", axis="seat-order", players=players,
                 rows=(("seat 1", "toy/seat/1"), ("seat 2", "toy/seat/2")), fair=0.5,
                 unit="share", population="steady mirror", size="test")
        )  # fmt: skip
    sec = balance_section.build(ctx, [game], seed=3)
    table = sec.tables["balance_candidates"]
    n = len(run["summary"]["candidates"])
    assert n and len(table) == n and set(table["target"]) == {"seat-advantage"}
    assert [r.source for r in game.axes[0].remedies] == ["balance-run"] * n
    assert game.axes[1].remedies == ()  # another table size: not this run's remedy
    assert (report / "balance_out.png").is_file()
    verdicts, _ = findings_section.build(ctx, [game, sec])
    rows = verdicts.tables["verdicts"]
    assert (rows["remedy_source"] == "balance-run").sum() == n
    assert rows.loc[rows["remedy_source"] == "balance-run", "remedy"].str.contains("komi").all()


def test_report_refuses_a_balance_folder_that_is_not_one_or_of_other_rules(tmp_path):
    from reports.sections import balance as balance_section

    with pytest.raises(UserError, match="no balance run there"):
        balance_section.load_run(tmp_path)
    (tmp_path / "summary.json").write_text('{"game": "toy"}')
    with pytest.raises(UserError, match="not a balance run's"):
        balance_section.load_run(tmp_path)
    out = _folder(tmp_path / "x")
    invoke(*_args(out, 7, "--out", str(out)))
    run = balance_section.load_run(out)
    with pytest.raises(UserError, match="made on rules of hash"):
        balance_section.check_run(run, "0" * 16, ("toy",))
    with pytest.raises(UserError, match="the report shows cove"):
        balance_section.check_run(run, run["summary"]["provenance"]["scenario_hash"], ("cove",))
