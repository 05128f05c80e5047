"""The shared parameter-space schema (scenarios/strategies.py): declarations, inheritance,
strategy values, and one-line errors naming the key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from scenarios.loader import FrozenMap, ScenarioError, convert_dataclass
from scenarios.strategies import (
    KindDecl,
    StrategyDecl,
    param_space,
    resolve_params,
    root_kind,
    search_space,
    validate_strategies,
)


@dataclass(frozen=True, slots=True)
class _Rules:
    kinds: Mapping[str, KindDecl] = field(default_factory=FrozenMap)
    strategies: Mapping[str, StrategyDecl] = field(default_factory=FrozenMap)
    default_mix: tuple[str, ...] = ()

    def validate(self) -> None:
        validate_strategies(self.kinds, self.strategies, ("heuristic", "random"), self.default_mix)


def _base() -> dict:
    return {
        "kinds": {
            "heuristic": {
                "description": "scores options",
                "params": {
                    "w": {"type": "float", "range": [0.0, 3.0], "default": 1.0},
                    "k": {"type": "int", "range": [0, 5], "default": 2},
                    "plan": {"type": "choice", "choices": ["a", "b"], "default": "a"},
                    "on": {"type": "bool", "default": True, "fixed": True},
                    "s": {"type": "float", "range": [0.01, 10.0], "default": 1.0, "log": True},
                },
            },
            "brawler": {"extends": "heuristic", "defaults": {"k": 4}},
            "random": {},
        },
        "strategies": {
            "b": {"kind": "brawler", "params": {"w": 2.5}},
            "h": {"kind": "heuristic"},
            "r": {"kind": "random"},
        },
        "default_mix": ["b", "h", "r"],
    }


def _load(data: dict) -> _Rules:
    return convert_dataclass(data, _Rules, "x.toml")


def test_space_inherits_and_overrides_defaults():
    rules = _load(_base())
    space = param_space(rules.kinds, "brawler")
    assert space["k"].default == 4 and space["w"].default == 1.0
    assert root_kind(rules.kinds, "brawler") == "heuristic"
    values = resolve_params(rules.kinds, rules.strategies["b"])
    assert values == {"w": 2.5, "k": 4, "plan": "a", "on": True, "s": 1.0}
    assert type(values["k"]) is int
    assert "on" not in search_space(rules.kinds, "brawler")


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        (
            lambda d: d["strategies"]["b"]["params"].update(ww=1),
            "strategies.b.params.ww",
            "did you mean 'w'",
        ),
        (lambda d: d["strategies"]["b"]["params"].update(w=9), "strategies.b.params.w", "0..3"),
        (lambda d: d["strategies"]["b"]["params"].update(k=1.5), "strategies.b.params.k", "whole"),
        (
            lambda d: d["strategies"]["b"]["params"].update(plan="c"),
            "strategies.b.params.plan",
            "'a'",
        ),
        (
            lambda d: d["strategies"]["b"].update(kind="brawlr"),
            "strategies.b.kind",
            "did you mean 'brawler'",
        ),
        (lambda d: d.update(default_mix=["b", "x"]), "default_mix[1]", "unknown strategy 'x'"),
        (
            lambda d: d["kinds"]["heuristic"]["params"]["w"].pop("range"),
            "kinds.heuristic.params.w.range",
            "needs range",
        ),
        (
            lambda d: d["kinds"]["heuristic"]["params"]["w"].update(default=7.0),
            "kinds.heuristic.params.w.default",
            "out of range",
        ),
        (
            lambda d: d["kinds"]["heuristic"]["params"]["s"].update(range=[0.0, 1.0]),
            "kinds.heuristic.params.s.log",
            "low > 0",
        ),
        (
            lambda d: d["kinds"]["brawler"]["defaults"].update(zz=1),
            "kinds.brawler.defaults.zz",
            "unknown parameter",
        ),
        (
            lambda d: d["kinds"]["brawler"].update(params={"w": {"type": "bool", "default": True}}),
            "kinds.brawler.params.w",
            "already declared",
        ),
        (
            lambda d: d["kinds"].update(ghost={"description": "no code"}),
            "kinds.ghost",
            "implemented",
        ),
        (lambda d: d["kinds"]["heuristic"].update(extends="brawler"), "kinds.", "circular"),
    ],
)
def test_bad_declarations_name_the_key(edit, key, words):
    data = _base()
    edit(data)
    with pytest.raises(ScenarioError) as info:
        _load(data)
    msg = str(info.value)
    assert msg.startswith("x.toml: "), msg
    assert key in msg and words in msg, msg
    assert "\n" not in msg


def test_with_strategies_adds_validated_strategies_and_changes_the_hash():
    from dataclasses import replace

    from scenarios.loader import Scenario
    from scenarios.strategies import strategy_hash, with_strategies

    rules = _load(_base())
    scen = Scenario("x", "x", "1", "h0", "x.toml", ("x.toml",), rules, FrozenMap(_base()))
    extra = {"b2": StrategyDecl(kind="brawler", params=FrozenMap({"w": 0.5}))}
    new = with_strategies(scen, extra)
    assert set(new.rules.strategies) == {"b", "h", "r", "b2"}
    assert resolve_params(new.rules.kinds, new.rules.strategies["b2"])["w"] == 0.5
    assert new.content_hash != scen.content_hash
    assert strategy_hash(extra["b2"]) != strategy_hash(rules.strategies["b"])
    assert strategy_hash(extra["b2"]) == strategy_hash(replace(extra["b2"]))
    with pytest.raises(ScenarioError, match=r"strategies\.bad\.params\.w"):
        with_strategies(scen, {"bad": StrategyDecl(kind="brawler", params=FrozenMap({"w": 99}))})


def test_a_reference_strategy_is_data_and_never_sits_in_the_default_mix():
    """`reference = true` marks a floor player (random): read from the declaration, left out of
    the strategy hash (it plays the same), and refused in default_mix in one line naming the
    key and the real strategies allowed."""
    from dataclasses import replace

    from scenarios.strategies import is_reference, strategy_hash

    data = _base()
    data["strategies"]["r"]["reference"] = True
    data["default_mix"] = ["b", "h"]
    rules = _load(data)
    assert is_reference(rules.strategies["r"]) and not is_reference(rules.strategies["b"])
    r = rules.strategies["r"]
    assert strategy_hash(r) == strategy_hash(replace(r, reference=False))
    data["default_mix"] = ["b", "r"]
    with pytest.raises(ScenarioError) as info:
        _load(data)
    msg = str(info.value)
    assert "default_mix[1]" in msg and "reference player" in msg, msg
    assert "allowed: b, h" in msg and "\n" not in msg
