"""Helpers shared by the game sections of the report: rate tables, claims, reference rows, paired
differences, distributions, and balance under strong play."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.display import strategy as display_strategy
from reports.html import Section
from scenarios.loader import SCENARIO_ROOT
from scenarios.strategies import is_reference
from simulator.stats import Z95, wilson_interval

#: the project's root: provenance paths are written relative to it
PROJECT_ROOT = SCENARIO_ROOT.parent
SIZES = ("quick", "standard", "full")
DEFAULT = "default mix"


def rate_table(
    df: pd.DataFrame, by: list[str], success: str = "score", cluster: str | None = None
) -> pd.DataFrame:
    """By group: ``wins`` (outright), ``shared`` (games whose win was shared: ties, stalemates),
    ``n``, ``win_rate`` (the mean share of the win) and its Wilson 95 % interval.

    ``cluster``: a column grouping rows that are not independent (Pirate's Cove plays each deal
    under every rotation of seats on the same dice). The Wilson interval then counts
    ``n / design_effect`` trials, the design effect being the variance of the mean over whole
    clusters divided by its variance as if every row were independent (at least 1)."""
    s = df[success].astype(float)
    g = df.assign(_s=s, _w=(s == 1).astype(int), _h=((s > 0) & (s < 1)).astype(int)).groupby(
        by, sort=False, observed=True
    )
    out = g.agg(wins=("_w", "sum"), shared=("_h", "sum"), n=("_s", "count"), total=("_s", "sum"))
    out = out.reset_index()
    out["wins"] = out["wins"].astype(int)
    out["shared"] = out["shared"].astype(int)
    out["n"] = out["n"].astype(int)
    out["win_rate"] = out["total"] / out["n"]
    deff = np.ones(len(out))
    if cluster is not None:
        for i, (_, grp) in enumerate(df.assign(_s=s).groupby(by, sort=False, observed=True)):
            x = grp["_s"].to_numpy(float)
            per = grp.groupby(cluster)["_s"].agg(["sum", "count"])
            if len(per) > 1 and x.var(ddof=1) > 0:
                r = x.mean()
                resid = per["sum"].to_numpy(float) - r * per["count"].to_numpy(float)
                k = len(per)
                var_cl = (resid**2).sum() * k / (k - 1) / len(x) ** 2
                deff[i] = max(1.0, var_cl / (x.var(ddof=1) / len(x)))
        out["design_effect"] = deff
    lo, hi = wilson_interval(out["total"].to_numpy(float) / deff, out["n"].to_numpy(float) / deff)
    out["ci_low"], out["ci_high"] = np.atleast_1d(lo), np.atleast_1d(hi)
    return out.drop(columns=["total"])


def mean_table(df: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    """Mean of ``value`` by group with a normal 95% interval (n, mean, se, ci_low, ci_high)."""
    g = df.groupby(by, sort=False, observed=True)[value]
    out = g.agg(["mean", "std", "count"]).reset_index().rename(columns={"count": "n"})
    out["se"] = out["std"] / np.sqrt(out["n"].clip(lower=1))
    out["ci_low"] = out["mean"] - Z95 * out["se"]
    out["ci_high"] = out["mean"] + Z95 * out["se"]
    return out.drop(columns=["std"])


def relative_path(path: Any) -> str:
    """A scenario path relative to the project (as given when it lies outside)."""
    if path is None:
        return ""
    p = Path(str(path))
    try:
        return p.resolve().relative_to(PROJECT_ROOT.resolve()).as_posix()
    except ValueError:
        return str(path)


def scenario_row(scen) -> dict:
    return {
        "game": scen.game,
        "name": scen.name,
        "rules_version": scen.rules_version,
        "content_hash": scen.content_hash,
        "path": relative_path(scen.path),
    }


def sizes_of(table: Mapping[str, int], scale: float = 1.0) -> dict[str, int]:
    """The n of a measurement at each --size, from a section's size table."""
    return {s: int(table[s] * scale) for s in SIZES if s in table}


# --------------------------------------------------------------------------------------------
# Claims


def claim(
    df: pd.DataFrame,
    stem: str,
    key: dict,
    value: str,
    *,
    game: str,
    claim_key: str,
    quantity: str,
    sentence: str,
    null: float,
    null_words: str,
    players: str,
    n: int,
    anchor: str,
    unit: str,
    population: str = DEFAULT,
    low: str = "ci_low",
    high: str = "ci_high",
    crit: float = Z95,
    df_t: int | None = None,
    p_factor: float = 1.0,
    **kw,
):
    """A :class:`reports.findings.Claim` whose measurement is the row ``key`` of table ``stem``
    (``kw``: the claim's other fields: ``table_players``, ``effect``, ``base_value``, ``sizes``,
    ``strong``, ``family``, ``finding``, ``scale``, ``unit_short``, ``decimals``, ``n_unit``)."""
    from reports.findings import Claim, Measure

    m = Measure.from_row(
        df,
        stem,
        key,
        value,
        players=players,
        population=population,
        low=low,
        high=high,
        crit=crit,
        df_t=df_t,
        p_factor=p_factor,
    )
    table_players = kw.pop("table_players", None)
    return Claim(
        key=claim_key,
        game=game,
        quantity=quantity,
        sentence=sentence,
        unit=unit,
        null=null,
        null_words=null_words,
        baseline=m,
        anchor=anchor,
        n=int(n),
        players=table_players,
        **kw,
    )


def share_claims(
    sec: Section,
    df: pd.DataFrame,
    stem: str,
    column: str,
    *,
    game: str,
    what: str,
    players_n: int,
    who: str,
    population: str,
    sentence: str,
    anchor: str,
    sizes: Mapping[str, int] | None,
    n_unit: str = "games",
    key_prefix: str,
    quantity: str,
    strong: Mapping[Any, str] | None = None,
    skip: set | None = None,
    fair: float | None = None,
    value: str = "win_rate",
    low: str = "ci_low",
    high: str = "ci_high",
    unit: str = "share of games won",
    finding: bool = True,
    label=None,
) -> dict[Any, str]:
    """One claim per row of a share table against the fair share (``1/players_n`` unless
    ``fair``): ``sentence`` (with ``{row}`` in words: ``label(row)``) and ``quantity`` take
    ``{row}``. Returns ``{row value: claim key}``."""
    fair = 1 / players_n if fair is None else fair
    out = {}
    for r in df.itertuples(index=False):
        row = getattr(r, column)
        row = row.item() if hasattr(row, "item") else row
        if skip and row in skip:
            continue
        k = f"{key_prefix}/{row}"
        n = int(getattr(r, "n", 0) or getattr(r, "games", 0) or getattr(r, "battles", 0))
        sec.claims.append(
            claim(
                df,
                stem,
                {column: row},
                value,
                low=low,
                high=high,
                game=game,
                claim_key=k,
                quantity=quantity.format(row=row),
                sentence=sentence.format(
                    row=label(row) if label else row, value="{value}", ci="{ci}", n="{n}"
                ),
                null=fair,
                null_words=f"the fair share of {fair:.0%}" if fair != 0.5 else "an even 50%",
                players=who,
                population=population,
                n=n,
                n_unit=n_unit,
                anchor=anchor,
                unit=unit,
                table_players=players_n,
                sizes=sizes,
                strong=(strong or {}).get(row),
                finding=finding,
            )
        )
        out[row] = k
    return out


def seat_advantage(
    ctx,
    sec: Section,
    df: pd.DataFrame,
    success: str,
    *,
    stem: str,
    game: str,
    n_players: int,
    n_games: int,
    title: str,
    caption: str,
    table_title: str,
    players: str,
    sizes: Mapping[str, int] | None,
    strong: Mapping[Any, str] | None = None,
    cluster: str | None = None,
) -> dict[Any, str]:
    """Win rate by seat (numbered from 1 in turn order) against the fair share: figure, table,
    and a claim per seat (``conclusive`` written by the page's correction). Returns the claim
    keys by seat. ``cluster``: see :func:`rate_table`."""
    from reports import figures

    seats = rate_table(df, ["seat"], success, cluster=cluster)
    seats["seat"] = seats["seat"].astype(int)
    seats = seats.rename(columns={"seat": "seat_in_turn_order"})
    ctx.figure(
        sec,
        stem,
        figures.rates_with_intervals(
            seats,
            label="seat_in_turn_order",
            title=title,
            xlabel="games won",
            reference=1 / n_players,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption=caption,
        csv=stem,
        n=f"{n_games:,} games",
        n_value=n_games,
        players=players,
    )
    sec.table(
        stem,
        seats,
        table_title,
        key=("seat_in_turn_order",),
        columns=[
            "seat_in_turn_order",
            "wins",
            "shared",
            "n",
            "win_rate",
            "ci_low",
            "ci_high",
            "design_effect",
        ],
    )
    return share_claims(
        sec,
        seats,
        stem,
        "seat_in_turn_order",
        game=game,
        what="seat",
        players_n=n_players,
        who=players,
        population=DEFAULT,
        sentence=f"At {n_players} players seat {{row}} wins {{value}} {{ci}} of {{n}} games",
        anchor=f"fig-{stem}",
        sizes=sizes,
        key_prefix=f"{game}/seat/{n_players}p/default",
        quantity=f"win share of seat {{row}} at {n_players} players",
        strong=strong,
        unit="share of games won by the seat",
    )


def reference_rows(
    api,
    scen,
    mix: list[str],
    *,
    games_per_seat: int,
    seed: int,
    jobs: int,
    engine: str | None,
    players: int,
) -> pd.DataFrame:
    """Each reference strategy (``reference = true``) as a floor: in each seat of the default
    table in turn (the strategy it replaces leaves), seats rotated, ``games_per_seat`` games per
    replaced seat. One row per reference strategy, like :func:`rate_table`'s."""
    from simulator.runner import derive_seed

    decls = scen.rules.strategies
    refs = [name for name, d in decls.items() if is_reference(d)]
    rows = []
    for k, ref in enumerate(refs):
        parts = []
        for i in range(players):
            table = [ref if j == i else mix[j % len(mix)] for j in range(players)]
            seats = api.play(
                scen,
                table,
                n=games_per_seat,
                players=players,
                seed=derive_seed(seed, "reference", k, i),
                jobs=jobs,
                rotate_seats=True,
                quiet=True,
                engine=engine,
            ).seats
            parts.append(seats[seats["strategy"] == ref])
        rows.append(rate_table(pd.concat(parts, ignore_index=True), ["strategy"]))
    if not rows:
        return pd.DataFrame()
    return pd.concat(rows, ignore_index=True)


def strategy_table(strat: pd.DataFrame, floor: pd.DataFrame, scen) -> pd.DataFrame:
    """The strategy table: real strategies, then the reference floor rows (``reference``)."""
    strat = strat.assign(reference=False)
    if len(floor):
        strat = pd.concat([strat, floor.assign(reference=True)], ignore_index=True)
    strat["description"] = description_column(scen, strat["strategy"])
    return strat


# --------------------------------------------------------------------------------------------
# Paired differences


def paired(base: np.ndarray, var: np.ndarray, per_unit: int = 1) -> dict:
    """Paired mean difference (variant - base) with a Student t 95 % interval (df = units - 1);
    ``per_unit`` consecutive games make one unit (a slice of games sharing a draw of seats under
    a population), whose mean difference is the observation. ``pairs`` counts games."""
    d = np.asarray(var, float) - np.asarray(base, float)
    games = d.size
    if per_unit > 1:
        whole = games // per_unit * per_unit
        d = d[:whole].reshape(-1, per_unit).mean(axis=1)
        games = whole
    n = d.size
    mean = float(d.mean()) if n else math.nan
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    t = float(sps.t.isf(0.025, max(n - 1, 1)))
    if not (se and math.isfinite(se)):  # every paired difference identical: no spread
        se = 0.0
    return {
        "difference": mean,
        "ci_low": mean - t * se,
        "ci_high": mean + t * se,
        "crit": t,
        "df": max(n - 1, 1),
        "pairs": int(games),
        "units": int(n),
    }


def per_game(seats: pd.DataFrame, strategies: list[str] | None = None) -> pd.DataFrame:
    """One row per game of a protocol seats table: the first seat's score, turns, stalemate
    (when the game has them) and each named strategy's score."""
    first = seats[seats["seat"] == 1].set_index("game")["score"].astype(float)
    out = pd.DataFrame({"first_seat_won": first}).sort_index()
    g = seats.groupby("game")
    for col in ("turns", "stalemate"):
        if col in seats:
            out[col] = g[col].first().astype(float)
    for name in strategies or ():
        s = seats[seats["strategy"] == name].groupby("game")["score"].mean()
        out[f"score:{name}"] = s.reindex(out.index).astype(float)
    return out


# --------------------------------------------------------------------------------------------
# Strategy descriptions, players in words


def describe_strategies(sec: Section, scen, names, what: str = "Strategies") -> None:
    """The scenario's ``[strategies.NAME]`` descriptions beside the names a figure shows."""
    decls = scen.rules.strategies
    items = []
    for name in dict.fromkeys(names):
        decl = decls.get(name)
        if decl is None:
            continue
        text = decl.description or "(no description in the scenario)"
        extra = ", a reference player" if is_reference(decl) else ""
        items.append((name, f"{text} ({decl.kind}{extra})"))
    sec.definitions(f"{what} (from the scenario; every strategy is in the glossary):", items)


def description_column(scen, names) -> list[str]:
    decls = scen.rules.strategies
    return [(decls[n].description if n in decls else "") for n in names]


def players_words(mix, *, rotated: bool = True) -> str:
    names = list(dict.fromkeys(mix))
    seats = ", seats rotated" if rotated else ""
    return f"default mix ({', '.join(names)}{seats})"


def reference_names(scen) -> set[str]:
    return {n for n, d in scen.rules.strategies.items() if is_reference(d)}


# --------------------------------------------------------------------------------------------
# Distributions


def distribution_table(values: pd.DataFrame, by: str, value: str) -> pd.DataFrame:
    """Quantiles (10, 25, 50, 75, 90 %) and mean of ``value`` per group ``by``."""
    rows = []
    for key, g in values.groupby(by, sort=False):
        v = g[value].to_numpy(float)
        m, se = float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0
        rows.append(
            {
                by: key,
                "games": len(v),
                "mean": m,
                "ci_low": m - Z95 * se,
                "ci_high": m + Z95 * se,
                **{f"p{q}": float(np.quantile(v, q / 100)) for q in (10, 25, 50, 75, 90)},
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# Balance under strong play (the game's saved equilibrium populations)


@dataclass
class StrongPlay:
    """What the strong-play part measured: claim keys by (what, players, row) and, per table
    size, the population used for the claims with its games (so variants pair with them)."""

    claims: dict[tuple, str] = field(default_factory=dict)
    runs: dict[int, tuple[Any, pd.DataFrame, int, int]] = field(default_factory=dict)
    # players -> (Found, seats table, seed, n)

    def key(self, what: str, players: int, row: Any) -> str | None:
        return self.claims.get((what, players, row))


def strong_play(
    ctx,
    sec: Section,
    api,
    scen,
    seed: int,
    *,
    game: str,
    n: int,
    mix,
    stem_prefix: str,
    sizes: Mapping[str, int] | None = None,
) -> StrongPlay:
    """The "Balance under strong play" part of a game section.

    For each usable population file of ``scenarios/<game>/populations/``: its weights, the seat
    advantage with every seat drawn from it, and each strategy's score against it (members,
    the default mix and the reference players as floors), whose largest gain is the
    exploitability by these strategies. Says plainly when the game has no population (or cannot
    play one). Every seats and gains row is a claim of the page; the first usable file (by
    name) of each table size feeds the strong-play side of the baseline claims.
    """
    from reports import strong_play as sp

    out = StrongPlay()
    anchor = f"{game}-strong"
    sec.heading("Balance under strong play", anchor=anchor)
    missing = sp.speaks_protocol(api)
    folder = f"scenarios/{game}/populations/"
    if missing:
        line = (
            f"not measured: this game's api does not speak the game protocol in this build "
            f"(missing {', '.join(missing)}), so no population can be played."
        )
        sec.text(line[0].upper() + line[1:], "note")
        sec.strong_play.append((line, anchor))
        return out
    found = sp.find_populations(game, scen)
    if not found:
        line = (
            f"no population saved for this game yet (no file in {folder}; "
            f"`broadside metagame --game {game} --population ... --save-population NAME` writes "
            "one): every figure here is under the hand-written players only."
        )
        sec.text(line[0].upper() + line[1:], "note")
        sec.strong_play.append((line, anchor))
        return out
    weights = sp.weights_table(found)
    sec.table(
        f"{stem_prefix}_populations",
        weights,
        f"Population files in {folder} and their equilibrium weights (or why a file is not used).",
        key=("population", "strategy"),
    )
    usable = [f for f in found if f.population is not None]
    for f in found:
        if f.population is None:
            sec.text(f"{f.path.name}: not used: {f.problem}", "note")
    if not usable:
        line = (
            f"no usable population ({len(found)} file(s) in {folder}, none measured on this "
            "scenario): every figure here is under the hand-written players only."
        )
        sec.strong_play.append((line, anchor))
        return out
    refs = reference_names(scen)
    seat_rows, gain_rows = [], []
    stem_s, stem_g = f"{stem_prefix}_strong_seats", f"{stem_prefix}_strong_gains"
    pending: list[tuple] = []
    for f in usable:
        pop = f.population
        words = f"equilibrium population {f.name} ({sp.mixture_words(pop)})"
        s_seed = sp.section_seed(seed, game, f.name, "seats")
        seats = sp.play_under(api, pop, n=n, seed=s_seed, jobs=ctx.jobs, engine=ctx.engine_for(api))
        games = int(seats["game"].nunique())
        st = sp.slice_rates(seats, pop.players)
        st.insert(0, "population", f.name)
        st = st.rename(columns={"seat": "seat_in_turn_order"})
        st["players"] = pop.players
        seat_rows.append(st)
        challengers = list(dict.fromkeys([*pop.names, *mix, *sorted(refs)]))
        challengers = [c for c in challengers if c in pop.scenario.rules.strategies]
        g = sp.gains_against(
            api,
            pop,
            challengers,
            n=n,
            seed=sp.section_seed(seed, game, f.name, "gains"),
            jobs=ctx.jobs,
            engine=ctx.engine_for(api),
            exclude=refs,
        )
        g.insert(0, "population", f.name)
        g["players"] = pop.players
        g["score_ci_low"] = g["ci_low"] + 1 / pop.players
        g["score_ci_high"] = g["ci_high"] + 1 / pop.players
        gain_rows.append(g)
        ex = g.iloc[-1]
        line = (
            f"population {f.name} ({pop.players} players, Nash gap {pop.file.nash_gap:.1g}: "
            f"{sp.mixture_words(pop)}); exploitability by the {len(challengers) - len(refs)} "
            f"real strategies tried {ex['gain']:+.3f} [{ex['ci_low']:+.3f}, {ex['ci_high']:+.3f}]"
            f" in score (best: {ex['best_of']}; a lower bound: only a search finds the best "
            f"response); seat 1 wins {st['win_rate'].iloc[0]:.1%} [{st['ci_low'].iloc[0]:.1%}, "
            f"{st['ci_high'].iloc[0]:.1%}] of {games:,} games under it."
        )
        sec.text(line[0].upper() + line[1:])
        sec.strong_play.append((line, anchor))
        first = pop.players not in out.runs  # the first file (by name) of each table size
        if first:
            out.runs[pop.players] = (f, seats, s_seed, n)
        pending.append((f, pop, words, first, challengers))
    seats_all = pd.concat(seat_rows, ignore_index=True)
    gains_all = pd.concat(gain_rows, ignore_index=True)
    weights = {f.name: dict(zip(f.population.names, f.population.weights)) for f in usable}
    gains_all["role"] = [
        _role(r.strategy, r.population, weights, refs) for r in gains_all.itertuples()
    ]
    sec.table(
        stem_s,
        seats_all,
        "Win share by seat with every seat drawn from the equilibrium population (seats rotated "
        "inside each slice of games; a slice shares one draw of seats, so it is the unit of the "
        "Student t intervals).",
        key=("population", "seat_in_turn_order"),
        columns=[
            "population",
            "seat_in_turn_order",
            "wins",
            "shared",
            "n",
            "slices",
            "win_rate",
            "ci_low",
            "ci_high",
        ],
    )
    sec.table(
        stem_g,
        gains_all,
        "Each strategy's score against the equilibrium population (one seat, the others drawn "
        "from the equilibrium); gain = score minus the fair share, about 0 inside the support. "
        "The last row of each population is the largest gain of the real strategies with a "
        "Bonferroni interval (the exploitability by these strategies); reference players are "
        "floors, never the best.",
        key=("population", "strategy"),
        columns=[
            "population",
            "strategy",
            "role",
            "weight",
            "games",
            "score",
            "score_ci_low",
            "score_ci_high",
            "gain",
        ],
        phone=("score", "score_ci_low", "score_ci_high", "conclusive"),
    )
    st_crit = seats_all.groupby("population")["crit"].first()
    st_df = seats_all.groupby("population")["df"].first()
    for f, pop, words, first, challengers in pending:
        p = pop.players
        fair = f"the fair share of {1 / p:.0%}" if p != 2 else "an even 50%"
        for seat in range(1, p + 1):
            k = f"{game}/seat/{p}p/{f.name}/{seat}"
            sec.claims.append(
                claim(
                    seats_all,
                    stem_s,
                    {"population": f.name, "seat_in_turn_order": seat},
                    "win_rate",
                    game=game,
                    claim_key=k,
                    quantity=f"win share of seat {seat} at {p} players",
                    sentence=f"Under the equilibrium population {f.name}, seat {seat} of {p} "
                    "wins {value} {ci} of {n} games",
                    null=1 / p,
                    null_words=fair,
                    players=words,
                    population=f.name,
                    n=int(seats_all.loc[seats_all["population"] == f.name, "n"].iloc[0]),
                    anchor=f"tbl-{stem_s}",
                    unit="share of games won by the seat",
                    table_players=p,
                    sizes=sizes,
                    finding=False,
                    crit=float(st_crit[f.name]),
                    df_t=int(st_df[f.name]),
                )
            )
            if first:
                out.claims[("seat", p, seat)] = k
        gp = gains_all[gains_all["population"] == f.name]
        for r in gp.itertuples():
            exploit = r.strategy.startswith("exploitability")
            if r.strategy in refs:
                continue  # a floor: shown, not tested
            k = f"{game}/strategy/{p}p/{f.name}/{r.strategy}"
            w = weights[f.name].get(r.strategy, 0.0)
            if w >= 1.0:  # the field itself: 1/P by symmetry, not a measurement
                continue
            kk = len(challengers) - len(refs)
            sec.claims.append(
                claim(
                    gains_all,
                    stem_g,
                    {"population": f.name, "strategy": r.strategy},
                    "score",
                    low="score_ci_low",
                    high="score_ci_high",
                    game=game,
                    claim_key=k,
                    quantity=(
                        f"largest score of a strategy against the equilibrium at {p} players"
                        if exploit
                        else f"score of {r.strategy} against the equilibrium at {p} players"
                    ),
                    sentence=f"Against the equilibrium population {f.name}, "
                    + (
                        "the best of the real strategies tried"
                        if exploit
                        else f"the {display_strategy(r.strategy)} strategy"
                    )
                    + " scores {value} {ci} ({n} games)",
                    null=1 / p,
                    null_words=fair,
                    players=f"{r.strategy} against {words}",
                    population=f.name,
                    n=int(r.games),
                    anchor=f"tbl-{stem_g}",
                    unit="score against the equilibrium (share of the win)",
                    table_players=p,
                    sizes=sizes,
                    finding=False,
                    crit=float(r.crit),
                    df_t=int(r.df),
                    p_factor=float(kk) if exploit else 1.0,
                )
            )
            if first and not exploit:
                out.claims[("strategy", p, r.strategy)] = k
    return out


def _role(name: str, population: str, weights: dict, refs: set[str]) -> str:
    if name.startswith("exploitability"):
        return "the best real strategy (a maximum)"
    if name in refs:
        return "reference player (a floor)"
    w = weights[population].get(name)
    if w is None:
        return "default-mix strategy, not in the population"
    return "in the equilibrium" if w > 0 else "population member, weight 0"
