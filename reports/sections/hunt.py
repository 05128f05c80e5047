"""Report section "Les Pirates": seat order and strategies at 4 and 2 players, turns to win,
each printed variant against the base game (under the default mix and under the equilibrium
population), and balance under strong play.

Games come from :func:`simulator.hunt.api.play` (the game protocol). The base game is played by
the scenario's default mix (reference players left out) with seats rotated, so seat and strategy
effects separate; the reference player (random) is measured apart, as a floor. Each printed
variant is played on the same seeds as the base run of its table size with the same players
(common random numbers: game i of both meets the same dice), so each measure's paired difference
has a Student t interval; under the equilibrium population the variant's games pair with the
strong-play games of the same table size (same seat draws, same dice). Variants are the "what to
try" of the seat-order and strategy verdicts.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pandas as pd

from reports.html import Section
from reports.sections.common import (
    DEFAULT,
    describe_strategies,
    distribution_table,
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
from scenarios.loader import ScenarioError
from simulator.hunt import api
from simulator.hunt import variants as hunt_variants
from simulator.runner import derive_seed

TITLE = "Les Pirates"
#: games of the base game at its default player count, and at two players (first seat matters
#: most there); Les Pirates games are cheap, so the quick size spends most of its games here
BASE_GAMES = {"test": 16, "quick": 3_000, "standard": 20_000, "full": 100_000}
TWO_PLAYER_GAMES = {"test": 16, "quick": 2_000, "standard": 10_000, "full": 50_000}
#: paired games per printed variant (the first games of the base run of its table size: never
#: more than BASE_GAMES or TWO_PLAYER_GAMES)
VARIANT_GAMES = {"test": 8, "quick": 1_000, "standard": 10_000, "full": 50_000}
#: games of a variant the base scenario cannot pair (another player count: no difference can be
#: measured, only its own rates; the double board seats 6 and plays about 10x slower)
UNPAIRED_GAMES = {"test": 8, "quick": 200, "standard": 1_000, "full": 5_000}
#: games per strategy tried against an equilibrium population (and games with every seat drawn,
#: which the variants under the population pair with)
STRONG_GAMES = {"test": 32, "quick": 1_000, "standard": 10_000, "full": 50_000}
#: games of each variant under an equilibrium population (the first slices of STRONG_GAMES)
VARIANT_POP_GAMES = {"test": 32, "quick": 512, "standard": 5_000, "full": 25_000}
#: games of a reference player per seat it takes (the floor rows)
REFERENCE_GAMES = {"test": 4, "quick": 150, "standard": 1_000, "full": 5_000}
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
#: the variants' measures: (short key, measure in words, per-game column, unit, scale, suffix)
MEASURES = (
    ("first-seat", "first-seat win share", "first_seat_won", 100.0, " points"),
    ("length", "game length (turns)", "turns", 1.0, " turns"),
    ("stalemate", "stalemate rate", "stalemate", 100.0, " points"),
)


def build(ctx, seed: int) -> Section:
    from reports import figures

    files = ctx.scenarios.get("hunt") or [None]
    base = api.load(files[0])
    sec = Section("hunt", TITLE)
    sec.scenarios.append(scenario_row(base))
    refs = reference_names(base)
    n_players = int(base.rules.default_players)
    default = [m for m in api.default_mix(base) if m not in refs]
    mix = default[:n_players] if n_players <= len(default) else [default[0]] * n_players
    n = BASE_GAMES[ctx.size]
    engine = ctx.engine_for(api)
    games = api.play(
        base,
        mix,
        n=n,
        seed=seed,
        jobs=ctx.jobs,
        rotate_seats=True,
        quiet=True,
        players=n_players,
        engine=engine,
    ).seats.copy()
    who = players_words(mix)
    sec.text(
        f"{n:,} games of the base game ('{base.name}', rules {base.rules_version}) with "
        f"{n_players} players, the {who}. A game that reaches the turn limit "
        f"({base.rules.max_turns} player turns) is a stalemate (every player then scores 1/P). "
        "Intervals are 95% Wilson intervals for rates, normal intervals for means and Student t "
        "intervals for paired differences; conclusive = the row's p-value stays at most 0.05 "
        "after Holm's correction over every claim of the page."
    )
    describe_strategies(sec, base, [*default, *sorted(refs)])
    _glossary(sec, base)
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
        sizes=sizes_of(STRONG_GAMES),
    )
    seat_keys = {
        n_players: seat_advantage(
            ctx,
            sec,
            games,
            "score",
            stem="hunt_seat_advantage",
            game="hunt",
            n_players=n_players,
            n_games=n,
            title="Win rate by seat (1 = moves first)",
            caption="Does moving first help? Win share by seat in the base game.",
            table_title="Win share by seat (1 = first to move).",
            players=who,
            sizes=sizes_of(BASE_GAMES),
            strong={s: strong.key("seat", n_players, s) for s in range(1, n_players + 1)},
        )
    }
    runs = {n_players: (mix, seed, games, n)}  # table size -> (mix, seed, seats, games)
    if n_players != 2 and 2 in api.player_counts(base):
        mix2 = default[:2]
        n2 = TWO_PLAYER_GAMES[ctx.size]
        seed2 = derive_seed(seed, "hunt-two-players")
        g2 = api.play(
            base,
            mix2,
            n=n2,
            seed=seed2,
            jobs=ctx.jobs,
            rotate_seats=True,
            quiet=True,
            engine=engine,
            players=2,
        ).seats
        runs[2] = (mix2, seed2, g2, n2)
        _first_move_by_length(sec, per_game(g2), n2)
        seat_keys[2] = seat_advantage(
            ctx,
            sec,
            g2,
            "score",
            stem="hunt_seat_advantage_2p",
            game="hunt",
            n_players=2,
            n_games=n2,
            title="Two players: win rate by seat (1 = moves first)",
            caption="The same question at two players, where moving first matters most.",
            table_title="Two players: win share by seat (1 = first to move).",
            players=players_words(mix2),
            sizes=sizes_of(TWO_PLAYER_GAMES),
            strong={1: strong.key("seat", 2, 1), 2: strong.key("seat", 2, 2)},
        )

    fair = 1 / n_players
    floor = reference_rows(
        api,
        base,
        mix,
        games_per_seat=REFERENCE_GAMES[ctx.size],
        seed=seed,
        jobs=ctx.jobs,
        engine=engine,
        players=n_players,
    )
    strat = strategy_table(rate_table(games, ["strategy"]), floor, base)
    ctx.figure(
        sec,
        "hunt_strategy_win_rates",
        figures.rates_with_intervals(
            strat.assign(
                label=[
                    f"{s} (reference)" if r else s
                    for s, r in zip(strat["strategy"], strat["reference"])
                ]
            ),
            label="label",
            title="Win rate by player strategy",
            xlabel="games won",
            reference=fair,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption="Win share of each strategy of the default mix (seats rotated); the reference "
        "player (a floor) took each seat in turn against the others.",
        csv="hunt_strategy_win_rates",
        n=f"{n:,} games, {n:,} seats per strategy",
        n_value=n,
        players=who,
    )
    sec.table(
        "hunt_strategy_win_rates",
        strat,
        "Win share by strategy (reference = a floor player, not part of any balance share).",
        key=("strategy",),
        columns=["strategy", "reference", "wins", "shared", "n", "win_rate", "ci_low", "ci_high"],
    )
    strat_keys = share_claims(
        sec,
        strat,
        "hunt_strategy_win_rates",
        "strategy",
        game="hunt",
        what="strategy",
        players_n=n_players,
        who=who,
        population=DEFAULT,
        sentence=f"At {n_players} players the {{row}} strategy wins {{value}} {{ci}} of its "
        "{n} games",
        anchor="fig-hunt_strategy_win_rates",
        sizes=sizes_of(BASE_GAMES),
        key_prefix=f"hunt/strategy/{n_players}p/default",
        quantity=f"win share of {{row}} at {n_players} players",
        strong={s: strong.key("strategy", n_players, s) for s in default},
        skip=refs,
        unit="share of games won by the strategy",
    )

    _turns_to_win(ctx, sec, base, runs, who)
    base_per_game = {p: per_game(r[2], list(r[0])) for p, r in runs.items()}
    sec.data("hunt_games", base_per_game[n_players].reset_index(), key=("game",))

    remedies = _variants(ctx, sec, base, files[0], runs, base_per_game, strong, seed)
    for p, keys in seat_keys.items():
        sec.axes.append(
            Axis(
                game="hunt",
                axis="seat-order",
                players=p,
                rows=tuple((f"seat {s}", k) for s, k in keys.items()),
                fair=1 / p,
                unit="share of games won by the seat",
                population=players_words(runs[p][0]),
                size=ctx.size,
                remedies=tuple(rem for pp, row, rem in remedies if pp == p and row is None),
            )
        )
    sec.axes.append(
        Axis(
            game="hunt",
            axis="strategy",
            players=n_players,
            rows=tuple((s, k) for s, k in strat_keys.items()),
            fair=fair,
            unit="share of games won by the strategy",
            population=who,
            size=ctx.size,
            remedies=tuple(rem for pp, row, rem in remedies if pp == n_players and row is not None),
        )
    )
    return sec


def _glossary(sec: Section, scen) -> None:
    for name, decl in scen.rules.strategies.items():
        ref = "; a reference player" if getattr(decl, "reference", False) else ""
        sec.glossary.append((name, f"{decl.description or name} (kind {decl.kind}{ref})."))


def _turns_to_win(ctx, sec: Section, base, runs: dict, who: str) -> None:
    """The margin of victory of a race: turns until someone brings a treasure home, by table
    size (distribution and quantiles), and the stalemates."""
    from reports import figures

    parts = []
    for p, (_, _, seats, _) in sorted(runs.items()):
        g = per_game(seats).reset_index()
        parts.append(g.assign(players=f"{p} players"))
    allg = pd.concat(parts, ignore_index=True)
    dist = distribution_table(allg, "players", "turns")
    st = allg.groupby("players", sort=False)["stalemate"].agg(["sum", "count"]).reset_index()
    dist["stalemates"] = st["sum"].astype(int).to_numpy()
    from simulator.stats import wilson_interval

    _, hi = wilson_interval(dist["stalemates"].to_numpy(float), dist["games"].to_numpy(float))
    dist["stalemate_ci_high"] = np.atleast_1d(hi)
    ctx.figure(
        sec,
        "hunt_turns_to_win",
        figures.histogram(
            allg,
            x="turns",
            hue="players",
            title="Turns until someone wins",
            xlabel="player turns until a treasure reaches home",
        ),
        caption="How long a race lasts: the distribution of player turns until the winner "
        "brings a treasure home, at each table size (the margin of victory of a race game).",
        csv="hunt_turns_to_win",
        n=" and ".join(f"{len(g):,} games at {g['players'].iloc[0]}" for g in parts),
        n_value=len(allg),
        players=who,
    )
    sec.table(
        "hunt_turns_to_win",
        dist,
        "Turns to win by table size: mean (95% interval) and quantiles (p10: 10% of games end "
        "sooner), and the stalemates (with their 95% upper bound).",
        key=("players",),
        columns=[
            "players",
            "games",
            "mean",
            "ci_low",
            "ci_high",
            "p10",
            "p25",
            "p50",
            "p75",
            "p90",
            "stalemates",
            "stalemate_ci_high",
        ],
        phone=("mean", "p10", "p50", "p90"),
    )
    for r in dist.itertuples():
        if r.stalemates == 0:
            anchor = f"hunt-no-stalemate-{r.players.split()[0]}p"
            sec.text(
                f"No game reached the turn limit ({base.rules.max_turns} player turns) in "
                f"{r.games:,} games at {r.players} (stalemates in at most "
                f"{r.stalemate_ci_high:.2%} of games, 95% upper bound); the longest took "
                f"{int(allg.loc[allg['players'] == r.players, 'turns'].max())} turns.",
                "explain",
                anchor=anchor,
            )
            sec.absences.append(
                ("hunt", f"no stalemate in {r.games:,} games at {r.players}", anchor)
            )


def _first_move_by_length(sec: Section, games: pd.DataFrame, n: int) -> None:
    """Where the two-player first-move advantage comes from: the first player's win rate in the
    shorter and the longer half of the games (split at the median length), and whether the two
    differ (normal interval of the difference)."""
    from simulator.stats import Z95, wilson_interval

    median = float(games["turns"].median())
    short = games[games["turns"] <= median]["first_seat_won"].to_numpy(float)
    long_ = games[games["turns"] > median]["first_seat_won"].to_numpy(float)
    if len(short) < 2 or len(long_) < 2:
        return
    parts = []
    for what, d in ((f"games of at most {median:.0f} turns", short), ("longer games", long_)):
        lo, hi = wilson_interval(d.sum(), len(d))
        parts.append(f"{d.mean():.0%} [{lo:.0%}, {hi:.0%}] of the {len(d):,} {what}")
    diff = short.mean() - long_.mean()
    se = math.sqrt(short.var(ddof=1) / len(short) + long_.var(ddof=1) / len(long_))
    lo, hi = diff - Z95 * se, diff + Z95 * se
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


def _variants(ctx, sec: Section, base, base_file, runs, base_per_game, strong, seed: int):
    """Each printed variant against the base game, paired, under the default mix and under the
    equilibrium population of its table size. Returns ``(players, strategy or None, Remedy)``."""
    from reports import figures
    from reports import strong_play as sp
    from scenarios.populations import load_population

    engine = ctx.engine_for(api)
    n_var = VARIANT_GAMES[ctx.size]
    rows, notes, remedies, specs = [], [], [], []
    for name in hunt_variants.variant_names():
        label = VARIANT_LABELS.get(name, name)
        try:
            scen = api.load(base_file, [name])
        except ScenarioError as exc:  # a variant that cannot sit on the user's base scenario
            notes.append(f"{label}: not played ({str(exc).splitlines()[0]})")
            continue
        sec.scenarios.append(
            {**scenario_row(scen), "path": relative_path(hunt_variants.variant_path(name))}
        )
        p = int(scen.rules.default_players)
        if p not in runs:
            mix_v = [m for m in api.default_mix(scen) if m not in reference_names(scen)]
            k = UNPAIRED_GAMES[ctx.size]
            g = per_game(
                api.play(
                    scen,
                    mix_v,
                    n=k,
                    seed=derive_seed(seed, "hunt-unpaired", zlib.crc32(name.encode())),
                    jobs=ctx.jobs,
                    rotate_seats=True,
                    quiet=True,
                    players=p,
                    engine=engine,
                ).seats
            )
            for _, measure, col, _, _ in MEASURES:
                rows.append(_row(label, name, p, DEFAULT, measure, k, float(g[col].mean())))
            notes.append(
                f"{label}: {p} players, which the base scenario does not seat (it seats "
                f"{', '.join(map(str, api.player_counts(base)))}), so no difference can be "
                f"measured; its own rates from {k:,} games ({players_words(mix_v)}) are in the "
                "table"
            )
            continue
        mix, b_seed, _, b_n = runs[p]
        k = min(n_var, b_n)
        var = per_game(
            api.play(
                scen,
                mix,
                n=k,
                seed=b_seed,
                jobs=ctx.jobs,
                rotate_seats=True,
                quiet=True,
                players=p,
                engine=engine,
            ).seats,
            list(mix),
        )
        b_all = base_per_game[p]
        b = b_all.iloc[:k]
        measures = [*MEASURES] + [
            (f"share-{s}", f"win share of {s}", f"score:{s}", 100.0, " points")
            for s in dict.fromkeys(mix)
        ]
        pop_var = None
        if p in strong.runs:
            found, s_seats, s_seed, s_n = strong.runs[p]
            try:
                pop = load_population(found.path, scen, check_hash=False)
                k_pop = min(s_n, VARIANT_POP_GAMES[ctx.size])  # the strong run's first slices
                pop_var = (
                    found.name,
                    per_game(
                        sp.play_under(api, pop, n=k_pop, seed=s_seed, jobs=ctx.jobs, engine=engine)
                    ),
                    per_game(s_seats),
                    sp.mixture_words(pop),
                )
            except ScenarioError as exc:
                notes.append(f"{label}: not measured under {found.name} ({exc})")
        for key, measure, col, scale, short in measures:
            d = paired(b[col].to_numpy(), var[col].to_numpy())
            rows.append(_row(label, name, p, DEFAULT, measure, k, float(var[col].mean()), d))
            ck = f"hunt/variant/default/{name}/{key}"
            strong_key = None
            if pop_var is not None and not key.startswith("share-"):
                pname, pv, pb, words = pop_var
                m = min(len(pv), len(pb))
                per = sp.slice_games(p)
                dp = paired(pb[col].to_numpy()[:m], pv[col].to_numpy()[:m], per_unit=per)
                m = dp["pairs"]
                rows.append(_row(label, name, p, pname, measure, m, float(pv[col].mean()), dp))
                strong_key = f"hunt/variant/{pname}/{name}/{key}"
                pending_pop = (pname, m, float(pb[col].mean()), words, dp["df"])
            else:
                pending_pop = None
            specs.append(
                (ck, name, label, p, DEFAULT, players_words(mix), measure, key, k,
                 float(b_all[col].mean()), scale, short, strong_key, True, k - 1)
            )  # fmt: skip
            if pending_pop is not None:
                pname, m, bv, words, dfree = pending_pop
                specs.append(
                    (strong_key, name, label, p, pname,
                     f"equilibrium population {pname} ({words})", measure, key, m, bv, scale,
                     short, None, False, dfree)
                )  # fmt: skip
            if key == "first-seat":
                remedies.append((p, None, Remedy(label, "variant", ck, "first-seat win share")))
            elif key.startswith("share-"):
                s = key.removeprefix("share-")
                remedies.append((p, s, Remedy(label, "variant", ck, f"{s}'s win share", row=s)))
    if not rows:
        sec.text("No variant could be played on this base scenario.", "warning")
        return []
    table = pd.DataFrame(rows)
    sec.heading("Variants against the base game", anchor="hunt-variants")
    sec.text(
        f"Each printed variant, {n_var:,} games with the base game's players (the default mix "
        "at its table size, seats rotated) on the seeds of the base run of that table size: "
        "game i of both uses the same dice streams until the rules make them diverge. Under "
        f"the equilibrium population, {VARIANT_POP_GAMES[ctx.size]:,} games of the variant pair "
        "with the first strong-play games of the same table size (the same seat draws and "
        "dice; the slice of games sharing a draw is the unit). Differences are variant minus "
        "base with Student t 95% intervals from the paired games; `broadside compare BASE "
        "VARIANT --game hunt` runs a sequential test to a chosen size."
    )
    for note in notes:
        sec.text(note, "note")
    _unused(sec, table)
    shown = table[(table["population"] == DEFAULT) & table["difference"].notna()]
    shown = shown[~shown["measure"].str.startswith("win share of")]
    if not shown.empty:
        wide = shown.pivot_table(
            index="variant",
            columns="measure",
            values=["difference", "ci_low", "ci_high"],
            sort=False,
        )
        wide.columns = [f"{a}|{b}" for a, b in wide.columns]
        wide = wide.reset_index()
        panels, scales = [], []
        for _, measure, _, sc, _ in MEASURES[:2]:
            cols = [f"difference|{measure}", f"ci_low|{measure}", f"ci_high|{measure}"]
            if cols[0] in wide and (wide[cols].abs() > 0).to_numpy().any():
                unit = "points" if sc == 100.0 else "turns"
                panels.append((*cols, f"change in {measure.split(' (')[0]} ({unit})"))
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
                    title="Each variant against the base game",
                ),
                caption="What each printed variant changes compared with the base game (the "
                "default mix), with 95% intervals from paired games; the dashed line is no "
                "change.",
                csv="hunt_variants_vs_base",
                n=f"{n_var:,} paired games per variant",
                n_value=n_var,
                players=players_words(runs[max(runs)][0]),
            )
    sec.table(
        "hunt_variants_vs_base",
        table,
        "Each variant against the base game, under the default mix and under the equilibrium "
        "population (paired games; difference = variant minus base).",
        key=("variant_file", "population", "measure"),
        columns=[
            "variant",
            "players",
            "population",
            "measure",
            "games",
            "variant_value",
            "difference",
            "ci_low",
            "ci_high",
        ],
        phone=("variant", "measure", "difference", "conclusive"),
    )
    for spec in specs:
        sec.claims.append(_variant_claim(table, *spec))
    return remedies


def _row(label, name, p, population, measure, games, value, d=None) -> dict:
    row = {
        "variant": label,
        "variant_file": name,
        "players": p,
        "population": population,
        "measure": measure,
        "games": int(games),
        "variant_value": value,
        "difference": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "df": 0,
    }
    if d is not None:
        row.update(difference=d["difference"], ci_low=d["ci_low"], ci_high=d["ci_high"], df=d["df"])
    return row


def _variant_claim(
    table, key, name, label, p, population, who, measure, mkey, n, base_value, scale, short,
    strong, finding, dfree,
):  # fmt: skip
    """The claim of one row of the variants table (a paired difference, Student t with
    ``dfree`` degrees of freedom: games - 1, or slices - 1 under a population)."""
    from scipy import stats as sps

    df = max(int(dfree), 1)
    return make_claim(
        table,
        "hunt_variants_vs_base",
        {"variant_file": name, "population": population, "measure": measure},
        "difference",
        game="hunt",
        claim_key=key,
        quantity=f"change in {measure} under {label}",
        sentence=f"The {label} variant changes the {measure} by {{value}} {{ci}} against the "
        f"base game ({{n}} paired games, {p} players)",
        null=0.0,
        null_words="zero",
        players=who,
        population=population,
        n=n,
        anchor="tbl-hunt_variants_vs_base",
        unit=f"difference in {measure}",
        crit=float(sps.t.isf(0.025, df)),
        df_t=df,
        table_players=p,
        effect="relative",
        base_value=base_value,
        sizes=sizes_of(VARIANT_GAMES if population == DEFAULT else VARIANT_POP_GAMES),
        strong=strong,
        finding=finding,
        family=f"variant/{'share' if mkey.startswith('share-') else mkey}",
        scale=scale,
        unit_short=short,
        decimals=1,
    )


def _unused(sec: Section, table: pd.DataFrame) -> None:
    """A variant whose every paired game came out as in the base game, under a population: a
    rule those players never used, not a measured zero effect."""
    d = table[table["difference"].notna()]
    for (name, population), g in d.groupby(["variant_file", "population"], sort=False):
        if not ((g["difference"] == 0) & (g["ci_low"] == 0) & (g["ci_high"] == 0)).all():
            continue
        label = VARIANT_LABELS.get(name, name)
        who = "these players" if population == DEFAULT else f"the {population} population"
        anchor = f"hunt-unused-{name}-{population.replace(' ', '-')}"
        sec.text(
            f"{label} ({population}): every one of the {int(g['games'].iloc[0]):,} paired games "
            "came out exactly as in the base game (same winner, same length), so the "
            f"variant's rule never changed a game played by {who}: a rule they never use, not "
            "a measured zero effect.",
            "explain",
            anchor=anchor,
        )
        sec.absences.append(
            ("hunt", f"the {label} variant never changed a game ({population})", anchor)
        )
