"""Contracts: every command's JSON keeps the keys documented in docs/outputs.md, starts with
``schema_version``, writes seeds as strings, and records the strategies' parameter hashes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
def test_json_keeps_its_documented_keys(name, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in RUNS[name]]
    res = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args, "--format", "json", "--quiet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-2000:]
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
