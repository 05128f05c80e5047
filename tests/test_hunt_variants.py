"""Every Les Pirates variant file: loads, plays 1,000 seeded games with the invariant checker on,
and changes what it should. Combinations that make no sense are refused."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from scenarios.loader import ScenarioError, load_scenario
from simulator.hunt.api import play
from simulator.hunt.rules import HuntRules
from simulator.hunt.variants import VARIANT_DIR, load_hunt, variant_names

N_GAMES = 1000
MIX4 = ["runner", "hunter", "guard", "random"]
MIX2 = ["hunter", "runner"]
MIX6 = ["runner", "hunter", "guard", "random", "runner", "hunter"]


def strategies_for(rules):
    if rules.kingdoms.mode != "none":
        return MIX2
    return MIX6 if rules.default_players == 6 else MIX4


@functools.cache
def run(variant: str, engine: str = "fast", n: int = N_GAMES):
    sc = load_hunt(None, [variant] if variant else [])
    result = play(
        sc, strategies_for(sc.rules), n=n, seed=20240, engine=engine, check=True, chunk_size=200
    )
    games, summary = result.seats, result.summary
    per_game = games[games["seat"] == 1]
    return sc, games, per_game, summary


def test_nine_variant_files():
    assert set(variant_names()) == {
        "devils-island",
        "cyclone",
        "double-board",
        "shipwreck",
        "fire-ship",
        "one-two",
        "enemy-kingdoms",
        "contrary-winds",
        "fleet",
    }
    for name in variant_names():
        sc = load_scenario(
            VARIANT_DIR / f"{name}.toml", HuntRules
        )  # each file also loads on its own
        assert sc.rules is not None


@pytest.mark.slow
@pytest.mark.parametrize("variant", [""] + list(variant_names()))
def test_variant_plays_1000_games_without_an_illegal_state(variant):
    sc, games, per_game, summary = run(variant)  # check=True: IllegalState would be raised
    assert summary["n_games"] == N_GAMES
    assert per_game["end"].isin(["win", "stalemate", "draw"]).all()
    wins = (games["outcome"] == "win").groupby(games["game"]).sum()
    assert (wins == (per_game.set_index("game")["end"] == "win").astype(int)).all()
    assert (per_game["turns"] <= sc.rules.max_turns).all()
    assert (
        games["ships_lost"]
        <= sc.rules.ships_per_port * (2 if sc.rules.kingdoms.mode != "none" else 1)
    ).all()


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["", "cyclone", "fire-ship"])
def test_readable_engine_plays_the_first_games_of_the_compiled_run(variant):
    """The engine with the JIT off (``--engine python``) plays the first 12 games of the
    compiled 1,000 exactly: a block's games draw their seeds in order, whatever ``-n``."""
    _, games, _, summary = run(variant, "python", 12)
    _, fast, _, _ = run(variant)
    assert summary["n_games"] == 12
    head = fast[fast["game"] < 12].reset_index(drop=True)
    pd.testing.assert_frame_equal(games.drop(columns="seed"), head.drop(columns="seed"))


@pytest.mark.slow
def test_base_game_has_no_variant_effects():
    _, _, g, _ = run("")
    assert g["loads"].sum() > 0
    assert g[["wrecks", "cyclone_losses", "explosions", "rerolls"]].to_numpy().sum() == 0
    assert (g["max_fleet"] == 1).all()


@pytest.mark.slow
def test_shipwreck_leaves_wrecks():
    _, _, g, _ = run("shipwreck")
    assert g["wrecks"].sum() > 0
    assert (g["wrecks"] <= g["sinkings"] + g["explosions"] * 12).all()


@pytest.mark.slow
def test_cyclone_triples_remove_a_ship_at_the_right_rate():
    """Three equal dice (6/216 per roll) lose a ship: within 4 SE over ~35,000 rolls of 1,000
    games (SE ~0.09 points), so a bias of 0.35 points in the rate (13% relative) fails."""
    _, _, g, _ = run("cyclone")
    losses, rolls = g["cyclone_losses"].sum(), g["turns"].sum()
    p = 6 / 216  # three equal dice
    se = np.sqrt(p * (1 - p) / rolls)
    assert abs(losses / rolls - p) < 4 * se, (losses, rolls)


@pytest.mark.slow
def test_one_two_gives_extra_rolls_at_the_right_rate():
    """A 1 and a 2 (2/36 per roll) give an extra roll: the count lies within 4 SD of Wald's
    bounds over ~35,000 rolls of 1,000 games (SD ~43 of ~1,950), so a bias of 0.5 points in the
    rate fails."""
    _, _, g, _ = run("one-two")
    rerolls = g["rerolls"].sum()
    rolls = g["turns"].sum() + rerolls
    wins = (g["end"] == "win").sum()
    p = 2 / 36
    # by Wald's identity E[1-2 rolls] = p E[rolls]; a 1-2 that wins the game gives no extra roll,
    # and at most one roll per won game is such a final roll
    sd = np.sqrt(p * (1 - p) * rolls)
    assert p * (rolls - wins) - 4 * sd <= rerolls <= p * rolls + 4 * sd, (rerolls, rolls, wins)


@pytest.mark.slow
def test_fire_ships_explode():
    _, _, g, _ = run("fire-ship")
    assert g["explosions"].sum() > 0 and g["exploded"].sum() > 0


@pytest.mark.slow
def test_fleet_keeps_ships_stacked():
    _, _, g, _ = run("fleet")
    assert g["max_fleet"].max() >= 2


@pytest.mark.slow
def test_devils_island_is_shorter_than_the_base_game():
    _, _, base, _ = run("")
    _, _, devil, _ = run("devils-island")
    assert devil["turns"].mean() < base["turns"].mean()


@pytest.mark.slow
@pytest.mark.parametrize(
    "variant, ports", [("enemy-kingdoms", {"1+2", "4+3"}), ("contrary-winds", {"1+3", "2+4"})]
)
def test_kingdoms_two_players_six_ships(variant, ports):
    _, games, _, summary = run(variant)
    assert summary["players"] == 2 and set(games["ports"]) == ports
    assert games["ships_lost"].max() > 3  # six ships each: more than three can be lost


@pytest.mark.slow
def test_double_board_six_players_two_treasures():
    _, games, g, summary = run("double-board")
    assert summary["players"] == 6 and set(games["ports"]) == {"1", "2", "4", "8", "7", "3"}
    assert g["loads"].max() >= 2


@pytest.mark.slow
def test_combinable_variants_play():
    sc = load_hunt(None, ["cyclone", "shipwreck", "one-two", "fire-ship"])
    assert sc.rules.cyclone.enabled and sc.rules.shipwreck.enabled and sc.rules.fire_ship.enabled
    summary = play(sc, MIX4, n=200, seed=1, check=True).summary
    assert summary["n_games"] == 200
    sc2 = load_hunt(None, ["double-board", "devils-island", "fleet"][:2])
    assert sc2.rules.start == "devil" and sc2.rules.num_dice == 4


@pytest.mark.parametrize(
    "combo, needle",
    [
        (["enemy-kingdoms", "contrary-winds"], "kingdoms.mode"),
        (["fleet", "devils-island"], "start"),
        (["enemy-kingdoms", "double-board"], "cannot be combined"),
        (["cyclone", "nope"], "unknown variant"),
    ],
)
def test_incompatible_variants_are_refused(combo, needle):
    with pytest.raises(ScenarioError) as exc:
        load_hunt(None, combo)
    assert needle in str(exc.value) and "\n" not in str(exc.value)
