"""Paired games on the runner's block streams, and racing (successive halving) built on them.

A *seat* is what one side brings to a battle: a fleet, its nation and a commander. Candidates meet
a *field* of seats: game ``g`` sets the candidate against field seat ``g mod F``, the candidate in
seat A when ``(g div F)`` is even and in seat B otherwise (sides alternated), and rolls its dice
from block ``g``'s ``"dice"`` stream (the commanders' own randomness from its ``"commanders"``
stream). Every candidate meets the same dice in game ``g`` (common random numbers): differences
between candidates are not drowned by the luck of the dice, and a result depends only on the seed
and the game numbers, never on the chunk size or ``--jobs`` (:class:`simulator.runner.Block`).

:func:`race` is successive halving on these paired games: every candidate plays ``n0`` games, the
better ``1/eta`` keep their games and play up to ``eta`` times as many, until one is left.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from simulator.compiled import CompiledEngine
from simulator.express import battle
from simulator.express.commanders import N_PARAMS, Commander
from simulator.express.core import NA_N, PackedRules, nation_array
from simulator.express.fleets import Fleet, fleet_array
from simulator.express.rules import ExpressRules
from simulator.runner import Chunk, RunResult, run_chunks

#: the battle engine and commanders (cold compile with the admiral measured 44 s wall, 29 s CPU, on
#: 2 cores at load 4.3; the estimate leaves room for a busier machine)
COMPILED_ENGINE = CompiledEngine("Pirates express engine", (battle.play_many,), 90)
#: result codes of a paired game, from the candidate's point of view
WIN, LOSS, DRAW = 0, 1, 2
#: battles per chunk the runner is given (a chunk plays every candidate in its games)
CHUNK_BATTLES = 4_000


@dataclass(frozen=True)
class Seats:
    """Seats packed for the engine: ``fleets`` int64[n, ships, 4] (:func:`fleets.fleet_array`),
    ``nations`` int64[n, NA_N], ``kinds`` int64[n], ``params`` float64[n, N_PARAMS]."""

    fleets: np.ndarray
    nations: np.ndarray
    kinds: np.ndarray
    params: np.ndarray
    labels: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.kinds.shape[0])

    def take(self, idx: Sequence[int]) -> Seats:
        idx = np.asarray(idx, dtype=np.int64)
        return Seats(
            self.fleets[idx],
            self.nations[idx],
            self.kinds[idx],
            self.params[idx],
            tuple(self.labels[i] for i in idx) if self.labels else (),
        )


def make_seats(entries: Sequence[tuple[Fleet, Commander]], rules: ExpressRules) -> Seats:
    """Pack ``(fleet, commander)`` seats; every fleet padded to ``fleet.max_ships`` ships."""
    ships = rules.fleet.max_ships
    n = len(entries)
    fleets = np.zeros((n, ships, 4), dtype=np.int64)
    nations = np.zeros((n, NA_N), dtype=np.int64)
    kinds = np.zeros(n, dtype=np.int64)
    params = np.zeros((n, N_PARAMS), dtype=np.float64)
    for k, (f, c) in enumerate(entries):
        fleets[k] = fleet_array(f, rules, ships)
        nations[k] = nation_array(rules, f.nation)
        kinds[k] = c.kind
        params[k] = c.params()
    return Seats(fleets, nations, kinds, params, tuple(f.spec() for f, _ in entries))


@functools.cache
def _volley_table() -> np.ndarray:
    from simulator.express.api import volley_table

    return volley_table()


def _paired_chunk(
    chunk: Chunk, cands: Seats, fld: Seats, packed: PackedRules
) -> tuple[np.ndarray, float]:
    """(int16[2, candidates, games]: result code and VP margin (candidate minus field) of every
    candidate in each game of the chunk (one block per game), CPU seconds it took)."""
    cpu = time.process_time()
    table = _volley_table()
    n_c = len(cands)
    n_f = len(fld)
    out = np.empty((2, n_c, chunk.size), dtype=np.int16)
    ships = cands.fleets.shape[1]
    fl = np.zeros((2, ships, 4), dtype=np.int64)
    na = np.zeros((2, NA_N), dtype=np.int64)
    kd = np.zeros(2, dtype=np.int64)
    pa = np.zeros((2, N_PARAMS), dtype=np.float64)
    for b, block in enumerate(chunk.blocks()):
        g = block.start
        f = g % n_f
        me = (g // n_f) % 2  # the candidate's seat: A on even rounds of the field, B on odd
        op = 1 - me
        fl[op] = fld.fleets[f]
        na[op] = fld.nations[f]
        kd[op] = fld.kinds[f]
        pa[op] = fld.params[f]
        dice_bits = np.random.PCG64(block.seed("dice"))
        policy_bits = np.random.PCG64(block.seed("commanders"))
        dice0 = dice_bits.state
        policy0 = policy_bits.state
        rng = np.random.Generator(dice_bits)
        prng = np.random.Generator(policy_bits)
        for c in range(n_c):
            dice_bits.state = dice0  # the same dice for every candidate
            policy_bits.state = policy0
            fl[me] = cands.fleets[c]
            na[me] = cands.nations[c]
            kd[me] = cands.kinds[c]
            pa[me] = cands.params[c]
            row = battle.play_many(
                rng,
                prng,
                1,
                fl,
                na,
                kd,
                pa,
                packed.ri,
                packed.rf,
                packed.move_cm,
                packed.hit_on_cm,
                packed.islands,
                table,
            )[0]
            r = row[battle.O_RESULT]
            out[0, c, b] = DRAW if r == 2 else (WIN if r == me else LOSS)
            out[1, c, b] = row[battle.O_VP0 + me] - row[battle.O_VP0 + op]
    return out, time.process_time() - cpu


def paired_games(
    cands: Seats,
    fld: Seats,
    packed: PackedRules,
    n: int,
    *,
    seed: int,
    offset: int = 0,
    jobs: int = 1,
    quiet: bool = True,
    desc: str = "paired games",
) -> tuple[np.ndarray, np.ndarray, RunResult]:
    """Games ``offset .. offset + n - 1`` of every candidate against the field.

    Returns:
        (result codes int8[candidates, n] (:data:`WIN`, :data:`LOSS`, :data:`DRAW`), VP margins
        int16[candidates, n], the run). Game ``g`` is the same battle set-up and dice for every
        candidate, whatever ``jobs`` or the chunking.
    """
    per = max(1, CHUNK_BATTLES // max(len(cands), 1))
    task = functools.partial(_paired_chunk, cands=cands, fld=fld, packed=packed)
    run = run_chunks(
        task,
        n,
        seed=seed,
        chunk_size=per,
        block_size=1,
        offset=offset,
        n_jobs=jobs,
        quiet=quiet,
        desc=desc,
        compiled=COMPILED_ENGINE,
    )
    both = np.concatenate([r[0] for r in run.results], axis=2)
    run.meta["cpu_s"] = float(sum(r[1] for r in run.results))
    return both[0].astype(np.int8), both[1], run


def scores(codes: np.ndarray) -> np.ndarray:
    """Score share per game (win 1, draw 1/2, loss 0), same shape as ``codes``."""
    return (codes == WIN) + 0.5 * (codes == DRAW)


@dataclass
class Rung:
    """One rung of a race."""

    rung: int
    candidates: int
    games_each: int  # games every candidate of this rung has played in all
    new_battles: int  # battles played at this rung
    best: str
    best_score: float
    best_se: float
    median_score: float
    cut_score: float  # the score of the last candidate kept (nan at the last rung)
    kept: int


@dataclass
class RaceResult:
    """The whole race: the winner, every rung, and each candidate's last score."""

    winner: int  # index into the candidates
    rungs: list[Rung]
    games: np.ndarray  # int64[candidates]: games each played before it was cut (or won)
    score: np.ndarray  # float64[candidates]: its mean score over those games
    battles: int
    wall_time_s: float
    cpu_s: float  # CPU seconds of the battles, summed over the worker processes
    entropy: int
    finalists: list[int] = field(default_factory=list)  # the last rung with at least 4


def race(
    cands: Seats,
    fld: Seats,
    packed: PackedRules,
    *,
    n0: int,
    eta: int = 2,
    seed: int,
    jobs: int = 1,
    quiet: bool = True,
) -> RaceResult:
    """Successive halving with paired games (see the module docstring).

    ``n0`` is rounded up to whole rounds of the field in both seats (``2 F`` games), so every
    candidate meets every field seat equally often from either side at every rung.
    """
    if eta < 2:
        raise ValueError("eta must be at least 2")
    n_c = len(cands)
    step = 2 * len(fld)
    n_r = max(step, math.ceil(n0 / step) * step)
    alive = np.arange(n_c)
    total = np.zeros(n_c)
    sq = np.zeros(n_c)
    games = np.zeros(n_c, dtype=np.int64)
    played = 0
    rungs: list[Rung] = []
    battles = 0
    wall = 0.0
    cpu = 0.0
    finalists: list[int] = list(alive)
    r = 0
    while True:
        new = n_r - played
        codes, _m, run = paired_games(
            cands.take(alive),
            fld,
            packed,
            new,
            seed=seed,
            offset=played,
            jobs=jobs,
            quiet=quiet,
            desc=f"race rung {r}",
        )
        wall += run.wall_time_s
        cpu += run.meta["cpu_s"]
        sc = scores(codes)
        total[alive] += sc.sum(axis=1)
        sq[alive] += (sc * sc).sum(axis=1)
        games[alive] = n_r
        battles += new * len(alive)
        played = n_r
        mean = total[alive] / n_r
        order = np.argsort(-mean, kind="stable")
        best = alive[order[0]]
        var = max(sq[best] / n_r - mean[order[0]] ** 2, 0.0)
        keep = max(1, math.ceil(len(alive) / eta))
        last = keep == 1
        if len(alive) >= 4:
            finalists = [int(alive[k]) for k in order]
        rungs.append(
            Rung(
                rung=r,
                candidates=len(alive),
                games_each=n_r,
                new_battles=new * len(alive),
                best=cands.labels[best] if cands.labels else str(best),
                best_score=float(mean[order[0]]),
                best_se=float(math.sqrt(var / n_r)),
                median_score=float(np.median(mean)),
                cut_score=float(mean[order[keep - 1]]) if not last else math.nan,
                kept=keep,
            )
        )
        alive = alive[order[:keep]]
        if last:
            break
        n_r *= eta
        r += 1
    score = np.divide(total, games, out=np.full(n_c, math.nan), where=games > 0)
    return RaceResult(
        winner=int(alive[0]),
        rungs=rungs,
        games=games,
        score=score,
        battles=battles,
        wall_time_s=wall,
        cpu_s=cpu,
        entropy=int(seed),
        finalists=finalists,
    )
