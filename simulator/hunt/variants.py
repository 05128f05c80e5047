"""The nine printed variants as overlay files, and how several of them combine.

Each file in ``scenarios/hunt/variants/`` is a scenario that ``extends`` the base game (or the
double board). It loads on its own with :func:`scenarios.load_scenario`. To combine variants,
:func:`load_hunt` takes, for each variant, what its merged file changes relative to
``standard.toml`` (its *delta*), and applies the deltas in order on top of the base scenario (the
user's ``--scenario`` file or ``standard``). Two variants that set the same rule to different
values (enemy and contrary-wind kingdoms; devil's island and the fleet start) cannot be combined:
that is a one-line ``ScenarioError``. Combinations the schema forbids (kingdoms on the double
board...) fail in :meth:`HuntRules.validate` with the same kind of message.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scenarios.loader import (
    RESERVED_KEYS,
    SCENARIO_ROOT,
    Scenario,
    ScenarioError,
    content_hash,
    convert_dataclass,
    deep_merge,
    load_scenario,
    read_merged,
)
from simulator.hunt.rules import HuntRules

HUNT_DIR = SCENARIO_ROOT / "hunt"
VARIANT_DIR = HUNT_DIR / "variants"


def variant_names() -> tuple[str, ...]:
    """Names accepted by ``--variant`` (the file stems in ``scenarios/hunt/variants``)."""
    return tuple(sorted(p.stem for p in VARIANT_DIR.glob("*.toml")))


def variant_path(name: str) -> Path:
    names = variant_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ScenarioError(
            None, "--variant", f"unknown variant {name!r} (allowed: {', '.join(names)}){hint}"
        )
    return VARIANT_DIR / f"{name}.toml"


def _delta(base: Mapping[str, Any], merged: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Leaf keys (dotted) whose value in ``merged`` differs from ``base``."""
    out: dict[str, Any] = {}
    for key, value in merged.items():
        if not prefix and key in RESERVED_KEYS:
            continue
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and isinstance(base.get(key), Mapping):
            out.update(_delta(base[key], value, path + "."))
        elif key not in base or base[key] != value:
            out[path] = value
    return out


def _nest(delta: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, value in delta.items():
        *parents, leaf = path.split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def load_hunt(scenario: str | Path | None = None, variants: Sequence[str] = ()) -> Scenario:
    """Load the base game (or ``scenario``) with the named variants applied, in order.

    Raises:
        ScenarioError: unknown variant, two variants that contradict each other, or a
            combination the rules do not allow.
    """
    base = load_scenario(scenario, HuntRules)
    if not variants:
        return base
    standard, _ = read_merged(HUNT_DIR / "standard.toml", "hunt")
    merged = dict(base.raw)
    chain = list(base.chain)
    setter: dict[str, tuple[str, Any]] = {}
    for name in dict.fromkeys(variants):
        path = variant_path(name)
        vmerged, _vchain = read_merged(path, "hunt")
        delta = _delta(standard, vmerged)
        for key, value in delta.items():
            if key in setter and setter[key][1] != value:
                other = setter[key][0]
                raise ScenarioError(
                    path,
                    key,
                    f"variants {other!r} and {name!r} set it differently "
                    f"({setter[key][1]!r} vs {value!r}); "
                    f"they cannot be combined",
                )
            setter[key] = (name, value)
        merged = deep_merge(merged, _nest(delta))
        chain.append(str(path))
    label = "+".join([base.name, *dict.fromkeys(variants)])
    merged["name"] = label
    body = {k: v for k, v in merged.items() if k not in RESERVED_KEYS}
    try:
        rules = convert_dataclass(body, HuntRules, label)
    except ScenarioError as exc:
        raise ScenarioError(f"variants {label}", exc.key, exc.problem) from None
    return Scenario(
        game="hunt",
        name=label,
        rules_version=base.rules_version,
        content_hash=content_hash(merged),
        path=base.path,
        chain=tuple(chain),
        rules=rules,
        raw=types.MappingProxyType(merged),
    )
