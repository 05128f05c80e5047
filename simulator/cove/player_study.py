"""Studies of the Pirate's Cove players: why each pirate is (not) fought, and kind vs baseline.

* :func:`play_recorded` plays seeded games exactly as :func:`simulator.cove.api.play_games` does
  (same seeds, same games, on the compiled engine: recording changes no decision) with the
  improved players' decision records on (``FastGames.play(..., decisions=True)``, columns
  :data:`simulator.cove.tables.RECORD_COLUMNS`), and returns the seats and battles tables with a
  decisions table.
* :func:`engagement_table` turns them into one row per Legendary Pirate: how often it was on the
  board and fought, how often the island was the best option, the expected values behind that,
  and the best lone and company odds the players computed (cards in hand included).
* :func:`versus_baseline`: each improved kind in the seats of its ``*-v1`` baseline, the other
  three seats held by the other ``v1`` kinds of the default mix, seat-rotated, on the same deals
  (common random numbers) as the all-``v1`` table: the paired difference of win shares with a
  95 % interval. Any other strategy (e.g. ``rollout``) can take a seat the same way.

Command line (``--format table|json|csv``; JSON alone on stdout)::

    python -m simulator.cove.player_study engagement -n 10000 --seed 13 --jobs 2
    python -m simulator.cove.player_study versus -n 2000 --seed 17 --jobs 2 [--with rollout]
    python -m simulator.cove.player_study company -n 4000 --seed 19

* :func:`company_error`: how far the company estimate is from battles played by the game's own
  battle (:func:`simulator.cove.fast.battle.run`) with the players' own battle policies.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from scenarios.loader import Scenario, load_scenario
from simulator.cove.api import BLOCK_SIZE, compiled_engine, resolve_strategies
from simulator.cove.rules import CoveRules
from simulator.cove.tables import RECORD_COLUMNS
from simulator.runner import Block, Chunk, run_chunks
from simulator.stats import Z95, wilson_interval

#: decisions table: the game and the strategy, then the player's record columns (``option`` as
#: text: "0".."5" for an island, "stand" / "flee" for a battle)
DECISION_COLUMNS = ("game", "rotation", "strategy", *RECORD_COLUMNS)
#: battles table (battles against a non-player ship): ``seats`` comma-separated engine seats
BATTLE_COLUMNS = ("game", "rotation", "month", "pirate", "ships", "seats", "outcome")


def _chunk(chunk: Chunk, rules, names: tuple[str, ...], rotate: bool, npc_only: bool):
    from simulator.cove.fast.engine import engine_for

    n = len(names)
    eng = engine_for(rules, tuple(dict.fromkeys(names)))
    gids, rots, seated, deals = [], [], [], []
    for deal in chunk.blocks():  # one deal per block, as in cove play
        for r in range(n) if rotate else range(1):
            gids.append(deal.start)
            rots.append(r)
            seated.append([names[(s + r) % n] for s in range(n)])
            deals.append(deal)
    res = eng.play(seated, deals, decisions=True)
    decision_rows = []
    # game by game, each seat's rows in the order it decided (the engine writes them as the
    # decisions happen: a stable sort by game and seat)
    rows = eng.decision_rows(res, gids, rots, seated)
    order = {key: i for i, key in enumerate(dict.fromkeys((r[0], r[1]) for r in rows))}
    for row in sorted(rows, key=lambda r: (order[(r[0], r[1])], r[4])):
        rec = row[3:]
        if npc_only and rec[2] == "navigate" and not rec[6] and not rec[5]:
            continue  # islands without a non-player ship, not chosen
        decision_rows.append(row)
    decisions = pd.DataFrame(decision_rows, columns=list(DECISION_COLUMNS))
    # an island index (navigate) or "stand" / "flee" (battle): one type, text, so the column is
    # storable as Parquet (the chunk checkpoints, and --resume works)
    decisions["option"] = decisions["option"].astype(str)
    return (
        eng.seat_frame(res, gids, rots, seated),
        eng.battle_frame(res, gids, rots)[list(BATTLE_COLUMNS)],
        decisions,
    )


def play_recorded(
    scenario: Scenario | str | None,
    strategies: Sequence[str] | str,
    n_players: int,
    n: int,
    seed: int | None = None,
    n_jobs: int | None = 1,
    rotate_seats: bool = False,
    npc_only: bool = True,
    quiet: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, int]:
    """``n`` games as :func:`simulator.cove.api.play_games` plays them, with decision records.

    Returns ``(seats, battles, decisions, entropy)``; ``decisions`` has
    :data:`DECISION_COLUMNS` (with ``npc_only`` only the navigation rows of islands holding a
    non-player ship, the chosen island's row and every battle row are kept).
    """
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario, CoveRules)
    rules = scenario.rules
    names = tuple(resolve_strategies(rules, strategies, n_players))
    task = functools.partial(
        _chunk, rules=rules, names=names, rotate=rotate_seats, npc_only=npc_only
    )
    run = run_chunks(
        task,
        n,
        seed=seed,
        block_size=BLOCK_SIZE,
        chunk_size=None,
        n_jobs=n_jobs,
        quiet=quiet,
        desc="games",
        compiled=compiled_engine(),
    )
    seats, battles, decisions = (_concat([r[k] for r in run.results]) for k in range(3))
    return seats, battles, decisions, run.entropy


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The chunks' tables end to end; a chunk with no rows (no record of a kind) does not set
    the columns' types."""
    return pd.concat([f for f in frames if len(f)] or frames[:1], ignore_index=True)


def engagement_table(rules, battles: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """One row per Legendary Pirate (see the module docstring; columns documented inline)."""
    nav = decisions[decisions["decision"] == "navigate"]
    on_board = nav[nav["npc"] != ""].drop_duplicates(["game", "rotation", "month", "npc"])
    chosen = nav[nav["chosen"] == 1][["game", "rotation", "month", "seat", "value"]]
    pir = nav[(nav["npc"] != "") & (nav["npc"] != "royal_navy")].merge(
        chosen, on=["game", "rotation", "month", "seat"], suffixes=("", "_best")
    )
    rows = []
    for key in rules.pirates:
        months = int((on_board["npc"] == key).sum())
        b = battles[battles["pirate"] == key]
        fought = int(b.drop_duplicates(["game", "rotation", "month"]).shape[0])
        d = pir[pir["npc"] == key]
        lo, hi = wilson_interval(fought, months) if months else (float("nan"), float("nan"))
        lone = d["p_sink_lone"].dropna()
        comp = d["p_sink_company"].dropna()
        rows.append(
            {
                "pirate": key,
                "pirate_months": months,  # (game, month) with the card face up on a black ship
                "months_fought": fought,  # ... in which at least one player ship fought it
                "engagement_rate": fought / months if months else float("nan"),
                "ci95_low": lo,
                "ci95_high": hi,
                "ships_per_battle": float(b["ships"].mean()) if len(b) else float("nan"),
                "sunk_share": float(b["outcome"].isin(["sunk", "captured"]).mean())
                if len(b)
                else float("nan"),
                "decisions": len(d),  # navigation decisions that could sail at it
                "chosen_share": float(d["chosen"].mean()) if len(d) else float("nan"),
                # its island's expected value minus the chosen island's (0 when chosen)
                "mean_value_gap": float((d["value"] - d["value_best"]).mean())
                if len(d)
                else float("nan"),
                "mean_p_sink_lone": float(lone.mean()) if len(lone) else float("nan"),
                "best_p_sink_lone": float(lone.max()) if len(lone) else float("nan"),
                "mean_p_sink_company": float(comp.mean()) if len(comp) else float("nan"),
                "best_p_sink_company": float(comp.max()) if len(comp) else float("nan"),
                "mean_p_alone": float(d["p_alone"].mean()) if len(d) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def calibration_table(battles: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """The odds the players believed against what happened: every navigation to a fighting
    Legendary Pirate's island that led to a battle against it, grouped by pirate and by whether
    the ship fought alone. ``predicted``: the exact lone odds with the hand (alone) or the
    company estimate over the companions the player expected (with company); ``sunk``: the
    pirate was sunk in that battle (by anyone present)."""
    nav = decisions[
        (decisions["decision"] == "navigate")
        & (decisions["chosen"] == 1)
        & (decisions["npc"] != "")
        & (decisions["npc"] != "royal_navy")
    ]
    b = battles.copy()
    b["seat_list"] = b["seats"].astype(str).str.split(",")
    b = b.explode("seat_list")
    b["seat"] = b["seat_list"].astype(int)
    m = nav.merge(
        b[["game", "rotation", "month", "pirate", "seat", "ships", "outcome"]],
        left_on=["game", "rotation", "month", "npc", "seat"],
        right_on=["game", "rotation", "month", "pirate", "seat"],
    )
    m = m[m["p_sink_lone"].notna()]
    alone = m["ships"] == 1
    m["predicted"] = np.where(alone, m["p_sink_lone"], m["p_sink_company"].fillna(m["p_sink_lone"]))
    m["company"] = np.where(alone, "alone", "with company")
    m["sunk"] = (m["outcome"] == "sunk").astype(float)
    rows = []
    for (pirate, comp), d in m.groupby(["pirate", "company"]):
        k, n = float(d["sunk"].sum()), len(d)
        lo, hi = wilson_interval(k, n)
        rows.append(
            {
                "pirate": pirate,
                "company": comp,
                "n": n,
                "predicted": float(d["predicted"].mean()),
                "sunk": k / n,
                "ci95_low": lo,
                "ci95_high": hi,
                "error": float(d["predicted"].mean()) - k / n,
            }
        )
    return pd.DataFrame(rows)


def _paired(scenario, base_table, base_seats, base_name, name, n, seed, n_jobs, quiet) -> dict:
    """``name`` in the seats ``base_name`` holds in ``base_table``, the same deals (paired)."""
    from simulator.cove.api import play_games

    key = ["game", "rotation", "seat"]
    table = [name if b == base_name else b for b in base_table]
    seats, _, summ = play_games(scenario, table, len(table), n, seed, n_jobs, True, quiet)
    a = seats[seats["strategy"] == name].sort_values(key)
    b = base_seats[base_seats["strategy"] == base_name].sort_values(key)
    assert (a[key].to_numpy() == b[key].to_numpy()).all()
    d = a["win"].to_numpy() - b["win"].to_numpy()
    se = float(d.std(ddof=1) / np.sqrt(len(d)))
    wa, wb = float(a["win"].sum()), float(b["win"].sum())
    return {
        "strategy": name,
        "in_seats_of": base_name,
        "others": ",".join(x for x in base_table if x != base_name),
        "games": len(d),
        "win_share": wa / len(d),
        "win_ci95": list(wilson_interval(wa, len(d))),
        "baseline_win_share": wb / len(d),
        "baseline_ci95": list(wilson_interval(wb, len(d))),
        "difference": float(d.mean()),
        "difference_ci95": [float(d.mean() - Z95 * se), float(d.mean() + Z95 * se)],
        "mean_fame": float(a["fame"].mean()),
        "baseline_mean_fame": float(b["fame"].mean()),
        "wall_time_s": summ["wall_time_s"],
    }


def versus_baseline(
    scenario: Scenario | str | None,
    n: int,
    seed: int,
    n_jobs: int | None = 1,
    extra: Sequence[str] = (),
    against_mix: Sequence[str] = (),
    mix: Sequence[str] | None = None,
    quiet: bool = True,
) -> pd.DataFrame:
    """Each improved kind of the default mix (and each of ``extra``) against the ``v1`` field.

    ``mix``: the kinds compared with their baselines (default: the default mix's four).
    For kind K with baseline K-v1: ``n`` deals, seat-rotated (``4 n`` games), K in the seats
    K-v1 holds in the all-v1 table and the other three v1 kinds elsewhere, the same deals and
    dice as the all-v1 table. An ``extra`` strategy takes the ``balanced-v1`` seats. Each of
    ``against_mix`` takes the ``balanced`` seats of the (improved) default mix instead: its win
    rate against the default mix, paired with balanced's own. Reports each side's win share, the
    paired difference and its 95 % interval (normal, over games).
    """
    from simulator.cove.api import play_games

    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario, CoveRules)
    table = list(scenario.rules.default_mix)
    kinds = table if mix is None else list(mix)
    base = [f"{k}-v1" for k in table]
    rows = []
    if [*kinds, *extra]:
        bseats, _, _ = play_games(scenario, base, len(base), n, seed, n_jobs, True, quiet)
        for k in kinds:
            rows.append(_paired(scenario, base, bseats, f"{k}-v1", k, n, seed, n_jobs, quiet))
        for k in extra:
            rows.append(_paired(scenario, base, bseats, "balanced-v1", k, n, seed, n_jobs, quiet))
    if against_mix:
        mseats, _, _ = play_games(scenario, table, len(table), n, seed, n_jobs, True, quiet)
        for k in against_mix:
            rows.append(_paired(scenario, table, mseats, table[-1], k, n, seed, n_jobs, quiet))
    return pd.DataFrame(rows)


#: company situations of :func:`company_error`: (pirate, our ring, the others' rings)
COMPANY_SITUATIONS = (
    ("blackbeard", (4, 4, 4, 4), [(3, 5, 5, 3)]),
    ("blackbeard", (5, 3, 3, 5), [(4, 4, 4, 4), (4, 7, 7, 2)]),
    ("blackbeard", (6, 6, 6, 6), [(2, 2, 2, 2), (6, 6, 6, 6), (3, 5, 5, 3)]),
    ("flying_dutchman", (3, 5, 5, 3), [(5, 3, 3, 5)]),
    ("flying_dutchman", (5, 3, 3, 5), [(6, 6, 6, 6), (5, 3, 3, 5)]),
    ("captain_hook", (3, 5, 5, 3), [(6, 6, 6, 6)]),
    ("captain_hook", (2, 2, 2, 2), [(4, 7, 7, 2), (3, 5, 5, 3)]),
    ("bonny_and_read", (4, 4, 4, 4), [(2, 2, 2, 2)]),
    ("bonny_and_read", (4, 4, 4, 4), [(4, 4, 4, 4), (6, 6, 6, 6)]),
    ("royal_navy", (4, 4, 4, 4), [(3, 5, 5, 3)]),
)


def company_error(
    scenario: Scenario | str | None,
    n: int,
    seed: int,
    strategy: str = "balanced",
    islands: Sequence[str] = ("treasure_island", "hull"),
) -> pd.DataFrame:
    """The company estimate (everyone standing, no cards: the compiled players' own,
    :func:`simulator.cove.fast.company.company_odds`) against the game's own battle
    (:func:`simulator.cove.fast.battle.run`) with the players' battle policies (``strategy`` at
    every ship: flee or stand by expected value, ``_stake`` 3), ``n`` battles per situation of
    :data:`COMPANY_SITUATIONS` and island: P(the pirate sinks while we are still there), with
    its Wilson interval. The battles' dice come from the runner's ``dice`` stream of block 0 of
    ``seed``, ship ``i``'s player from its ``players`` stream ``i`` (one run per situation and
    island, from the same streams)."""
    from simulator.cove.fast import battle
    from simulator.cove.fast import core as fast_core
    from simulator.cove.fast.company import company_odds
    from simulator.cove.fast.engine import FastGames
    from simulator.cove.fast.packed import G_N, NS_SHARED, NS_SUNK, PP_STAKE, player_row
    from simulator.cove.fast.rng import state_of

    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario, CoveRules)
    rules = scenario.rules
    eng = FastGames(rules, [strategy])
    tab = eng.tables.arrays()
    ct, cmemo = eng.oc.ct, eng.oc.cmemo
    row = player_row(rules, strategy)
    row[PP_STAKE] = 3.0
    deal = Block(0, 0, 1, int(seed))
    rows = []
    for npc, mine, others in COMPANY_SITUATIONS:
        m = 1 + len(others)
        rings = np.array([mine, *others], np.int64)
        ships = np.zeros((m, 7), np.int64)
        ships[:, :4] = rings
        ships[:, 4] = -1  # no parrot
        npc_row = eng.tables.npc_keys.index(npc)
        est = company_odds(ct, cmemo, npc_row, ships, m)[0]
        for island in islands:
            if npc == "royal_navy" and island == "treasure_island":
                continue
            gs, _sc, bt = eng._buffers(m, False, False)
            g, rs, pp, dice, dctx = gs.g, gs.rs, gs.pp, gs.dice, gs.dctx
            g[:] = 0
            g[G_N] = m
            rs[0] = state_of(deal.rng("dice"))
            for i in range(m):
                rs[1 + i] = state_of(deal.rng("players", i))
                pp[i] = row
            dctx[:] = 0
            dctx[fast_core.DX_P] = dice.shape[0]  # empty: the first die draws a block
            dctx[fast_core.DX_REFILL] = 1
            no_art = np.full(4, -1, np.int64)
            hits = 0
            for _ in range(n):
                battle.reset(bt, m, 1, int(island == "treasure_island"), -1)
                for i in range(m):
                    battle.set_ship(tab, bt, i, i, rings[i], no_art, -1, False, 0, 0)
                battle.set_npc(tab, bt, 0, npc_row)
                battle.run(tab, gs, eng.oc, bt)
                nst = bt.nst
                hits += int(nst[0, NS_SUNK] != 0 and nst[0, NS_SHARED] & 1)
            lo, hi = wilson_interval(hits, n)
            rows.append(
                {
                    "pirate": npc,
                    "ships": m,
                    "island": island,
                    "estimate": est,
                    "engine": hits / n,
                    "ci95_low": lo,
                    "ci95_high": hi,
                    "error": est - hits / n,
                    "n": n,
                }
            )
    return pd.DataFrame(rows)


def _emit(fmt: str, df: pd.DataFrame, obj: dict[str, Any]) -> None:
    if fmt == "json":
        print(json.dumps(obj, default=float))
    elif fmt == "csv":
        sys.stdout.write(df.to_csv(index=False))
    else:
        with pd.option_context("display.width", 200, "display.max_columns", 40):
            print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))


def _main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simulator.cove.player_study")
    ap.add_argument("study", choices=("engagement", "versus", "company"))
    ap.add_argument("-n", type=int, required=True, help="games (engagement) or deals (versus)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--with", dest="extra", default="", help="strategies in balanced-v1's seats")
    ap.add_argument(
        "--against-mix", default="", help="strategies in balanced's seats of the default mix"
    )
    ap.add_argument("--only-extra", action="store_true", help="versus: skip the four kinds")
    ap.add_argument("--format", dest="fmt", choices=("table", "json", "csv"), default="table")
    args = ap.parse_args(argv)
    if args.n < 1:
        print(f"-n {args.n} (allowed: >= 1)", file=sys.stderr)
        return 2
    scen = load_scenario(None, CoveRules)
    if args.study == "engagement":
        mix = list(scen.rules.default_mix)
        _s, battles, decisions, entropy = play_recorded(
            scen, mix, args.players, args.n, args.seed, args.jobs
        )
        df = engagement_table(scen.rules, battles, decisions)
        cal = calibration_table(battles, decisions)
        obj = {
            "study": "engagement",
            "games": args.n,
            "players": args.players,
            "strategies": mix,
            "seed": entropy,
            "provenance": scen.provenance(),
            "pirates": df.to_dict(orient="records"),
            "calibration": cal.to_dict(orient="records"),
        }
        if args.fmt == "table":
            _emit("table", df, obj)
            print()
            df = cal
    elif args.study == "company":
        df = company_error(scen, args.n, args.seed)
        obj = {
            "study": "company",
            "battles_per_situation": args.n,
            "seed": args.seed,
            "provenance": scen.provenance(),
            "mean_error": float(df["error"].mean()),
            "rms_error": float(np.sqrt((df["error"] ** 2).mean())),
            "rows": df.to_dict(orient="records"),
        }
    else:
        extra = [x for x in args.extra.split(",") if x]
        against = [x for x in args.against_mix.split(",") if x]
        mix = [] if args.only_extra else None
        df = versus_baseline(scen, args.n, args.seed, args.jobs, extra, against, mix=mix)
        obj = {
            "study": "versus",
            "deals": args.n,
            "seed": args.seed,
            "provenance": scen.provenance(),
            "rows": df.to_dict(orient="records"),
        }
    _emit(args.fmt, df, obj)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
