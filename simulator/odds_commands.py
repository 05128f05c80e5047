"""``broadside odds``: exact dice odds with optional Monte Carlo beside them."""

from __future__ import annotations

import functools

import click
import numpy as np
import pandas as pd

from simulator import dice
from simulator.clitools import format_option, note, replay_note, simulation_options
from simulator.output import dumps, emit, ensure_writable_dir, write_table, write_text
from simulator.runner import Chunk, run_chunks
from simulator.stats import proportion_se, wilson_interval

#: chunk size of the Monte Carlo estimates (fixes the seed tree: part of what --seed replays)
MC_CHUNK_SIZE = 10_000


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


def _volley_chunk(chunk: Chunk, dice_n: int, hit_on: int, reroll: int, extra: int) -> np.ndarray:
    hits = dice.sample_volley(chunk.rng(), chunk.size, dice_n, hit_on, reroll, extra)
    return np.bincount(hits, minlength=dice_n + extra + 1)


def _boarding_chunk(chunk: Chunk, a: int, b: int, ea: int, eb: int, ra: int, rb: int) -> np.ndarray:
    diff = dice.sample_boarding(chunk.rng(), chunk.size, a, b, ea, eb, 3, ra, rb)
    offset = b + eb
    return np.bincount(diff + offset, minlength=a + ea + b + eb + 1)


def _with_mc(values: list[int], exact: list, counts: np.ndarray | None, n: int) -> pd.DataFrame:
    df = pd.DataFrame({"value": values, "exact": [float(p) for p in exact]})
    if counts is not None:
        lo, hi = wilson_interval(counts, n)
        df["mc"] = counts / n
        df["mc_ci95_low"] = lo
        df["mc_ci95_high"] = hi
        df["z"] = (df["mc"] - df["exact"]) / np.where(
            proportion_se(counts, n) > 0, proportion_se(counts, n), np.nan
        )
    return df


def _json(df: pd.DataFrame, method_info: dict, key: str) -> dict:
    out = dict(method_info)
    out["probabilities"] = {str(v): p for v, p in zip(df["value"], df["exact"])}
    out["mean"] = float((df["value"] * df["exact"]).sum())
    if "mc" in df:
        out["monte_carlo"] = {
            str(v): {"p": m, "ci95": [lo, hi]}
            for v, m, lo, hi in zip(df["value"], df["mc"], df["mc_ci95_low"], df["mc_ci95_high"])
        }
    out["outcome"] = key
    return out


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
    exact = dice.volley_pmf(dice_n, hit_on, reroll_misses, extra_dice)
    counts = None
    info = {
        "dice": dice_n,
        "hit_on": hit_on,
        "reroll_misses": reroll_misses,
        "extra_dice": extra_dice,
        "method": "exact",
    }
    if mc:
        task = functools.partial(
            _volley_chunk, dice_n=dice_n, hit_on=hit_on, reroll=reroll_misses, extra=extra_dice
        )
        run = run_chunks(
            task,
            mc,
            seed=seed,
            n_jobs=jobs,
            quiet=quiet,
            desc="volleys",
            chunk_size=MC_CHUNK_SIZE,
            manifest={"command": "odds volley"},
        )
        counts = np.sum(run.results, axis=0)
        replay_note(run.entropy, seed is not None, quiet)
        info.update(method="exact+monte-carlo", n=mc, seed=run.entropy)
    df = _with_mc(list(range(len(exact))), list(exact), counts, mc)
    df = df.rename(columns={"value": "hits"})
    obj = _json(df.rename(columns={"hits": "value"}), info, "hits")
    _write_out(out, "volley", df, obj, key=("hits",))
    emit(
        fmt,
        df,
        obj,
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
    exact = dice.boarding_pmf(
        masts, vs, extra_dice, vs_extra_dice, 3, reroll_misses, vs_reroll_misses
    )
    values = list(range(-(vs + vs_extra_dice), masts + extra_dice + 1))
    probs = [exact.get(v, 0) for v in values]
    counts = None
    info = {
        "masts": masts,
        "vs": vs,
        "extra_dice": extra_dice,
        "vs_extra_dice": vs_extra_dice,
        "reroll_misses": reroll_misses,
        "vs_reroll_misses": vs_reroll_misses,
        "method": "exact",
    }
    if mc:
        task = functools.partial(
            _boarding_chunk,
            a=masts,
            b=vs,
            ea=extra_dice,
            eb=vs_extra_dice,
            ra=reroll_misses,
            rb=vs_reroll_misses,
        )
        run = run_chunks(
            task,
            mc,
            seed=seed,
            n_jobs=jobs,
            quiet=quiet,
            desc="boardings",
            chunk_size=MC_CHUNK_SIZE,
            manifest={"command": "odds boarding"},
        )
        counts = np.sum(run.results, axis=0)
        replay_note(run.entropy, seed is not None, quiet)
        info.update(method="exact+monte-carlo", n=mc, seed=run.entropy)
    df = _with_mc(values, probs, counts, mc)
    obj = _json(df, info, "difference")
    obj["boarder_wins"] = float(sum(p for v, p in exact.items() if v > 0))
    obj["tie"] = float(exact.get(0, 0))
    obj["defender_wins"] = float(sum(p for v, p in exact.items() if v < 0))
    _write_out(
        out, "boarding", df.rename(columns={"value": "difference"}), obj, key=("difference",)
    )
    emit(
        fmt,
        df.rename(columns={"value": "difference"}),
        obj,
        title=(
            f"boarding: {masts} masts (+{extra_dice}) vs {vs} masts (+{vs_extra_dice}), "
            "success on 3+"
        ),
    )
