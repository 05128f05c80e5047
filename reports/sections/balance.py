"""Report section "Balance runs": what a balance search found, added to the game's verdicts.

The runs come from ``broadside report --balance DIR`` (a folder written by ``broadside balance
--out DIR``; refused in one line when it is not one, or was made on other rules than the
report's) and, at ``--size standard``, from a short built-in search per game (:data:`BUILTIN`,
written to ``OUT/balance-GAME/``). Each kept candidate's validated improvement on each target
(base loss - candidate loss, on fresh games, with its bootstrap 95 % interval) is a row of
``balance_candidates`` (key ``run, candidate, target``) and a claim of the page; and a remedy
(``remedy_source`` ``balance-run``) of the game's axis its target concerns
(:data:`TARGET_AXES`), so the verdict's "What to try" names it beside the variants and house
rules measured in the run.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pandas as pd

from reports.html import Section
from reports.sections.common import claim as make_claim
from reports.sections.common import scenario_row
from reports.verdicts import Remedy
from simulator.errors import UserError
from simulator.runner import derive_seed

TITLE = "Balance runs"
#: the section's place in the report's seed tree (dice 0, cove 1, express 2, hunt 3)
POSITION = 4
#: the verdict axis each target concerns (game-length and closeness have none)
TARGET_AXES = {
    "seat-advantage": "seat-order",
    "strategy-spread": "strategy",
    "nation-spread": "fleet",  # each nation with its best fleet against the others' best
    "pirate-engagement": "pirates",
}
#: targets whose loss is a share (shown in points); the others are in the game's units
SHARE_TARGETS = ("seat-advantage", "strategy-spread", "nation-spread", "pirate-engagement")
#: the short search of --size standard per game: (targets, searched keys, players, budget,
#: validation games); a game without searchable numbers is skipped with a note
BUILTIN: dict[str, tuple[tuple[str, ...], tuple[str, ...], int | None, int, int]] = {
    "cove": (
        ("pirate-engagement=0.1",),
        (
            "pirates.blackbeard.fame",
            "pirates.flying_dutchman.fame",
            "pirates.captain_hook.fame",
            "pirates.bonny_and_read.fame",
        ),
        4,
        6_000,
        4_000,
    ),
    "express": (
        ("nation-spread=0.03",),
        (
            "nations.spain.extra_vp_per_sink",
            "nations.pirates.attack_rerolls",
            "nations.chinese.hull_points",
            "nations.american.max_four_mast_ships",
            "nations.turkish.disengage_cap",
            "nations.turkish.mastless_move_cm",
            "nations.viking.boarding_extra_dice",
        ),
        2,
        40_000,
        20_000,
    ),
    # the first-player handicap (a house rule, one or two numbers) against the first-seat edge
    "hunt": (
        ("seat-advantage=0.02",),
        ("opening.handicap_turns", "opening.handicap_dice"),
        2,
        6_000,
        4_000,
    ),
}
SUMMARY_KEYS = ("game", "players", "population", "seed", "budget", "games", "base", "candidates")


def load_run(folder: str | Path) -> dict[str, Any]:
    """A balance run's ``summary.json`` (one line naming the folder when it is not one)."""
    path = Path(folder) / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(
            f"--balance {folder}: no balance run there ({path.name}: "
            f"{exc.strerror if isinstance(exc, OSError) else 'not JSON'}; allowed: a folder "
            "written by broadside balance --out DIR)"
        ) from None
    missing = [k for k in SUMMARY_KEYS if k not in data] if isinstance(data, dict) else ["all"]
    if missing or "scenario_hash" not in data.get("provenance", {}):
        raise UserError(
            f"--balance {folder}: {path.name} is not a balance run's (missing "
            f"{', '.join(missing) or 'provenance.scenario_hash'}; allowed: a folder written by "
            "broadside balance --out DIR)"
        )
    return {"label": Path(folder).name, "source": f"--balance {folder}", "dir": str(folder),
            "summary": data}  # fmt: skip


def check_run(run: dict[str, Any], scenario_hash: str, games: tuple[str, ...]) -> None:
    """A run belongs in the report only for a game it shows, on the same rules."""
    s = run["summary"]
    if s["game"] not in games:
        raise UserError(
            f"{run['source']}: a run of {s['game']}, but the report shows {', '.join(games)} "
            f"(allowed: --game {s['game']} or all)"
        )
    made = s["provenance"]["scenario_hash"]
    if made != scenario_hash:
        raise UserError(
            f"{run['source']}: made on rules of hash {made}, the report plays {scenario_hash} "
            "(refused: run broadside balance on the report's scenario)"
        )


def _builtin(ctx, game: str, index: int, seed: int) -> dict[str, Any] | None:
    """The short search of --size standard for ``game`` (None, with a note, when it has no
    searchable numbers)."""
    from reports.balance import balance_figure
    from reports.engines import GAME_APIS, engine
    from scenarios.loader import ScenarioError
    from scenarios.searchable import load_searchable
    from simulator.balance import balance, parse_target, write_run

    api = GAME_APIS[game]
    refs = ctx.scenarios.get(game) or []
    scen = engine(game).resolve(refs[0]) if refs else api.load(None)
    targets, params, players, budget, validation = BUILTIN[game]
    try:
        load_searchable(scen)
    except ScenarioError as exc:
        ctx.notes(f"report: no built-in balance search for {game} ({exc})")
        return None
    run_seed = derive_seed(seed, "builtin", index)
    eng = ctx.engine_for(api)
    result = balance(
        api,
        scen,
        targets=[parse_target(t) for t in targets],
        budget=budget,
        params=list(params),
        players=players,
        seed=run_seed,
        jobs=ctx.jobs,
        validation_games=validation,
        engine=eng,
    )
    parts = ["broadside", "balance", "--game", game]
    if players is not None:
        parts += ["--players", str(players)]
    for p in params:
        parts += ["--param", p]
    for t in targets:
        parts += ["--target", t]
    parts += ["--budget", str(budget), "--validation-games", str(validation)]
    if refs:
        parts += ["--scenario", str(refs[0])]
    if eng is not None:
        parts += ["--engine", eng]
    parts += ["--seed", str(result.entropy)]
    folder = ctx.out / f"balance-{game}"
    summary = write_run(result, scen, folder, command=shlex.join(parts), figure=balance_figure)
    return {"label": f"balance-{game}", "source": "built-in search", "dir": str(folder),
            "summary": summary, "scenario": scenario_row(scen)}  # fmt: skip


def _params_words(cand: dict[str, Any], base: dict[str, Any]) -> str:
    return ", ".join(
        f"{k} {base.get(k, {}).get('base', '?')} -> {v}" for k, v in cand["params"].items()
    )


def build(ctx, sections: list[Section], seed: int) -> Section | None:
    """The section, and the remedies added to the game sections' axes (None: no run)."""
    games = tuple(s.key for s in sections if s.key != "dice")
    runs = list(getattr(ctx, "balance", []))
    if ctx.size == "standard":
        for i, game in enumerate(games):
            found = _builtin(ctx, game, i, seed)
            if found is not None:
                runs.append(found)
    if not runs:
        return None
    from reports.balance import figure

    sec = Section("balance", TITLE)
    sec.text(
        "Balance runs search a game's own numbers (scenarios/<game>/balance/searchable.toml) for "
        "rules that meet a target, and validate each kept candidate on fresh games against the "
        "base rules (docs/search.md, 'broadside balance'). A target's loss is its distance from "
        "the target (0 = met); the improvement is base loss minus candidate loss on the same "
        "fresh games, with a bootstrap 95% interval. Each candidate is a house-rule overlay "
        "(the overlay column) and a remedy of the verdict its target concerns."
    )
    rows, specs = [], []
    for run in runs:
        if "scenario" in run:
            sec.scenarios.append(run["scenario"])
        s = run["summary"]
        searched = s["provenance"].get("searched", {})
        g = s["games"]
        who = f"equilibrium population {s['population']}" if s["population"] else "the default mix"
        sec.text(
            f"{run['label']} ({run['source']}): {s['game']}, {s['players']} players, {who}; "
            f"targets {', '.join(s['base'])}; {len(s['candidates'])} candidate(s); games: search "
            f"{g['search']:,}, resolve {g['resolve']:,}, validation {g['validation']:,}; "
            f"seed {s['seed']}; replay: `{s['provenance'].get('command', '')}`"
            + (f". {s['note']}" if s.get("note") else "")
        )
        folder = Path(run["dir"])
        if s["candidates"]:
            ctx.figure(
                sec,
                "balance_" + re.sub(r"[^a-z0-9_-]+", "-", run["label"].lower()),
                figure(s),
                caption=f"{run['label']}: each target's loss for the base rules and each kept "
                "candidate on fresh games (0 = met), and what else each candidate changes "
                "(candidate minus base, compare's repeated 95% intervals).",
                csv="balance_candidates",
                n=f"{s['games']['validation']:,} validation games",
                n_value=int(s["games"]["validation"]),
                players=who,
            )
        for k, cand in enumerate(s["candidates"], start=1):
            overlay = folder / cand["overlay"]
            try:
                shown = overlay.resolve().relative_to(ctx.out.resolve()).as_posix()
            except ValueError:
                shown = str(overlay)
            for target, t in cand["targets"].items():
                scale = 100.0 if target in SHARE_TARGETS else 1.0
                rows.append(
                    {
                        "run": run["label"],
                        "candidate": k,
                        "target": target,
                        "game": s["game"],
                        "players": int(s["players"]),
                        "population": s["population"] or "default mix",
                        "params": _params_words(cand, searched),
                        "base_loss": s["base"][target]["value"],
                        "loss": t["value"],
                        "improvement": t["improvement"],
                        "ci_low": t["improvement_ci95"][0],
                        "ci_high": t["improvement_ci95"][1],
                        "validation_games": int(cand["validation"]["games"]),
                        "overlay": shown,
                        "source": run["source"],
                    }
                )
                specs.append((run["label"], k, target, s, scale, who))
    if not rows:
        sec.text("No balance run kept a candidate: the base rules were the best found.", "note")
        return sec
    table = pd.DataFrame(rows)
    sec.table(
        "balance_candidates",
        table,
        "Each kept candidate of each balance run: its validated improvement on each target "
        "(base loss minus candidate loss on fresh paired games; bootstrap 95% interval).",
        key=("run", "candidate", "target"),
        columns=["run", "candidate", "target", "params", "base_loss", "loss", "improvement",
                 "ci_low", "ci_high", "validation_games", "overlay"],
        phone=("run", "candidate", "target", "improvement", "ci_low", "ci_high", "conclusive"),
    )  # fmt: skip
    remedies: dict[tuple[str, str, int], list[Remedy]] = {}
    for label, k, target, s, scale, who in specs:
        key = f"{s['game']}/balance/{label}/{k}/{target}"
        row = table[(table["run"] == label) & (table["candidate"] == k)].iloc[0]
        sec.claims.append(
            make_claim(
                table,
                "balance_candidates",
                {"run": label, "candidate": k, "target": target},
                "improvement",
                game=s["game"],
                claim_key=key,
                quantity=f"reduction of the {target} loss under balance candidate {k} of {label}",
                sentence=f"Balance candidate {k} of {label} ({row['params']}) lowers the {target} "
                "loss by {value} {ci} on fresh games ({n} games)",
                null=0.0,
                null_words="zero (no improvement)",
                players=who,
                population=s["population"] or "default mix",
                n=int(row["validation_games"]),
                anchor="tbl-balance_candidates",
                unit=f"reduction in the {target} loss",
                table_players=int(s["players"]),
                effect="score",
                scale=scale,
                unit_short=" points" if scale == 100.0 else "",
                family=f"balance/{s['game']}",
            )
        )
        axis = TARGET_AXES.get(target)
        if axis is not None:
            name = f"balance candidate {k} of {label} ({row['params']})"
            remedies.setdefault((s["game"], axis, int(s["players"])), []).append(
                Remedy(name, "balance-run", key, f"{target} loss reduction")
            )
    for game_sec in sections:
        for i, a in enumerate(game_sec.axes):
            found = remedies.get((a.game, a.axis, int(a.players)))
            if found:
                game_sec.axes[i] = dataclasses.replace(a, remedies=(*a.remedies, *found))
    return sec
