"""`broadside cove duel` and `broadside cove lethality`: JSON keys, exact vs Monte Carlo, jobs 1 ==
jobs 2, files, one-line errors with exit 2; and the lethality grid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scenarios import load_scenario
from simulator.cove.lethality import balanced_positions, lethality_table, standard_builds
from simulator.cove.rules import CoveRules

ROOT = Path(__file__).resolve().parent.parent
RULES = load_scenario(None, CoveRules).rules


class _Proc:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(*args, check=True):
    """``broadside cove ARGS`` in this process (the same entry point as the console script)."""
    import contextlib
    import io

    import cli

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(["cove", *args])
        except SystemExit as exc:
            code = exc.code or 0
    proc = _Proc(code, out.getvalue(), err.getvalue())
    if check and code != 0:
        raise AssertionError(proc.stderr)
    return proc


def run_subprocess(*args):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "cove", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(proc.stderr)
    return proc


SHIP = "hull=5,crew=4,cannons=4,sails=4,parrot=long-john-silver"


def test_duel_exact_by_default_and_monte_carlo_agrees_within_4_se_with_jobs_invariance():
    ex = json.loads(run("duel", "--ship", SHIP, "--vs", "captain-hook", "--format", "json").stdout)
    assert ex["method"] == "exact" and {"win", "routed", "fled"} <= set(ex)
    assert ex["win"] + ex["routed"] + ex["fled"] == pytest.approx(1.0)
    args = (
        "duel",
        "--ship",
        SHIP,
        "--vs",
        "captain-hook",
        "-n",
        "30000",
        "--seed",
        "4",
        "--format",
        "json",
    )
    a = json.loads(run(*args, "--jobs", "1").stdout)
    b = json.loads(run_subprocess(*args, "--jobs", "2").stdout)  # the console path, two workers
    assert a == b
    assert a["method"] == "monte-carlo" and a["n"] == 30000 and a["seed"] == "4"
    for k in ("win", "routed", "fled"):
        lo, hi = a["ci95"][k]
        assert lo <= a[k] <= hi
        p = ex[k]
        se = max((p * (1 - p) / 30000) ** 0.5, 1 / 30000)
        assert abs(a[k] - p) <= 4 * se
    assert a["scenario_hash"] == ex["scenario_hash"]


def test_duel_ship_vs_ship_table_and_csv():
    out = run(
        "duel",
        "--ship",
        "hull=3",
        "--ship",
        "crew=3,cannons=3,artisan=crew",
        "--policy",
        "flee-when-hit",
    ).stdout
    assert "exact" in out and "win" in out
    csv = run("duel", "--ship", "hull=3", "--ship", "crew=3", "--format", "csv", "--exact").stdout
    assert csv.splitlines()[0] == "outcome,value"


@pytest.mark.parametrize(
    "args,needle",
    [
        (("--ship", "hull=9", "--vs", "blackbeard"), "1..8"),
        (("--ship", "hull=3", "--vs", "kraken"), "allowed: blackbeard"),
        (("--ship", "hull=3,parrot=polly", "--vs", "blackbeard"), "allowed: flint"),
        (("--ship", "hull=3", "--vs", "blackbeard", "--policy", "panic"), "flee-when-hit"),
        (("--ship", "hull=3", "--vs", "blackbeard", "--exact", "-n", "10"), "not both"),
        (
            (
                "--ship",
                "hull=3",
            ),
            "missing opponent",
        ),
    ],
)
def test_duel_errors_are_one_line_exit_2(args, needle):
    proc = run("duel", *args, check=False)
    assert (
        proc.returncode == 2
        and needle in proc.stderr
        and len(proc.stderr.strip().splitlines()) == 1
    )


def test_lethality_writes_files_and_reads_builds(tmp_path):
    builds = tmp_path / "b.csv"
    builds.write_text(
        "name,hull,crew,cannons,sails,artisan,parrot\nbrute,6,5,5,2,hull,\nbird,4,4,4,4,,billy-bones\n"
    )
    proc = run(
        "lethality", "--builds", str(builds), "--out", str(tmp_path / "o"), "--format", "json"
    )
    obj = json.loads(proc.stdout)
    assert obj["method"] == "exact" and len(obj["rows"]) == 2 * 5
    df = pd.read_csv(tmp_path / "o" / "lethality.csv")
    assert set(df["pirate"]) == {
        "blackbeard",
        "flying_dutchman",
        "captain_hook",
        "bonny_and_read",
        "royal_navy",
    }
    assert (tmp_path / "o" / "lethality.parquet").exists()
    bad = tmp_path / "bad.csv"
    bad.write_text("name,hull,crew,cannons,sails\nx,0,2,2,2\n")
    proc = run("lethality", "--builds", str(bad), check=False)
    assert proc.returncode == 2 and "hull='0'" in proc.stderr


def test_standard_grid_and_table():
    builds = standard_builds(RULES)
    assert len(builds) == 18 and builds[0].positions == (2, 2, 2, 2)
    assert {b.name for b in builds} >= {"max-hull", "balanced-36+artisan-hull"}
    # 9 gold: every ring to 3 (4 x 1), then hull and crew to 4 (2 x 2); 1 gold left over
    assert balanced_positions(RULES, 9) == (4, 4, 3, 3)
    assert balanced_positions(RULES, 0) == (2, 2, 2, 2)
    df = lethality_table(None, builds[:2])
    assert list(df["method"].unique()) == ["exact"] and len(df) == 10
    assert ((df.p_sink + df.p_routed + df.p_fled - 1).abs() < 1e-9).all()
    # an Artisan on the hull never hurts against a pirate that fires at the hull
    bb = df[df.pirate == "captain_hook"].set_index("build")
    assert bb.loc["start+artisan-hull", "p_sink"] > bb.loc["start", "p_sink"]


def test_lethality_with_company_is_seeded_monte_carlo(tmp_path):
    builds = tmp_path / "b.csv"
    builds.write_text("name,hull,crew,cannons,sails\nbrute,6,5,5,5\n")
    args = (
        "lethality",
        "--builds",
        str(builds),
        "--company",
        "2",
        "--company-ship",
        "hull=4,crew=4,cannons=4",
        "-n",
        "3000",
        "--seed",
        "5",
        "--format",
        "json",
        "--jobs",
        "1",
    )
    a = json.loads(run(*args).stdout)
    b = json.loads(run(*args).stdout)
    assert a == b and a["method"] == "monte-carlo" and a["company"] == 2 and a["seed"] == "5"
    for row in a["rows"]:
        assert row["method"] == "monte-carlo" and row["n"] == 3000
        assert row["p_sink_low"] <= row["p_sink"] <= row["p_sink_high"]
    alone = json.loads(run("lethality", "--builds", str(builds), "--format", "json").stdout)
    by = {r["pirate"]: r["p_sink"] for r in alone["rows"]}
    # company never makes a pirate harder to sink
    assert all(r["p_sink_high"] >= by[r["pirate"]] for r in a["rows"])
    proc = run("lethality", "--company-ship", "hull=3", check=False)
    assert proc.returncode == 2 and "--company" in proc.stderr
