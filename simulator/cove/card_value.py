"""Tavern card value in the full Pirate's Cove game, by a paired intervention.

Rules: "Tavern deck" of ``../shared/rules/pirates-cove.md``; the games are played by the compiled
engine (:class:`simulator.cove.fast.engine.FastGames`) with the scenario's players.

For every deal, the game is played as dealt; its card record (``FastGames.play(...,
record=True)``, the rows of :mod:`simulator.cove.card_record`) names, for each Tavern card name,
the first copy drawn in the game and the seat that drew it (the holder). The deal is then played
again from the same random streams -- the same dice, shuffles and players' noise, from the
runner's block streams (one deal per block, as ``cove play`` draws them: ``Block.rng("dice")``,
``Block.rng("players", seat)``) -- except that this copy is replaced by a blank card
(:data:`~simulator.cove.card_record.BLANK`: held, never playable) when the holder draws it (the
engine's built-in intervention, ``swap=(holder, card)``: ``packed.G_SWAP_SEAT`` /
``G_SWAP_CODE``). Both games are identical until that draw; the holder's win share with the card
minus with the blank is one paired difference. ``n`` counts the deals in which the card was drawn
(the intervention happened); ``win_rate_effect`` is the mean difference (positive: the card
helps its holder), ``ci95`` its normal interval (mean +- 1.96 standard errors of the paired
differences; ``None`` below two pairs), ``fame_effect`` the mean difference of the holder's final
fame.

Seats rotate with the deal (deal ``t`` seats strategy ``mix[(seat + t) % players]``), so each
strategy holds each card from every seat. Results depend on the seed and the block size (fixed:
:data:`BLOCK_SIZE`), never on ``--jobs`` or the chunk size. A strategy whose kind the compiled
engine does not play is refused in one line.

Public API: :func:`card_value` -> ``(pairs_df, summary)``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from scenarios.loader import Scenario, load_scenario
from simulator.cove.card_record import BLANK, tavern_card_names
from simulator.cove.rules import CoveRules
from simulator.errors import UserError
from simulator.runner import Chunk, run_chunks
from simulator.stats import Z95

BLOCK_SIZE = 1  # deals per block of random streams, as in cove play (part of the seed tree)
#: deals by default: about 24,000 games (one per deal plus one per card drawn in it, 23 cards),
#: about 30 s on one core of the compiled engine (900 games/s measured at load 7.9; the readable
#: engine played about 25 a second); 95 % intervals of +-0.6 (fame cards, Becalmed) to +-3
#: points (Royal Navy, parrots, Sneak away) of win share
DEFAULT_N = 1000
PAIR_COLUMNS = (
    "deal",
    "card",
    "holder",
    "strategy",
    "month_drawn",
    "win_with",
    "win_blank",
    "fame_with",
    "fame_blank",
)


def _first_draws(eng, chunk_rec, n_games: int) -> list[dict[str, tuple[int, int]]]:
    """Per game: ``{card name: (holder, month drawn)}`` of the first copy of each card drawn
    (the record's rows of a game are in the order the cards were drawn)."""
    from simulator.cove.fast.packed import RC_CODE, RC_MONTH, RC_SEAT

    names = eng.tables.card_names
    first: list[dict[str, tuple[int, int]]] = [{} for _ in range(n_games)]
    for row in chunk_rec:
        gi, r = int(row[0]), row[1:]
        first[gi].setdefault(names[int(r[RC_CODE])], (int(r[RC_SEAT]), int(r[RC_MONTH])))
    return first


def _swapped(chunk_rec, j: int, holder: int) -> int:
    """How many blanks seat ``holder`` drew in game ``j`` of a replayed chunk."""
    from simulator.cove.fast.packed import C_BLANK, RC_CODE, RC_SEAT

    rows = chunk_rec[chunk_rec[:, 0] == j, 1:]
    return int(((rows[:, RC_SEAT] == holder) & (rows[:, RC_CODE] == C_BLANK)).sum())


def _chunk(chunk: Chunk, rules, mix: tuple[str, ...], cards: tuple[str, ...]) -> pd.DataFrame:
    from simulator.cove.fast.engine import engine_for
    from simulator.cove.fast.game import SR_FAME

    n = len(mix)
    eng = engine_for(rules, tuple(dict.fromkeys(mix)))
    deals, blocks, seated = [], [], []
    for block in chunk.blocks():  # one deal per block
        for deal in block.trials:
            deals.append(deal)
            blocks.append(block)
            seated.append(tuple(mix[(s + deal) % n] for s in range(n)))
    base = eng.play(seated, blocks, record=True)
    first = _first_draws(eng, base.rec, len(deals))
    # the replays, grouped by intervention (one compiled call per holder and card)
    groups: dict[tuple[int, str], list[int]] = {}
    for i in range(len(deals)):
        for card in cards:
            got = first[i].get(card)
            if got is not None:
                groups.setdefault((got[0], card), []).append(i)
    alt: dict[tuple[int, str], tuple[float, int]] = {}
    for (holder, card), games in groups.items():
        res = eng.play(
            [seated[i] for i in games], [blocks[i] for i in games], record=True, swap=(holder, card)
        )
        for j, i in enumerate(games):
            if _swapped(res.rec, j, holder) != 1:
                raise RuntimeError(
                    f"deal {deals[i]}: the intervention on {card} did not happen (the replayed "
                    "game diverged before the draw)"
                )
            alt[(i, card)] = (float(res.win[j, holder]), int(res.seats[j, holder, SR_FAME]))
    rows: list[tuple] = []
    for i, deal in enumerate(deals):
        for card in cards:
            got = first[i].get(card)
            if got is None:
                continue
            holder, month = got
            win_blank, fame_blank = alt[(i, card)]
            rows.append(
                (
                    deal,
                    card,
                    holder,
                    seated[i][holder],
                    month,
                    float(base.win[i, holder]),
                    win_blank,
                    int(base.seats[i, holder, SR_FAME]),
                    fame_blank,
                )
            )
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


def _refuse_uncompiled(rules: CoveRules, mix: Sequence[str]) -> None:
    """One line naming the kinds of ``mix`` the compiled engine does not play, or why it cannot
    hold the scenario."""
    from simulator.cove.fast.packed import (
        COMPILED_ROOTS,
        UnsupportedScenario,
        compiled,
        pack_rules,
    )

    slow = list(dict.fromkeys(rules.strategies[nm].kind for nm in mix if not compiled(rules, nm)))
    if slow:
        raise UserError(
            f"card-value plays on the compiled engine: kinds {', '.join(slow)} are not compiled "
            f"(compiled roots: {', '.join(COMPILED_ROOTS)})"
        )
    try:
        pack_rules(rules)
    except UnsupportedScenario as exc:
        raise UserError(f"card-value: the compiled engine cannot hold it: {exc}") from None


def _mean_ci(d: np.ndarray) -> tuple[float | None, list]:
    m = len(d)
    if m == 0:
        return None, [None, None]
    mean = float(d.mean())
    if m < 2:
        return mean, [None, None]
    half = Z95 * float(d.std(ddof=1)) / math.sqrt(m)
    return mean, [mean - half, mean + half]


def summarise(pairs: pd.DataFrame, cards: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``{card: {"win_rate_effect", "ci95", "fame_effect", "n"}}`` for every card name."""
    out: dict[str, dict[str, Any]] = {}
    for card in cards:
        d = pairs[pairs["card"] == card]
        win, ci = _mean_ci((d["win_with"] - d["win_blank"]).to_numpy(float))
        fame, _ = _mean_ci((d["fame_with"] - d["fame_blank"]).to_numpy(float))
        out[card] = {"win_rate_effect": win, "ci95": ci, "fame_effect": fame, "n": len(d)}
    return out


def card_table(pairs: pd.DataFrame, cards: Sequence[str]) -> pd.DataFrame:
    """The human table: one row per card with both effects and their intervals."""
    rows = []
    for card in cards:
        d = pairs[pairs["card"] == card]
        win, ci = _mean_ci((d["win_with"] - d["win_blank"]).to_numpy(float))
        fame, fci = _mean_ci((d["fame_with"] - d["fame_blank"]).to_numpy(float))
        rows.append(
            {
                "card": card,
                "n": len(d),
                "win_rate_effect": win,
                "ci95_low": ci[0],
                "ci95_high": ci[1],
                "fame_effect": fame,
                "fame_ci95_low": fci[0],
                "fame_ci95_high": fci[1],
                "win_with": float(d["win_with"].mean()) if len(d) else None,
                "win_blank": float(d["win_blank"].mean()) if len(d) else None,
                "changed": int((d["win_with"] != d["win_blank"]).sum()),
            }
        )
    return pd.DataFrame(rows)


def card_value(
    scenario: Scenario | str | None,
    n: int = DEFAULT_N,
    *,
    strategies: Sequence[str] | None = None,
    n_players: int | None = None,
    seed: int | None = None,
    n_jobs: int | None = 1,
    quiet: bool = True,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Each Tavern card's win-rate and fame effect on its holder (module docstring).

    Args:
        scenario: a loaded scenario, a path or ``None`` (standard).
        n: deals (each played once as dealt and once per card drawn in it).
        strategies: the mix, one per seat (default: the scenario's ``default_mix``).
        n_players: players (default: the mix's length); the mix is cycled to fill the seats.
        seed, n_jobs, quiet: root seed (``None``: fresh), workers, progress bar.

    Returns:
        ``(pairs_df, summary)``: one row per paired game (:data:`PAIR_COLUMNS`), and the JSON
        object ``{"cards": {NAME: {...}}, ...}`` with the provenance and seed.
    """
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario, CoveRules)
    rules = scenario.rules
    from simulator.cove.api import compiled_engine, resolve_strategies

    mix = list(strategies) if strategies else list(rules.default_mix)
    players = n_players or len(mix)
    if len(mix) != players:
        mix = [mix[i % len(mix)] for i in range(players)]
    mix = tuple(resolve_strategies(rules, mix, players))
    if n < 1:
        raise UserError(f"-n {n} (allowed: >= 1)")
    _refuse_uncompiled(rules, mix)
    cards = tavern_card_names(rules)
    task = functools.partial(_chunk, rules=rules, mix=mix, cards=cards)
    run = run_chunks(
        task,
        n,
        seed=seed,
        chunk_size=None,
        block_size=BLOCK_SIZE,
        n_jobs=n_jobs,
        quiet=quiet,
        desc="deals",
        compiled=compiled_engine(),
        manifest={
            "command": "cove card-value",
            "scenario": scenario.provenance(),
            "strategies": list(mix),
        },
    )
    pairs = pd.concat(run.results, ignore_index=True) if run.results else pd.DataFrame()
    if pairs.empty:
        pairs = pd.DataFrame(columns=list(PAIR_COLUMNS))
    summary = {
        "cards": summarise(pairs, cards),
        "n_deals": n,
        "games": int(n + len(pairs)),
        "players": players,
        "strategies": list(mix),
        "intervention": f"the first copy of each card drawn in a deal replaced by a {BLANK!r} "
        "card for its drawer (same streams)",
        "seed": run.entropy,
        "block_size": BLOCK_SIZE,
        "provenance": scenario.provenance(),
        "wall_time_s": run.wall_time_s,
    }
    return pairs, summary


__all__ = ["BLOCK_SIZE", "DEFAULT_N", "PAIR_COLUMNS", "card_table", "card_value", "summarise"]
