"""Report section "Les Pirates": seat advantage, game length and stalemates, each variant vs the
base.

Games come from :func:`simulator.hunt.api.play` (the game protocol). The base game is played with
the four scripted strategies rotated through the seats (so seat and strategy effects separate).
Each printed variant is played by ``runner`` players on the same seeds as a base run with the same
player count (common random numbers), and the paired differences give 95% intervals and p-values,
Holm-corrected over every variant and measure of the table.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.html import Section
from reports.sections.common import (
    rate_table,
    scenario_row,
    seat_advantage,
)
from scenarios.loader import ScenarioError
from simulator.hunt import api
from simulator.hunt import variants as hunt_variants
from simulator.sequential import holm

TITLE = "Les Pirates"
BASE_GAMES = {"test": 16, "quick": 200, "standard": 5_000, "full": 50_000}
VARIANT_GAMES = {"test": 8, "quick": 100, "standard": 2_000, "full": 20_000}
MIX = ("runner", "hunter", "guard", "random")
VARIANT_LABELS = {
    "contrary-winds": "contrary-wind kingdoms",
    "cyclone": "cyclone",
    "devils-island": "devil's island",
    "double-board": "double board",
    "enemy-kingdoms": "enemy kingdoms",
    "fire-ship": "fire ship",
    "fleet": "fleet",
    "one-two": "one-two",
    "shipwreck": "shipwreck",
}


def _paired(base: np.ndarray, var: np.ndarray) -> dict:
    """Paired mean difference (variant - base) with a t 95% interval and two-sided p-value."""
    d = var - base
    n = d.size
    mean = float(d.mean()) if n else math.nan
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    if se and math.isfinite(se):
        t = float(sps.t.isf(0.025, n - 1))
        p = float(2 * sps.t.sf(abs(mean / se), n - 1))
    else:  # every paired difference identical
        t, p = 0.0, (1.0 if mean == 0 else 0.0)
        se = 0.0 if n > 1 else math.nan
    return {"difference": mean, "ci_low": mean - t * se, "ci_high": mean + t * se, "p_value": p}


def _per_game(games: pd.DataFrame) -> pd.DataFrame:
    g = games.groupby("game")
    first = games[games["seat"] == 1]
    return pd.DataFrame(
        {
            "first_seat_won": (first["outcome"] == "win")
            .groupby(first["game"])
            .mean()
            .astype(float),
            "turns": g["turns"].first().astype(float),
            "stalemate": g["stalemate"].first().astype(float),
            "sinkings": g["sinkings"].first().astype(float),
        }
    ).sort_index()


def build(ctx, seed: int) -> Section:
    from reports import figures

    variants_mod = hunt_variants
    files = ctx.scenarios.get("hunt") or [None]
    base = api.load(files[0])
    sec = Section("hunt", TITLE)
    sec.scenarios.append(scenario_row(base))
    n_players = int(base.rules.default_players)
    mix = list(MIX[:n_players]) if n_players <= len(MIX) else ["runner"] * n_players
    n = BASE_GAMES[ctx.size]
    games = api.play(
        base, mix, n=n, seed=seed, jobs=ctx.jobs, rotate_seats=True, quiet=True, players=n_players
    ).seats.copy()
    # a game nobody wins (stalemate) counts as a win for nobody here
    games["won"] = (games["outcome"] == "win").astype(float)
    sec.text(
        f"{n:,} games of the base game ('{base.name}', rules {base.rules_version}) with "
        f"{n_players} players, the strategies {', '.join(mix)} rotated through the seats "
        "(each sits in each seat equally often). "
        f"A game that reaches the turn limit ({base.rules.max_turns} player turns) is a stalemate. "
        "Intervals are 95% Wilson intervals for rates and normal intervals for means."
    )
    seat_advantage(
        ctx,
        sec,
        games,
        "won",
        stem="hunt_seat_advantage",
        n_players=n_players,
        n_games=n,
        title="Win rate by seat (1 = moves first)",
        caption="Does moving first help? Win rate by seat in the base game.",
        table_title="Win rate by seat (1 = first to move).",
    )
    strat = rate_table(games, ["strategy"], "won")
    ctx.figure(
        sec,
        "hunt_strategy_win_rates",
        figures.rates_with_intervals(
            strat,
            label="strategy",
            title="Win rate by player strategy",
            xlabel="games won",
            reference=1 / n_players,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption="Win rate of each scripted player (seats rotated).",
        csv="hunt_strategy_win_rates",
        n=f"{n:,} games, {int(strat['n'].iloc[0]):,} seats per strategy",
        n_value=n,
    )
    sec.table("hunt_strategy_win_rates", strat, "Win rate by strategy.", key=("strategy",))

    per_game = _per_game(games).reset_index()
    length = pd.DataFrame(
        [
            {
                "scenario": base.name,
                "games": len(per_game),
                "mean_turns": per_game["turns"].mean(),
                "turns_p50": per_game["turns"].quantile(0.5),
                "turns_p90": per_game["turns"].quantile(0.9),
                "stalemates": int(per_game["stalemate"].sum()),
                "stalemate_rate": per_game["stalemate"].mean(),
                "sinkings_per_game": per_game["sinkings"].mean(),
            }
        ]
    )
    from simulator.stats import wilson_interval

    lo, hi = wilson_interval(length["stalemates"].iloc[0], length["games"].iloc[0])
    length["stalemate_ci_low"], length["stalemate_ci_high"] = lo, hi
    _, lo, hi = (per_game["turns"].mean(), *_mean_ci(per_game["turns"]))
    length["mean_turns_ci_low"], length["mean_turns_ci_high"] = lo, hi
    ctx.figure(
        sec,
        "hunt_game_length",
        figures.histogram(
            per_game,
            x="turns",
            hue=None,
            title="Game length in the base game",
            xlabel="player turns until someone brings a treasure home",
        ),
        caption="Distribution of game length (player turns) in the base game.",
        csv="hunt_games",
        n=f"{n:,} games",
        n_value=n,
    )
    sec.table(
        "hunt_game_length",
        length,
        "Game length and stalemates in the base game.",
        key=("scenario",),
    )
    sec.data("hunt_games", per_game, key=("game",))

    _variants(ctx, sec, api, variants_mod, base, files[0], seed)
    return sec


def _seats(rules, players: int) -> bool:
    """Whether the base scenario can seat ``players`` (so a variant can be paired with it)."""
    counts = getattr(rules, "player_counts", None)
    if counts is None:
        seats = rules.seats
        counts = [int(k) for k in seats] if hasattr(seats, "keys") else [len(x) for x in seats]
    return players in counts


def _mean_ci(x: pd.Series) -> tuple[float, float]:
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
    return m - 1.959964 * se, m + 1.959964 * se


def _variants(ctx, sec: Section, api, variants_mod, base, base_file, seed: int) -> None:
    from reports import figures

    n = VARIANT_GAMES[ctx.size]
    names = list(variants_mod.variant_names())
    rows, notes = [], []
    base_cache: dict[int, pd.DataFrame] = {}
    vseed = seed ^ 0x5EED  # a different stream from the mixed-strategy base run above
    for name in names:
        try:
            scen = api.load(base_file, [name])
        except ScenarioError as exc:  # a variant that cannot sit on the user's base scenario
            notes.append(f"{name}: not played ({str(exc).splitlines()[0]})")
            continue
        sec.scenarios.append(scenario_row(scen))
        players = int(scen.rules.default_players)
        var_games = api.play(
            scen, ["runner"], n=n, seed=vseed, jobs=ctx.jobs, quiet=True, players=players
        ).seats
        var = _per_game(var_games)
        paired_base = None
        if _seats(base.rules, players):
            if players not in base_cache:
                b_games = api.play(
                    base, ["runner"], n=n, seed=vseed, jobs=ctx.jobs, quiet=True, players=players
                ).seats
                base_cache[players] = _per_game(b_games)
            paired_base = base_cache[players]
        for measure, col in (
            ("first-seat win rate", "first_seat_won"),
            ("game length (turns)", "turns"),
            ("stalemate rate", "stalemate"),
        ):
            row = {
                "variant": VARIANT_LABELS.get(name, name),
                "variant_file": name,
                "players": players,
                "measure": measure,
                "games": n,
                "variant_value": float(var[col].mean()),
            }
            if paired_base is not None:
                row["base_value"] = float(paired_base[col].mean())
                row.update(_paired(paired_base[col].to_numpy(), var[col].to_numpy()))
            else:
                row.update(
                    base_value=math.nan,
                    difference=math.nan,
                    ci_low=math.nan,
                    ci_high=math.nan,
                    p_value=math.nan,
                )
            rows.append(row)
        if paired_base is None:
            notes.append(
                f"{name}: {players} players, which the base scenario does not seat; "
                "shown without a paired base"
            )
    if not rows:
        sec.text("No variant could be played on this base scenario.", "warning")
        return
    table = pd.DataFrame(rows)
    has_p = table["p_value"].notna()
    table["p_holm"] = math.nan
    if has_p.any():
        table.loc[has_p, "p_holm"] = holm(table.loc[has_p, "p_value"].tolist())
    table["difference_detected"] = table["p_holm"] <= 0.05
    sec.text(
        f"Each printed variant, {n:,} games with 'runner' players, against the base game with the "
        "same number of players on the same seeds (game i of both uses the same dice stream until "
        "the rules make them diverge). Differences are variant minus base with 95% t intervals "
        "from the paired games; p-values are Holm-corrected over every variant and measure in the "
        "table. A variant without a detected difference may still change the game by less than "
        "this n can see (`broadside compare BASE VARIANT --game hunt` runs a sequential test to a "
        "chosen size)."
    )
    for note in notes:
        sec.text(note, "note")
    same = table.groupby("variant_file").apply(
        lambda g: bool(
            g["difference"].notna().all()
            and (g["difference"] == 0).all()
            and (g["ci_low"] == 0).all()
            and (g["ci_high"] == 0).all()
        ),
        include_groups=False,
    )
    for name in same[same].index:
        sec.text(
            f"{VARIANT_LABELS.get(name, name)}: every paired game came out exactly as in the base "
            "game, so the variant's rule apparently never came into play for these players "
            "(not a measured zero effect).",
            "note",
        )
    paired = table[table["difference"].notna()]
    panels: list = []
    scales: list = []
    if not paired.empty:
        wide = paired.pivot_table(
            index="variant",
            columns="measure",
            values=["difference", "ci_low", "ci_high"],
            sort=False,
        )
        wide.columns = [f"{a}|{b}" for a, b in wide.columns]
        wide = wide.reset_index()
        for measure, label, sc in (
            ("first-seat win rate", "change in first-seat win rate (points)", 100.0),
            ("game length (turns)", "change in game length (turns)", 1.0),
            ("stalemate rate", "change in stalemate rate (points)", 100.0),
        ):
            cols = [f"difference|{measure}", f"ci_low|{measure}", f"ci_high|{measure}"]
            if (
                cols[0] in wide and (wide[cols].abs() > 0).to_numpy().any()
            ):  # skip a panel that is all zero
                panels.append(
                    (f"difference|{measure}", f"ci_low|{measure}", f"ci_high|{measure}", label)
                )
                scales.append(sc)
    if panels:
        ctx.figure(
            sec,
            "hunt_variants_vs_base",
            figures.forest(
                wide,
                label="variant",
                panels=panels,
                scale=scales,
                title="Each variant against the base game (95% intervals)",
            ),
            caption="What each printed variant changes compared with the base game, with 95% "
            "intervals from paired games; the dashed line is no change.",
            csv="hunt_variants_vs_base",
            n=f"{n:,} paired games per variant",
            n_value=n,
        )
    sec.table(
        "hunt_variants_vs_base",
        table,
        "Each variant against the base game.",
        key=("variant_file", "measure"),
    )
