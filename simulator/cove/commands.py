"""``broadside cove ...``: Pirate's Cove combat commands (no game logic here).

``duel``       one player ship against a Legendary Pirate, the Royal Navy or another ship: exact
               (Markov chain; a lone ship may hold battle and volley cards, played optimally or
               by the players' rule) or Monte Carlo (``simulate_battles``, seeded chunks: the
               same card policy, the solved one for ``optimal``).
``lethality``  every Legendary Pirate and the Royal Navy against a grid of builds, exact (cards in
               hand optional; the best extra card and pair per row).
``play``, ``card-value``  full games (:mod:`simulator.cove.game_commands`).
"""

from __future__ import annotations

import difflib
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
from simulator.cove.combat_policies import HeuristicCardPolicy, policy_from_name
from simulator.cove.duel import FIGHTING_OPPONENTS, exact_duel
from simulator.cove.duel_cards import CARD_POLICIES, COMBAT_CARDS
from simulator.cove.game_commands import card_value_command, play_command
from simulator.cove.lethality import (
    MAX_CHESTS,
    MC_BLOCK_SIZE,
    Build,
    duel_engine,
    duel_monte_carlo_chunk,
    lethality_table,
    read_builds,
)
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.cove.tables import EVENT_CARDS
from simulator.output import emit, ensure_writable_dir, write_table
from simulator.runner import run_chunks
from simulator.stats import Z95, wilson_interval

OPPONENT_NAMES = tuple(k.replace("_", "-") for k in FIGHTING_OPPONENTS)
POLICY_HELP = "stand | flee-when-hit | flee-when-critical | flee-after-N (N ring steps lost)"
MC_CHUNK = 20_000
CARDS_HELP = (
    "Battle and volley cards the lone ship holds, comma-separated, the scenario's card names "
    "with hyphens (smoke,powder-keg,...; a name twice for two copies)."
)
CARD_POLICY_HELP = (
    "How the ship plays its cards: optimal (maximise P(sink), exact dynamic programme) or "
    "heuristic (the scripted players' rule)."
)


def _scenario(path):
    return load_scenario(path, CoveRules)


def parse_ship(spec: str, rules, where: str = "--ship") -> Build:
    """``hull=P,crew=P,cannons=P,sails=P[,artisan=SECTION][,parrot=NAME]`` (positions default
    to start)."""
    n = rules.ship_mat.num_positions
    pos = dict.fromkeys(SECTIONS, rules.ship_mat.start_position)
    artisan = parrot = None
    chests = 0
    seen = set()
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        if "=" not in part:
            raise click.BadParameter(
                f"{part!r} is not KEY=VALUE "
                f"(allowed keys: {', '.join(SECTIONS)}, artisan, parrot, chests)",
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
        elif key == "chests":
            if not value.isdigit() or int(value) > MAX_CHESTS:
                raise click.BadParameter(
                    f"chests={value!r} (allowed: 0..{MAX_CHESTS})", param_hint=where
                )
            chests = int(value)
        else:
            raise click.BadParameter(
                f"unknown key {key!r} (allowed: {', '.join(SECTIONS)}, artisan, parrot, chests)",
                param_hint=where,
            )
    name = ",".join(f"{s}={pos[s]}" for s in SECTIONS)
    name += f",artisan={artisan}" if artisan else ""
    name += f",parrot={parrot.replace('_', '-')}" if parrot else ""
    name += f",chests={chests}" if chests else ""
    return Build(name, tuple(pos[s] for s in SECTIONS), artisan, parrot, chests)


def parse_cards(spec: str | None, rules, where: str = "--cards") -> tuple[str, ...]:
    """``smoke,powder-keg,...``: the scenario's battle and volley card names (hyphens or
    underscores; a name twice for two copies), at most as many of each as its Tavern deck holds.
    Returns the scenario's names (``powder_keg``)."""
    if spec is None:
        return ()
    usable = [c for c in COMBAT_CARDS if getattr(rules.tavern, c) > 0]
    other = ["artisan", *EVENT_CARDS, *rules.tavern.parrots, "fame"]
    allowed = ", ".join(c.replace("_", "-") for c in usable)
    out: list[str] = []
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        key = part.lower().replace("-", "_")
        if key not in usable:
            if key in COMBAT_CARDS:
                why = "is not in the scenario's Tavern deck"
            elif key in other or key.startswith("fame"):
                why = "has no effect in a battle"
            else:
                close = difflib.get_close_matches(key, usable, n=1, cutoff=0.6)
                why = "is not a card" + (
                    f"; did you mean {close[0].replace('_', '-')!r}?" if close else ""
                )
            raise click.BadParameter(f"{part!r} {why} (allowed: {allowed})", param_hint=where)
        out.append(key)
    for key in dict.fromkeys(out):
        most = getattr(rules.tavern, key)
        if out.count(key) > most:
            raise click.BadParameter(
                f"{out.count(key)} x {key.replace('_', '-')} (allowed: at most {most}, the "
                "scenario's Tavern deck)",
                param_hint=where,
            )
    return tuple(out)


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
    help="hull=P,crew=P,cannons=P,sails=P[,artisan=SECTION][,parrot=NAME][,chests=N]; positions "
    "1-8 (2 = start, the default). Give a second --ship as the opponent.",
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
@click.option("--cards", "cards_spec", default=None, metavar="CARDS", help=CARDS_HELP)
@click.option(
    "--card-policy",
    type=click.Choice(CARD_POLICIES),
    default="optimal",
    show_default=True,
    help=CARD_POLICY_HELP,
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
def duel(
    ships,
    vs,
    exact,
    n,
    policy,
    vs_policy,
    cards_spec,
    card_policy,
    scenario_path,
    seed,
    jobs,
    quiet,
    fmt,
):
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
    cards = parse_cards(cards_spec, rules)
    if len(ships) == 2:
        if vs is not None:
            raise click.BadParameter(
                "give either --vs or a second --ship, not both", param_hint="--vs"
            )
        if cards_spec is not None:
            raise click.BadParameter(
                "cards are for a lone ship against a non-player ship (allowed: --vs OPPONENT)",
                param_hint="--cards",
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
    else:
        info["cards"] = list(cards)
        info["card_policy"] = card_policy
    solved = None
    if n is None or cards:
        t0 = time.perf_counter()
        opp = opp_build.duel_ship(seat=1) if opp_build is not None else opponent_key
        solved = exact_duel(
            rules,
            a.duel_ship(),
            opp,
            policy_from_name(policy),
            policy_from_name(vs_policy),
            cards=cards,
            card_policy=card_policy,
        )
        ms = (time.perf_counter() - t0) * 1000
    if opp_build is None and solved is not None:
        info["battle_cards_played"] = list(solved.battle_cards_played)
        info["overboard_chests"] = solved.overboard_chests
    if n is None:
        d = solved
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
        if opp_build is None:
            obj["routed_while_sinking"] = float(d.routed_while_sinking)
        df = pd.DataFrame(
            {
                "outcome": list(probs) + ["expected_fame"],
                "value": list(probs.values()) + [float(d.expected_fame)],
            }
        )
        emit(
            fmt,
            df,
            obj,
            title=f"{a.name} vs {opponent_label} ({policy}{_hand_label(info)}): "
            f"exact, {d.states} states",
        )
        return
    builds = (a,) + ((opp_build,) if opp_build is not None else ())
    if not cards:
        ship_policy = policy
    elif card_policy == "optimal":
        ship_policy = solved.card_play.policy(policy_from_name(policy))
    else:
        ship_policy = HeuristicCardPolicy.from_rules(rules, policy_from_name(policy))
    policies = (ship_policy, vs_policy) if opp_build is not None else (ship_policy,)
    info["engine"], info["engine_reason"] = duel_engine(
        rules, builds, opponent_key, policies, cards=cards
    )
    task = functools.partial(
        duel_monte_carlo_chunk,
        scenario_path=str(sc.path) if scenario_path else None,
        ships=builds,
        npc=opponent_key,
        policies=policies,
        cards=cards,
    )
    run = run_chunks(
        task,
        n,
        seed=seed,
        chunk_size=MC_CHUNK,
        n_jobs=jobs,
        quiet=quiet,
        block_size=MC_BLOCK_SIZE,
        desc="battles",
        compiled=COMPILED_ENGINE,
        manifest={"command": "cove duel", **info},
    )
    tot = np.sum(run.results, axis=0)
    won, routed, fled, mutiny, stayed = tot[:5]
    if opp_build is None:  # against a non-player ship: win is P(sink)
        won, routed = tot[7], routed - tot[8]
    counts = {"win": won, "routed": routed, "fled": fled + mutiny, "mutiny": mutiny}
    if opp_build is None:
        counts["routed_while_sinking"] = tot[8]
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
    shown = [k for k in probs if k != "routed_while_sinking"]
    df = pd.DataFrame(
        {
            "outcome": shown + ["expected_fame"],
            "value": [probs[k] for k in shown] + [float(mean)],
            "ci95_low": [ci[k][0] for k in shown] + [ci["expected_fame"][0]],
            "ci95_high": [ci[k][1] for k in shown] + [ci["expected_fame"][1]],
        }
    )
    emit(
        fmt,
        df,
        obj,
        title=f"{a.name} vs {opponent_label} ({policy}{_hand_label(info)}): Monte Carlo, n={n}",
    )
    replay_note(run.entropy, seed is not None, quiet or fmt == "json")


def _hand_label(info: dict) -> str:
    if not info.get("cards"):
        return ""
    return f"; cards {'+'.join(info['cards'])}, {info['card_policy']}"


@cove.command()
@click.option(
    "--builds",
    "builds_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="CSV of builds: name,hull,crew,cannons,sails[,artisan][,parrot][,chests] "
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
@click.option("--cards", "cards_spec", default=None, metavar="CARDS", help=CARDS_HELP)
@click.option(
    "--card-policy",
    type=click.Choice(CARD_POLICIES),
    default="optimal",
    show_default=True,
    help=CARD_POLICY_HELP,
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
    builds_path,
    out_dir,
    policy,
    company,
    company_ship,
    n,
    cards_spec,
    card_policy,
    scenario_path,
    seed,
    jobs,
    quiet,
    fmt,
):
    """Each Legendary Pirate and the Royal Navy against a grid of builds: odds and fame (exact
    alone, with the cards in hand, plus the best extra card and pair)."""
    sc = _scenario(scenario_path)
    _policy(policy, "--policy")
    cards = parse_cards(cards_spec, sc.rules)
    if cards and company:
        raise click.BadParameter(
            "exact odds with cards are for a lone ship (allowed: --company 0)",
            param_hint="--cards",
        )
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
        cards=cards,
        card_policy=card_policy,
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
        shown = shown.drop(
            columns=["cards", "card_policy", "best_card", "p_sink_best_card", "best_pair"]
            + ["p_sink_best_pair"]
        )
    else:
        obj.update(cards=list(cards), card_policy=card_policy)
        shown = shown.drop(columns=["n", "p_sink_low", "p_sink_high", "company", "card_policy"])
        if not cards:
            shown = shown.drop(columns=["cards"])
    emit(
        fmt,
        shown,
        obj,
        title=f"legendary-pirate lethality ({policy}), "
        + (
            f"with {company} other ship(s), Monte Carlo n={n}"
            if company
            else "alone, exact duels"
            + (f", cards {'+'.join(cards)} ({card_policy})" if cards else "")
            + f"; best extra card and pair ({card_policy})"
        ),
    )
    if company:
        replay_note(entropy, seed is not None, quiet or fmt == "json")


cove.add_command(play_command)
cove.add_command(card_value_command)
