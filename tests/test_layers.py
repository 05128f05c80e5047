"""The house plan, enforced: every module's imports (top level and inside functions) follow the
allowed arrows of docs/DEVELOPING.md.

Rooms and arrows::

    cli.py  ->  reports/  ->  simulator/api.py  ->  simulator/<game>/  ->  simulator/ (core)
        ->  scenarios/

* ``scenarios/`` (the loader and the shared schemas) imports nothing of ours but itself;
* the core (``simulator/*.py``) never imports a game room or ``reports/``: a game is passed in;
* ``simulator/api.py``, the public Python API, is the one module under ``simulator/`` that may
  import every room (a facade above them, as ``cli.py`` is); nothing under ``simulator/`` imports
  it, and it never imports ``reports/`` (``reports/api.py`` holds what plays through reports);
* a game room (``simulator/cove``, ``express``, ``hunt``) imports the core, ``scenarios/`` and
  itself, never another room and never ``reports/``; inside a room only its command modules
  (``*commands.py``) import ``click``;
* only ``reports/`` imports matplotlib or seaborn;
* nobody loads our modules by name (``importlib.import_module``, ``__import__``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("cove", "express", "hunt")


def modules() -> list[Path]:
    files = [ROOT / "cli.py"]
    for top in ("simulator", "scenarios", "reports"):
        files += sorted((ROOT / top).rglob("*.py"))
    return files


def imports(path: Path) -> list[tuple[str, int]]:
    """Every module named by an import statement in ``path`` (absolute names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.append((name, node.lineno))
            out += [(f"{name}.{alias.name}", node.lineno) for alias in node.names]
    return out


def room_of(path: Path) -> str | None:
    rel = path.relative_to(ROOT).parts
    return rel[1] if rel[0] == "simulator" and len(rel) > 2 and rel[1] in ROOMS else None


def layer_of(path: Path) -> str:
    rel = path.relative_to(ROOT).parts
    if rel[0] == "cli.py":
        return "cli"
    if rel[0] == "simulator":
        if rel[1:] == ("api.py",):
            return "api"
        return "room" if room_of(path) else "core"
    return rel[0]


def violations(path: Path) -> list[str]:
    layer, room = layer_of(path), room_of(path)
    bad = []
    for name, line in imports(path):
        top = name.split(".")[0]
        where = f"{path.relative_to(ROOT)}:{line}"
        target_room = name.split(".")[1] if top == "simulator" and name.count(".") >= 1 else None
        is_room = target_room in ROOMS
        if layer == "scenarios" and top in ("simulator", "reports", "cli"):
            bad.append(f"{where}: scenarios/ imports nothing of the simulator or the studies")
        if layer in ("core", "room", "api") and top in ("reports", "cli"):
            bad.append(f"{where}: nothing under simulator/ imports the studies or the CLI")
        if layer in ("core", "room") and (
            name == "simulator.api" or name.startswith("simulator.api.")
        ):
            bad.append(
                f"{where}: the public API is a facade above the house: nothing under it imports it"
            )
        if layer == "core" and is_room:
            bad.append(f"{where}: the shared core never imports a game room")
        if layer == "room" and is_room and target_room != room:
            bad.append(f"{where}: a game room never imports another room")
        if layer == "room" and top == "click" and not path.name.endswith("commands.py"):
            bad.append(f"{where}: inside a room only the *commands.py modules import click")
        if top in ("matplotlib", "seaborn") and layer != "reports":
            bad.append(f"{where}: only reports/ plots")
        if name in ("importlib.import_module", "importlib.util") or (
            name == "importlib" and ("import_module" in path.read_text(encoding="utf-8"))
        ):
            bad.append(f"{where}: modules are imported normally, never by name")
    text = path.read_text(encoding="utf-8")
    if "__import__(" in text:
        bad.append(f"{path.relative_to(ROOT)}: uses __import__")
    return list(dict.fromkeys(bad))  # ``from a import b`` names a and a.b: one finding each


def test_the_rules_see_every_module_and_room():
    files = modules()
    assert len(files) > 60
    assert {room_of(p) for p in files} >= set(ROOMS)
    assert {layer_of(p) for p in files} == {"cli", "core", "room", "api", "scenarios", "reports"}


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_house_plan(path):
    assert violations(path) == []


def test_the_checker_catches_a_forbidden_arrow(tmp_path, monkeypatch):
    """The rules fail on a module that breaks them (so the test above can fail)."""
    fake_root = tmp_path
    room = fake_root / "simulator" / "cove"
    room.mkdir(parents=True)
    bad = room / "players.py"
    bad.write_text(
        "import click\nfrom reports import html\nfrom simulator.hunt import api\n"
        "from simulator import api as public\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    found = violations(bad)
    assert len(found) == 4, found
