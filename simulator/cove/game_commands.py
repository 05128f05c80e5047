"""``broadside cove play``: full Pirate's Cove games between scripted players.

The ``cove`` click group lives in :mod:`simulator.cove.commands` (combat helper), which imports
:data:`play` from here and adds it. No game logic here: options are parsed, the scenario loaded,
:func:`simulator.cove.api.play_to` called (rows stream to ``--out`` chunk by chunk) and the
summary handed to :mod:`simulator.output`.
"""

from __future__ import annotations

import click
import pandas as pd

from scenarios.loader import load_scenario
from simulator.clitools import format_option, note, replay_note, simulation_options
from simulator.cove.api import ENGINES, play_to
from simulator.cove.card_value import DEFAULT_N, card_table, card_value
from simulator.cove.rules import CoveRules
from simulator.output import dumps, emit, ensure_writable_dir, write_table, write_text


def summary_tables(summary: dict) -> dict[str, pd.DataFrame]:
    """The three human tables (strategies, seats, pirates) of a summary."""
    strat = pd.DataFrame(
        [
            {
                "strategy": k,
                "games": v["games"],
                "win_rate": v["win_rate"],
                "ci95_low": v["ci95"][0],
                "ci95_high": v["ci95"][1],
                "mean_fame": v["mean_fame"],
                **{f"fame_{s}": x for s, x in v["fame_by_source"].items()},
            }
            for k, v in summary["strategies"].items()
        ]
    )
    seats = pd.DataFrame(
        [
            {
                "seat": int(k),
                "games": v["games"],
                "win_rate": v["win_rate"],
                "ci95_low": v["ci95"][0],
                "ci95_high": v["ci95"][1],
                "mean_fame": v["mean_fame"],
            }
            for k, v in summary["seats"].items()
        ]
    )
    pirates = pd.DataFrame([{"pirate": k, **v} for k, v in summary["pirates"].items()])
    return {"strategies": strat, "seats": seats, "pirates": pirates}


def long_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One tidy table (``table`` column names the part) for CSV output."""
    parts = []
    for name, df in tables.items():
        d = df.copy()
        key = d.columns[0]
        d.insert(0, "name", d.pop(key).astype(str))
        d.insert(0, "table", name)
        parts.append(d)
    return pd.concat(parts, ignore_index=True, sort=False)


@click.command("play")
@click.option(
    "--scenario",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Scenario TOML (default: scenarios/cove/standard.toml).",
)
@click.option(
    "--players",
    "n_players",
    type=click.IntRange(3, 5),
    default=None,
    help="Players at the table (3, 4 or 5; default: the number of --strategies, else the size "
    "of the scenario's default mix).",
)
@click.option(
    "--strategies",
    default=None,
    metavar="A,B,C[,...]",
    help="One strategy per seat (names of the scenario's [strategies.*]), comma-separated "
    "(default: the scenario's default_mix, in order and cycled for 3 or 5 players).",
)
@click.option(
    "-n",
    "n",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Number of games played (rotations included).",
)
@click.option(
    "--rotate-seats",
    is_flag=True,
    help="Rotate the strategies round the seats: games come in deals of one game per rotation "
    "that replay the same dice (still n games in all).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Write the seats, battles and cards tables (CSV + Parquet) and the summary JSON to DIR.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Run every game under the invariant checker (conservation of gold, chests and cards, "
    "rings on the mat, repairs, legal choices, after every phase); the first illegal state stops "
    "the run with one line naming the game, the month and phase, and the invariant (exit 2).",
)
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default=None,
    help="fast: the compiled game (simulator/cove/fast); python: the same source run by Python "
    "with numba's JIT off (the readable reference: die for die the same games, tens of times "
    "slower). Default: fast (the table's note and the JSON's engine say which played).",
)
@format_option
@simulation_options
def play_command(
    scenario, n_players, strategies, n, rotate_seats, out, check, engine, fmt, seed, jobs, quiet
):
    """Play full Pirate's Cove games between scripted players; win rates by strategy and seat."""
    scen = load_scenario(scenario, CoveRules)
    if out is not None:
        ensure_writable_dir(out)
    # rows stream to --out chunk by chunk; without --out only the summary is kept (memory flat
    # in -n)
    summary = play_to(
        out,
        scen,
        strategies,
        n=n,
        players=n_players,
        seed=seed,
        jobs=jobs,
        rotate_seats=rotate_seats,
        quiet=quiet,
        check=check,
        engine=engine,
    )
    n_players = summary["n_players"]
    replay_note(summary["seed"], seed is not None, quiet or fmt == "json")
    tables = summary_tables(summary)
    if out is not None:
        write_text(f"{out}/summary.json", dumps(summary) + "\n")
        note(
            f"wrote {out}/seats.csv|parquet, {out}/battles.csv|parquet, {out}/cards.csv|parquet, "
            f"{out}/summary.json",
            quiet,
        )
    head = (
        f"Pirate's Cove: {summary['n_games']} games, {n_players} players, scenario "
        f"{summary['provenance']['scenario']} ({summary['provenance']['scenario_hash']}), seed "
        f"{summary['seed']}; ties {summary['ties']}, duels {summary['duels']}\n"
        f"engine {summary['engine']} ({summary['engine_note']})"
    )
    if fmt == "json":
        emit("json", tables["strategies"], summary)
    elif fmt == "csv":
        emit("csv", long_table(tables), summary)
    else:
        emit("table", tables["strategies"], summary, title=head + "\n\nstrategies")
        emit("table", tables["seats"], summary, title="\nseats")
        emit(
            "table",
            tables["pirates"],
            summary,
            title="\npirates (battles against; sunk includes captures)",
        )


@click.command("card-value")
@click.option(
    "--scenario",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Scenario TOML (default: scenarios/cove/standard.toml).",
)
@click.option(
    "--players",
    "n_players",
    type=click.IntRange(3, 5),
    default=None,
    help="Players at the table (default: as many as the strategies).",
)
@click.option(
    "--strategies",
    default=None,
    metavar="A,B,C[,...]",
    help="The strategy mix, one per seat, rotating with the deal (default: the scenario's "
    "default_mix).",
)
@click.option(
    "-n",
    "n",
    type=click.IntRange(min=1),
    default=DEFAULT_N,
    show_default=True,
    help="Deals; each is played as dealt and once more per Tavern card drawn in it.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Write card_value.csv|parquet, pairs.csv|parquet (one row per paired game) and "
    "card_value.json to DIR.",
)
@format_option
@simulation_options
def card_value_command(scenario, n_players, strategies, n, out, fmt, seed, jobs, quiet):
    """Each Tavern card's win-rate and fame effect on its holder: the deal replayed with the card
    replaced by a blank when its holder would draw it (paired, same dice)."""
    scen = load_scenario(scenario, CoveRules)
    if out is not None:
        ensure_writable_dir(out)
    names = [x.strip() for x in strategies.split(",")] if strategies else None
    pairs, summary = card_value(
        scen, n, strategies=names, n_players=n_players, seed=seed, n_jobs=jobs, quiet=quiet
    )
    replay_note(summary["seed"], seed is not None, quiet or fmt == "json")
    cards = list(summary["cards"])
    table = card_table(pairs, cards)
    if out is not None:
        prov = scen.provenance()
        for df in (table, pairs):
            for k, v in prov.items():
                df[k] = v
            df["seed"] = summary["seed"]
        write_table(table, out, "card_value", key=("card",))
        write_table(pairs, out, "pairs", key=("deal", "card"))
        write_text(f"{out}/card_value.json", dumps(summary) + "\n")
        note(
            f"wrote {out}/card_value.csv|parquet, {out}/pairs.csv|parquet, {out}/card_value.json",
            quiet or fmt == "json",
        )
    shown = table.drop(columns=[c for c in table.columns if c in (*scen.provenance(), "seed")])
    title = (
        f"Tavern card value: {summary['n_deals']} deals, {summary['games']} games, "
        f"{summary['players']} players ({', '.join(summary['strategies'])}); seed "
        f"{summary['seed']}\nwin_rate_effect = holder's win share with the card - with a blank "
        "(paired, same dice); ci95 normal"
    )
    emit(fmt, shown, summary, title=title)
