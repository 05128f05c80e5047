"""``broadside odds``: exact dice odds with optional Monte Carlo beside them (the numbers come
from :mod:`simulator.odds`; this module parses, prints and writes)."""

from __future__ import annotations

import click
import pandas as pd

from simulator import odds as dice_odds
from simulator.clitools import format_option, note, replay_note, simulation_options
from simulator.output import dumps, emit, ensure_writable_dir, write_table, write_text


def out_option(f):
    return click.option(
        "--out",
        type=click.Path(file_okay=False),
        default=None,
        metavar="DIR",
        help="Write the table (CSV, Parquet) and JSON to DIR; Monte Carlo chunks are saved in "
        "DIR/chunks so an interrupted run resumes with --resume DIR.",
    )(f)


def _write_out(out, stem: str, df: pd.DataFrame, obj: dict, key: tuple[str, ...]) -> None:
    if out is None:
        return
    write_table(df, out, stem, key=key)
    write_text(f"{out}/{stem}.json", dumps(obj) + "\n")


@click.group()
def odds():
    """Exact dice odds (and Monte Carlo beside them with --mc)."""


@odds.command()
@click.option("--dice", "dice_n", type=click.IntRange(0, 60), required=True, help="Dice rolled.")
@click.option(
    "--hit-on",
    type=click.IntRange(1, 7),
    required=True,
    help="A die showing this or more hits (7: never).",
)
@click.option(
    "--reroll-misses",
    type=click.IntRange(0, 60),
    default=0,
    show_default=True,
    help="Missed dice that may be rerolled once.",
)
@click.option(
    "--extra-dice",
    type=click.IntRange(0, 60),
    default=0,
    show_default=True,
    help="Extra dice added to the roll.",
)
@click.option(
    "--mc",
    type=click.IntRange(0, 10**9),
    default=0,
    help="Also estimate by Monte Carlo with this many volleys.",
)
@out_option
@simulation_options
@format_option
def volley(dice_n, hit_on, reroll_misses, extra_dice, mc, out, seed, jobs, quiet, fmt):
    """Distribution of hits for DICE d6 hitting on HIT-ON or more."""
    if out is not None:
        ensure_writable_dir(out)
    res = dice_odds.volley(
        dice_n,
        hit_on,
        reroll_misses=reroll_misses,
        extra_dice=extra_dice,
        mc=mc,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    if mc:
        replay_note(res.seed, seed is not None, quiet)
    _write_out(out, "volley", res.table, res.summary, key=("hits",))
    emit(
        fmt,
        res.table,
        res.summary,
        title=(
            f"{dice_n} dice hitting on {hit_on}+ "
            f"(reroll {reroll_misses} misses, {extra_dice} extra dice)"
        ),
    )
    if not mc:
        note(
            "exact distribution (Fraction arithmetic); add --mc N for a Monte Carlo check",
            quiet or fmt == "json",
        )


@odds.command()
@click.option(
    "--masts",
    type=click.IntRange(0, 30),
    required=True,
    help="Masts of the boarding ship (its dice).",
)
@click.option(
    "--vs", "vs", type=click.IntRange(0, 30), required=True, help="Masts of the defending ship."
)
@click.option(
    "--extra-dice",
    type=click.IntRange(0, 30),
    default=0,
    show_default=True,
    help="Extra dice for the boarder (Viking, Musketeer).",
)
@click.option(
    "--vs-extra-dice",
    type=click.IntRange(0, 30),
    default=0,
    show_default=True,
    help="Extra dice for the defender.",
)
@click.option(
    "--reroll-misses",
    type=click.IntRange(0, 30),
    default=0,
    show_default=True,
    help="Boarder's misses rerolled once (Captain).",
)
@click.option(
    "--vs-reroll-misses",
    type=click.IntRange(0, 30),
    default=0,
    show_default=True,
    help="Defender's misses rerolled once.",
)
@click.option(
    "--mc",
    type=click.IntRange(0, 10**9),
    default=0,
    help="Also estimate by Monte Carlo with this many boardings.",
)
@out_option
@simulation_options
@format_option
def boarding(
    masts,
    vs,
    extra_dice,
    vs_extra_dice,
    reroll_misses,
    vs_reroll_misses,
    mc,
    out,
    seed,
    jobs,
    quiet,
    fmt,
):
    """Distribution of a Pirates express boarding: boarder's successes minus defender's (3+)."""
    if out is not None:
        ensure_writable_dir(out)
    res = dice_odds.boarding(
        masts,
        vs,
        extra_dice=extra_dice,
        vs_extra_dice=vs_extra_dice,
        reroll_misses=reroll_misses,
        vs_reroll_misses=vs_reroll_misses,
        mc=mc,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    if mc:
        replay_note(res.seed, seed is not None, quiet)
    _write_out(out, "boarding", res.table, res.summary, key=("difference",))
    emit(
        fmt,
        res.table,
        res.summary,
        title=(
            f"boarding: {masts} masts (+{extra_dice}) vs {vs} masts (+{vs_extra_dice}), "
            "success on 3+"
        ),
    )
