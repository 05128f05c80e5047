"""Report section "Pirate's Cove": seat order, strategies, margins of victory, fame by source,
Legendary Pirates, Tavern cards, the house rule against the base game, and balance under strong
play.

Full games come from :func:`simulator.cove.api.play`, the game protocol (seats rotated, so seat and
strategy effects separate); the exact lethality table from :mod:`simulator.cove.lethality`; the
population games from :mod:`reports.strong_play`. Every explanation on the page is computed from
these tables (and the scenario's data), never written by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.html import Section
from reports.sections.common import (
    DEFAULT,
    describe_strategies,
    distribution_table,
    mean_table,
    paired,
    per_game,
    players_words,
    rate_table,
    reference_names,
    reference_rows,
    relative_path,
    scenario_row,
    seat_advantage,
    share_claims,
    sizes_of,
    strategy_table,
    strong_play,
)
from reports.sections.common import claim as make_claim
from reports.verdicts import Axis, Remedy
from scenarios.loader import SCENARIO_ROOT, FrozenMap
from simulator.cove import api
from simulator.cove.lethality import lethality_table
from simulator.protocol import SEAT_KEY
from simulator.runner import derive_seed
from simulator.stats import wilson_interval

GAMES = {"test": 12, "quick": 300, "standard": 5_000, "full": 50_000}  # deals; x players rotations
#: deals of the per-card study (each played as dealt, then once per Tavern card drawn in it:
#: about 24 games a deal at 4 players)
CARD_DEALS = {"test": 2, "quick": 60, "standard": 1_000, "full": 5_000}
#: games per strategy tried against an equilibrium population (and games with every seat drawn)
STRONG_GAMES = {"test": 32, "quick": 320, "standard": 4_000, "full": 20_000}
#: deals replayed with the players' decision records (x rotations), for the engagement table
ENGAGE_DEALS = {"test": 2, "quick": 50, "standard": 1_000, "full": 5_000}
#: deals of each house rule, paired with the first deals of the base run (x rotations)
HOUSE_DEALS = {"test": 4, "quick": 100, "standard": 2_000, "full": 20_000}
#: games of a reference player per seat it takes (the floor rows; whole deals of rotations)
REFERENCE_GAMES = {"test": 4, "quick": 40, "standard": 400, "full": 2_000}
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
    refs = reference_names(scen)
    mix = [m for m in api.default_mix(scen) if m not in refs]
    n_players = len(mix)
    deals = GAMES[ctx.size]
    engine = ctx.engine_for(api)
    result = api.play(
        scen,
        mix,
        n=deals * n_players,
        players=n_players,
        seed=seed,
        jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
        engine=engine,
    )
    seats, battles = result.seats, result.tables["battles"]
    n_games = int(seats["game"].nunique())
    who = players_words(mix)
    sizes = {s: GAMES[s] * n_players for s in ("quick", "standard", "full")}
    sec.text(
        f"{n_games:,} full {n_players}-player games ({deals:,} deals, each played under every "
        f"rotation of seats, so a strategy's record does not depend on where it sits) with the "
        f"{who} from scenario '{scen.name}' (rules {scen.rules_version}). "
        "Wins are shared when the top fame is tied and no duel breaks it (a share of 1/k each). "
        "Intervals are 95% Wilson intervals for rates (with the design effect of the deals: a "
        "deal's rotations replay its dice, so its games are not independent), normal intervals "
        "for means and Student t intervals for paired differences; conclusive = the row's "
        "p-value stays at most 0.05 after Holm's correction over every claim of the page."
    )
    describe_strategies(sec, scen, [*mix, *sorted(refs)])
    for name, decl in scen.rules.strategies.items():
        if name.endswith("-v1"):
            continue
        ref = "; a reference player" if getattr(decl, "reference", False) else ""
        sec.glossary.append((name, f"{decl.description or name} (kind {decl.kind}{ref})."))
    strong = strong_play(
        ctx,
        sec,
        api,
        scen,
        seed,
        game="cove",
        n=STRONG_GAMES[ctx.size],
        mix=mix,
        stem_prefix="cove",
        sizes=sizes_of(STRONG_GAMES),
    )

    fair = 1 / n_players
    floor = reference_rows(
        api,
        scen,
        mix,
        games_per_seat=REFERENCE_GAMES[ctx.size],
        seed=seed,
        jobs=ctx.jobs,
        engine=engine,
        players=n_players,
    )
    seats = seats.assign(deal=seats["game"] // n_players)  # a deal's rotations share its dice
    strat = rate_table(seats, ["strategy"], cluster="deal")
    strat = strat.merge(
        seats.groupby("strategy", as_index=False)["fame"]
        .mean()
        .rename(columns={"fame": "mean_fame"})
    )
    strat = strategy_table(strat, floor, scen)
    ctx.figure(
        sec,
        "cove_strategy_win_rates",
        figures.rates_with_intervals(
            strat.assign(
                label=[
                    f"{s} (reference)" if r else s
                    for s, r in zip(strat["strategy"], strat["reference"])
                ]
            ),
            label="label",
            title="Win rate by strategy",
            xlabel="games won",
            reference=fair,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption="How often each strategy of the default mix wins (seats rotated), with 95% "
        "intervals; the reference player (a floor) took each seat in turn against the others.",
        csv="cove_strategy_win_rates",
        n=f"{n_games:,} games, {n_games:,} seats per strategy",
        n_value=n_games,
        players=who,
    )
    sec.table(
        "cove_strategy_win_rates",
        strat,
        "Win rate (share of the win) by strategy (reference = a floor player, not part of any "
        "balance share).",
        key=("strategy",),
        columns=[
            "strategy",
            "reference",
            "wins",
            "shared",
            "n",
            "win_rate",
            "ci_low",
            "ci_high",
            "design_effect",
            "mean_fame",
        ],
    )
    strat_keys = share_claims(
        sec,
        strat,
        "cove_strategy_win_rates",
        "strategy",
        game="cove",
        what="strategy",
        players_n=n_players,
        who=who,
        population=DEFAULT,
        sentence=f"At {n_players} players the {{row}} strategy wins {{value}} {{ci}} of its "
        "{n} games",
        anchor="fig-cove_strategy_win_rates",
        sizes=sizes,
        key_prefix=f"cove/strategy/{n_players}p/default",
        quantity=f"win share of {{row}} at {n_players} players",
        strong={s: strong.key("strategy", n_players, s) for s in mix},
        skip=refs,
        unit="share of games won by the strategy",
    )
    seat_keys = seat_advantage(
        ctx,
        sec,
        seats,
        "score",
        stem="cove_seat_advantage",
        game="cove",
        n_players=n_players,
        n_games=n_games,
        title="Win rate by seat (1 = first player)",
        caption="Does sitting first help? Win rate by seat, strategies rotated through every seat.",
        table_title="Win rate by seat (1 = first in turn order).",
        players=who,
        sizes=sizes,
        strong={s: strong.key("seat", n_players, s) for s in range(1, n_players + 1)},
        cluster="deal",
    )
    _fame_margin(ctx, sec, seats, n_games, who)
    _fame_by_source(ctx, sec, seats, n_games, who, strat[~strat["reference"]])
    leth = _lethality(ctx, sec, scen)
    engage = _engagement(ctx, sec, scen, mix, seed, who)
    _pirate_record(ctx, sec, scen, battles, n_games, leth, who, engage)
    pirate_keys = _pirate_shares(ctx, sec, scen, battles, n_games, who, sizes)
    house_sizes = {s: HOUSE_DEALS[s] * n_players for s in ("quick", "standard", "full")}
    _tavern(ctx, sec, seats, mix, scen, seed, deals, who, house_sizes)
    card_keys = _card_values(ctx, sec, scen, mix, seed, who)
    remedies = _house_rules(ctx, sec, scen, mix, seats, seed, strong, who)
    sec.data("cove_seats", seats, key=SEAT_KEY)
    sec.data("cove_pirate_battles", battles, key=("game", "battle", "pirate"))

    sec.axes.append(
        Axis(
            game="cove",
            axis="seat-order",
            players=n_players,
            rows=tuple((f"seat {s}", k) for s, k in seat_keys.items()),
            fair=fair,
            unit="share of games won by the seat",
            population=who,
            size=ctx.size,
            remedies=tuple(r for p, row, r in remedies if row is None),
        )
    )
    sec.axes.append(
        Axis(
            game="cove",
            axis="strategy",
            players=n_players,
            rows=tuple(strat_keys.items()),
            fair=fair,
            unit="share of games won by the strategy",
            population=who,
            size=ctx.size,
            remedies=tuple(r for p, row, r in remedies if row is not None),
        )
    )
    if pirate_keys:
        sec.axes.append(
            Axis(
                game="cove",
                axis="pirates",
                players=n_players,
                rows=tuple((_label(k), v) for k, v in pirate_keys.items()),
                fair=1 / len(pirate_keys),
                unit="share of the Legendary Pirate battles",
                population=who,
                size=ctx.size,
            )
        )
    if card_keys:
        sec.axes.append(
            Axis(
                game="cove",
                axis="cards",
                players=n_players,
                rows=tuple(card_keys.items()),
                fair=0.0,
                unit="change in the holder's win share",
                population=who,
                size=ctx.size,
            )
        )
    return sec


def _fame_margin(ctx, sec: Section, seats: pd.DataFrame, n_games: int, who: str) -> None:
    """The margin of victory: the winner's fame minus the best other seat's, per game."""
    from reports import figures

    f = seats.sort_values(["game", "fame"], ascending=[True, False])
    top = f.groupby("game")["fame"].nth(0).to_numpy(float)
    second = f.groupby("game")["fame"].nth(1).to_numpy(float)
    g = pd.DataFrame({"game": np.arange(len(top)), "margin": top - second, "table": "all games"})
    dist = distribution_table(g, "table", "margin")
    dist["ties"] = int((g["margin"] == 0).sum())
    ctx.figure(
        sec,
        "cove_fame_margin",
        figures.histogram(
            g,
            x="margin",
            hue=None,
            title="Margin of victory",
            xlabel="winner's fame minus the runner-up's",
            bins=int(max(1, g["margin"].max()) + 1),
        ),
        caption="How close the games are: the winner's fame minus the runner-up's, per game "
        "(0: a tie at the top, settled by a duel or shared).",
        csv="cove_fame_margin",
        n=f"{n_games:,} games",
        n_value=n_games,
        players=who,
    )
    sec.table(
        "cove_fame_margin",
        dist,
        "Margin of victory in fame: mean (95% interval), quantiles and ties at the top.",
        key=("table",),
        columns=[
            "table",
            "games",
            "mean",
            "ci_low",
            "ci_high",
            "p10",
            "p25",
            "p50",
            "p75",
            "p90",
            "ties",
        ],
        phone=("mean", "p10", "p50", "p90"),
    )


def _pirate_shares(ctx, sec: Section, scen, battles, n_games: int, who: str, sizes) -> dict:
    """The pirates axis: each Legendary Pirate's share of the battles fought against Legendary
    Pirates (fair: 1/k each), with a Wilson interval whose counts are discounted by the design
    effect of games holding several battles (the largest of the pirates' clustered variances
    over their binomial ones, at least 1)."""
    pirates = list(scen.rules.pirates)
    b = battles[battles["pirate"].isin(pirates)]
    total = len(b)
    if total == 0 or len(pirates) < 2:
        return {}
    per = b.groupby(["game", "pirate"]).size().unstack(fill_value=0)
    per = per.reindex(index=range(n_games), columns=pirates, fill_value=0)
    tot = per.sum(axis=1).to_numpy(float)
    deff = 1.0
    for p in pirates:
        x = per[p].to_numpy(float)
        r = x.sum() / total
        if 0 < r < 1:
            resid = x - r * tot
            var_cl = (resid**2).sum() * n_games / (n_games - 1) / total**2
            deff = max(deff, var_cl / (r * (1 - r) / total))
    rows = []
    for p in pirates:
        k = int(per[p].sum())
        lo, hi = wilson_interval(k / deff, total / deff)
        rows.append(
            {
                "pirate": p,
                "opponent": _label(p),
                "battles": k,
                "legendary_battles": total,
                "share": k / total,
                "ci_low": float(lo),
                "ci_high": float(hi),
                "design_effect": deff,
            }
        )
    df = pd.DataFrame(rows)
    sec.table(
        "cove_pirate_shares",
        df,
        f"Each Legendary Pirate's share of the {total:,} battles fought against Legendary "
        f"Pirates in {n_games:,} games (fair: 1 in {len(pirates)}); 95% Wilson intervals with "
        f"the counts divided by the design effect {deff:.2f} (games hold several battles).",
        key=("pirate",),
        columns=["opponent", "battles", "legendary_battles", "share", "ci_low", "ci_high"],
    )
    return share_claims(
        sec,
        df,
        "cove_pirate_shares",
        "pirate",
        game="cove",
        what="pirate",
        players_n=len(pirates),
        who=who,
        population=DEFAULT,
        sentence="{row} draws {value} {ci} of the battles against Legendary Pirates",
        label=_label,
        anchor="tbl-cove_pirate_shares",
        sizes=sizes,
        key_prefix="cove/pirate-share/default",
        quantity="share of the Legendary Pirate battles against {row}",
        value="share",
        unit="share of the battles against Legendary Pirates",
        n_unit="games",
    )


def _house_rules(ctx, sec: Section, scen, mix, seats, seed: int, strong, who: str) -> list:
    """Each house rule of ``scenarios/cove/`` against the base game: the first deals of the base
    run replayed under it (same seeds), under the default mix and under the equilibrium
    population. Returns ``(players, strategy or None, Remedy)``."""
    from reports import strong_play as sp
    from scenarios.loader import ScenarioError, load_scenario
    from scenarios.populations import load_population
    from simulator.cove.rules import CoveRules

    files = sorted(p for p in (SCENARIO_ROOT / "cove").glob("*.toml") if p.stem != "standard")
    if not files or ctx.scenarios.get("cove"):
        return []
    P = len(mix)
    k = HOUSE_DEALS[ctx.size] * P
    engine = ctx.engine_for(api)
    base = per_game(seats[seats["game"] < k], list(mix))
    base_all = per_game(seats, list(mix))
    rows, specs, remedies = [], [], []
    for path in files:
        try:
            house = load_scenario(path, CoveRules)
        except ScenarioError as exc:
            sec.text(f"{path.name}: not played ({str(exc).splitlines()[0]})", "note")
            continue
        sec.scenarios.append(scenario_row(house))
        var = per_game(
            api.play(
                house,
                mix,
                n=k,
                players=P,
                seed=seed,
                jobs=ctx.jobs,
                rotate_seats=True,
                quiet=True,
                engine=engine,
            ).seats,
            list(mix),
        )
        measures = [("first-seat", "first-seat win share", "first_seat_won")] + [
            (f"share-{s}", f"win share of {s}", f"score:{s}") for s in mix
        ]
        pop_pair = None
        if P in strong.runs:
            found, s_seats, s_seed, s_n = strong.runs[P]
            try:
                pop = load_population(found.path, house, check_hash=False)
                pv = per_game(
                    sp.play_under(api, pop, n=s_n, seed=s_seed, jobs=ctx.jobs, engine=engine)
                )
                pop_pair = (found.name, pv, per_game(s_seats), sp.mixture_words(pop))
            except ScenarioError as exc:
                sec.text(f"{house.name}: not measured under {found.name} ({exc})", "note")
        for key, measure, col in measures:
            d = paired(base[col].to_numpy(), var[col].to_numpy(), per_unit=P)  # deals as units
            rows.append(_house_row(house.name, P, DEFAULT, measure, d, float(var[col].mean())))
            ck = f"cove/house-rule/default/{house.name}/{key}"
            sk = None
            if pop_pair is not None and key == "first-seat":
                pname, pv, pb, words = pop_pair
                m = min(len(pv), len(pb))
                dp = paired(pb[col].to_numpy()[:m], pv[col].to_numpy()[:m], sp.slice_games(P))
                rows.append(_house_row(house.name, P, pname, measure, dp, float(pv[col].mean())))
                sk = f"cove/house-rule/{pname}/{house.name}/{key}"
                pop_words = f"equilibrium population {pname} ({words})"
                bv = float(pb[col].mean())
                specs.append(
                    (sk, house.name, P, pname, pop_words, measure, key, bv, None, False, dp["df"])
                )
            specs.append(
                (ck, house.name, P, DEFAULT, who, measure, key, float(base_all[col].mean()), sk,
                 True, d["df"])
            )  # fmt: skip
            if key == "first-seat":
                remedies.append((P, None, Remedy(house.name, "house-rule", ck, measure)))
            else:
                s = key.removeprefix("share-")
                remedies.append((P, s, Remedy(house.name, "house-rule", ck, measure, row=s)))
    if not rows:
        return []
    table = pd.DataFrame(rows)
    sec.heading("House rules against the base game", anchor="cove-house-rules")
    sec.text(
        f"Each house rule of scenarios/cove/ ({', '.join(relative_path(p) for p in files)}), "
        f"played on the first {k:,} games of the base run ({k // P:,} deals, the same seeds and "
        "players), and under the equilibrium population on the strong-play games' seeds; "
        "differences are house rule minus base with Student t 95% intervals over the paired "
        "deals (a deal's rotations replay its dice) or slices (a slice shares one draw of "
        "seats)."
    )
    sec.table(
        "cove_house_rules",
        table,
        "Each house rule against the base game (paired games; difference = house rule minus base).",
        key=("house_rule", "population", "measure"),
        columns=[
            "house_rule",
            "population",
            "measure",
            "games",
            "house_rule_value",
            "difference",
            "ci_low",
            "ci_high",
        ],
        phone=("measure", "difference", "conclusive"),
    )
    for sk, name, p, pop, words, measure, key, bv, strong_key, finding, dfree in specs:
        n = int(
            table.loc[(table["house_rule"] == name) & (table["population"] == pop), "games"].iloc[0]
        )
        sec.claims.append(
            make_claim(
                table,
                "cove_house_rules",
                {"house_rule": name, "population": pop, "measure": measure},
                "difference",
                game="cove",
                claim_key=sk,
                quantity=f"change in {measure} under {name}",
                sentence=f"The house rule {name} changes the {measure} by {{value}} {{ci}} "
                f"({{n}} paired games, {p} players)",
                null=0.0,
                null_words="zero",
                players=words,
                population=pop,
                n=n,
                anchor="tbl-cove_house_rules",
                unit=f"difference in {measure}",
                crit=float(sps.t.isf(0.025, dfree)),
                df_t=dfree,
                table_players=p,
                effect="relative",
                base_value=bv,
                sizes={s: HOUSE_DEALS[s] * p for s in ("quick", "standard", "full")},
                strong=strong_key,
                finding=finding,
                family=f"house-rule/{'share' if key.startswith('share-') else key}",
                unit_short=" points",
            )
        )
    return remedies


def _house_row(name, p, population, measure, d, value) -> dict:
    return {
        "house_rule": name,
        "players": p,
        "population": population,
        "measure": measure,
        "games": d["pairs"],
        "house_rule_value": value,
        "difference": d["difference"],
        "ci_low": d["ci_low"],
        "ci_high": d["ci_high"],
    }


def _fame_by_source(ctx, sec: Section, seats, n_games: int, who: str, strat) -> pd.DataFrame:
    from reports import figures

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
        players=who,
    )
    # the weakest strategy's fame gap, source by source, against the others' mean (from the table)
    weakest = str(strat.loc[strat["win_rate"].idxmin(), "strategy"])
    wide = fame.pivot(index="source", columns="strategy", values="mean")
    others = wide.drop(columns=[weakest]).mean(axis=1)
    gap = (wide[weakest] - others).sort_values()
    total_gap = float(gap.sum())
    parts = ", ".join(f"{src} {v:+.1f}" for src, v in gap.items() if abs(v) >= 0.5)
    sec.text(
        f"Why the {weakest} strategy wins least: its mean fame is {total_gap:+.1f} against the "
        f"other strategies' average; by source: {parts} (fame points per game, from "
        "`cove_fame_by_source.csv`).",
        "explain",
        anchor="cove-explain-weakest",
    )
    # the strategy with the least plunder fame: where its fame comes from instead
    if "plunder" in wide.index:
        least = str(wide.loc["plunder"].idxmin())
        top_src = str(wide[least].idxmax())
        sec.text(
            f"The {least} strategy earns the least fame from plunder "
            f"({wide.loc['plunder', least]:.1f} per game, others "
            f"{wide.loc['plunder'].drop(least).min():.1f}–{wide.loc['plunder'].drop(least).max():.1f}"
            f"); its largest source is {top_src} ({wide.loc[top_src, least]:.1f}, others "
            f"{wide.loc[top_src].drop(least).min():.1f}–{wide.loc[top_src].drop(least).max():.1f})"
            + _deck_note(ctx)
            + ".",
            "explain",
            anchor="cove-explain-plunder",
        )
    sec.table(
        "cove_fame_by_source",
        fame,
        "Mean fame per game by source and strategy.",
        key=("source", "strategy"),
        columns=["source", "strategy", "mean", "ci_low", "ci_high", "n"],
    )
    return fame


def _deck_note(ctx) -> str:
    """What the Treasure deck says about fame against loot (scenario data)."""
    from scenarios.loader import load_scenario
    from simulator.cove.rules import CoveRules

    files = ctx.scenarios.get("cove") or [None]
    rules = load_scenario(files[0], CoveRules).rules
    cards = getattr(getattr(rules, "treasure", None), "cards", None)
    if not cards:
        return ""
    df = pd.DataFrame(
        [
            {
                "fame": int(getattr(c, "fame", 0)),
                "loot": int(getattr(c, "gold", 0)) + int(getattr(c, "chests", 0)),
            }
            for c in cards
        ]
    )
    by = df.groupby("fame")["loot"].mean()
    lo, hi = int(by.index.min()), int(by.index.max())
    return (
        f"; in the scenario's Treasure deck the cards worth {lo} fame carry {by.loc[lo]:.1f} gold "
        f"and chests on average and those worth {hi} fame {by.loc[hi]:.1f}, so taking the "
        "richest cards means taking the least plunder fame"
    )


def _lethality(ctx, sec: Section, scen) -> pd.DataFrame:
    from reports import figures

    table = lethality_table(scen).copy()
    table["pirate_name"] = table["pirate"].map(_label)
    methods = sorted(set(table["method"])) if "method" in table else ["unknown"]
    grid = table.pivot_table(
        index="build", columns="pirate_name", values="p_sink", aggfunc="first", sort=False
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
        players="none: each duel's policy column says how the ship fights",
    )
    # builds whose odds equal the start ship's against every opponent, and why (their dice)
    mat = scen.rules.ship_mat  # crew and cannons columns are ring positions (1..8)
    table["dice"] = [
        min(mat.crew[int(c) - 1], mat.cannons[int(k) - 1])
        for c, k in zip(table["crew"], table["cannons"])
    ]
    start = grid.loc["start"] if "start" in grid.index else None
    if start is not None:
        same = [b for b in grid.index if b != "start" and np.allclose(grid.loc[b], start)]
        if same:
            d = table[table["build"].isin(["start", *same])].drop_duplicates("build")
            dice = ", ".join(f"{r.build} {int(r.dice)}" for r in d.itertuples())
            sec.text(
                f"{', '.join(same)}: exactly the start ship's odds against every opponent. A "
                "ship rolls min(crew, cannons) dice (crew and cannons values of its ring "
                "positions; docs/rules-cove-combat.md), so raising only one of the two, or "
                f"only the sails, leaves its dice where they were (dice: {dice}); against a "
                "pirate that never flees, sails only matter for fleeing.",
                "explain",
                anchor="cove-explain-lethality",
            )
    # lethality with cards: the best pair of Tavern cards for each duel
    gridc = table.pivot_table(
        index="build",
        columns="pirate_name",
        values="p_sink_best_pair",
        aggfunc="first",
        sort=False,
    )
    ctx.figure(
        sec,
        "cove_lethality_cards",
        figures.heatmap(
            gridc,
            title="The same, holding the best pair of Tavern cards for the fight",
            xlabel="opponent",
            ylabel="ship build",
            cbar="chance to sink it (%)",
            cmap="rocket_r",
        ),
        caption="Lethality with cards: each cell is the lone ship's chance of sinking the "
        "opponent when it holds the pair of battle and volley cards that helps most "
        "(best_pair in the table), played optimally; exact.",
        csv="cove_lethality",
        n=f"{' / '.join(methods)} computation per cell",
        n_value=None,
        method="/".join(methods),
        players="none: each duel's policy and card_policy columns say how the ship fights",
    )
    rows = []
    for key, d in table.groupby("pirate", sort=True):
        b = d.loc[d["p_sink"].idxmax()]
        row = {
            "pirate": key,
            "pirate_name": _label(key),
            "best_build": b["build"],
            "best_p_sink": float(b["p_sink"]),
            "method": b["method"],
        }
        c = d.loc[d["p_sink_best_pair"].idxmax()]
        row.update(
            best_build_with_cards=c["build"],
            best_pair=c["best_pair"],
            best_p_sink_with_cards=float(c["p_sink_best_pair"]),
        )
        rows.append(row)
    best = pd.DataFrame(rows)
    sec.table(
        "cove_lethality_best",
        best,
        "The best lone odds of any build in the grid, per opponent, without cards and with the "
        "best pair of cards (exact).",
        key=("pirate",),
    )
    cols = [
        "pirate",
        "build",
        "hull",
        "crew",
        "cannons",
        "sails",
        "artisan",
        "p_sink",
        "best_pair",
        "p_sink_best_pair",
    ]
    sec.table(
        "cove_lethality",
        table,
        "Lethality of each Legendary Pirate by ship build.",
        key=("pirate", "build"),
        columns=[*cols[:6], "dice", *cols[6:]],
    )
    return table


def _engagement(ctx, sec: Section, scen, mix, seed: int, who: str) -> pd.DataFrame:
    """Why each Legendary Pirate is (not) fought, from the players' own decision records
    (:func:`simulator.cove.player_study.play_recorded` and ``engagement_table``): how often
    its island was the best option and the expected values and odds behind the choice."""
    from simulator.cove import player_study
    from simulator.runner import derive_seed

    deals = ENGAGE_DEALS[ctx.size]
    _seats, battles, decisions, _entropy = player_study.play_recorded(
        scen,
        mix,
        len(mix),
        deals,
        seed=derive_seed(seed, "engagement"),
        n_jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
    )
    eng = player_study.engagement_table(scen.rules, battles, decisions)
    eng.insert(0, "opponent", eng["pirate"].map(_label))
    eng["games"] = deals * len(mix)
    sec.table(
        "cove_engagement",
        eng,
        f"Why each Legendary Pirate is (not) fought, from the players' decision records "
        f"({deals * len(mix):,} games, {deals:,} deals under every rotation, the {who}): "
        "pirate_months = months its card was face up on a black ship; engagement_rate = share "
        "of those months in which a player ship fought it (95% Wilson interval); decisions = "
        "navigation choices that could sail at it; chosen_share = how often sailing at it was "
        "the best option; mean_value_gap = its island's expected value minus the chosen "
        "island's (fame; 0 when chosen); p_sink = the odds the players computed with their hand, "
        "alone (exact) or with the company they expected.",
        key=("opponent",),
        columns=[
            "opponent",
            "pirate_months",
            "months_fought",
            "engagement_rate",
            "ci95_low",
            "ci95_high",
            "decisions",
            "chosen_share",
            "mean_value_gap",
            "best_p_sink_lone",
            "best_p_sink_company",
        ],
    )
    return eng


def _engagement_words(eng: pd.DataFrame | None, pirate: str) -> str:
    """The decision records' account of one pirate ("" when it has none)."""
    if eng is None or pirate not in set(eng["pirate"]):
        return ""
    r = eng.set_index("pirate").loc[pirate]
    if int(r["decisions"]) == 0:
        return (
            f"in {int(r['games']):,} recorded games no player could sail at it "
            f"({int(r['pirate_months'])} months face up)"
        )
    words = (
        f"in {int(r['games']):,} recorded games the players weighed sailing at it "
        f"{int(r['decisions']):,} times and found it the best option in "
        f"{r['chosen_share']:.1%} of them (its island's expected value "
        f"{r['mean_value_gap']:+.2f} fame against the island chosen, on average)"
    )
    if not math.isnan(r["best_p_sink_lone"]):
        words += (
            f"; the best odds they computed were {r['best_p_sink_lone']:.2g} alone with their "
            f"hand and {r['best_p_sink_company']:.2g} with the company they expected"
        )
    return words


def _pirate_record(
    ctx, sec: Section, scen, battles, n_games: int, leth, who: str, engage=None
) -> None:
    from reports import figures

    opponents = [*scen.rules.pirates, "royal_navy"]
    b = battles.copy()
    b["opponent"] = b["pirate"].map(_label)
    b["beaten"] = b["outcome"].isin(["sunk", "captured"]).astype(float)
    rows = []
    for key in opponents:
        d = b[b["pirate"] == key]
        games_with = int(d["game"].nunique())
        lo, hi = wilson_interval(games_with, n_games)
        rows.append(
            {
                "opponent": _label(key),
                "pirate": key,
                "battles": len(d),
                "times_beaten": int(d["beaten"].sum()),
                "games_fought": games_with,
                "games": n_games,
                "share_of_games_fought": games_with / n_games,
                "games_ci_low": float(lo),
                "games_ci_high": float(hi),
                "player_ships_routed": int(d["player_ships_routed"].sum()),
                "ships": int(d["ships"].sum()),
            }
        )
    rec = pd.DataFrame(rows)
    rec["beaten_rate"] = np.where(
        rec["battles"] > 0, rec["times_beaten"] / rec["battles"].clip(1), np.nan
    )
    lo, hi = wilson_interval(rec["times_beaten"].to_numpy(float), rec["battles"].to_numpy(float))
    rec["ci_low"] = np.where(rec["battles"] > 0, lo, np.nan)
    rec["ci_high"] = np.where(rec["battles"] > 0, hi, np.nan)
    rec["player_ships_routed_per_battle"] = rec["player_ships_routed"] / rec["battles"].clip(1)
    rec["battles_per_game"] = rec["battles"] / n_games
    fought = rec[rec["battles"] > 0]
    if not fought.empty:
        ctx.figure(
            sec,
            "cove_pirate_record",
            figures.rates_with_intervals(
                fought,
                label="opponent",
                rate="beaten_rate",
                title="Battles the players won, by opponent",
                xlabel="battles the players won",
            ),
            caption="Share of battles against each Legendary Pirate / the Royal Navy that the "
            "players won, with 95% intervals (all battles of the games above; opponents never "
            "fought are listed below the figure).",
            csv="cove_pirate_record",
            n=f"{len(b):,} battles in {n_games:,} games",
            n_value=len(b),
            players=who,
        )
    never = rec[rec["battles"] == 0]
    best = leth.sort_values("p_sink", ascending=False, kind="stable").drop_duplicates("pirate")
    best = best.set_index("pirate")
    bestc = leth.sort_values("p_sink_best_pair", ascending=False, kind="stable")
    bestc = bestc.drop_duplicates("pirate").set_index("pirate")
    thresholds = _attack_thresholds(scen)
    for r in never.itertuples():
        line = (
            f"{r.opponent}: never fought in {n_games:,} games (so in at most "
            f"{r.games_ci_high:.2%} of games, 95% upper bound)"
        )
        why = []
        if r.pirate in best.index:
            bb = best.loc[r.pirate]
            why.append(
                f"the best lone odds of any build in the lethality grid are {bb['p_sink']:.2g} "
                f"({bb['build']}, {bb['method']})"
            )
        if r.pirate in bestc.index:
            bc = bestc.loc[r.pirate]
            why.append(
                f"best lone odds with cards {bc['p_sink_best_pair']:.2g} ({bc['build']} holding "
                f"{bc['best_pair']}, exact)"
            )
        if thresholds:
            plain = float(best.loc[r.pirate, "p_sink"]) if r.pirate in best.index else 0.0
            carded = (
                float(bestc.loc[r.pirate, "p_sink_best_pair"]) if r.pirate in bestc.index else 0.0
            )
            reach = [k for k, v in thresholds.items() if v <= carded]
            note = (
                "every one above the best odds without cards"
                if min(thresholds.values()) > plain
                else "some within the best odds without cards"
            )
            note += (
                f"; the best pair of cards reaches the thresholds of {', '.join(reach)}"
                if reach
                else "; even the best pair of cards reaches none of them"
            )
            why.append(
                "the players attack a Legendary Pirate only at lone odds of at least "
                + ", ".join(f"{k} {v:g}" for k, v in thresholds.items())
                + f" (their `pirate_odds_min`: {note})"
            )
        records = _engagement_words(engage, r.pirate)
        if records:
            why.insert(0, records)
        text = line + ("; measured: " + "; ".join(why) if why else "") + "."
        if not records:
            text += (
                " Not measured: each player's reasons at the islands where it waited (no "
                "decision record for it)."
            )
        sec.text(text, "explain", anchor=f"cove-never-{r.pirate}")
        sec.absences.append(
            ("cove", f"{r.opponent} never fought in {n_games:,} games", f"cove-never-{r.pirate}")
        )
    sec.table(
        "cove_pirate_record",
        rec,
        "In-game record of each Legendary Pirate and the Royal Navy (an opponent never fought "
        "has no beaten rate).",
        key=("opponent",),
        columns=[
            "opponent",
            "battles",
            "games_fought",
            "share_of_games_fought",
            "times_beaten",
            "beaten_rate",
            "ci_low",
            "ci_high",
            "player_ships_routed_per_battle",
        ],
    )


def _attack_thresholds(scen) -> dict[str, float]:
    """Each default-mix strategy's declared minimum lone odds for attacking a pirate, if its
    parameters have one (scenario data)."""
    out = {}
    for name in api.default_mix(scen):
        decl = scen.rules.strategies.get(name)
        if decl is not None and "pirate_odds_min" in decl.params:
            out[name] = float(decl.params["pirate_odds_min"])
    return out


def _card_values(ctx, sec: Section, scen, mix, seed: int, who: str) -> dict:
    """Each Tavern card's value to its holder: ``cove card-value``'s paired intervention (the
    first copy drawn replaced by a blank card, the deal replayed on the same streams); every
    card drawn at least twice is a claim (the cards axis: fair is zero). Returns
    ``{card in words: claim key}``."""
    from reports import figures
    from reports.display import card as card_name
    from simulator.cove.card_value import card_table, card_value

    deals = CARD_DEALS[ctx.size]
    pairs, summary = card_value(
        scen,
        deals,
        strategies=mix,
        seed=derive_seed(seed, "cards"),
        n_jobs=ctx.jobs,
        quiet=True,
    )
    table = card_table(pairs, list(summary["cards"]))
    table["n"] = table["n"].astype(int)
    table["changed"] = table["changed"].astype(int)
    tested = table[(table["n"] >= 2) & table["ci95_low"].notna()]
    sec.heading("Each Tavern card's value", anchor="cove-cards")
    sec.text(
        f"Each Tavern card's effect on the player who draws it, from `cove card-value`: in "
        f"{deals:,} deals ({summary['games']:,} games) of the default mix, the first copy of each "
        "card drawn was replaced by a blank card for its drawer and the deal replayed on the same "
        "random streams; the difference in the holder's win share and fame is the card's value "
        "to it, with 95% normal intervals over the pairs (n: deals in which the card was drawn; "
        "changed: pairs whose winner changed). The cards verdict asks whether any card moves "
        "its holder's win share by more than 3 points."
    )
    if not tested.empty:
        ctx.figure(
            sec,
            "cove_card_value",
            figures.forest(
                tested.assign(label=[card_name(c) for c in tested["card"]]),
                label="label",
                panels=[
                    ("win_rate_effect", "ci95_low", "ci95_high", "win share (points)"),
                    ("fame_effect", "fame_ci95_low", "fame_ci95_high", "final fame"),
                ],
                scale=[100.0, 1.0],
                title="What each Tavern card is worth to its holder",
            ),
            caption="Each card's effect on its holder: the same deal with the card and with a "
            "blank card in its place (95% intervals; zero = worth nothing).",
            csv="cove_card_value",
            n=f"{deals:,} deals, {summary['games']:,} games",
            n_value=int(summary["games"]),
            players=who,
        )
    never_changed = tested[tested["changed"] == 0]
    if len(never_changed):
        names = ", ".join(card_name(c) for c in never_changed["card"])
        sec.text(
            f"{names}: drawn in {int(never_changed['n'].min()):,} or more deals, yet no replay "
            "with a blank card in its place changed the winner: at this n the players never "
            "made it decide a game (their fame moved by "
            + ", ".join(
                f"{card_name(r.card)} {r.fame_effect:+.2f}" for r in never_changed.itertuples()
            )
            + ").",
            "explain",
            anchor="cove-cards-unchanged",
        )
    sec.table(
        "cove_card_value",
        table,
        "Each Tavern card's effect on its holder (paired replays with a blank card).",
        key=("card",),
        columns=[
            "card",
            "n",
            "win_rate_effect",
            "ci95_low",
            "ci95_high",
            "fame_effect",
            "fame_ci95_low",
            "fame_ci95_high",
            "changed",
        ],
        phone=("win_rate_effect", "ci95_low", "ci95_high", "conclusive"),
    )
    out = {}
    per_deal = {s: CARD_DEALS[s] for s in ("quick", "standard", "full")}
    for r in tested.itertuples():
        k = f"cove/card/default/{r.card}"
        share = r.n / deals
        sec.claims.append(
            make_claim(
                table,
                "cove_card_value",
                {"card": r.card},
                "win_rate_effect",
                low="ci95_low",
                high="ci95_high",
                game="cove",
                claim_key=k,
                quantity=f"change in the holder's win share from the card {r.card}",
                sentence=f"Holding the Tavern card {card_name(r.card)} changes its holder's win "
                "share by {value} {ci} (the same deals replayed with a blank card, {n} pairs)",
                null=0.0,
                null_words="zero",
                players=who,
                n=int(r.n),
                n_unit="deals with the card",
                anchor="fig-cove_card_value",
                unit="difference in the holder's win share (0..1)",
                table_players=len(mix),
                effect="score",
                sizes={s: int(v * share) for s, v in per_deal.items()},
                family="cards",
                unit_short=" points",
            )
        )
        out[card_name(r.card)] = k
    return out


def _tavern(ctx, sec: Section, seats, mix, scen, seed: int, deals: int, who: str, sizes):
    """Value of Tavern cards to the card-buying strategy: the same games with it never buying any.

    The 'tavern' strategy is replayed on the same seeds (same deals, same seats, same dice
    streams until the games diverge) as a strategy of the same kind with ``buy_cards = 0``; the
    paired difference in its win share and fame (by source), and in its opponents' fame, is what
    buying and playing Tavern cards is worth to it.
    """
    from reports import figures
    from scenarios.strategies import StrategyDecl, with_strategies

    if "fame_fame_cards" in seats:
        t = mean_table(seats, ["strategy"], "fame_fame_cards")
        t["n"] = t["n"].astype(int)
        sec.table(
            "cove_tavern_fame_cards",
            t,
            "Mean fame per game from fame cards, by strategy.",
            key=("strategy",),
        )
    if "tavern" not in mix or "tavern" not in scen.rules.strategies:
        return None
    tav = scen.rules.strategies["tavern"]
    if "buy_cards" not in tav.params and "buy_cards" not in _space(scen, tav.kind):
        return None
    name = "tavern-no-cards"
    params = FrozenMap({**dict(tav.params), "buy_cards": 0})
    no_cards = with_strategies(
        scen,
        {
            name: StrategyDecl(
                kind=tav.kind,
                description="the tavern strategy, never buying Tavern cards",
                params=params,
            )
        },
    )
    mix2 = [name if m == "tavern" else m for m in mix]
    deals = min(deals, HOUSE_DEALS[ctx.size])  # the first deals of the base run, replayed
    seats = seats[seats["game"] < deals * len(mix)]
    seats2 = api.play(
        no_cards,
        mix2,
        n=deals * len(mix),
        players=len(mix),
        seed=seed,
        jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
        engine=ctx.engine_for(api),
    ).seats
    sec.scenarios.append(
        {
            **scenario_row(no_cards),
            "name": f"{scen.name} + {name}",
            "path": relative_path(scen.path),
        }
    )
    key = ["game", "rotation", "seat"]
    a = seats[seats["strategy"] == "tavern"].set_index(key).sort_index()
    b = seats2[seats2["strategy"] == name].set_index(key).sort_index()
    a, b = a.align(b, join="inner", axis=0)
    opp_a = seats[seats["strategy"] != "tavern"].groupby("game")["fame"].mean()
    opp_b = seats2[seats2["strategy"] != name].groupby("game")["fame"].mean()
    games = a.index.get_level_values("game")
    measures = [("win share", a["score"], b["score"]), ("final fame", a["fame"], b["fame"])]
    for src, label in SOURCE_LABELS.items():
        col = f"fame_{src}"
        if col in a:
            measures.append((f"fame from {label}", a[col], b[col]))
    measures.append(("opponents' mean final fame", opp_a.loc[games], opp_b.loc[games]))
    rows = []
    for measure, x, y in measures:
        # buying minus never buying; a deal's rotations replay its dice: the deal is the unit
        d = paired(y.to_numpy(float), x.to_numpy(float), per_unit=len(mix))
        rows.append(
            {
                "measure": measure,
                "buying_cards": float(np.mean(x)),
                "never_buying": float(np.mean(y)),
                "difference": d["difference"],
                "ci_low": d["ci_low"],
                "ci_high": d["ci_high"],
                "paired_games": d["pairs"],
            }
        )
    value = pd.DataFrame(rows)
    v = value.set_index("measure")
    opp = v.loc["opponents' mean final fame"]
    wr, ff = v.loc["win share"], v.loc["final fame"]
    sources = v[v.index.str.startswith("fame from ")]
    moved = ", ".join(
        f"{m.removeprefix('fame from ')} {r.difference:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}]"
        for m, r in sources.sort_values("difference").iterrows()
        if r.ci_low > 0 or r.ci_high < 0
    )
    sec.heading("Buying Tavern cards", anchor="cove-tavern")
    sec.text(
        f"Tavern cards, by a paired replay: the same {len(a):,} games were replayed with the "
        "tavern strategy never buying Tavern cards (same deals, seats and dice streams until the "
        "games diverge); the difference is what buying and playing cards is worth to that "
        "strategy, with Student t 95% intervals over the paired deals (a deal's rotations "
        "replay its dice; each card's own value is below)."
    )
    sec.text(
        f"Buying cards moves the tavern strategy's win share by {wr['difference']:+.1%} "
        f"[{wr['ci_low']:+.1%}, {wr['ci_high']:+.1%}] and its final fame by "
        f"{ff['difference']:+.2f} [{ff['ci_low']:+.2f}, {ff['ci_high']:+.2f}]; the "
        f"fame moves between sources (those whose 95% interval excludes zero: "
        f"{moved or 'none'}), and its opponents' mean final fame moves by "
        f"{opp['difference']:+.2f} [{opp['ci_low']:+.2f}, {opp['ci_high']:+.2f}]: the win "
        "share depends on fame relative to the table, not on fame alone.",
        "explain",
        anchor="cove-explain-tavern",
    )
    ctx.figure(
        sec,
        "cove_tavern_card_value",
        figures.forest(
            value.assign(what=value["measure"]).iloc[:1],
            label="what",
            panels=[("difference", "ci_low", "ci_high", "change in win share (points)")],
            scale=[100.0],
            title="Buying Tavern cards (tavern strategy)",
        ),
        caption="Win share of the tavern strategy buying cards minus never buying them, same "
        "games (95% interval).",
        csv="cove_tavern_card_value",
        n=f"{len(a):,} paired games",
        n_value=len(a),
        players=f"{who}; replayed with {name} in the tavern seats",
    )
    sec.table(
        "cove_tavern_card_value",
        value,
        "Tavern strategy with and without buying Tavern cards (paired games).",
        key=("measure",),
        columns=[
            "measure",
            "buying_cards",
            "never_buying",
            "difference",
            "ci_low",
            "ci_high",
            "paired_games",
        ],
        phone=("difference", "ci_low", "ci_high", "conclusive"),
    )
    n = len(a)
    dfree = max(n // len(mix) - 1, 1)
    for r in value.itertuples():
        share = r.measure == "win share"
        sec.claims.append(
            make_claim(
                value,
                "cove_tavern_card_value",
                {"measure": r.measure},
                "difference",
                game="cove",
                claim_key=f"cove/tavern-cards/default/{r.measure}",
                quantity=f"change in the tavern strategy's {r.measure} from buying cards",
                sentence=f"Buying Tavern cards changes the tavern strategy's {r.measure} by "
                "{value} {ci} (the same games replayed without buying, {n} pairs)",
                null=0.0,
                null_words="zero",
                players=who,
                n=n,
                anchor="tbl-cove_tavern_card_value",
                unit=f"difference in {r.measure}" + (" (0..1)" if share else " (fame points)"),
                crit=float(sps.t.isf(0.025, dfree)),
                df_t=dfree,
                table_players=len(mix),
                effect="relative",
                base_value=float(r.never_buying),
                sizes=sizes,
                family="tavern",
                finding=r.measure in ("win share", "final fame"),
                scale=100.0 if share else 1.0,
                unit_short=" points" if share else " fame",
                decimals=1 if share else 2,
            )
        )
    return value


def _space(scen, kind: str) -> dict:
    from scenarios.strategies import param_space

    return param_space(scen.rules.kinds, kind)
