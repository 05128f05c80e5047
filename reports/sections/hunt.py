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
    claim,
    conclusive,
    describe_strategies,
    description_column,
    is_random,
    players_words,
    rate_table,
    scenario_row,
    seat_advantage,
    strong_play,
)
from scenarios.loader import ScenarioError
from simulator.hunt import api
from simulator.hunt import variants as hunt_variants
from simulator.runner import derive_seed
from simulator.sequential import holm

TITLE = "Les Pirates"
#: games of the base game at its default player count, and at two players (first seat matters
#: most there); Les Pirates games are cheap, so the quick size spends most of its games here
BASE_GAMES = {"test": 16, "quick": 3_000, "standard": 20_000, "full": 100_000}
TWO_PLAYER_GAMES = {"test": 16, "quick": 2_000, "standard": 10_000, "full": 50_000}
#: paired games per printed variant (and of the base at the variant's player count)
VARIANT_GAMES = {"test": 8, "quick": 1_000, "standard": 10_000, "full": 50_000}
#: games of a variant the base scenario cannot pair (another player count: no difference can be
#: measured, only its own rates; the double board seats 6 and plays about 10x slower)
UNPAIRED_GAMES = {"test": 8, "quick": 200, "standard": 1_000, "full": 5_000}
#: games per strategy tried against an equilibrium population (and games with every seat drawn)
STRONG_GAMES = {"test": 32, "quick": 1_000, "standard": 10_000, "full": 50_000}
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
    return {
        "difference": mean,
        "ci_low": mean - t * se,
        "ci_high": mean + t * se,
        "p_value": p,
        "se": se,
    }


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
    default = list(api.default_mix(base))
    mix = default[:n_players] if n_players <= len(default) else [default[0]] * n_players
    n = BASE_GAMES[ctx.size]
    games = api.play(
        base,
        mix,
        n=n,
        seed=seed,
        jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
        players=n_players,
        engine=ctx.engine_for(api),
    ).seats.copy()
    who = players_words(mix)
    sec.text(
        f"{n:,} games of the base game ('{base.name}', rules {base.rules_version}) with "
        f"{n_players} players, the {who}, each sitting in each seat equally often. "
        f"A game that reaches the turn limit ({base.rules.max_turns} player turns) is a stalemate "
        "(every player then scores 1/P). Intervals are 95% Wilson intervals for rates and normal "
        "intervals for means; conclusive = the interval excludes the fair share (or zero for a "
        "difference)."
    )
    describe_strategies(sec, base, default)
    fair = 1 / n_players
    seat_advantage(
        ctx,
        sec,
        games,
        "score",
        stem="hunt_seat_advantage",
        n_players=n_players,
        n_games=n,
        title="Win rate by seat (1 = moves first)",
        caption="Does moving first help? Win share by seat in the base game.",
        table_title="Win share by seat (1 = first to move).",
        players=who,
    )
    two = None
    if n_players != 2 and 2 in api.player_counts(base):
        mix2 = default[:2]
        n2 = TWO_PLAYER_GAMES[ctx.size]
        g2 = api.play(
            base,
            mix2,
            n=n2,
            seed=derive_seed(seed, "hunt-two-players"),
            jobs=ctx.jobs,
            rotate_seats=True,
            quiet=True,
            engine=ctx.engine_for(api),
            players=2,
        ).seats
        two = (mix2, n2)
        _first_move_by_length(sec, _per_game(g2), n2)
        seat_advantage(
            ctx,
            sec,
            g2,
            "score",
            stem="hunt_seat_advantage_2p",
            n_players=2,
            n_games=n2,
            title="Two players: win rate by seat (1 = moves first)",
            caption="The same question at two players, where moving first matters most.",
            table_title="Two players: win share by seat (1 = first to move).",
            players=players_words(mix2),
        )
    strat = rate_table(games, ["strategy"], "score")
    strat["conclusive"] = conclusive(strat, fair)
    strat["description"] = description_column(base, strat["strategy"])
    ctx.figure(
        sec,
        "hunt_strategy_win_rates",
        figures.rates_with_intervals(
            strat,
            label="strategy",
            title="Win rate by player strategy",
            xlabel="games won",
            reference=fair,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption="Win share of each strategy (seats rotated).",
        csv="hunt_strategy_win_rates",
        n=f"{n:,} games, {int(strat['n'].iloc[0]):,} seats per strategy",
        n_value=n,
        players=who,
    )
    sec.table(
        "hunt_strategy_win_rates",
        strat,
        "Win share by strategy.",
        key=("strategy",),
        columns=["strategy", "wins", "n", "win_rate", "ci_low", "ci_high", "conclusive"],
    )

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
    lo, hi = _mean_ci(per_game["turns"])
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
        players=who,
    )
    sec.table(
        "hunt_game_length",
        length,
        "Game length and stalemates in the base game.",
        key=("scenario",),
        columns=[
            "scenario",
            "games",
            "mean_turns",
            "mean_turns_ci_low",
            "mean_turns_ci_high",
            "turns_p50",
            "turns_p90",
            "stalemates",
            "stalemate_rate",
            "stalemate_ci_high",
        ],
    )
    if int(length["stalemates"].iloc[0]) == 0:
        text = (
            f"No game reached the turn limit ({base.rules.max_turns} player turns) in {n:,} "
            f"games (stalemates in at most {length['stalemate_ci_high'].iloc[0]:.2%} of games, "
            f"95% upper bound); the longest game took {int(per_game['turns'].max())} turns."
        )
        sec.text(text, "explain", anchor="hunt-no-stalemate")
        sec.absences.append(("hunt", f"no stalemate in {n:,} games", "hunt-no-stalemate"))
    sec.data("hunt_games", per_game, key=("game",))

    variants = _variants(ctx, sec, api, variants_mod, base, files[0], seed)
    strong = strong_play(
        ctx,
        sec,
        api,
        base,
        seed,
        game="hunt",
        n=STRONG_GAMES[ctx.size],
        mix=default,
        stem_prefix="hunt",
    )

    seat_tabs = [("hunt_seat_advantage", n_players, n, who)]
    if two is not None:
        seat_tabs.append(("hunt_seat_advantage_2p", 2, two[1], players_words(two[0])))
    for stem, p, games_n, words in seat_tabs:
        sec.claims.append(
            claim(
                sec.tables[stem],
                stem,
                {"seat_in_turn_order": 1},
                "win_rate",
                game="hunt",
                claim_key=f"hunt/first-seat/{p}p",
                sentence=f"At {p} players the first to move wins {{value}} {{ci}} of {{n}} games",
                null=1 / p,
                null_words=f"the fair share of {1 / p:.0%}",
                players=words,
                n=games_n,
                anchor=f"fig-{stem}",
                unit="share of games won by seat 1",
                strong=strong.get(f"hunt/first-seat/{p}p"),
            )
        )
    for name in strat["strategy"]:
        if is_random(base, name):  # a reference baseline, not a verdict on the game
            continue
        sec.claims.append(
            claim(
                strat,
                "hunt_strategy_win_rates",
                {"strategy": name},
                "win_rate",
                game="hunt",
                claim_key=f"hunt/strategy/{n_players}p/{name}",
                sentence=f"The {name} strategy wins {{value}} {{ci}} of its games ({{n}} seats, "
                f"{n_players} players)",
                null=fair,
                null_words=f"the fair share of {fair:.0%}",
                players=who,
                n=int(strat.loc[strat["strategy"] == name, "n"].iloc[0]),
                anchor="fig-hunt_strategy_win_rates",
                unit="share of games won (win share)",
                strong=strong.get(f"hunt/strategy/{n_players}p/{name}"),
            )
        )
    if variants is not None:
        paired = variants[variants["difference"].notna()]
        for r in paired.itertuples():
            scale, short, dec = (
                (1.0, " turns", 1) if "turns" in r.measure else (100.0, " points", 1)
            )
            sec.claims.append(
                claim(
                    variants,
                    "hunt_variants_vs_base",
                    {"variant_file": r.variant_file, "measure": r.measure},
                    "difference",
                    game="hunt",
                    claim_key=f"hunt/variant/{r.variant_file}:{r.measure}",
                    sentence=f"The {r.variant} variant changes the {r.measure} by {{value}} "
                    f"{{ci}} against the base game ({{n}} paired games, {r.players} players)",
                    null=0.0,
                    null_words="zero",
                    players=f"hand-written strategy {VARIANT_PLAYER} in every seat",
                    n=int(r.games),
                    anchor="fig-hunt_variants_vs_base",
                    unit=f"difference in {r.measure}",
                    scale=scale,
                    unit_short=short,
                    decimals=dec,
                    corrected=bool(r.difference_detected),
                    correction=f"Holm's correction over the {len(paired)} paired rows",
                )
            )
    return sec


def _seats(rules, players: int) -> bool:
    """Whether the base scenario can seat ``players`` (so a variant can be paired with it)."""
    counts = getattr(rules, "player_counts", None)
    if counts is None:
        seats = rules.seats
        counts = [int(k) for k in seats] if hasattr(seats, "keys") else [len(x) for x in seats]
    return players in counts


VARIANT_PLAYER = "runner"


def _first_move_by_length(sec: Section, per_game: pd.DataFrame, n: int) -> None:
    """Where the two-player first-move advantage comes from: the first player's win rate in the
    shorter and the longer half of the games (split at the median length), and whether the two
    differ (normal interval of the difference)."""
    from simulator.stats import wilson_interval

    median = float(per_game["turns"].median())
    short = per_game[per_game["turns"] <= median]["first_seat_won"].to_numpy(float)
    long_ = per_game[per_game["turns"] > median]["first_seat_won"].to_numpy(float)
    if len(short) < 2 or len(long_) < 2:
        return
    parts = []
    for what, d in ((f"games of at most {median:.0f} turns", short), ("longer games", long_)):
        lo, hi = wilson_interval(d.sum(), len(d))
        parts.append(f"{d.mean():.0%} [{lo:.0%}, {hi:.0%}] of the {len(d):,} {what}")
    diff = short.mean() - long_.mean()
    se = math.sqrt(short.var(ddof=1) / len(short) + long_.var(ddof=1) / len(long_))
    lo, hi = diff - 1.959964 * se, diff + 1.959964 * se
    if lo > 0:
        verdict = "the shorter the game, the more moving first is worth"
    elif hi < 0:
        verdict = "the longer the game, the more moving first is worth"
    else:
        verdict = "no clear difference between short and long games at this n"
    sec.text(
        f"Two players: the first to move wins {' and '.join(parts)} (of {n:,} games); difference "
        f"{diff:+.1%} [{lo:+.1%}, {hi:+.1%}]: {verdict}.",
        "explain",
        anchor="hunt-explain-first-move",
    )


def _mean_ci(x: pd.Series) -> tuple[float, float]:
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
    return m - 1.959964 * se, m + 1.959964 * se


def _variants(ctx, sec: Section, api, variants_mod, base, base_file, seed: int):
    from reports import figures

    n = VARIANT_GAMES[ctx.size]
    names = list(variants_mod.variant_names())
    rows, notes = [], []
    base_cache: dict[int, pd.DataFrame] = {}
    vseed = derive_seed(seed, "hunt-variants")  # other streams than the mixed-strategy base run
    for name in names:
        try:
            scen = api.load(base_file, [name])
        except ScenarioError as exc:  # a variant that cannot sit on the user's base scenario
            notes.append(f"{name}: not played ({str(exc).splitlines()[0]})")
            continue
        sec.scenarios.append({**scenario_row(scen), "path": str(variants_mod.variant_path(name))})
        players = int(scen.rules.default_players)
        pairable = _seats(base.rules, players)
        n_var = n if pairable else UNPAIRED_GAMES[ctx.size]
        var_games = api.play(
            scen,
            [VARIANT_PLAYER],
            n=n_var,
            seed=vseed,
            jobs=ctx.jobs,
            quiet=True,
            players=players,
            engine=ctx.engine_for(api),
        ).seats
        var = _per_game(var_games)
        paired_base = None
        if pairable:
            if players not in base_cache:
                b_games = api.play(
                    base,
                    [VARIANT_PLAYER],
                    n=n,
                    seed=vseed,
                    jobs=ctx.jobs,
                    quiet=True,
                    players=players,
                    engine=ctx.engine_for(api),
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
                "games": n_var,
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
                    se=math.nan,
                )
            rows.append(row)
        if paired_base is None:
            notes.append(
                f"{VARIANT_LABELS.get(name, name)}: {players} players, which the base scenario "
                f"does not seat (it seats {', '.join(map(str, api.player_counts(base)))}), so no "
                f"difference can be measured; its own rates from {n_var:,} games are in the table"
            )
    if not rows:
        sec.text("No variant could be played on this base scenario.", "warning")
        return None
    table = pd.DataFrame(rows)
    has_p = table["p_value"].notna()
    table["p_holm"] = math.nan
    if has_p.any():
        table.loc[has_p, "p_holm"] = holm(table.loc[has_p, "p_value"].tolist())
    table["difference_detected"] = table["p_holm"] <= 0.05
    table["conclusive"] = table["difference_detected"]
    # the difference this n detects with 80% power at the 5% level (two-sided)
    table["detectable_at_n"] = 2.8016 * table["se"]
    sec.text(
        f"Each printed variant, {n:,} games with '{VARIANT_PLAYER}' players, against the base "
        "game with the "
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
        label = VARIANT_LABELS.get(name, name)
        sec.text(
            f"{label}: every one of the {n:,} paired games came out exactly as in the base "
            f"game (same winner, same length), so the variant's rule never changed a game played "
            f"by '{VARIANT_PLAYER}' players: a rule these players never use, not a measured zero "
            "effect.",
            "explain",
            anchor=f"hunt-unused-{name}",
        )
        sec.absences.append(
            ("hunt", f"the {label} variant never changed a game", f"hunt-unused-{name}")
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
            players=f"hand-written strategy {VARIANT_PLAYER} in every seat",
        )
    sec.table(
        "hunt_variants_vs_base",
        table,
        "Each variant against the base game (conclusive: Holm-corrected p at most 0.05; "
        "detectable_at_n: the difference this n would detect with 80% power).",
        key=("variant_file", "measure"),
        columns=[
            "variant",
            "players",
            "measure",
            "base_value",
            "variant_value",
            "difference",
            "ci_low",
            "ci_high",
            "p_holm",
            "conclusive",
            "detectable_at_n",
        ],
    )
    return table
