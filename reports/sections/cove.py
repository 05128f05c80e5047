"""Report section "Pirate's Cove": strategies, seats, fame by source, Legendary Pirates, Tavern
cards.

Full games come from :func:`simulator.cove.api.play`, the game protocol (seats rotated, so seat and
strategy effects separate); the exact lethality table from :mod:`simulator.cove.lethality` when
that module is in the build.
"""

from __future__ import annotations

import pandas as pd

from reports.html import Section
from reports.sections.common import (
    mean_table,
    rate_table,
    scenario_row,
    seat_advantage,
)
from simulator.cove import api
from simulator.cove.lethality import lethality_table
from simulator.protocol import SEAT_KEY

GAMES = {"test": 12, "quick": 250, "standard": 5_000, "full": 50_000}  # deals; x players rotations
SOURCE_LABELS = {
    "plunder": "plunder",
    "burying": "burying treasure",
    "combat": "combat",
    "pirates": "Legendary Pirates",
    "fame_cards": "fame cards",
    "penalties": "penalties",
}
PIRATE_LABELS = {
    "blackbeard": "Blackbeard",
    "flying_dutchman": "Flying Dutchman",
    "captain_hook": "Captain Hook",
    "bonny_and_read": "Bonny & Read",
    "royal_navy": "Royal Navy",
    "cacafuego": "Cacafuego",
}


def _label(key: str) -> str:
    return PIRATE_LABELS.get(key, key.replace("_", " ").replace("-", " ").title())


def build(ctx, seed: int) -> Section:
    from reports import figures
    from scenarios.loader import load_scenario
    from simulator.cove.rules import CoveRules

    files = ctx.scenarios.get("cove") or [None]
    scen = load_scenario(files[0], CoveRules)
    sec = Section("cove", "Pirate's Cove")
    sec.scenarios.append(scenario_row(scen))
    if len(files) > 1:
        sec.text(
            f"Only the first --scenario file for Pirate's Cove is used here ({files[0]}); compare "
            "house rules with `broadside compare`.",
            "note",
        )
    mix = list(
        getattr(scen.rules, "default_mix", None) or ["plunderer", "brawler", "tavern", "balanced"]
    )
    n_players = len(mix)
    deals = GAMES[ctx.size]
    result = api.play(
        scen,
        mix,
        n=deals * n_players,
        players=n_players,
        seed=seed,
        jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
    )
    seats, battles = result.seats, result.tables["battles"]
    n_games = int(seats["game"].nunique())
    sec.text(
        f"{n_games:,} full {n_players}-player games ({deals:,} deals, each played under every "
        f"rotation of seats, so a strategy's record does not depend on where it sits) with the "
        f"strategies {', '.join(mix)} from scenario '{scen.name}' (rules {scen.rules_version}). "
        "Wins are shared when the top fame is tied and no duel breaks it. Intervals are 95% Wilson "
        "intervals; fame intervals are normal intervals of the mean."
    )

    strat = rate_table(seats, ["strategy"], "score")
    strat = strat.merge(
        seats.groupby("strategy", as_index=False)["fame"]
        .mean()
        .rename(columns={"fame": "mean_fame"})
    )
    ctx.figure(
        sec,
        "cove_strategy_win_rates",
        figures.rates_with_intervals(
            strat,
            label="strategy",
            title="Win rate by strategy",
            xlabel="games won",
            reference=1 / n_players,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption="How often each scripted strategy wins, with 95% intervals.",
        csv="cove_strategy_win_rates",
        n=f"{len(seats) // n_players:,} games, {strat['n'].iloc[0]:,} seats per strategy",
        n_value=n_games,
    )
    sec.table("cove_strategy_win_rates", strat, "Win rate by strategy.", key=("strategy",))

    seat_advantage(
        ctx,
        sec,
        seats,
        "score",
        stem="cove_seat_advantage",
        n_players=n_players,
        n_games=n_games,
        title="Win rate by seat (1 = first player)",
        caption="Does sitting first help? Win rate by seat, strategies rotated through every seat.",
        table_title="Win rate by seat (1 = first in turn order).",
    )

    src_cols = [c for c in seats.columns if c.startswith("fame_")]
    long = seats.melt(
        id_vars=["strategy"], value_vars=src_cols, var_name="source", value_name="fame_points"
    )
    long["source"] = long["source"].str.removeprefix("fame_").map(lambda s: SOURCE_LABELS.get(s, s))
    fame = mean_table(long, ["source", "strategy"], "fame_points")
    ctx.figure(
        sec,
        "cove_fame_by_source",
        figures.bars_with_intervals(
            fame,
            x="source",
            y="mean",
            low="ci_low",
            high="ci_high",
            hue="strategy",
            title="Where each strategy's fame comes from",
            xlabel="source of fame",
            ylabel="mean fame per game",
        ),
        caption="Mean fame per game by source and strategy, with 95% intervals.",
        csv="cove_fame_by_source",
        n=f"{n_games:,} games",
        n_value=n_games,
    )
    sec.table(
        "cove_fame_by_source",
        fame,
        "Mean fame per game by source and strategy.",
        key=("source", "strategy"),
    )

    _lethality(ctx, sec, scen)
    _pirate_record(ctx, sec, battles, n_games)
    _tavern(ctx, sec, seats, mix, api, scen, seed, deals)
    sec.data("cove_seats", seats, key=SEAT_KEY)
    sec.data("cove_pirate_battles", battles, key=("game", "battle"))
    return sec


def _lethality(ctx, sec: Section, scen) -> None:
    from reports import figures

    table = lethality_table(scen)
    if not isinstance(table, pd.DataFrame) or not {"pirate", "build", "p_sink"} <= set(
        table.columns
    ):
        sec.text(
            "Legendary Pirate lethality: the engine's table lacks the pirate/build/p_sink columns; "
            "not shown.",
            "warning",
        )
        return
    table = table.copy()
    table["pirate_name"] = table["pirate"].map(_label)
    methods = sorted(set(table["method"])) if "method" in table else ["unknown"]
    value = "p_sink"
    grid = table.pivot_table(
        index="build", columns="pirate_name", values=value, aggfunc="first", sort=False
    )
    ctx.figure(
        sec,
        "cove_lethality",
        figures.heatmap(
            grid,
            title="Chance that a ship sinks the pirate (one ship alone)",
            xlabel="opponent",
            ylabel="ship build",
            cbar="chance to sink it (%)",
            cmap="rocket_r",
        ),
        caption=f"For each Legendary Pirate (and the Royal Navy) and each ship build, the chance "
        f"that a lone player ship sinks it; computed {' / '.join(methods)}.",
        csv="cove_lethality",
        n=f"{' / '.join(methods)} computation per cell",
        n_value=None,
        method="/".join(methods),
    )
    sec.table(
        "cove_lethality",
        table,
        "Lethality of each Legendary Pirate by ship build.",
        key=("pirate", "build"),
    )


def _pirate_record(ctx, sec: Section, battles: pd.DataFrame, n_games: int) -> None:
    from reports import figures

    if battles.empty:
        sec.text(
            "No battle against a Legendary Pirate or the Royal Navy happened in these games.",
            "note",
        )
        return
    b = battles.copy()
    b["opponent"] = b["pirate"].map(_label)
    b["beaten"] = b["outcome"].isin(["sunk", "captured"]).astype(float)
    rec = rate_table(b, ["opponent"], "beaten").rename(
        columns={"wins": "times_beaten", "n": "battles", "win_rate": "beaten_rate"}
    )
    routed = b.groupby("opponent", as_index=False)[["player_ships_routed", "ships"]].sum()
    rec = rec.merge(routed, on="opponent")
    rec["player_ships_routed_per_battle"] = rec["player_ships_routed"] / rec["battles"]
    rec["battles_per_game"] = rec["battles"] / n_games
    ctx.figure(
        sec,
        "cove_pirate_record",
        figures.rates_with_intervals(
            rec,
            label="opponent",
            rate="beaten_rate",
            title="In-game record: how often the pirate is sunk (or the Cacafuego taken)",
            xlabel="battles the players won",
        ),
        caption="Share of battles against each Legendary Pirate / the Royal Navy that the players "
        "won, with 95% intervals (all battles of the games above).",
        csv="cove_pirate_record",
        n=f"{len(b):,} battles in {n_games:,} games",
        n_value=len(b),
    )
    sec.table(
        "cove_pirate_record",
        rec,
        "In-game record of each Legendary Pirate and the Royal Navy.",
        key=("opponent",),
    )


def _tavern(
    ctx, sec: Section, seats: pd.DataFrame, mix: list[str], api, scen, seed: int, deals: int
) -> None:
    """Value of Tavern cards to the card-buying strategy: the same games with it never buying any.

    The engine keeps no per-card ledger, so single cards are not valued. Instead the 'tavern'
    strategy is replayed on the same seeds (same deals, same seats, same dice streams until the
    games diverge) with ``buy_cards = 0``; the paired difference in its win rate and fame is what
    buying and playing Tavern cards is worth to it.
    """
    import dataclasses
    import json
    import math
    import types

    from scipy import stats as sps

    from reports import figures
    from scenarios.loader import content_hash

    t = mean_table(seats, ["strategy"], "fame_fame_cards") if "fame_fame_cards" in seats else None
    if t is not None:
        sec.table(
            "cove_tavern_fame_cards",
            t,
            "Mean fame per game from fame cards, by strategy.",
            key=("strategy",),
        )
    if "tavern" not in mix or "tavern" not in scen.rules.strategies:
        return
    tav = scen.rules.strategies["tavern"]
    if "buy_cards" not in tav.params:
        sec.text(
            "Tavern card value: the tavern strategy has no buy_cards parameter; not estimated.",
            "note",
        )
        return
    name = "tavern-no-cards"
    params = dict(tav.params)
    params["buy_cards"] = 0
    strategies = dict(scen.rules.strategies)
    strategies[name] = dataclasses.replace(
        tav,
        params=types.MappingProxyType(params),
        description="the tavern strategy, never buying Tavern cards",
    )
    raw = json.loads(
        json.dumps(dict(scen.raw), default=lambda o: dict(o) if hasattr(o, "keys") else list(o))
    )
    raw.setdefault("strategies", {})[name] = {"kind": tav.kind, "params": params}
    no_cards = dataclasses.replace(
        scen,
        name=f"{scen.name} (tavern never buys cards)",
        rules=dataclasses.replace(scen.rules, strategies=types.MappingProxyType(strategies)),
        raw=types.MappingProxyType(raw),
        content_hash=content_hash(raw),
    )
    mix2 = [name if m == "tavern" else m for m in mix]
    seats2 = api.play(
        no_cards,
        mix2,
        n=deals * len(mix),
        players=len(mix),
        seed=seed,
        jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
    ).seats
    sec.scenarios.append(scenario_row(no_cards))
    key = ["game", "rotation", "seat"]
    a = seats[seats["strategy"] == "tavern"].set_index(key).sort_index()
    b = seats2[seats2["strategy"] == name].set_index(key).sort_index()
    a, b = a.align(b, join="inner", axis=0)
    rows = []
    for label, col in (
        ("win rate", "score"),
        ("final fame", "fame"),
        ("fame from fame cards", "fame_fame_cards"),
    ):
        if col not in a:
            continue
        d = a[col].to_numpy(float) - b[col].to_numpy(float)
        n = d.size
        mean = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        tq = float(sps.t.isf(0.025, n - 1)) if n > 1 else math.nan
        p = (
            float(2 * sps.t.sf(abs(mean / se), n - 1))
            if se and math.isfinite(se)
            else (1.0 if mean == 0 else 0.0)
        )
        rows.append(
            {
                "measure": label,
                "buying_cards": float(a[col].mean()),
                "never_buying": float(b[col].mean()),
                "difference": mean,
                "ci_low": mean - tq * se,
                "ci_high": mean + tq * se,
                "p_value": p,
                "paired_games": n,
            }
        )
    value = pd.DataFrame(rows)
    sec.text(
        "Tavern card value: the engine keeps no per-card ledger, so single cards are not valued. "
        f"Instead the same {len(a):,} games were replayed with the tavern strategy never buying "
        "Tavern cards (same deals, seats and dice streams until the games diverge); the difference "
        "is what buying and playing cards is worth to that strategy, with 95% intervals from the "
        "paired games."
    )
    ctx.figure(
        sec,
        "cove_tavern_card_value",
        figures.forest(
            value.assign(what=value["measure"]).iloc[:1],
            label="what",
            panels=[("difference", "ci_low", "ci_high", "change in win rate (points)")],
            scale=[100.0],
            title="What buying Tavern cards is worth to the tavern strategy",
        ),
        caption="Win rate of the tavern strategy buying cards minus never buying them, same games "
        "(95% interval).",
        csv="cove_tavern_card_value",
        n=f"{len(a):,} paired games",
        n_value=len(a),
    )
    sec.table(
        "cove_tavern_card_value",
        value,
        "Tavern strategy with and without buying Tavern cards (paired).",
        key=("measure",),
    )
