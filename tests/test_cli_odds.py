"""`broadside odds`: the issue's acceptance example, formats, MC beside exact, one-line errors."""

import contextlib
import json
import subprocess
from pathlib import Path

import pytest
from runner_tasks import run_main
from scipy import stats as sps

ROOT = Path(__file__).resolve().parent.parent


def run(*args, check=True):
    """``broadside ARGS`` through the entry point in this process, from the checkout
    (:func:`runner_tasks.run_main`): a :class:`subprocess.CompletedProcess` with its exit code,
    stdout and stderr (a fresh process per command cost about 0.8 CPU-s of imports)."""
    with contextlib.chdir(ROOT):
        code, out, err = run_main(list(args))
    if check and code != 0:
        raise AssertionError(err)
    return subprocess.CompletedProcess(list(args), code, out, err)


def test_volley_json_is_binomial_3_one_third():
    proc = run("odds", "volley", "--dice", "3", "--hit-on", "5", "--format", "json")
    obj = json.loads(proc.stdout)  # stdout holds the JSON object alone
    probs = [obj["probabilities"][str(k)] for k in range(4)]
    assert probs == pytest.approx(sps.binom.pmf(range(4), 3, 1 / 3), abs=1e-15)
    assert obj["method"] == "exact"


def test_volley_mc_within_4_se_and_seed_replays():
    a = json.loads(
        run(
            "odds",
            "volley",
            "--dice",
            "4",
            "--hit-on",
            "4",
            "--reroll-misses",
            "1",
            "--mc",
            "40000",
            "--seed",
            "9",
            "--jobs",
            "1",
            "--format",
            "json",
        ).stdout
    )
    b = json.loads(
        run(
            "odds",
            "volley",
            "--dice",
            "4",
            "--hit-on",
            "4",
            "--reroll-misses",
            "1",
            "--mc",
            "40000",
            "--seed",
            "9",
            "--jobs",
            "2",
            "--format",
            "json",
        ).stdout
    )
    assert a == b
    for k, p in a["probabilities"].items():
        mc = a["monte_carlo"][k]["p"]
        se = (p * (1 - p) / 40000) ** 0.5
        assert abs(mc - p) < 4 * se + 1e-12
        lo, hi = a["monte_carlo"][k]["ci95"]
        assert lo <= mc <= hi


def test_boarding_csv_columns():
    proc = run("odds", "boarding", "--masts", "3", "--vs", "2", "--format", "csv")
    header = proc.stdout.splitlines()[0]
    assert header == "difference,exact"
    assert len(proc.stdout.splitlines()) == 1 + 6  # differences -2..3


def test_fresh_seed_is_reported_on_stderr():
    proc = run("odds", "volley", "--dice", "2", "--hit-on", "5", "--mc", "1000", "--format", "json")
    assert "--seed" in proc.stderr
    json.loads(proc.stdout)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["odds", "volley", "--dice", "x", "--hit-on", "5"], "--dice"),
        (["odds", "volley", "--dice", "3", "--hit-on", "9"], "--hit-on"),
        (["odds", "volley", "--dice", "3", "--hit-on", "5", "--format", "xml"], "--format"),
        (["odds", "volley", "--dice", "3"], "--hit-on"),
        (["odds", "bogus"], "bogus"),
        (["odds", "volley", "--dice", "3", "--hit-on", "5", "--colour"], "--colour"),
    ],
)
def test_user_errors_are_one_line_exit_2(args, fragment):
    proc = run(*args, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert fragment in lines[0] and "Traceback" not in proc.stderr


def test_out_files_are_complete_and_readable_by_others(tmp_path):
    """Atomic writes must not leave mkstemp's 0600 mode on result files."""
    import os
    import stat

    out = tmp_path / "odds"
    old = os.umask(0o022)
    try:
        run(
            "odds",
            "volley",
            "--dice",
            "2",
            "--hit-on",
            "5",
            "--mc",
            "20000",
            "--seed",
            "1",
            "--out",
            str(out),
            "--format",
            "json",
        )
    finally:
        os.umask(old)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.suffix == ".csv" for p in files)
    assert not [p for p in files if p.name.endswith(".tmp")]
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, p
