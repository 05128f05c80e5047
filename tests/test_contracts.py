"""Contracts: every command's JSON keeps the keys documented in docs/outputs.md, starts with
``schema_version``, writes seeds as strings, and records the strategies' parameter hashes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from simulator.output import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]

#: the documented command (docs/outputs.md) -> a small run of it
RUNS = {
    "odds volley": ["odds", "volley", "--dice", "3", "--hit-on", "5"],
    "odds volley --mc": ["odds", "volley", "--dice", "3", "--hit-on", "5", "--mc", "500"],
    "odds boarding": ["odds", "boarding", "--masts", "3", "--vs", "2"],
    "cove duel": ["cove", "duel", "--ship", "hull=3", "--vs", "captain-hook"],
    "cove duel -n": ["cove", "duel", "--ship", "hull=3", "--vs", "captain-hook", "-n", "500"],
    "cove lethality": ["cove", "lethality"],
    "cove play": ["cove", "play", "-n", "3"],
    "cove card-value": ["cove", "card-value", "-n", "2"],
    "express fleets": ["express", "fleets", "--nation", "american", "--limit", "2"],
    "express battle": [
        "express", "battle", "--fleet", "chinese:5,3,2,1,1", "--vs", "pirates:5,4,2,1", "-n", "5",
    ],
    "express matrix": ["express", "matrix", "-n", "1"],
    "express crew-value": ["express", "crew-value", "-n", "4"],
    "express best-fleet": [
        "express", "best-fleet", "--nation", "viking", "--candidates", "2", "--search-n", "1",
        "--validate-n", "1",
    ],
    "express commanders": ["express", "commanders", "-n", "2", "--scenario-names", "pitched"],
    "hunt play": ["hunt", "play", "-n", "5"],
    "compare": ["compare", "standard", "one-two", "--game", "hunt", "--max-games", "100"],
    "balance": [
        "balance", "--game", "express", "--target", "closeness", "--param",
        "boarding.success_on", "--param", "gunnery.band_hit_on[3]", "--budget", "896",
        "--validation-games", "320", "--seed", "1",
    ],
    "metagame": ["metagame", "--game", "hunt", "--population", "runner,hunter", "-n", "32"],
    "metagame --solver alpha-rank": [
        "metagame", "--game", "hunt", "--population", "runner,hunter", "-n", "32",
        "--solver", "alpha-rank",
    ],
    "report": ["report", "--size", "test", "--game", "hunt", "--out", "{tmp}/rep"],
}  # fmt: skip


def documented() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "outputs.md").read_text(encoding="utf-8")
    part = text.split("## JSON keys", 1)[1]
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", part, flags=re.M)
    return {cmd: [k.strip() for k in keys.split(",")] for cmd, keys in rows}


def documented_nested() -> dict[tuple[str, str], list[str]]:
    """``- `command` `key`: `a, b`` lines of docs/outputs.md: the keys inside an object (or inside
    each item of a list) of a command's JSON."""
    text = (ROOT / "docs" / "outputs.md").read_text(encoding="utf-8")
    rows = re.findall(r"^- `([^`]+)` `([^`]+)`: `([^`]+)`$", text, flags=re.M)
    return {(cmd, key): [k.strip() for k in keys.split(",")] for cmd, key, keys in rows}


DOCUMENTED = documented()
NESTED = documented_nested()


def test_every_documented_command_is_run_here():
    assert set(DOCUMENTED) == set(RUNS)
    assert {cmd for cmd, _ in NESTED} <= set(RUNS) and ("compare", "design") in NESTED


def _seeds(obj, path=""):
    """(path, value) of every seed-like field in a JSON object."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("seed", "entropy", "seed_entropy") and not isinstance(v, (dict, list)):
                yield f"{path}.{k}", v
            yield from _seeds(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _seeds(v, f"{path}[{i}]")


@pytest.mark.parametrize("name", sorted(RUNS))
def test_json_keeps_its_documented_keys(name, tmp_path, monkeypatch):
    """Each run in this process (click's runner; its stdout apart from stderr): a process per
    command cost about a second and a half of start-up each. JSON read from a real process's
    stdout: the commands run as processes in ``test_cli_odds``, ``test_cove_combat_cli``,
    ``test_resume`` and ``test_readme``'s resume pairs."""
    import cli

    args = [a.replace("{tmp}", str(tmp_path)) for a in RUNS[name]]
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli.cli, [*args, "--format", "json", "--quiet"])
    assert res.exit_code == 0, res.stderr[-2000:] + repr(res.exception)
    obj = json.loads(res.stdout)
    assert next(iter(obj)) == "schema_version" and obj["schema_version"] == SCHEMA_VERSION
    missing = [k for k in DOCUMENTED[name] if k not in obj]
    assert not missing, f"{name}: documented keys missing: {missing}"
    for where, value in _seeds(obj):
        assert isinstance(value, str) and value.isdigit(), (where, value)
    for (cmd, key), keys in NESTED.items():
        if cmd == name:
            items = obj[key] if isinstance(obj[key], list) else [obj[key]]
            assert items, f"{name}: {key} is empty"
            for item in items:
                gone = [k for k in keys if k not in item]
                assert not gone, f"{name}: documented keys missing in {key}: {gone}"
    if name in ("cove play", "hunt play"):
        hashes = obj["provenance"]["strategy_hashes"]
        assert set(hashes) == set(obj["strategies"]) and all(len(h) == 12 for h in hashes.values())


# --------------------------------------------------------------------------------------------
# The Python API (docs/python.md): its public names and the columns of the tables it returns

#: every public name, by module (a change here is a change a notebook must follow: CHANGELOG)
PUBLIC_NAMES = {
    "simulator.api": {
        "GAMES", "BalanceSearch", "DiceOdds", "DuelOdds", "Equilibrium", "Lethality", "Metagame",
        "PayoffTable", "PlayResult", "Tuning", "UserError", "balance", "boarding", "duel",
        "equilibrium", "kinds", "lethality", "load", "metagame", "play", "strategies",
        "table_from_function", "tune", "volley",
    },
    "reports.api": {"Comparison", "compare"},
}  # fmt: skip


def _rps(x: str, opp: tuple[str, ...]) -> float:
    beats = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
    return 1.0 if beats[x] == opp[0] else 0.0 if beats[opp[0]] == x else 0.5


def _api_tables() -> dict[str, Callable[[], pd.DataFrame]]:
    """docs/python.md's table name -> a function making that table by a small call (each test
    makes one)."""
    from reports import api as reports_api
    from simulator import api

    def play():
        return api.play("hunt", n=6, seed=1)

    def table():
        return api.table_from_function(["rock", "paper", "scissors"], 2, _rps)

    def meta():
        return api.metagame("hunt", ["runner", "hunter"], n=32, seed=1)

    def cmp():
        return reports_api.compare("standard", "one-two", game="hunt", max_games=20, seed=1)

    return {
        "PlayResult.seats": lambda: play().seats,
        "PlayResult.intervals()": lambda: play().intervals(),
        'PlayResult.intervals("seat")': lambda: play().intervals("seat"),
        "strategies()": lambda: api.strategies("cove"),
        "kinds()": lambda: api.kinds("hunt"),
        "volley().table": lambda: api.volley(3, 5).table,
        "volley(mc=...).table": lambda: api.volley(3, 5, mc=100, seed=1).table,
        "boarding().table": lambda: api.boarding(3, 2).table,
        "duel().table": lambda: api.duel("hull=3", "captain-hook").table,
        "lethality().table": lambda: api.lethality(["hull=3"]).table,
        "tune().validation": lambda: api.tune(
            "hunt", "hunter", budget=896, validation_games=32, against=["runner"], players=2,
            seed=1,
        ).validation,
        "table_from_function().matrix()": lambda: table().matrix(),
        "equilibrium().weights": lambda: api.equilibrium(table()).weights,
        "equilibrium().equilibria": lambda: api.equilibrium(table()).equilibria,
        "metagame().strategies": lambda: meta().strategies,
        'metagame(solver="alpha-rank").strategies': lambda: api.metagame(
            "hunt", ["runner", "hunter"], n=32, seed=1, solver="alpha-rank"
        ).strategies,
        "metagame().payoffs": lambda: meta().payoffs,
        "metagame().iterations": lambda: meta().iterations,
        "balance().candidates": lambda: api.balance(
            "express", "closeness", params=["boarding.success_on"], budget=896,
            validation_games=320, seed=1,
        ).candidates,
        "compare().metrics": lambda: cmp().metrics,
        "compare().looks": lambda: cmp().looks,
    }  # fmt: skip


def documented_tables() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    part = text.split("## Tables and their columns", 1)[1]
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", part, flags=re.M)
    return {name: [c.strip() for c in cols.split(",")] for name, cols in rows}


API_TABLES = documented_tables()


def test_the_public_names_are_pinned_and_documented():
    import importlib

    text = (ROOT / "docs" / "python.md").read_text(encoding="utf-8")
    for modname, names in PUBLIC_NAMES.items():
        module = importlib.import_module(modname)
        assert set(module.__all__) == names, modname
        assert all(hasattr(module, n) for n in names)
        missing = [n for n in names if f"`{n}" not in text and f"{n}(" not in text]
        assert not missing, f"docs/python.md does not mention {missing}"


def test_every_documented_api_table_is_made_here():
    assert set(API_TABLES) == set(_api_tables())


@pytest.mark.parametrize("name", sorted(API_TABLES))
def test_api_tables_keep_their_documented_columns(name):
    df = _api_tables()[name]()
    cols = API_TABLES[name]
    if name == "PlayResult.seats":  # the protocol's columns first, then the game's own
        assert list(df.columns[: len(cols)]) == cols
    else:
        assert list(df.columns) == cols
