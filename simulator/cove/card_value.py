"""Tavern card value in the full Pirate's Cove game, by a paired intervention.

Rules: "Tavern deck" of ``../shared/rules/pirates-cove.md``; the game is
:class:`simulator.cove.game.Game` with the scripted players of :mod:`simulator.cove.players`.

For every deal, the game is played as dealt; its card record (:mod:`simulator.cove.card_record`)
names, for each Tavern card name, the first copy drawn in the game and the seat that drew it (the
holder). The deal is then played again from the same random streams -- the same dice, shuffles and
players' noise, from the runner's block streams (one deal per block, as ``cove play`` draws them:
``Block.rng("dice")``, ``Block.rng("players", seat)``) -- except that this copy is replaced by a
blank card (:data:`~simulator.cove.card_record.BLANK`: held, never playable) when the holder draws
it. Both games are identical until that draw; the holder's win share with the card minus with the
blank is one paired difference. ``n`` counts the deals in which the card was drawn (the
intervention happened); ``win_rate_effect`` is the mean difference (positive: the card helps its
holder), ``ci95`` its normal interval (mean +- 1.96 standard errors of the paired differences;
``None`` below two pairs), ``fame_effect`` the mean difference of the holder's final fame.

Seats rotate with the deal (deal ``t`` seats strategy ``mix[(seat + t) % players]``), so each
strategy holds each card from every seat. Results depend on the seed and the block size (fixed:
:data:`BLOCK_SIZE`), never on ``--jobs`` or the chunk size.

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
from simulator.cove.dice import GameDice
from simulator.cove.game import Game, ScenarioTables
from simulator.cove.players import PlayerFactory
from simulator.cove.rules import CoveRules
from simulator.errors import UserError
from simulator.runner import Chunk, run_chunks
from simulator.stats import Z95

BLOCK_SIZE = 1  # deals per block of random streams, as in cove play (part of the seed tree)
#: deals by default: about 24,000 games (one per deal plus one per card drawn in it, 23 cards),
#: about 2 minutes at 200 games/s on 2 cores; 95 % intervals of +-0.6 (fame cards, Becalmed) to
#: +-3 points (Royal Navy, parrots, Sneak away) of win share
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


def _play(rules, tables, factory, names, deal, swap):
    """Deal ``deal`` (a one-deal block) played with the streams ``cove play`` gives a deal."""
    n = len(names)
    players = [factory(names[s], deal.rng("players", s)) for s in range(n)]
    game = Game(rules, players, GameDice(deal.rng("dice")), tables=tables, card_swap=swap)
    return game, game.play()


def _chunk(chunk: Chunk, rules, mix: tuple[str, ...], cards: tuple[str, ...]) -> pd.DataFrame:
    n = len(mix)
    factory = PlayerFactory(rules, {})
    tables = ScenarioTables(rules)
    rows: list[tuple] = []
    for block in chunk.blocks():  # one deal per block
        for deal in block.trials:
            seated = tuple(mix[(s + deal) % n] for s in range(n))
            _, base = _play(rules, tables, factory, seated, block, None)
            first: dict[str, tuple] = {}
            for row in base.cards:  # chronological: the first copy of each name drawn
                first.setdefault(row[2], row)
            for card in cards:
                row = first.get(card)
                if row is None:
                    continue
                holder = row[0]
                game, alt = _play(rules, tables, factory, seated, block, (holder, card))
                if game.card_swaps_done != 1:
                    raise RuntimeError(
                        f"deal {deal}: the intervention on {card} did not happen (the replayed "
                        "game diverged before the draw)"
                    )
                rows.append(
                    (
                        deal,
                        card,
                        holder,
                        seated[holder],
                        row[3],
                        base.seats[holder].win,
                        alt.seats[holder].win,
                        base.seats[holder].fame,
                        alt.seats[holder].fame,
                    )
                )
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


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
    from simulator.cove.api import resolve_strategies

    mix = list(strategies) if strategies else list(rules.default_mix)
    players = n_players or len(mix)
    if len(mix) != players:
        mix = [mix[i % len(mix)] for i in range(players)]
    mix = tuple(resolve_strategies(rules, mix, players))
    if n < 1:
        raise UserError(f"-n {n} (allowed: >= 1)")
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
