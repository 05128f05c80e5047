"""``broadside cove ...``: Pirate's Cove combat commands (no game logic here).

``duel``       one player ship against a Legendary Pirate, the Royal Navy or another ship: exact
               (Markov chain) or Monte Carlo (``simulate_battles``: the compiled kernel for these
               card-free battles; seeded chunks).
``lethality``  every Legendary Pirate and the Royal Navy against a grid of builds, exact.
"""

from __future__ import annotations

import functools
import math
import time
from pathlib import Path

import click
import numpy as np
import pandas as pd

from scenarios import load_scenario
from simulator.clitools import (
    format_option,
    jobs_option,
    note,
    quiet_option,
    replay_note,
    seed_option,
)
from simulator.cove.combat_kernel import COMPILED_ENGINE
from simulator.cove.combat_policies import policy_from_name
from simulator.cove.duel import FIGHTING_OPPONENTS, exact_duel
from simulator.cove.game_commands import play_command
from simulator.cove.lethality import Build, duel_monte_carlo_chunk, lethality_table, read_builds
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.output import emit, ensure_writable_dir, write_table
from simulator.runner import run_chunks
from simulator.stats import Z95, wilson_interval

OPPONENT_NAMES = tuple(k.replace("_", "-") for k in FIGHTING_OPPONENTS)
POLICY_HELP = "stand | flee-when-hit | flee-when-critical | flee-after-N (N ring steps lost)"
MC_CHUNK = 20_000


def _scenario(path):
    return load_scenario(path, CoveRules)


def parse_ship(spec: str, rules, where: str = "--ship") -> Build:
    """``hull=P,crew=P,cannons=P,sails=P[,artisan=SECTION][,parrot=NAME]`` (positions default
    to start)."""
    n = rules.ship_mat.num_positions
    pos = dict.fromkeys(SECTIONS, rules.ship_mat.start_position)
    artisan = parrot = None
    seen = set()
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        if "=" not in part:
            raise click.BadParameter(
                f"{part!r} is not KEY=VALUE (allowed keys: {', '.join(SECTIONS)}, artisan, parrot)",
                param_hint=where,
            )
        key, value = (x.strip() for x in part.split("=", 1))
        key = key.lower()
        if key in seen:
            raise click.BadParameter(f"{key} given twice", param_hint=where)
        seen.add(key)
        if key in SECTIONS:
            if not value.isdigit() or not 1 <= int(value) <= n:
                raise click.BadParameter(
                    f"{key}={value!r} (allowed: a ship-mat position 1..{n})", param_hint=where
                )
            pos[key] = int(value)
        elif key == "artisan":
            if value not in SECTIONS:
                raise click.BadParameter(
                    f"artisan={value!r} (allowed: {', '.join(SECTIONS)})", param_hint=where
                )
            artisan = value
        elif key == "parrot":
            k = value.replace("-", "_").lower()
            if k not in rules.parrots:
                allowed = ", ".join(p.replace("_", "-") for p in rules.parrots)
                raise click.BadParameter(f"parrot={value!r} (allowed: {allowed})", param_hint=where)
            parrot = k
        else:
            raise click.BadParameter(
                f"unknown key {key!r} (allowed: {', '.join(SECTIONS)}, artisan, parrot)",
                param_hint=where,
            )
    name = ",".join(f"{s}={pos[s]}" for s in SECTIONS)
    name += f",artisan={artisan}" if artisan else ""
    name += f",parrot={parrot.replace('_', '-')}" if parrot else ""
    return Build(name, tuple(pos[s] for s in SECTIONS), artisan, parrot)


def _policy(name: str, opt: str):
    try:
        policy_from_name(name)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=opt) from None
    return name


@click.group()
def cove():
    """Pirate's Cove: battles, exact duels and legendary-pirate lethality."""


@cove.command()
@click.option(
    "--ship",
    "ships",
    multiple=True,
    required=True,
    metavar="SPEC",
    help="hull=P,crew=P,cannons=P,sails=P[,artisan=SECTION][,parrot=NAME]; positions 1-8 "
    "(2 = start, the default). Give a second --ship as the opponent.",
)
@click.option(
    "--vs",
    "vs",
    default=None,
    metavar="OPPONENT",
    help=f"One of {', '.join(OPPONENT_NAMES)} (or give a second --ship).",
)
@click.option("--exact", "exact", is_flag=True, help="Exact Markov chain (the default when no -n).")
@click.option(
    "-n", "n", type=click.IntRange(min=1), default=None, help="Monte Carlo with N battles."
)
@click.option("--policy", default="stand", show_default=True, help=f"First ship: {POLICY_HELP}.")
@click.option(
    "--vs-policy", default="stand", show_default=True, help="Second ship's policy (ship duels)."
)
@click.option(
    "--scenario",
    "scenario_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Scenario TOML (default: the standard rules).",
)
@seed_option
@jobs_option
@quiet_option
@format_option
def duel(ships, vs, exact, n, policy, vs_policy, scenario_path, seed, jobs, quiet, fmt):
    """Odds that a ship sinks (or routs) its opponent, is routed, or flees."""
    sc = _scenario(scenario_path)
    rules = sc.rules
    _policy(policy, "--policy")
    _policy(vs_policy, "--vs-policy")
    if len(ships) > 2:
        raise click.BadParameter(
            f"{len(ships)} ships (allowed: 1 with --vs, or 2)", param_hint="--ship"
        )
    a = parse_ship(ships[0], rules)
    if len(ships) == 2:
        if vs is not None:
            raise click.BadParameter(
                "give either --vs or a second --ship, not both", param_hint="--vs"
            )
        opp_build = parse_ship(ships[1], rules, "--ship (second)")
        opponent_key, opponent_label = None, opp_build.name
    else:
        if vs is None:
            raise click.BadParameter(
                f"missing opponent (allowed: {', '.join(OPPONENT_NAMES)}, or a second --ship)",
                param_hint="--vs",
            )
        key = vs.strip().lower().replace("-", "_")
        fighting = [k for k in rules.pirates if rules.pirates[k].fights] + ["royal_navy"]
        if key not in fighting:
            raise click.BadParameter(
                f"{vs!r} (allowed: {', '.join(k.replace('_', '-') for k in fighting)}, "
                "or a second --ship)",
                param_hint="--vs",
            )
        opp_build, opponent_key, opponent_label = None, key, key.replace("_", "-")
    if exact and n is not None:
        raise click.BadParameter("give either --exact or -n, not both", param_hint="-n")
    info = {
        "ship": a.name,
        "vs": opponent_label,
        "policy": policy,
        **sc.provenance(),
    }
    if opp_build is not None:
        info["vs_policy"] = vs_policy
    if n is None:
        t0 = time.perf_counter()
        opp = opp_build.duel_ship(seat=1) if opp_build is not None else opponent_key
        d = exact_duel(
            rules, a.duel_ship(), opp, policy_from_name(policy), policy_from_name(vs_policy)
        )
        ms = (time.perf_counter() - t0) * 1000
        probs = {
            "win": float(d.win),
            "routed": float(d.routed),
            "fled": float(d.fled),
            "mutiny": float(d.mutiny),
        }
        obj = {
            **probs,
            "expected_fame": float(d.expected_fame),
            "method": "exact",
            "states": d.states,
            "ms": round(ms, 3),
            **info,
        }
        df = pd.DataFrame(
            {
                "outcome": list(probs) + ["expected_fame"],
                "value": list(probs.values()) + [float(d.expected_fame)],
            }
        )
        emit(
            fmt, df, obj, title=f"{a.name} vs {opponent_label} ({policy}): exact, {d.states} states"
        )
        return
    builds = (a,) + ((opp_build,) if opp_build is not None else ())
    task = functools.partial(
        duel_monte_carlo_chunk,
        scenario_path=str(sc.path) if scenario_path else None,
        ships=builds,
        npc=opponent_key,
        policies=(policy, vs_policy) if opp_build is not None else (policy,),
    )
    run = run_chunks(
        task,
        n,
        seed=seed,
        n_jobs=jobs,
        quiet=quiet,
        chunk_size=MC_CHUNK,
        desc="battles",
        compiled=COMPILED_ENGINE,
        manifest={"command": "cove duel", **info},
    )
    tot = np.sum(run.results, axis=0)
    won, routed, fled, mutiny, stayed = tot[:5]
    counts = {"win": won, "routed": routed, "fled": fled + mutiny, "mutiny": mutiny}
    probs = {k: float(v / n) for k, v in counts.items()}
    lo, hi = wilson_interval(np.array(list(counts.values())), n)
    ci = {k: [float(a_), float(b_)] for k, a_, b_ in zip(counts, lo, hi)}
    mean = tot[5] / n
    var = max(tot[6] / n - mean**2, 0.0) * n / max(n - 1, 1)
    half = Z95 * math.sqrt(var / n)
    ci["expected_fame"] = [mean - half, mean + half]
    obj = {
        **probs,
        "expected_fame": float(mean),
        "method": "monte-carlo",
        "n": n,
        "ci95": ci,
        "stayed": int(stayed),
        "seed": run.entropy,
        "chunk_size": MC_CHUNK,
        **info,
    }
    df = pd.DataFrame(
        {
            "outcome": list(probs) + ["expected_fame"],
            "value": list(probs.values()) + [float(mean)],
            "ci95_low": [ci[k][0] for k in probs] + [ci["expected_fame"][0]],
            "ci95_high": [ci[k][1] for k in probs] + [ci["expected_fame"][1]],
        }
    )
    emit(fmt, df, obj, title=f"{a.name} vs {opponent_label} ({policy}): Monte Carlo, n={n}")
    replay_note(run.entropy, seed is not None, quiet or fmt == "json")


@cove.command()
@click.option(
    "--builds",
    "builds_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="CSV of builds: name,hull,crew,cannons,sails[,artisan][,parrot] "
    "(default: the standard grid).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for lethality.csv and lethality.parquet.",
)
@click.option(
    "--policy", default="stand", show_default=True, help=f"The ship's policy: {POLICY_HELP}."
)
@click.option(
    "--company",
    type=click.IntRange(0, 4),
    default=0,
    show_default=True,
    help="Other player ships beside the build (Monte Carlo; pirates met at Treasure Island).",
)
@click.option(
    "--company-ship",
    default=None,
    metavar="SPEC",
    help="Build of the company ships (default: start ship).",
)
@click.option(
    "-n",
    "n",
    type=click.IntRange(min=1),
    default=20_000,
    show_default=True,
    help="Battles per row with --company.",
)
@click.option(
    "--scenario",
    "scenario_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Scenario TOML (default: the standard rules).",
)
@seed_option
@jobs_option
@quiet_option
@format_option
def lethality(
    builds_path, out_dir, policy, company, company_ship, n, scenario_path, seed, jobs, quiet, fmt
):
    """Each Legendary Pirate and the Royal Navy against a grid of builds: odds and fame (exact
    alone)."""
    sc = _scenario(scenario_path)
    _policy(policy, "--policy")
    if out_dir is not None:
        ensure_writable_dir(out_dir)
    builds = read_builds(builds_path, sc.rules) if builds_path else None
    mates = parse_ship(company_ship, sc.rules, "--company-ship") if company_ship else None
    if mates is not None and company == 0:
        raise click.BadParameter("needs --company 1..4", param_hint="--company-ship")
    opponents = tuple(k for k in sc.rules.pirates if sc.rules.pirates[k].fights) + ("royal_navy",)
    entropy = None
    if company:
        from simulator.runner import fresh_entropy

        entropy = fresh_entropy() if seed is None else seed
    df = lethality_table(
        sc,
        builds,
        policy=policy,
        opponents=opponents,
        company=company,
        company_build=mates,
        n=n,
        seed=entropy or 0,
        n_jobs=jobs,
        quiet=quiet,
    )
    for k, v in sc.provenance().items():
        df[k] = v
    shown = df.drop(columns=["ms", "states", *sc.provenance().keys()])
    if out_dir is not None:
        for p in write_table(
            df.drop(columns=["ms"]), out_dir, "lethality", key=("pirate", "build")
        ):
            note(f"wrote {Path(p)}", quiet or fmt == "json")
    method = "monte-carlo" if company else "exact"
    obj = {"rows": shown, "method": method, "policy": policy, "company": company, **sc.provenance()}
    if company:
        obj.update(n=n, seed=entropy, company_ship=mates.name if mates else "start")
    else:
        shown = shown.drop(columns=["n", "p_sink_low", "p_sink_high", "company"])
    emit(
        fmt,
        shown,
        obj,
        title=f"legendary-pirate lethality ({policy}), "
        + (f"with {company} other ship(s), Monte Carlo n={n}" if company else "alone, exact duels"),
    )
    if company:
        replay_note(entropy, seed is not None, quiet or fmt == "json")


cove.add_command(play_command)
