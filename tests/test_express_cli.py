"""``broadside express ...``: JSON keys, errors, files, determinism."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from cli import cli, main

FLEET_A = "spain:5,3,2,1,1 captain@0 gunner@1"
FLEET_B = "viking:5,3,2,1,1 musketeer@0"


def run(args):
    res = CliRunner().invoke(cli, ["express", *args])
    return res


def run_json(args):
    res = run([*args, "--format", "json", "-q"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_battle_json_keys():
    obj = run_json(
        ["battle", "--fleet", FLEET_A, "--vs", FLEET_B, "-n", "200", "--seed", "4", "--jobs", "1"]
    )
    assert obj["n"] == 200
    for k in ("win", "loss", "draw"):
        assert set(obj[k]) >= {"count", "p", "ci95"}
        lo, hi = obj[k]["ci95"]
        assert 0 <= lo <= obj[k]["p"] <= hi <= 1
    assert obj["win"]["count"] + obj["loss"]["count"] + obj["draw"]["count"] == 200
    assert set(obj["mean_vp"]) == {"a", "b"}
    assert obj["seed"] == "4" and obj["provenance"]["seed"] == "4"
    assert obj["provenance"]["game"] == "express" and obj["provenance"]["scenario_hash"]
    assert obj["fleet_a"] == FLEET_A


def test_battle_cli_equals_api_and_replays():
    """(jobs 1 == jobs 2 is tested on the API in test_express_battle.py, sparing a second pool.)"""
    from simulator.express import api

    args = [
        "battle",
        "--fleet",
        FLEET_A,
        "--vs",
        FLEET_B,
        "-n",
        "300",
        "--seed",
        "8",
        "--commanders",
        "boarder,skirmisher",
        "--scenario-name",
        "treasure",
        "--jobs",
        "1",
    ]
    a = run_json(args)
    b = run_json(args)
    assert a == b
    _, s = api.battle_stats(
        FLEET_A, FLEET_B, n=300, seed=8, commanders="boarder,skirmisher", scenario_name="treasure"
    )
    assert a["win"]["count"] == s["win"]["count"] and a["draw"]["count"] == s["draw"]["count"]
    assert a["commanders"] == ["boarder", "skirmisher"]
    assert a["provenance"]["scenario_name"] == "treasure"


def test_matrix_json_shape():
    obj = run_json(["matrix", "-n", "4", "--seed", "1", "--jobs", "1"])
    nations = obj["nations"]
    assert nations == ["spain", "france", "pirates", "chinese", "american", "turkish", "viking"]
    assert len(obj["matrix"]) == 7 and all(len(r) == 7 for r in obj["matrix"])
    cell = obj["matrix"][0][1]
    assert set(cell) >= {"win", "loss", "draw", "ci95"}
    assert set(cell["ci95"]) == {"win", "loss", "draw"}
    assert cell["win"] + cell["loss"] + cell["draw"] == pytest.approx(1.0)
    assert obj["fleets"]["france"].endswith("musketeer@4")


def test_matrix_best_reports_fleets(tmp_path):
    res = run(
        [
            "matrix",
            "--fleets",
            "best",
            "-n",
            "2",
            "--candidates",
            "2",
            "--search-n",
            "1",
            "--seed",
            "2",
            "--jobs",
            "1",
            "--format",
            "json",
            "-q",
        ]
    )
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert obj["fleet_mode"] == "best"
    for nat in obj["nations"]:
        assert obj["fleets"][nat].startswith(nat + ":")
        assert obj["search"][nat]["candidates"] == 2


def test_crew_value_json_and_files(tmp_path):
    out = tmp_path / "cv"
    res = run(
        [
            "crew-value",
            "-n",
            "40",
            "--seed",
            "3",
            "--jobs",
            "1",
            "--format",
            "json",
            "-q",
            "--out",
            str(out),
        ]
    )
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    names = [(r["kind"], r["name"]) for r in obj["rows"]]
    assert ("crew", "captain") in names and ("nation", "chinese") in names and len(names) == 12
    for r in obj["rows"]:
        assert r["score_gain_lo"] <= r["score_gain"] <= r["score_gain_hi"]
        assert r["vp_gain_lo"] <= r["vp_gain"] <= r["vp_gain_hi"]
    df = pd.read_parquet(out / "express-crew-value.parquet")
    assert (
        len(df) == 12
        and df["scenario_hash"].nunique() == 1
        and (df["seed"].astype(str) == "3").all()
    )
    assert (out / "express-crew-value.csv").exists() and (out / "express-crew-value.json").exists()


def test_fleets_command_counts():
    obj = run_json(["fleets", "--nation", "american", "--limit", "3"])
    assert obj["count"] == 21055 and len(obj["fleets"]) == 3 and obj["mast_lists"] == 120
    res = run(["fleets", "--nation", "spain", "--full-only", "--limit", "2"])
    assert res.exit_code == 0 and "1490 legal fleets" in res.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (
            ["battle", "--fleet", "spain:5,5", "--vs", FLEET_B, "-n", "2"],
            "at most 1 ship(s) of 5 masts",
        ),
        (
            ["battle", "--fleet", FLEET_A, "--vs", FLEET_B, "-n", "2", "--commanders", "pacifist"],
            "unknown commander",
        ),
        (["fleets", "--nation", "atlantis"], "not a nation"),
    ],
)
def test_errors_are_one_line_exit_2(args, needle, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["express", *args])
    assert exc.value.code == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], cap.err
    assert cap.out == ""


def test_bad_scenario_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'game = "express"\nrules_version = "x"\nextends = "standard"\n[turns]\nmax_turn = 3\n'
    )
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "express",
                "battle",
                "--fleet",
                FLEET_A,
                "--vs",
                FLEET_B,
                "-n",
                "2",
                "--scenario",
                str(bad),
            ]
        )
    err = capsys.readouterr().err
    assert (
        exc.value.code == 2
        and "max_turn" in err
        and "did you mean" in err
        and len(err.splitlines()) == 1
    )


def test_best_fleet_json_files_and_replay(tmp_path):
    args = [
        "best-fleet",
        "--nation",
        "viking",
        "--candidates",
        "3",
        "--search-n",
        "1",
        "--validate-n",
        "1",
        "--seed",
        "6",
        "--jobs",
        "1",
    ]
    obj = run_json([*args, "--out", str(tmp_path / "bf")])
    assert obj["nations"] == ["viking"] and obj["seed"] == "6"
    info = obj["searches"]["viking"]
    assert info["fleet"] == obj["fleets"]["viking"] and info["fleet"].startswith("viking:")
    assert info["candidates"] == 3 and info["pool"] == 1490 and len(info["rungs"]) == 2
    assert info["validation"]["n"] == 14  # one round of the 7-nation field in both seats
    df = pd.read_parquet(tmp_path / "bf" / "express-best-fleets.parquet")
    assert df["nation"].tolist() == ["viking"] and (df["seed"].astype(str) == "6").all()
    rungs = pd.read_parquet(tmp_path / "bf" / "express-best-fleet-rungs.parquet")
    assert rungs["rung"].tolist() == [0, 1]
    again = run_json(args)  # same seed, same race (timings aside)
    assert again["fleets"] == obj["fleets"]
    assert again["searches"]["viking"]["rungs"] == info["rungs"]
    assert again["searches"]["viking"]["validation"]["score"] == info["validation"]["score"]


def test_commanders_table_json(tmp_path):
    obj = run_json(
        [
            "commanders",
            "--out",
            str(tmp_path / "c"),
            "--commanders",
            "admiral,gunline",
            "--scenario-names",
            "pitched,convoy",
            "-n",
            "6",
            "--seed",
            "2",
            "--jobs",
            "1",
        ]
    )
    assert obj["commanders"] == ["admiral", "gunline"] and obj["scenario_names"] == [
        "pitched",
        "convoy",
    ]
    rows = {(r["scenario_name"], r["commander"], r["vs"]): r for r in obj["rows"]}
    assert len(rows) == 8 and obj["n"] == 6
    for r in obj["rows"]:
        assert r["score_lo"] <= r["score"] <= r["score_hi"]
        assert r["win"] + r["draw"] + r["loss"] == pytest.approx(1.0)
    assert obj["fleet"].startswith("none:")
    df = pd.read_parquet(tmp_path / "c" / "express-commanders.parquet")
    assert len(df) == 8 and set(df["scenario_name"]) == {"pitched", "convoy"}


@pytest.mark.parametrize(
    "args,needle",
    [
        (["commanders", "--commanders", "admiral,gunlin", "-n", "2"], "did you mean 'gunline'"),
        (["commanders", "--scenario-names", "pitched,siege", "-n", "2"], "--scenario-name"),
        (["best-fleet", "--nation", "atlantis"], "not a nation"),
    ],
)
def test_new_command_errors_are_one_line(args, needle, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["express", *args])
    assert exc.value.code == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], cap.err
    assert cap.out == ""
