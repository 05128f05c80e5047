"""Strategy overlays written by ``broadside tune``: a scenario file that ``extends`` the base the
strategy was tuned on, records the base's content hash (``base_hash``: the loader refuses the
overlay on any other base) and defines the tuned strategy with its ``tuned`` table.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from scenarios import writer
from scenarios.loader import GAMES, SCENARIO_ROOT, ScenarioError
from scenarios.strategies import seat_fields


def base_reference(base_path: str | Path, out_dir: str | Path, game: str) -> str:
    """How an overlay in ``out_dir`` names its base in ``extends`` (the loader looks in the
    overlay's folder, then the game's ``scenarios/`` folder); a one-line error when neither can
    reach it."""
    base = Path(base_path).resolve()
    out = Path(out_dir).resolve()
    if game in GAMES:
        folder = (SCENARIO_ROOT / game).resolve()
        if base.is_relative_to(folder):
            ref = base.relative_to(folder).with_suffix("")
            if not (out / f"{ref}.toml").exists() and not (out / ref).exists():
                return ref.as_posix()
    if base.is_relative_to(out):
        return base.relative_to(out).as_posix()
    raise ScenarioError(
        base_path,
        None,
        f"the overlay written to {out_dir} could not extend it (allowed: a built-in scenario "
        f"of {game}, or a scenario file inside the --out folder)",
    )


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not None
        }
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def overlay_text(scenario: Any, base_ref: str, name: str, decl: Any, header: str = "") -> str:
    """The TOML text of an overlay of ``scenario`` defining strategy ``name`` as ``decl``."""
    table: dict[str, Any] = {"kind": decl.kind}
    if decl.description:
        table["description"] = decl.description
    table["params"] = dict(decl.params)
    for key, value in seat_fields(decl).items():  # Pirates express: nation, fleet
        table[key] = _plain(value)
    if decl.tuned is not None:
        table["tuned"] = _plain(decl.tuned)
    data = {
        "game": scenario.game,
        "rules_version": scenario.rules_version,
        "name": f"{scenario.name} + {name}",
        "extends": base_ref,
        "base_hash": scenario.content_hash,
        "strategies": {name: table},
    }
    return writer.dumps(data, header)
