"""``broadside express ...``: fleets, battles, the nation matrix and the crew-value study.

Only option parsing and output here; the work is in :mod:`simulator.express.api`.
"""

from __future__ import annotations

import click
import pandas as pd

from simulator.clitools import (
    format_option,
    jobs_option,
    note,
    quiet_option,
    replay_note,
    seed_option,
)
from simulator.express import api
from simulator.express.rules import COMMANDER_NAMES, SCENARIO_NAMES
from simulator.output import dumps, emit, ensure_writable_dir, write_table, write_text

scenario_file_option = click.option(
    "--scenario",
    "scenario",
    type=click.Path(dir_okay=False),
    default=None,
    help="Scenario TOML (default: scenarios/express/standard.toml; a built-in name also works).",
)
scenario_name_option = click.option(
    "--scenario-name",
    type=click.Choice(SCENARIO_NAMES),
    default=None,
    help="Which scenario to play (default: the scenario file's `scenario`, i.e. pitched).",
)
commanders_option = click.option(
    "--commanders",
    default=None,
    metavar="A[,B]",
    help=f"Commanders of fleet A and B (one name: both). Allowed: {', '.join(COMMANDER_NAMES)}. "
    "Default: the scenario's commanders.default.",
)
n_option = click.option(
    "-n",
    "n",
    type=click.IntRange(1, 10**8),
    default=1000,
    show_default=True,
    help="Battles (per pairing).",
)
out_option = click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write the results (CSV + Parquet + JSON) into this folder.",
)


def _write(out, stem: str, df: pd.DataFrame, obj: dict, quiet: bool, key: tuple[str, ...]) -> None:
    if out is None:
        return
    prov = obj.get("provenance", {})
    df = df.copy()
    for k, v in prov.items():
        df[k] = v
    paths = write_table(df, out, stem, key=key)
    paths.append(write_text(f"{out}/{stem}.json", dumps(obj) + "\n"))
    note("wrote " + ", ".join(str(p) for p in paths), quiet)


def battle_run_options(f):
    """The options every battle-running command shares (commanders, scenario, n, seed, jobs...)."""
    for option in reversed(
        (
            commanders_option,
            scenario_name_option,
            scenario_file_option,
            n_option,
            seed_option,
            jobs_option,
            quiet_option,
            out_option,
            format_option,
        )
    ):
        f = option(f)
    return f


@click.group()
def express():
    """Pirates express: fleets, battles, nation matrix, crew value."""


@express.command()
@click.option("--nation", required=True, help="Nation whose legal fleets are listed.")
@click.option("--full-only", is_flag=True, help="Only fleets using every mast and every crew slot.")
@click.option("--oars", is_flag=True, help="Also place oars (many more fleets).")
@click.option(
    "--limit",
    type=click.IntRange(0, None),
    default=50,
    show_default=True,
    help="Rows shown (0: all); the count is always of every fleet.",
)
@scenario_file_option
@out_option
@quiet_option
@format_option
def fleets(nation, full_only, oars, limit, scenario, out, quiet, fmt):
    """Enumerate every legal fleet of a nation (ship sizes and crew placement)."""
    if out:
        ensure_writable_dir(out)
    sc = api.load(scenario)
    nation = nation.lower()
    api._check_nation(sc.rules, nation)
    df = api.fleets_frame(sc.rules, nation, full_only=full_only, oars=oars)
    by_masts = df.groupby("masts", sort=False).size()
    obj = {
        "nation": nation,
        "count": len(df),
        "mast_lists": len(by_masts),
        "full_only": full_only,
        "oars": oars,
        "fleets": df["fleet"].tolist() if not limit else df["fleet"].head(limit).tolist(),
        "provenance": sc.provenance(),
    }
    shown = df if not limit else df.head(limit)
    emit(
        fmt,
        shown,
        obj,
        title=f"{nation}: {len(df)} legal fleets over {len(by_masts)} ship-size lists"
        + (f" (first {len(shown)} shown; --limit 0 for all)" if len(shown) < len(df) else ""),
    )
    _write(out, f"fleets-{nation}", df, obj, quiet, key=("fleet",))


@express.command(name="battle")
@click.option(
    "--fleet", "fleet", required=True, help="Fleet A, e.g. 'spain:5,3,2,1,1 captain@0 gunner@1'."
)
@click.option("--vs", "vs", required=True, help="Fleet B, same syntax.")
@battle_run_options
def battle_cmd(fleet, vs, commanders, scenario_name, scenario, n, seed, jobs, quiet, out, fmt):
    """Play N battles of fleet A against fleet B; win / loss / draw (A's view) and mean VP."""
    if out:
        ensure_writable_dir(out)
    df, s = api.battle_stats(
        fleet,
        vs,
        n=n,
        commanders=commanders,
        scenario=scenario,
        scenario_name=scenario_name,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    rows = []
    for key in ("win", "loss", "draw"):
        rows.append(
            {
                "outcome": f"A {key}",
                "count": s[key]["count"],
                "p": s[key]["p"],
                "ci95_low": s[key]["ci95"][0],
                "ci95_high": s[key]["ci95"][1],
            }
        )
    for side in ("a", "b"):
        m = s["mean_vp"][side]
        rows.append(
            {
                "outcome": f"mean VP {side.upper()}",
                "count": None,
                "p": m["mean"],
                "ci95_low": m["ci95"][0],
                "ci95_high": m["ci95"][1],
            }
        )
    table = pd.DataFrame(rows)
    table["count"] = table["count"].astype("Int64")
    title = (
        f"{s['fleet_a']} ({s['commanders'][0]}) vs {s['fleet_b']} ({s['commanders'][1]}), "
        f"{s['provenance']['scenario_name']}, n={n}"
    )
    emit(fmt, table, s, title=title)
    _write(out, "express-battles", df, s, quiet, key=("battle",))


def _cell(p, lo, hi):
    return f"{p:.3f} [{lo:.3f},{hi:.3f}]"


@express.command()
@click.option(
    "--fleets",
    "fleet_mode",
    type=click.Choice(["mirrored", "best"]),
    default="mirrored",
    show_default=True,
    help="mirrored: every nation fields the study fleet; best: a fleet "
    "found by successive halving for each nation first.",
)
@click.option(
    "--candidates",
    type=click.IntRange(2, 4096),
    default=32,
    show_default=True,
    help="best: fleets per nation entering the search.",
)
@click.option(
    "--search-n",
    "search_n0",
    type=click.IntRange(1, 10**6),
    default=24,
    show_default=True,
    help="best: battles per opponent in the first halving round (doubles each round).",
)
@battle_run_options
def matrix(
    fleet_mode,
    candidates,
    search_n0,
    commanders,
    scenario_name,
    scenario,
    n,
    seed,
    jobs,
    quiet,
    out,
    fmt,
):
    """The 7x7 nation matrix: row nation (seat A) win rate against the column nation, with
    intervals."""
    if out:
        ensure_writable_dir(out)
    df, s = api.nation_matrix(
        n=n,
        fleets=fleet_mode,
        commanders=commanders,
        scenario=scenario,
        scenario_name=scenario_name,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
        search_candidates=candidates,
        search_n0=search_n0,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    if fmt == "table":
        wide = pd.DataFrame(
            [
                [
                    _cell(r["win"], r["win_lo"], r["win_hi"])
                    for _, r in df[df["nation"] == a].iterrows()
                ]
                for a in s["nations"]
            ],
            columns=s["nations"],
        )
        wide.insert(0, "A \\ B", s["nations"])
        emit(
            fmt,
            wide,
            s,
            title=f"win rate of row nation (seat A) vs column nation, Wilson 95 %, "
            f"n={n} per cell, fleets={fleet_mode}, commanders={','.join(s['commanders'])}",
        )
        for nat in s["nations"]:
            note(f"  {nat}: {s['fleets'][nat]}", quiet)
    else:
        emit(fmt, df, s)
    _write(out, f"express-matrix-{fleet_mode}", df, s, quiet, key=("nation", "vs"))


@express.command(name="crew-value")
@battle_run_options
def crew_value_cmd(commanders, scenario_name, scenario, n, seed, jobs, quiet, out, fmt):
    """VP and win-rate gain of each crew role and nation power over a no-power baseline."""
    if out:
        ensure_writable_dir(out)
    df, s = api.crew_value(
        n=n,
        commanders=commanders,
        scenario=scenario,
        scenario_name=scenario_name,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    cols = [
        "kind",
        "name",
        "n",
        "win",
        "loss",
        "draw",
        "score_gain",
        "score_gain_lo",
        "score_gain_hi",
        "vp_gain",
        "vp_gain_lo",
        "vp_gain_hi",
        "fleet",
    ]
    emit(
        fmt,
        df[cols] if fmt == "table" else df,
        s,
        title=f"gain over the no-power baseline ({s['baseline_nation']}), score = win + draw/2, "
        f"n={n} per row, commanders={','.join(s['commanders'])}",
    )
    _write(out, "express-crew-value", df, s, quiet, key=("kind", "name"))
