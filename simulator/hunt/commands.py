"""``broadside hunt``: play seeded Les Pirates games and show the board (no game logic here)."""

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
from simulator.hunt.api import play as play_games
from simulator.hunt.board import parse_board, render
from simulator.hunt.variants import load_hunt, variant_names
from simulator.output import emit, ensure_writable_dir, write_table
from simulator.protocol import SEAT_KEY


def _scenario_options(f):
    f = click.option(
        "--variant",
        "variants",
        multiple=True,
        metavar="NAME",
        help="Printed variant overlay, repeatable: " + ", ".join(variant_names()) + ".",
    )(f)
    return click.option(
        "--scenario",
        "scenario",
        type=click.Path(dir_okay=False),
        default=None,
        help='Your own rules/board TOML (game = "hunt"); default: scenarios/hunt/standard.toml.',
    )(f)


@click.group()
def hunt():
    """Les Pirates: the children's treasure race (board, moves, nine variants, players)."""


@hunt.command()
@_scenario_options
@click.option(
    "--players",
    type=click.IntRange(2, 8),
    default=None,
    help="Players (default: number of --strategies, or the scenario's default).",
)
@click.option(
    "--strategies",
    default="runner",
    show_default=True,
    help="Comma list, one per seat or one for all, of the scenario's [strategies.*] (standard: "
    "runner, hunter, guard, random); parameters as name:key=value within their declared ranges.",
)
@click.option(
    "-n", "n", type=click.IntRange(1, 10**8), default=1000, show_default=True, help="Games."
)
@click.option(
    "--rotate-seats", is_flag=True, help="Rotate the strategies round the seats game by game."
)
@click.option(
    "--engine",
    type=click.Choice(["fast", "python"]),
    default="fast",
    show_default=True,
    help="fast: compiled (numba); python: the same source with numba's JIT off (readable, slow, "
    "the same games).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Run every game under the engine's invariant checker (slower); an illegal state stops "
    "the run with one line naming the game, the turn and the invariant (exit 2).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for games.csv/.parquet (one row per game and seat) and summary.json.",
)
@seed_option
@jobs_option
@quiet_option
@format_option
def play(
    scenario,
    variants,
    players,
    strategies,
    n,
    rotate_seats,
    engine,
    check,
    out,
    seed,
    jobs,
    quiet,
    fmt,
):
    """Play N seeded games and report seat and strategy win rates with 95% intervals."""
    sc = load_hunt(scenario, variants)
    if out:
        ensure_writable_dir(out)
    result = play_games(
        sc,
        strategies,
        n=n,
        seed=seed,
        jobs=jobs,
        rotate_seats=rotate_seats,
        quiet=quiet,
        players=players,
        engine=engine,
        check=check,
    )
    games, summary = result.seats, result.summary
    replay_note(summary["seed"], seed is not None, quiet or fmt == "json")
    summary["variants"] = list(variants)
    summary["checked"] = check
    summary.pop("wall_time_s", None)
    if out:
        from simulator.output import dumps, write_text

        write_table(games, out, "games", key=SEAT_KEY)
        write_text(f"{out}/summary.json", dumps(summary) + "\n")
        note(f"wrote {out}/games.csv, games.parquet, summary.json", quiet or fmt == "json")
    groups = [("seat", str(s["seat"]), s["strategy"], s) for s in summary["seats"]]
    groups += [("strategy", name, name, s) for name, s in summary["strategies"].items()]
    rows = [
        {
            "group": group,
            "name": name,
            "strategy": strategy,
            "games": s["n"],
            "wins": s["wins"],
            "win_rate": s["win_rate"],
            "ci95_low": s["ci95"][0],
            "ci95_high": s["ci95"][1],
            "fair_share": 1.0 / summary["players"],
        }
        for group, name, strategy, s in groups
    ]
    table = pd.DataFrame(rows)
    t = summary["turns"]
    title = (
        f"{sc.name}: {summary['n_games']} games, {summary['players']} players; stalemates "
        f"{summary['stalemate_rate']:.4f}; turns mean {t['mean']:.1f} p50 {t['p50']:.0f} "
        f"p90 {t['p90']:.0f}; "
        f"sinkings/game {summary['sinkings_per_game']:.2f}; seed {summary['seed']}"
    )
    emit(fmt, table, summary, title=title)


@hunt.command()
@_scenario_options
@format_option
def show(scenario, variants, fmt):
    """Print the board of the scenario (with variants) and what is on it."""
    sc = load_hunt(scenario, variants)
    rules = sc.rules
    board = parse_board(rules.board)
    kinds = ["sea", "berth", "anchor", "trade wind", "anchorage", "strait"]
    counts = dict.fromkeys(kinds, 0)
    for k in board.kind:
        counts[kinds[k]] += 1
    info = {
        "scenario": sc.name,
        "provenance": sc.provenance(),
        "rows": board.rows,
        "cols": board.cols,
        "map": list(board.grid),
        "squares": counts,
        "ports": list(board.port_numbers),
        "islands": len(board.islands),
        "treasures": rules.board.num_treasures,
        "strait_pairs": [list(p) for p in rules.board.strait_pairs],
        "players": list(rules.player_counts),
        "dice": rules.dice_per_roll,
    }
    if fmt == "json":
        emit(fmt, pd.DataFrame(), info)
        return
    if fmt == "csv":
        emit(fmt, pd.DataFrame({"row": range(board.rows), "squares": list(board.grid)}), info)
        return
    click.echo(
        f"{sc.name} ({board.rows} x {board.cols}); ports {list(board.port_numbers)}; "
        f"players {list(rules.player_counts)}; dice {info['dice']}"
    )
    click.echo(render(board))
    click.echo(
        "legend: ~ sea  b berth  1-8 home anchor  = trade wind  # island  @ anchorage  "
        "v ^ strait halves  X no square"
    )
    click.echo(
        "squares: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + "; straits "
        + ", ".join(f"({a},{b})+({c},{d})" for a, b, c, d in rules.board.strait_pairs)
    )
