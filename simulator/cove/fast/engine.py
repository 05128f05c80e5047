"""Driving the compiled game from Python: packing, the runner's streams, results as rows.

:class:`FastGames` packs a scenario and a set of strategies once (:mod:`.packed`), then plays
deals chunk by chunk through :func:`simulator.cove.fast.game.play_chunk`. Each game starts from the
states of the deal's runner streams -- ``Block.rng("dice")`` and ``Block.rng("players", seat)``,
the states :func:`simulator.cove.fast.rng.state_of` reads, computed by :func:`deal_states` from
the runner's entropy and spawn keys -- so a deal plays the same game at any worker count, chunk
size or backend, compiled or with the JIT off (the readable mode runs this same source).

Results come back as the rows of :func:`simulator.cove.api._chunk` (seats, battles, cards), and,
for the die-for-die tests and the goldens, the decisions in the trace format
(:meth:`FastChunk.trace`; the format the goldens and fingerprints were recorded in) and every
stream's final state.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simulator import compiled
from simulator.cove.fast import battle, game, players_ev
from simulator.cove.fast.packed import (
    BATTLE_OPTIONS,
    BL_BATTLE,
    BL_COLS,
    BL_EXCHANGES,
    BL_FLED,
    BL_ISLAND,
    BL_MONTH,
    BL_NPC,
    BL_NPC_A,
    BL_NPC_B,
    BL_OUTCOME,
    BL_ROUTED,
    BL_ROUTED_BY_PLAYERS,
    BL_ROUTED_IN_BATTLE,
    BL_SEATS,
    BL_SHIPS,
    CAPACITIES,
    D_ROWS,
    DECISIONS,
    DR_CHOSEN,
    DR_COLS,
    DR_DECISION,
    DR_EXPECTED,
    DR_MONTH,
    DR_NPC,
    DR_OPTION,
    DR_P_ALONE,
    DR_P_SINK_COMPANY,
    DR_P_SINK_LONE,
    DR_SEAT,
    DR_VALUE,
    E_CAPACITY,
    E_ILLEGAL,
    E_INVARIANT,
    FATE_HELD,
    FATE_PLAYED,
    FATE_RETURNED,
    G_LEN,
    INVARIANTS,
    NONE,
    NPC_OUTCOMES,
    OPP_BALANCED,
    PHASES,
    PP_IS_EV,
    PP_IS_ROLLOUT,
    PP_OPP_MODEL,
    RC_CODE,
    RC_COLS,
    RC_DRAW,
    RC_FATE,
    RC_MONTH,
    RC_MONTH_OUT,
    RC_PHASE,
    RC_PHASE_OUT,
    RC_SEAT,
    RECORD_DECISIONS,
    S_HAND,
    TR_COLS,
    GameState,
    Tables,
    UnsupportedScenario,
    hand_codes,
    pack_players,
    pack_rules,
)
from simulator.cove.fast.rng import DICE_BLOCK, R_COLS
from simulator.cove.fast.seedseq import int_words, key_words, stream_states
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.runner import Block

#: per-game buffer sizes (a full buffer stops the game with an error naming it)
LOG_ROWS = 64  # battle log rows (at most 4 a month: two black ships, the Royal Navy)
REC_ROWS = 1024  # card record rows (Tavern cards drawn in a game)
TRACE_ROWS = 16384  # decisions of a game (die-for-die tests only)
#: decision record rows of a game (6 a navigation and 2 a flee-or-stand choice per EV seat: a
#: five-player game of EV seats writes about 400 to 1,500)
DECISION_ROWS = 8192
FATES = {FATE_PLAYED: "played", FATE_RETURNED: "returned", FATE_HELD: "held"}


@dataclass
class FastChunk:
    """The compiled engine's results for a chunk of games (arrays; see :mod:`.game`)."""

    seats: np.ndarray  # int64[games, seat, SR_*]
    win: np.ndarray  # float64[games, seat]
    games: np.ndarray  # int64[games, GR_*]
    log: np.ndarray  # int64[rows, 1 + BL_COLS]: game index, then BL_*
    rec: np.ndarray  # int64[rows, 1 + RC_COLS]
    trace_rows: np.ndarray  # int64[rows, 1 + TR_COLS]
    decisions: np.ndarray  # float64[rows, 1 + DR_COLS]: game index, then DR_* (NaN: None)
    final_rs: np.ndarray  # uint64[games, 1 + seats, R_COLS]: the streams at the end
    engine: FastGames
    #: (g, st, dk) after the chunk's last game: its scalars, seats and decks (golden files)
    last_state: tuple[np.ndarray, np.ndarray, np.ndarray]

    def trace(self, gi: int) -> list[list]:
        """Game ``gi``'s decisions in the trace format (the goldens' and fingerprints' records)
        (``[seat, kind, choice]``, battle decisions included)."""
        rows = self.trace_rows[self.trace_rows[:, 0] == gi][:, 1:]
        return [self.engine.decode_decision(r) for r in rows]


def deal_states(deals: Sequence[Block], n: int) -> np.ndarray:
    """uint64[len(deals), n + 1, R_COLS]: for each deal the state of its dice stream
    (``deal.rng("dice")``) and of each seat's players stream (``deal.rng("players", s)``), as
    :func:`~simulator.cove.fast.rng.state_of` reads them, computed in compiled code from the
    runner's entropy and spawn keys (:func:`~simulator.cove.fast.seedseq.stream_states`: numpy's
    SeedSequence and PCG64 seeding, bit for bit) instead of building 1 + n generators a game. A
    deal passed again (its rotations) is computed once."""
    first: dict[int, int] = {}
    unique: list[Block] = []
    where = np.empty(len(deals), np.int64)
    for i, deal in enumerate(deals):
        j = first.get(id(deal))
        if j is None:
            j = first[id(deal)] = len(unique)
            unique.append(deal)
        where[i] = j
    entropy = {e: int_words(e).tolist() for e in {deal.entropy for deal in unique}}
    rows, n_entropy = [], []
    for deal in unique:
        head = entropy[deal.entropy]
        for key in (deal.key("dice"), *(deal.key("players", s) for s in range(n))):
            rows.append(head + key_words(key))
            n_entropy.append(len(head))
    width = max((len(w) for w in rows), default=0)
    words = np.array([w + [0] * (width - len(w)) for w in rows], np.int64).reshape(len(rows), width)
    n_words = np.array([len(w) for w in rows], np.int64)
    states = np.zeros((len(rows), R_COLS), np.uint64)
    with np.errstate(over="ignore"):  # uint64 hashing wraps by design (numpy warns, numba not)
        stream_states(words, n_words, np.array(n_entropy, np.int64), states)
    return states.reshape(len(unique), n + 1, R_COLS)[where]


class FastGames:
    """The compiled engine for one scenario and a set of strategies (see the module docstring).

    Args:
        rules: the scenario's rules.
        strategies: every strategy name the games will seat (rows of the players' table).

    Raises:
        UnsupportedScenario: the scenario uses something the compiled engine does not hold.
    """

    def __init__(self, rules: CoveRules, strategies: Sequence[str]):
        self.rules = rules
        self.names = tuple(dict.fromkeys(strategies))
        self.index = {nm: i for i, nm in enumerate(self.names)}
        self.tables: Tables = pack_rules(rules)
        self.pp_all = pack_players(rules, self.names)
        self.codes = hand_codes(rules)
        self.code_text = {c: t for t, c in self.codes.items()}
        self.oc = players_ev.odds_state(rules)  # duel, lone and company memos: one per engine
        self._check_rollout_models()
        self.deck_width = max(len(self.tables.tdeck), len(self.tables.tcard), 8) + 2
        self._scratch: dict[int, tuple] = {}

    def _check_rollout_models(self) -> None:
        """A search player that models its opponents as ``balanced`` needs that strategy."""
        models = self.oc.rm
        for row in self.pp_all:
            if row[PP_IS_ROLLOUT] and row[PP_OPP_MODEL] == OPP_BALANCED and not models[0, PP_IS_EV]:
                raise UnsupportedScenario(
                    "rollout_opponents = 'balanced' needs a compiled 'balanced' strategy"
                )

    # ---------------------------------------------------------------- state buffers
    def _buffers(self, n: int, trace: bool, record: bool, decisions: bool = False) -> tuple:
        key = (n, trace, record, decisions)
        got = self._scratch.get(key)
        if got is None:
            hand = len(self.tables.tdeck) + 1
            gs = GameState(
                np.zeros(G_LEN, np.int64),
                np.zeros((n, S_HAND + hand), np.int64),
                np.zeros((D_ROWS, self.deck_width), np.int64),
                np.zeros((REC_ROWS if record else 1, RC_COLS), np.int64),
                np.zeros((LOG_ROWS, BL_COLS), np.int64),
                np.zeros((TRACE_ROWS if trace else 1, TR_COLS), np.int64),
                np.zeros((n + 1, R_COLS), np.uint64),
                np.zeros((n, self.pp_all.shape[1]), np.float64),
                np.zeros(DICE_BLOCK, np.int64),
                np.zeros(5, np.int64),
                np.zeros((DECISION_ROWS if decisions else 1, DR_COLS), np.float64),
            )
            # numpy's arrays, as the rest of the buffers (the compiled functions are for the
            # search player's rollouts, whose arrays the compiled code allocates and frees)
            sc = compiled.python(game.game_scratch)(
                n, self.rules.ship_mat.num_positions, self.deck_width
            )
            bt = compiled.python(battle.scratch)(hand)
            got = self._scratch[key] = (gs, sc, bt)
        return got

    # ---------------------------------------------------------------- play
    def play(
        self,
        seat_names: Sequence[Sequence[str]],
        deals: Sequence[Block],
        *,
        trace: bool = False,
        record: bool = False,
        check: bool = False,
        swap: tuple[int, str] | None = None,
        decisions: bool = False,
    ) -> FastChunk:
        """Play game ``i`` with ``seat_names[i]`` seated and the streams of block ``deals[i]``
        (a deal; rotations of a deal pass the same block again). ``trace``: every decision;
        ``record``: the card record; ``check``: the invariant checker; ``swap``: the card-value
        intervention (``(seat, card name)``); ``decisions``: the expected-value players'
        decision records (:meth:`decision_rows`)."""
        ngames = len(deals)
        n = len(seat_names[0]) if ngames else 0
        strat = np.array(
            [[self.index[nm] for nm in names] for names in seat_names], np.int64
        ).reshape(ngames, n)
        rs_all = deal_states(deals, n)
        return self.play_states(
            strat, rs_all, trace=trace, record=record, check=check, swap=swap, decisions=decisions
        )

    def play_states(
        self,
        strat: np.ndarray,
        rs_all: np.ndarray,
        *,
        trace: bool = False,
        record: bool = False,
        check: bool = False,
        swap: tuple[int, str] | None = None,
        decisions: bool = False,
    ) -> FastChunk:
        """:meth:`play` from strategy rows and generator states directly."""
        ngames, n = strat.shape
        if not self.rules.setup.min_players <= n <= self.rules.setup.max_players:
            raise ValueError(f"{n} players")
        gs, sc, bt = self._buffers(n, trace, record, decisions)
        swap_seat, swap_code = -1, -1
        if swap is not None:
            swap_seat = swap[0]
            swap_code = self._code_of_name(swap[1])
        flags = np.array(
            [int(trace), int(record), int(check), swap_seat, swap_code, int(decisions)], np.int64
        )
        out_seats = np.zeros((ngames, n, game.SR_COLS), np.int64)
        out_win = np.zeros((ngames, n), np.float64)
        out_game = np.zeros((ngames, game.GR_COLS), np.int64)
        out_log = np.zeros((max(ngames * LOG_ROWS // 2, LOG_ROWS), 1 + BL_COLS), np.int64)
        out_rec = np.zeros(((ngames * 256 if record else 1), 1 + RC_COLS), np.int64)
        out_tr = np.zeros(((ngames * TRACE_ROWS // 4 if trace else 1), 1 + TR_COLS), np.int64)
        out_dec = np.zeros(((ngames * 2048 if decisions else 1), 1 + DR_COLS), np.float64)
        out_rs = np.zeros_like(rs_all)
        # uint64 arithmetic (the PCG64 streams, the memos' hashes) wraps by design; numpy warns
        # where numba does not (the JIT off: --engine python)
        with np.errstate(over="ignore"):
            done = game.play_chunk(
                self.tables.arrays(), self.pp_all, strat, rs_all, flags, out_seats, out_win,
                out_game, out_log, out_rec, out_tr, out_dec, out_rs, gs, self.oc, sc, bt,
            )  # fmt: skip
        errors = out_game[:, game.GR_ERROR]
        if done < ngames or errors.any():
            bad = int(np.flatnonzero(errors)[0]) if errors.any() else done
            raise FastGameError(bad, out_game[bad], self)
        nlog = int(out_game[:, game.GR_NLOG].sum())
        nrec = int(out_game[:, game.GR_NREC].sum())
        ntr = int(out_game[:, game.GR_NTRACE].sum())
        ndec = int(out_game[:, game.GR_NDEC].sum())
        return FastChunk(
            seats=out_seats,
            win=out_win,
            games=out_game,
            log=out_log[:nlog],
            rec=out_rec[:nrec] if record else out_rec[:0],
            trace_rows=out_tr[:ntr] if trace else out_tr[:0],
            decisions=out_dec[:ndec] if decisions else out_dec[:0],
            final_rs=out_rs,
            engine=self,
            last_state=(gs.g.copy(), gs.seats.copy(), gs.dk.copy()),
        )

    def _code_of_name(self, name: str) -> int:
        from simulator.cove.card_record import card_name

        for text, code in self.codes.items():
            if card_name(text) == name:
                return code
        raise ValueError(f"card {name!r} (allowed: {', '.join(self.tables.card_names)})")

    # ---------------------------------------------------------------- decoding
    def card_text(self, code: int) -> str:
        """The hand string of a card code (``parrot:flint``, ``fame:2``), as traces name it."""
        return self.code_text[int(code)]

    def decode_decision(self, row: np.ndarray) -> list:
        """One trace row in the trace format."""
        seat, kind, a, b, c, d = (int(x) for x in row)
        name = DECISIONS[kind]
        if name in ("treasure_map", "parrot_swap", "artisan_repair"):
            choice = bool(a)
        elif name == "cove_reward":
            choice = "cards" if a == 0 else "card_and_gold"
        elif name == "battle_card":
            choice = None if a == NONE else self.card_text(a)
        elif name == "broadside":
            codes = [(d >> (8 * i)) & 0xFF for i in range(3)]
            volley = [self.card_text(c - 1) for c in codes if c]
            target = None if b == battle.TRACE_NO_TARGET else b
            choice = [bool(a), target, SECTIONS[c], volley]
        elif name == "navy_target":
            choice = [a, SECTIONS[b]]
        else:
            choice = None if a == NONE else a
        return [seat, name, choice]

    def seat_frame(self, chunk: FastChunk, gids, rotations, seat_names):
        """The seats table (``api.SEAT_COLUMNS``, one row per game and seat, in that order),
        built column by column from the packed results."""
        import pandas as pd

        from simulator.cove import api

        ng = len(gids)
        n = len(seat_names[0]) if ng else 0
        seats = chunk.seats[:ng].reshape(ng * n, -1)
        games = chunk.games[:ng]
        cols = {
            "game": np.repeat(np.asarray(gids, np.int64), n),
            "rotation": np.repeat(np.asarray(rotations, np.int64), n),
            "seat": np.tile(np.arange(n, dtype=np.int64), ng),
            "strategy": np.array([nm for names in seat_names for nm in names], dtype=object),
            "fame": seats[:, game.SR_FAME],
        }
        for k, name in enumerate(api.SEAT_COLUMNS[5:11]):  # fame by source
            cols[name] = seats[:, game.SR_SRC + k]
        for name, col in (
            ("gold", game.SR_GOLD),
            ("chests", game.SR_CHESTS),
            ("battles", game.SR_BATTLES),
            ("routed", game.SR_ROUTED),
            ("fled", game.SR_FLED),
            ("mutinies", game.SR_MUTINIES),
            ("pirates_fought", game.SR_FOUGHT),
            ("pirates_sunk", game.SR_SUNK),
        ):
            cols[name] = seats[:, col]
        cols["win"] = chunk.win[:ng].reshape(ng * n).astype(np.float64)
        cols["tie"] = np.repeat(games[:, game.GR_TIE] != 0, n)
        cols["duel"] = np.repeat(games[:, game.GR_DUEL] != 0, n)
        if list(cols) != list(api.SEAT_COLUMNS):
            raise AssertionError(f"seat columns {list(cols)} != {api.SEAT_COLUMNS}")
        return pd.DataFrame(cols)  # copies each column (dict data)

    def battle_frame(self, chunk: FastChunk, gids, rotations):
        """The battles table (``api.BATTLE_COLUMNS``), one row per battle of the chunk's log,
        built column by column."""
        import pandas as pd

        from simulator.cove import api

        log = chunk.log
        i, r = log[:, 0].astype(np.int64), log[:, 1:]
        keys = np.array(self.tables.npc_keys, dtype=object)
        named = np.append(keys, "")  # a battle's second and third ship: -1 is none
        masks = r[:, BL_SEATS].astype(np.int64)
        seat_lists = {m: ",".join(str(s) for s in range(8) if (m >> s) & 1) for m in set(masks)}
        a, b = named[r[:, BL_NPC_A]], named[r[:, BL_NPC_B]]
        npcs = [x + "+" + y if x and y else x or y for x, y in zip(a, b, strict=True)]
        values = (
            np.asarray(gids, np.int64)[i],
            np.asarray(rotations, np.int64)[i],
            r[:, BL_BATTLE],
            r[:, BL_MONTH],
            np.array(self.rules.islands, dtype=object)[r[:, BL_ISLAND]],
            keys[r[:, BL_NPC]],
            r[:, BL_SHIPS],
            np.array([seat_lists[m] for m in masks], dtype=object),
            np.array(NPC_OUTCOMES, dtype=object)[r[:, BL_OUTCOME]],
            r[:, BL_ROUTED],
            r[:, BL_FLED],
            r[:, BL_EXCHANGES],
            np.array(npcs, dtype=object),
            r[:, BL_ROUTED_BY_PLAYERS],
            r[:, BL_ROUTED_IN_BATTLE],
        )
        return pd.DataFrame(
            {k: np.asarray(v) for k, v in zip(api.BATTLE_COLUMNS, values, strict=True)}
        )

    def decision_rows(self, chunk: FastChunk, gids, rotations, seat_names) -> list[tuple]:
        """The decision records as rows of ``(game, rotation, strategy, *RECORD_COLUMNS)``
        (:data:`simulator.cove.tables.RECORD_COLUMNS`): ``decision`` ``"navigate"`` or
        ``"battle"``, ``option`` an island index or ``"stand"`` / ``"flee"``, ``npc`` the
        non-player ship's key (``""``: none), ``None`` where the record has none."""
        keys = self.tables.npc_keys
        out = []
        for row in chunk.decisions:
            i, r = int(row[0]), row[1:]
            seat = int(r[DR_SEAT])
            decision = RECORD_DECISIONS[int(r[DR_DECISION])]
            option = int(r[DR_OPTION])
            npc = int(r[DR_NPC])
            out.append(
                (
                    gids[i],
                    rotations[i],
                    seat_names[i][seat],
                    int(r[DR_MONTH]),
                    seat,
                    decision,
                    option if decision == "navigate" else BATTLE_OPTIONS[option],
                    float(r[DR_VALUE]),
                    int(r[DR_CHOSEN]),
                    keys[npc] if npc >= 0 else "",
                    *(
                        None if np.isnan(r[c]) else float(r[c])
                        for c in (DR_P_ALONE, DR_P_SINK_LONE, DR_P_SINK_COMPANY)
                    ),
                    float(r[DR_EXPECTED]),
                )
            )
        return out

    def card_rows(self, chunk: FastChunk, gids, rotations, seat_names) -> list[tuple]:
        """The rows of ``api.CARD_TABLE_COLUMNS``."""
        names = self.tables.card_names
        out = []
        for row in chunk.rec:
            i, r = int(row[0]), row[1:]
            seat = int(r[RC_SEAT])
            out.append(
                (
                    gids[i],
                    rotations[i],
                    seat_names[i][seat],
                    seat,
                    int(r[RC_DRAW]),
                    names[int(r[RC_CODE])],
                    int(r[RC_MONTH]),
                    PHASES[int(r[RC_PHASE])],
                    FATES[int(r[RC_FATE])],
                    int(r[RC_MONTH_OUT]),
                    PHASES[int(r[RC_PHASE_OUT])],
                )
            )
        return out


@functools.lru_cache(maxsize=8)
def engine_for(rules: CoveRules, names: tuple[str, ...]) -> FastGames:
    """The packed engine of ``rules`` and ``names``, built once per process (the chunks of a run
    share its buffers and its odds memos; a memo changes only the time, never a value)."""
    return FastGames(rules, names)


def fast_chunk(chunk, rules, names, rotate, check, n_games=None, cards=False):
    """:func:`simulator.cove.api._chunk` played by the compiled engine: the same games (same
    deals, rotations and streams), the same tables."""
    import pandas as pd

    from simulator.cove import api

    n = len(names)
    rotations = range(n) if rotate else range(1)
    eng = engine_for(rules, tuple(names))
    gids, rots, seated, deals = [], [], [], []
    for deal in chunk.blocks():  # one deal per block
        gid = deal.start
        for r in rotations:
            if rotate and n_games is not None and gid * n + r >= n_games:
                break  # -n counts games: the last deal may be played in fewer rotations
            gids.append(gid)
            rots.append(r)
            seated.append([names[(s + r) % n] for s in range(n)])
            deals.append(deal)
    try:
        res = eng.play(seated, deals, record=cards, check=check)
    except FastGameError as exc:
        gid, r = gids[exc.index], rots[exc.index]
        if exc.code == E_CAPACITY:
            raise api.UserError(f"game {gid}: {exc.what}") from None
        if not check:
            raise
        where = f"game {gid}" + (f" (rotation {r})" if rotate else "")
        raise api.IllegalStateError(
            f"illegal state in {where}: month {exc.month}, phase {exc.phase}: {exc.what} "
            "(invariant checker, --check)"
        ) from None
    out = (
        eng.seat_frame(res, gids, rots, seated),
        eng.battle_frame(res, gids, rots),
    )
    if cards:
        out += (
            pd.DataFrame(eng.card_rows(res, gids, rots, seated), columns=api.CARD_TABLE_COLUMNS),
        )
    return out


class FastGameError(RuntimeError):
    """A compiled game stopped: an illegal state under ``--check``, an illegal choice, or a full
    buffer. ``game`` is the game's index in its chunk, ``month``/``phase`` where it stopped."""

    def __init__(self, index: int, row: np.ndarray, engine: FastGames):
        code = int(row[game.GR_ERROR])
        month, phase = int(row[game.GR_ERROR + 1]), PHASES[int(row[game.GR_ERROR + 2])]
        a, b, c = (int(x) for x in row[game.GR_ERROR + 3 : game.GR_ERROR + 6])
        self.index, self.code, self.month, self.phase = index, code, month, phase
        if code == E_INVARIANT:
            what = INVARIANTS[a].format(a=b, b=c)
        elif code == E_ILLEGAL:
            what = f"seat {b} chose {c!r} for {DECISIONS[a]} (not a legal choice)"
        elif code == E_CAPACITY:
            what = f"the compiled engine's buffer of {CAPACITIES[a]} is full (use --engine python)"
        else:
            what = "the game stopped early"
        self.what = what
        super().__init__(f"month {month}, phase {phase}: {what}")


__all__ = ["FastChunk", "FastGameError", "FastGames", "UnsupportedScenario", "fast_chunk"]
