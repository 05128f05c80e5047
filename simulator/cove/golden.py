"""Golden playthroughs: whole games recorded as dice and decisions, replayed exactly.

A golden file ``tests/data/cove_golden_<name>.json`` holds the case (players, strategies, the
seed that produced it -- for regeneration only), every d6 face and shuffle permutation the engine
drew, every decision every player made (``[seat, kind, choice]``, battle decisions included) and
the final state. :func:`replay` plays the game again from the dice and decisions alone (no
generator, no player code) and returns the final state, which must be identical.

Regenerate (and review the diff) with::

    python -m simulator.cove.game --regenerate-goldens

The search player's case (:data:`COMPILED_CASES`) takes its decisions from the compiled engine
(:mod:`simulator.cove.fast.rollout`: its rollouts draw their own numbers, issue 28): the compiled
game is played from the seed with its trace on, and the readable game replays those decisions on
the same dice stream to record the dice and the final state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scenarios.loader import load_scenario
from simulator.cove.dice import ReplayDice
from simulator.cove.game import Game
from simulator.cove.players import ReplayCursor, ReplayPlayer, make_player
from simulator.cove.rules import CoveRules
from simulator.runner import Block

DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data"

#: name -> (scenario file or None, strategies by seat, seed used to generate it)
CASES: dict[str, tuple[str | None, tuple[str, ...], int]] = {
    # the issue-13 baselines (*-v1): these four replay the decisions recorded before the improved
    # players existed, which proves the baselines play exactly as the old code did
    "three_players": (None, ("brawler-v1", "plunderer-v1", "balanced-v1"), 101),
    "four_players": (None, ("plunderer-v1", "brawler-v1", "tavern-v1", "balanced-v1"), 202),
    "five_players_random": (
        None,
        ("random", "tavern-v1", "random", "brawler-v1", "balanced-v1"),
        303,
    ),
    "artisan_per_section": (
        "scenarios/cove/artisan-per-section.toml",
        ("tavern-v1", "tavern-v1", "brawler-v1", "random"),
        404,
    ),
    # the improved players (issue 13): the default mix, and a table with the search player
    "four_players_improved": (None, ("plunderer", "brawler", "tavern", "balanced"), 505),
    "three_players_rollout": (None, ("rollout", "brawler", "tavern"), 606),
}


#: cases whose decisions the compiled engine takes (the search player's); the readable game
#: replays them to record the dice
COMPILED_CASES = ("three_players_rollout",)


def compiled_decisions(rules, names, deal: Block) -> list:
    """The compiled game's decisions on ``deal`` (the readable trace format)."""
    from simulator.cove.fast.engine import FastGames

    ch = FastGames(rules, names).play([names], [deal], trace=True)
    return json.loads(json.dumps(ch.trace(0)))


def final_state(game: Game, result) -> dict[str, Any]:
    """Everything that identifies how a game ended."""
    return {
        "seats": [
            {
                "fame": s.fame,
                "fame_src": s.fame_src,
                "gold": s.gold,
                "chests": s.chests,
                "ring": list(s.ring),
                "hand": sorted(s.hand),
                "parrot": s.parrot,
                "artisans": {str(k): v for k, v in sorted(s.artisans.items())},
                "battles": s.battles,
                "routed": s.routed,
                "fled": s.fled,
                "pirates_sunk": s.pirates_sunk,
            }
            for s in game.seats
        ],
        "bank": [game.bank_gold, game.bank_chests],
        "tavern_deck": list(game.tavern_deck),
        "tavern_discard": sorted(game.tavern_discard),
        "black_ships": [list(b) for b in game.black_ships],
        "battles": [dict(b) for b in result.battles],
        "winners": list(result.winners),
        "tie": result.tie,
        "duel": result.duel,
    }


def _rules(scenario: str | None):
    root = Path(__file__).resolve().parents[2]
    return load_scenario(None if scenario is None else root / scenario, CoveRules).rules


def record(name: str) -> dict[str, Any]:
    """Play case ``name`` from its seed, recording dice and decisions."""
    from simulator.cove.dice import GameDice

    scenario, names, seed = CASES[name]
    rules = _rules(scenario)
    deal = Block(index=0, start=0, size=1, entropy=seed)  # deal 0 of a run with this seed
    cursor = None
    if name in COMPILED_CASES:
        cursor = ReplayCursor(compiled_decisions(rules, names, deal))
        players = [ReplayPlayer(i, cursor) for i in range(len(names))]
    else:
        players = [make_player(rules, nm, deal.rng("players", i)) for i, nm in enumerate(names)]
    trace: list = []
    dice = GameDice(deal.rng("dice"), record=True)
    game = Game(rules, players, dice, trace=trace, check_invariants=True)
    result = game.play()
    replayed = json.loads(json.dumps(trace))
    if cursor is not None and (cursor.i != len(cursor.trace) or replayed != cursor.trace):
        raise AssertionError(f"{name}: the readable game did not replay the compiled decisions")
    return {
        "case": name,
        "scenario": scenario,
        "strategies": list(names),
        "seed": seed,
        "faces": dice.faces,
        "perms": dice.perms,
        "decisions": json.loads(json.dumps(trace)),
        "final": json.loads(json.dumps(final_state(game, result))),
    }


def replay(data: dict[str, Any]) -> tuple[dict[str, Any], ReplayDice, ReplayCursor]:
    """Replay a recorded game from its dice and decisions only; returns the final state."""
    rules = _rules(data["scenario"])
    cursor = ReplayCursor(data["decisions"])
    players = [ReplayPlayer(i, cursor) for i in range(len(data["strategies"]))]
    dice = ReplayDice(data["faces"], data["perms"])
    game = Game(rules, players, dice, check_invariants=True)
    result = game.play()
    return json.loads(json.dumps(final_state(game, result))), dice, cursor


def path_for(name: str) -> Path:
    return DATA_DIR / f"cove_golden_{name}.json"


def regenerate() -> list[Path]:
    """Rewrite every golden file from its seed."""
    out = []
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        data = record(name)
        p = path_for(name)
        p.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        out.append(p)
    return out
