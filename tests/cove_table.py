"""A table of the one Pirate's Cove engine for rule tests: a constructed position, scripted dice,
scripted decisions, the engine's own phase functions, the state read back.

The engine is :mod:`simulator.cove.fast` (packed state, ``simulator/cove/fast/packed.py``). A
:class:`Table` builds the game state ``gs`` of ``n`` seats as :func:`game.new_game` leaves it
(rings on the start position, start gold and fame, the bank less the start gold), with the
unshuffled Tavern deck as the draw pile (the last card on top), the unshuffled pirate deck, no
black ship, empty Treasure stacks, no card face up, month 1 -- then the test places ships, cards
and pirates (:meth:`Table.put`, :meth:`Table.give`, :meth:`Table.black_ship`, ...) and calls the
engine's functions (:meth:`Table.combat` is ``game._phase_combat`` and so on).

Dice: the game draws d6 faces from its dice buffer ``gs.dice`` through ``core.die`` with the
context ``gs.dctx`` (``core.DX_*``). A table's buffer holds exactly the scripted faces and refill is
off, so a die the script does not hold sets ``DX_FAIL``; :meth:`Table.done` checks that every
scripted die was used, no more, and that the invariant checker (``game._check``) finds nothing.

Decisions: with ``scripts`` (readable mode only: the engine run by Python with numba's JIT
off, ``NUMBA_DISABLE_JIT=1``, where every engine function is a plain Python function) the
players' functions the engine calls (:mod:`simulator.cove.fast.players`: ``navigate``,
``buy_cards``, ``broadside``, ...) are replaced, through ``monkeypatch``, by each seat's
:class:`Script`: a value or a function of the :class:`Ask` per decision kind (the engine's own
names, ``packed.DECISIONS``), else the first legal choice; in battle a :class:`Battle` policy.
Shuffles keep their order (``game.permutation`` the identity) unless ``shuffle=True``. Every
decision the engine checks and records (``game._ask``) is kept in :attr:`Table.asked`.
Decisions the v1 player takes without asking a function are the v1 player's: a Treasure map is
always used, a Lookout names the next seat, Treasure Island buries every chest; the Cove's reward
and a Plunder card follow the seat's parameters (``cove_cards``, ``use_plunder``), which a script
with ``cove_reward`` or ``plunder`` sets.

Without ``scripts`` the seats are played by their strategies' compiled players (the default
``balanced-v1``), in either mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenarios.loader import load_scenario
from simulator.cove.fast import battle, core, game, players
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import (
    BG_BECALMED,
    BG_EXCHANGE,
    BG_NNPC,
    BG_S,
    BS_SEAT,
    BT_CAN_FIRE,
    BT_HAND_N,
    D_DISCARD,
    D_INPLAY,
    D_PDISC,
    D_PIRATE,
    D_STACK,
    D_TAVERN,
    DECISIONS,
    FAME_SRC,
    G_BANK_CHESTS,
    G_BANK_GOLD,
    G_BLACK,
    G_CHECK,
    G_DISC_N,
    G_ERROR,
    G_FACE_UP,
    G_FIRST,
    G_MAPS,
    G_MONTH,
    G_NBLACK,
    G_NLOG,
    G_NMAPS,
    G_PDISC_N,
    G_PHASE,
    G_PIR_N,
    G_PLAY_N,
    G_RN_CONTROLLER,
    G_RN_ISLAND,
    G_RN_SENDER,
    G_STACK_N,
    G_TAV_N,
    GS_FIELDS,
    HULL,
    NONE,
    NS_FIGHTS,
    NS_HULL,
    NS_PRESENT,
    NUM_OUTER,
    P_BLACK_COUNT,
    P_NPOS,
    PHASES,
    S_ART,
    S_BATTLES,
    S_CHESTS,
    S_CHOSEN,
    S_FAME,
    S_FLED,
    S_FOUGHT,
    S_GOLD,
    S_HAND,
    S_HAND_N,
    S_LOC,
    S_MUTINIES,
    S_PARROT,
    S_PLUNDER_BY,
    S_RING,
    S_ROUTED,
    S_SRC,
    S_SUNK,
    S_WOUNDS,
    TAB_FIELDS,
    VOLLEY_HI,
    VOLLEY_LO,
    GameState,
    TableState,
    compiled,
)
from simulator.cove.fast.rng import state_of
from simulator.cove.rules import SECTIONS, CoveRules

RULES = load_scenario(None, CoveRules).rules
PER_SECTION = load_scenario("scenarios/cove/artisan-per-section.toml", CoveRules).rules
#: every strategy of the standard scenario the engine plays
KINDS = tuple(k for k in RULES.strategies if compiled(RULES, k))


@dataclass(frozen=True)
class Ask:
    """A decision put to a scripted seat: the table, the seat, the legal choices as the engine
    offers them (``None`` for the engine's ``NONE``) and what the engine passed besides."""

    table: Table
    seat: int
    legal: tuple
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Battle:
    """A scripted battle policy (the combat tests' ``RulePolicy`` and ``ScriptedPolicy``).

    ``cards``: battle cards played whenever held, the first listed first; ``volley_cards``:
    volley cards played at every broadside when held and able to fire; ``volleys``: exchange ->
    volley cards played at that exchange; ``flee_at``: exchanges at whose turn the ship flees;
    ``target`` (a seat) and ``section``: a fixed aim while no non-player ship fights (else the
    weakest target: the present opponent with the fewest hits to rout, the lower seat of equals,
    at its weakest section; a non-player ship present is forced, the least hull of two);
    ``overboard``: chests thrown with Overboard (``None``: all)."""

    cards: tuple[str, ...] = ()
    volley_cards: tuple[str, ...] = ()
    volleys: dict[int, tuple[str, ...]] = field(default_factory=dict)
    flee_at: tuple[int, ...] = ()
    target: int | None = None
    section: str = "hull"
    overboard: int | None = None


class Script:
    """One seat's scripted decisions: ``answers[kind]`` (a ``packed.DECISIONS`` name) is a value
    or a function of the :class:`Ask`; a kind not scripted takes the first legal choice. In
    battle ``policy`` decides; the Royal Navy's aim (for its controller) is ``navy`` (a function
    of the table and the battle state returning (ship index, section index); ``None``: the
    default aim, ``players.default_navy_target``)."""

    def __init__(self, policy: Battle | None = None, navy: Callable | None = None, **answers: Any):
        unknown = set(answers) - set(DECISIONS)
        if unknown:
            raise ValueError(f"decision kinds {sorted(unknown)} (allowed: {DECISIONS})")
        self.battle = policy or Battle()
        self.navy = navy
        self.answers = answers


@dataclass(frozen=True)
class SeatView:
    """One seat read back from the packed state (cards by their hand names)."""

    ring: list[int]
    gold: int
    chests: int
    fame: int
    src: dict[str, int]
    hand: list[str]
    parrot: str | None
    wounds: int
    artisans: dict[int, int]  # section -> hits already absorbed
    location: int
    battles: int
    routed: int
    fled: int
    mutinies: int
    fought: int
    sunk: int


class Table:
    """A constructed position of the compiled Pirate's Cove game (see the module docstring).

    Args:
        monkeypatch: pytest's fixture (needed with ``scripts`` or ``shuffle=False``).
        n: players.
        rules: the scenario's rules.
        strategies: the strategy of each seat (default ``balanced-v1``).
        scripts: one :class:`Script` per seat (readable mode only).
        dice: the scripted d6 faces, in the order the engine rolls them.
        month: the month the position is in.
        shuffle: shuffles draw from the dice stream (else they keep the order, readable mode).
        seed: the seed of the generators (the dice stream, each seat's players stream).
        record: keep the card record (a card played must then have been drawn: ``give`` puts a
            card in a hand without a draw).
    """

    def __init__(
        self,
        monkeypatch=None,
        n: int = 3,
        *,
        rules: CoveRules = RULES,
        strategies: Sequence[str] | None = None,
        scripts: Sequence[Script] | None = None,
        dice: Sequence[int] = (),
        month: int = 1,
        shuffle: bool = False,
        seed: int = 0,
        record: bool = False,
    ):
        self.rules = rules
        self.n = n
        names = tuple(strategies or ("balanced-v1",) * n)
        self.eng = FastGames(rules, names)
        self.codes = self.eng.codes
        tables = self.eng.tables
        self.tcard = tables.tcard.copy()
        self._tab = tables.arrays()
        self.oc = self.eng.oc
        self.npc_keys = tables.npc_keys
        self.parrots = list(rules.parrots)
        # the engine's own buffers (gs, sc, bt) of n seats, with the trace kept
        gs, self.sc, self.bt = self.eng._buffers(n, True, record)
        for s, name in enumerate(names):
            gs.pp[s] = self.eng.pp_all[self.eng.index[name]]
        rng = np.random.default_rng(seed)
        for r in range(n + 1):
            gs.rs[r] = state_of(np.random.default_rng(rng.integers(2**63)))
        self.gs = gs
        self.win = np.zeros(n, np.float64)
        # trace, the card record, check, no card swap; any later flag off
        flags = np.array([1, int(record), 1, -1, -1, 0, 0, 0], np.int64)
        game.new_game(self.tab, self.gs, n, flags)
        g, dk = self.g, self.dk
        g[G_MONTH] = month
        tdeck, pdeck = tables.tdeck, tables.pdeck
        dk[D_TAVERN, : len(tdeck)] = tdeck
        g[G_TAV_N] = len(tdeck)
        dk[D_PIRATE, : len(pdeck)] = pdeck
        g[G_PIR_N] = len(pdeck)
        self.set_dice(dice)
        self.asked: list[tuple[int, str, tuple, Any]] = []
        self.shuffles = 0
        if scripts is not None:
            self._script(monkeypatch, list(scripts))
        if not shuffle:
            _need_readable("keeping the shuffles' order")

            def identity(rs, k, n_items, out):
                self.shuffles += 1
                for i in range(n_items):
                    out[i] = i

            monkeypatch.setattr(game, "permutation", identity)

    # ---------------------------------------------------------------- the packed state
    @property
    def tab(self) -> TableState:
        return self._tab

    @property
    def g(self) -> np.ndarray:
        return self.gs.g

    @property
    def st(self) -> np.ndarray:
        return self.gs.seats

    @property
    def dk(self) -> np.ndarray:
        return self.gs.dk

    @property
    def pp(self) -> np.ndarray:
        return self.gs.pp

    def set_dice(self, faces: Sequence[int]) -> None:
        """The dice buffer holds exactly ``faces`` (refill off)."""
        dice = np.array(list(faces) or [0], np.int64)
        dctx = self.gs.dctx
        dctx[core.DX_P] = 0 if faces else 1
        dctx[core.DX_REFILL] = 0
        dctx[core.DX_FAIL] = 0
        dctx[core.DX_COUNT] = 0
        self._faces = len(faces)
        self.gs = GameState(*(dice if k == "dice" else getattr(self.gs, k) for k in GS_FIELDS))

    def dice_left(self) -> int:
        return self._faces - int(self.gs.dctx[core.DX_COUNT])

    def done(self) -> None:
        """Every scripted die used and no more; the engine stopped on nothing; the invariant
        checker (``game._check``, the phase's own reading) finds nothing."""
        dctx = self.gs.dctx
        assert dctx[core.DX_FAIL] == 0, "the engine asked for more dice than scripted"
        assert self.dice_left() == 0, f"{self.dice_left()} scripted dice unused"
        self.check()

    def check(self) -> None:
        g = self.g
        assert g[G_ERROR] == 0, self.error()
        g[G_CHECK] = 1
        game._check(self.tab, self.gs)
        assert g[G_ERROR] == 0, self.error()

    def error(self) -> str:
        g = self.g
        if g[G_ERROR] == 0:
            return ""
        row = np.zeros(game.GR_COLS, np.int64)
        row[game.GR_ERROR : game.GR_ERROR + 6] = g[G_ERROR : G_ERROR + 6]
        from simulator.cove.fast.engine import FastGameError

        return str(FastGameError(0, row, self.eng))

    # ---------------------------------------------------------------- cards and names
    def code(self, card: str) -> int:
        return self.codes[card]

    def card(self, code: int) -> str:
        return self.eng.card_text(code)

    def _pile(self, row: int, n: int) -> list[str]:
        return [self.card(c) for c in self.dk[row, :n]]

    def deck(self) -> list[str]:
        """The Tavern draw pile, the top card last."""
        return self._pile(D_TAVERN, self.g[G_TAV_N])

    def discard(self) -> list[str]:
        return self._pile(D_DISCARD, self.g[G_DISC_N])

    def in_play(self) -> list[str]:
        return self._pile(D_INPLAY, self.g[G_PLAY_N])

    def pirate_deck(self) -> list[str]:
        return [self.npc_keys[r] for r in self.dk[D_PIRATE, : self.g[G_PIR_N]]]

    def pirate_discard(self) -> list[str]:
        return [self.npc_keys[r] for r in self.dk[D_PDISC, : self.g[G_PDISC_N]]]

    def take(self, card: str) -> None:
        """Take one ``card`` out of the Tavern draw pile (to put it somewhere else)."""
        g, dk = self.g, self.dk
        n = g[G_TAV_N]
        pile = list(dk[D_TAVERN, :n])
        pile.remove(self.code(card))
        dk[D_TAVERN, : n - 1] = pile
        g[G_TAV_N] = n - 1

    def on_top(self, card: str) -> None:
        self.take(card)
        self.dk[D_TAVERN, self.g[G_TAV_N]] = self.code(card)
        self.g[G_TAV_N] += 1

    def give(self, seat: int, card: str) -> None:
        """Move one ``card`` from the Tavern draw pile to ``seat``'s hand."""
        self.take(card)
        st = self.st
        k = st[seat, S_HAND_N]
        st[seat, S_HAND + k] = self.code(card)
        st[seat, S_HAND_N] = k + 1

    def discard_from_deck(self, k: int) -> None:
        """The top ``k`` cards of the draw pile to the discard pile (in order)."""
        g, dk = self.g, self.dk
        for _ in range(k):
            g[G_TAV_N] -= 1
            dk[D_DISCARD, g[G_DISC_N]] = dk[D_TAVERN, g[G_TAV_N]]
            g[G_DISC_N] += 1

    # ---------------------------------------------------------------- ships
    def put(
        self,
        seat: int,
        island: int,
        ring: Sequence[int] | None = None,
        *,
        gold: int | None = None,
        chests: int | None = None,
        fame: int | None = None,
        parrot: str | None = None,
        wounds: int | None = None,
        artisans: dict[int, int] | None = None,
        chosen: int | None = None,
    ) -> None:
        """Place ``seat``'s ship at ``island`` and set what is given: gold and chests come from
        (or go back to) the bank; a parrot or Artisan is taken out of the Tavern draw pile."""
        g, st = self.g, self.st
        st[seat, S_LOC] = island
        if ring is not None:
            st[seat, S_RING : S_RING + 4] = ring
        if gold is not None:
            g[G_BANK_GOLD] -= gold - st[seat, S_GOLD]
            st[seat, S_GOLD] = gold
        if chests is not None:
            g[G_BANK_CHESTS] -= chests - st[seat, S_CHESTS]
            st[seat, S_CHESTS] = chests
        if fame is not None:
            st[seat, S_FAME] = fame
        if parrot is not None:
            self.take(f"parrot:{parrot}")
            st[seat, S_PARROT] = self.parrots.index(parrot)
        if wounds is not None:
            st[seat, S_WOUNDS] = wounds
        if artisans is not None:
            for sec, used in artisans.items():
                self.take("artisan")
                st[seat, S_ART + sec] = used
        if chosen is not None:
            st[seat, S_CHOSEN] = chosen

    def seat(self, s: int) -> SeatView:
        st = self.st
        pr = st[s, S_PARROT]
        return SeatView(
            ring=[int(x) for x in st[s, S_RING : S_RING + 4]],
            gold=int(st[s, S_GOLD]),
            chests=int(st[s, S_CHESTS]),
            fame=int(st[s, S_FAME]),
            src={k: int(st[s, S_SRC + i]) for i, k in enumerate(FAME_SRC)},
            hand=[self.card(c) for c in st[s, S_HAND : S_HAND + st[s, S_HAND_N]]],
            parrot=self.parrots[pr] if pr >= 0 else None,
            wounds=int(st[s, S_WOUNDS]),
            artisans={k: int(st[s, S_ART + k]) for k in range(4) if st[s, S_ART + k] >= 0},
            location=int(st[s, S_LOC]),
            battles=int(st[s, S_BATTLES]),
            routed=int(st[s, S_ROUTED]),
            fled=int(st[s, S_FLED]),
            mutinies=int(st[s, S_MUTINIES]),
            fought=int(st[s, S_FOUGHT]),
            sunk=int(st[s, S_SUNK]),
        )

    @property
    def bank(self) -> tuple[int, int]:
        return int(self.g[G_BANK_GOLD]), int(self.g[G_BANK_CHESTS])

    def set_bank_gold(self, gold: int, to_seat: int) -> None:
        """Leave ``gold`` in the bank, the rest to ``to_seat`` (gold is conserved)."""
        g, st = self.g, self.st
        st[to_seat, S_GOLD] += g[G_BANK_GOLD] - gold
        g[G_BANK_GOLD] = gold

    # ---------------------------------------------------------------- the board
    def black_ship(self, island: int, pirate: str) -> int:
        """A black ship at ``island`` carrying ``pirate`` (taken out of the pirate deck)."""
        g, dk = self.g, self.dk
        row = self.npc_keys.index(pirate)
        k = g[G_PIR_N]
        deck = list(dk[D_PIRATE, :k])
        deck.remove(row)
        dk[D_PIRATE, : k - 1] = deck
        g[G_PIR_N] = k - 1
        b = g[G_NBLACK]
        g[G_BLACK + 3 * b : G_BLACK + 3 * b + 3] = (island, row, 0)
        g[G_NBLACK] = b + 1
        return b

    def black_ships(self) -> list[tuple[int, str | None, bool]]:
        g = self.g
        out = []
        for b in range(g[G_NBLACK]):
            isl, row, gone = g[G_BLACK + 3 * b : G_BLACK + 3 * b + 3]
            out.append((int(isl), self.npc_keys[row] if row >= 0 else None, bool(gone)))
        return out

    def royal_navy(self, island: int, controller: int) -> None:
        g = self.g
        g[G_RN_ISLAND] = island
        g[G_RN_CONTROLLER] = controller
        g[G_RN_SENDER] = controller

    @property
    def navy(self) -> tuple[int, int]:
        """(the Royal Navy's island, its controller); -1: none."""
        return int(self.g[G_RN_ISLAND]), int(self.g[G_RN_CONTROLLER])

    def treasure_card(self, fame: int, gold: int, chests: int, tavern: int) -> int:
        """The Treasure card row of these values (added to the table's cards if none is)."""
        row = (fame, gold, chests, tavern)
        for i, r in enumerate(self.tcard):
            if tuple(int(x) for x in r) == row:
                return i
        self.tcard = np.vstack([self.tcard, np.array([row], np.int64)])
        self._tab = TableState(
            *(self.tcard if k == "tcard" else getattr(self._tab, k) for k in TAB_FIELDS)
        )
        return len(self.tcard) - 1

    def stack(self, island: int, cards: Sequence[tuple[int, int, int, int]]) -> None:
        """Treasure stack ``island`` holds ``cards`` (the top last)."""
        rows = [self.treasure_card(*c) for c in cards]
        self.dk[D_STACK + island, : len(rows)] = rows
        self.g[G_STACK_N + island] = len(rows)

    def stacks(self) -> list[list[tuple[int, ...]]]:
        g, dk = self.g, self.dk
        return [
            [tuple(int(x) for x in self.tcard[r]) for r in dk[D_STACK + i, : g[G_STACK_N + i]]]
            for i in range(5)
        ]

    def face_up(self) -> list[tuple[int, ...] | None]:
        return [
            tuple(int(x) for x in self.tcard[c]) if c >= 0 else None
            for c in self.g[G_FACE_UP : G_FACE_UP + 5]
        ]

    def set_face_up(self, cards: Sequence[tuple[int, int, int, int] | None]) -> None:
        for i, c in enumerate(cards):
            self.g[G_FACE_UP + i] = -1 if c is None else self.treasure_card(*c)

    def maps(self) -> list[tuple[int, int]]:
        g = self.g
        return [(int(g[G_MAPS + 2 * i]), int(g[G_MAPS + 2 * i + 1])) for i in range(g[G_NMAPS])]

    def plunder(self) -> dict[int, int]:
        """victim seat -> the seat that plays Plunder on it."""
        st = self.st
        return {v: int(st[v, S_PLUNDER_BY]) for v in range(self.n) if st[v, S_PLUNDER_BY] >= 0}

    def set_plunder(self, victim: int, thief: int) -> None:
        self.st[victim, S_PLUNDER_BY] = thief

    def battle_log(self) -> list[dict[str, Any]]:
        """The battle log's rows as the engine's ``battles`` table names them."""
        ch = _Chunk(self.gs.blog[: self.g[G_NLOG]])
        return self.eng.battle_frame(ch, [0], [0]).to_dict("records")

    @property
    def phase(self) -> str:
        return PHASES[self.g[G_PHASE]]

    # ---------------------------------------------------------------- the engine's functions
    def setup(self) -> None:
        game._setup(self.tab, self.gs, self.oc, self.sc)

    def treasure(self) -> None:
        game._phase_treasure(self.tab, self.gs, self.oc, self.sc)

    def navigation(self) -> None:
        game._phase_navigation(self.tab, self.gs, self.oc, self.sc)

    def end_of_navigation_events(self) -> None:
        game._end_of_navigation_events(self.tab, self.gs, self.oc, self.sc)

    def combat(self) -> None:
        game._phase_combat(self.tab, self.gs, self.oc, self.sc, self.bt)

    def island_combat(self, island: int, pirate: str | None = None, navy: bool = False) -> None:
        """``game._island_combat``: every battle at ``island`` (in phase 3)."""
        self.g[G_PHASE] = PHASES.index("combat")
        m = int((self.st[:, S_LOC] == island).sum())
        row = -1 if pirate is None else self.npc_keys.index(pirate)
        game._island_combat(self.tab, self.gs, self.oc, self.sc, self.bt, island, m, row, navy)

    def plunder_phase(self) -> None:
        game._phase_plunder(self.tab, self.gs, self.oc, self.sc)

    def island_effects(self) -> None:
        game._phase_island_effects(self.tab, self.gs, self.oc, self.sc)

    def black_ships_phase(self) -> None:
        game._phase_black_ships(self.tab, self.gs, self.oc, self.sc)

    def finish(self) -> list[float]:
        """The end of the game: fame cards, the winners and the tie duel; each seat's share."""
        game._finish(self.tab, self.gs, self.oc, self.sc, self.bt, self.win)
        return [float(x) for x in self.win]

    def _in_phase5(self) -> None:
        self.g[G_PHASE] = PHASES.index("island_effects")

    def draw(self, seat: int, k: int) -> None:
        game._draw_tavern(self.tab, self.gs, self.sc, seat, k)

    def tavern(self, seat: int) -> None:
        self._in_phase5()
        game._tavern(self.tab, self.gs, self.sc, seat)

    def shipyard(self, seat: int, section: int) -> None:
        self._in_phase5()
        game._shipyard(self.tab, self.gs, self.sc, seat, section)

    def treasure_island(self, seat: int) -> None:
        self._in_phase5()
        game._treasure_island(self.tab, self.gs, self.sc, seat)

    def cove(self, seat: int) -> None:
        self._in_phase5()
        game._cove(self.tab, self.gs, self.sc, seat)

    def any_island(self, seat: int) -> None:
        self._in_phase5()
        game._any_island(self.tab, self.gs, self.sc, seat)

    def order_by_speed(self, seats: Sequence[int]) -> list[int]:
        order = np.array(list(seats) + [0, 0], np.int64)
        game._order_by_speed(self.tab, self.gs, self.sc, order, len(seats))
        return [int(x) for x in order[: len(seats)]]

    def add_fame(self, seat: int, amount: int, source: str) -> int:
        return int(game._add_fame(self.tab.prm, self.st, seat, amount, FAME_SRC.index(source)))

    def start_battle(
        self, seats: Sequence[int], npcs: Sequence[str] = (), island: int = 1, controller: int = -1
    ) -> tuple:
        """The battle state ``bt`` as ``game._one_battle`` sets it up: battle ship ``i`` is seat
        ``seats[i]`` (its ring, Artisans, parrot, chests, gold and its hand's battle and volley
        cards, through ``game._battle_ship``), then the non-player ships ``npcs`` (keys)."""
        bt = self.bt
        rows = [self.npc_keys.index(k) for k in npcs]
        battle.reset(bt, len(seats), len(rows), int(island == 5), controller)
        for i, s in enumerate(seats):
            game._battle_ship(self.tab, self.gs, bt, i, s, True)
        for j, r in enumerate(rows):
            battle.set_npc(self.tab, bt, j, r)
        return bt

    def first_player(self, seat: int) -> None:
        self.g[G_FIRST] = seat

    def seen(self, kind: str, seat: int | None = None) -> list[tuple]:
        """The legal choices of every ``kind`` decision the engine put to ``seat`` (any seat)."""
        return [legal for s, k, legal, _ in self.asked if k == kind and seat in (None, s)]

    # ---------------------------------------------------------------- scripted decisions
    def _script(self, monkeypatch, scripts: list[Script]) -> None:
        _need_readable("scripted decisions")
        if len(scripts) != self.n:
            raise ValueError(f"{len(scripts)} scripts for {self.n} seats")
        self.scripts = scripts
        pp = self.pp
        for s, sc in enumerate(scripts):
            reward = sc.answers.get("cove_reward", "cards")
            pp[s, players.COVE_CARDS] = 1.0 if reward == "cards" else 0.0
            pp[s, players.USE_PLUNDER] = 1.0 if "plunder" in sc.answers else 0.0

        def answer(kind, seat, legal, **info):
            legal = tuple(None if x == NONE else int(x) for x in legal)
            a = scripts[seat].answers.get(kind, legal[0])
            if callable(a):
                a = a(Ask(self, seat, legal, info))
            if isinstance(a, bool):
                a = int(a)
            return NONE if a is None else a

        def legal_of(legal, nl):
            return [int(x) for x in legal[:nl]]

        patch = {
            "parrot_swap": lambda tab, gs, seat, drawn: answer(
                "parrot_swap", seat, (0, 1), drawn=self.parrots[drawn]
            ),
            "arm": lambda tab, gs, seat, ring, gold, legal, nl: answer(
                "arm", seat, legal_of(legal, nl), ring=[int(x) for x in ring], gold=int(gold)
            ),
            "most_famous": lambda st, rs, seat, cands, m: answer(
                "plunder", seat, [NONE, *(int(x) for x in cands[:m])]
            ),
            "navigate": lambda tab, gs, oc, seat, scores, pir, opp: answer(
                "navigate", seat, range(6)
            ),
            "royal_navy": lambda gs, seat, legal, nl, cands: answer(
                "royal_navy", seat, legal_of(legal, nl)
            ),
            "letter_of_marque": lambda gs, seat, legal, nl, cands: answer(
                "letter_of_marque", seat, legal_of(legal, nl)
            ),
            "sneak_away": lambda tab, gs, oc, seat, legal, nl, scores, pir, opp: answer(
                "sneak_away", seat, legal_of(legal, nl)
            ),
            "buy_cards": lambda tab, gs, seat, most: answer("buy_cards", seat, range(most + 1)),
            "upgrade": lambda tab, gs, seat, sec, most: answer(
                "upgrade", seat, range(most + 1), section=int(sec)
            ),
            "bury_gold": lambda tab, gs, seat, most: answer("bury_gold", seat, range(most + 1)),
            "ti_upgrade": lambda tab, gs, seat, legal, nl: answer(
                "treasure_island_upgrade", seat, legal_of(legal, nl)
            ),
            "artisan": lambda tab, gs, seat, legal, nl: answer(
                "artisan", seat, legal_of(legal, nl)
            ),
            "artisan_repair": lambda tab, gs, seat: answer("artisan_repair", seat, (0, 1)),
            "shipwright": lambda gs, seat, legal, nl: answer(
                "shipwright", seat, legal_of(legal, nl)
            ),
            "battle_card": self._battle_card,
            "overboard_chests": self._overboard_chests,
            "broadside": self._broadside,
            "navy_target": self._navy_target,
        }
        for name, fn in patch.items():
            monkeypatch.setattr(players, name, fn)
        ask = game._ask

        def recorded(gs, seat, kind, legal, nl, choice):
            got = ask(gs, seat, kind, legal, nl, choice)
            offered = tuple(None if x == NONE else int(x) for x in legal[:nl])
            self.asked.append((int(seat), DECISIONS[kind], offered, int(choice)))
            return got

        monkeypatch.setattr(game, "_ask", recorded)

    def _policy(self, bt, a) -> Battle:
        return self.scripts[int(bt.bsh[a, BS_SEAT])].battle

    def _held(self, bt, a) -> list[str]:
        return [self.card(c) for c in bt.bhand[a, : bt.bst[a, BT_HAND_N]]]

    def _battle_card(self, tab, gs, oc, bt, a, playable, npl):
        names = [self.card(c) for c in playable[:npl]]
        for c in self._policy(bt, a).cards:
            if c in names:
                return self.code(c)
        return NONE

    def _overboard_chests(self, tab, gs, oc, bt, a, chests):
        k = self._policy(bt, a).overboard
        return chests if k is None else min(chests, k)

    def _broadside(self, tab, gs, oc, bt, a, volley):
        pol = self._policy(bt, a)
        bsh, bst, nst, bg = bt.bsh, bt.bst, bt.nst, bt.bg
        volley[:3] = -1
        exchange = int(bg[BG_EXCHANGE])
        if exchange in pol.flee_at:
            return True, -1, HULL
        fighting = [
            j for j in range(bg[BG_NNPC]) if nst[j, NS_FIGHTS] != 0 and nst[j, NS_PRESENT] != 0
        ]
        if fighting:
            j = min(fighting, key=lambda q: (nst[q, NS_HULL], q))
            tgt, sec = -1 - j, HULL
        elif pol.target is None:
            tgt, sec = weakest_target(tab, bt, a)
        else:
            tgt = next(i for i in range(bg[BG_S]) if bsh[i, BS_SEAT] == pol.target)
            sec = SECTIONS.index(pol.section)
        held = self._held(bt, a)
        cards = []
        if bst[a, BT_CAN_FIRE] and not bg[BG_BECALMED]:
            cards += [c for c in pol.volley_cards if c in held]
        cards += [c for c in pol.volleys.get(exchange, ()) if c in held and c not in cards]
        for i, c in enumerate(cards[:3]):
            code = self.code(c)
            assert VOLLEY_LO <= code <= VOLLEY_HI, c
            volley[i] = code
        return False, tgt, sec

    def _navy_target(self, tab, gs, bt, controller):
        navy = self.scripts[controller].navy
        if navy is None:
            return players.default_navy_target(tab, bt)
        return navy(self, bt)


# ---------------------------------------------------------------- random positions
def random_position(seed: int, me_kind: str, decision: str = "navigate") -> Table:
    """A random but legal position of the game (either Artisan switch, 3-5 seats, any month),
    seat 0 playing ``me_kind`` and the others compiled strategies drawn at random: rings, gold,
    chests, fame, parrots and their wounds, Artisans, islands (for the events after navigation,
    ``decision`` in ``royal_navy``, ``letter_of_marque``, ``sneak_away``: never the Cove), some
    islands announced, Plunder cards played, hands of up to 5 Tavern cards, face-up Treasure cards
    and the stacks under them, the black ships and their pirates (some sunk), the Royal Navy
    (always for ``letter_of_marque`` and ``navy_target``), a Treasure map, a discard pile and 12
    dice to come."""
    rng = np.random.default_rng(seed)
    rules = PER_SECTION if rng.random() < 0.3 else RULES
    n = int(rng.integers(3, 6))
    names = (me_kind, *(str(k) for k in rng.choice(KINDS, n - 1)))
    month = int(rng.integers(1, 13))
    t = Table(None, n, rules=rules, strategies=names, month=month, shuffle=True, seed=seed)
    npos = t.tab.prm[P_NPOS]
    mat_hull = rules.ship_mat.hull
    parrots = list(rng.permutation(len(t.parrots)))
    for s in range(n):
        ring = rng.integers(1, npos + 1, 4)
        # the events after navigation: every ship at the island it chose (never the Cove)
        after_navigation = decision in ("sneak_away", "royal_navy", "letter_of_marque")
        loc = int(rng.integers(0, 6 if after_navigation else 7))
        kw = {"gold": int(rng.integers(0, 13)), "fame": int(rng.integers(0, 16))}
        kw["chests"] = int(rng.integers(0, mat_hull[ring[0] - 1] + 1))
        if parrots and rng.random() < 0.4:
            kw["parrot"] = t.parrots[parrots.pop()]
            kw["wounds"] = int(rng.random() < 0.3)
        if rules.combat.artisan_limit == "per_section":
            kw["artisans"] = {k: int(rng.integers(0, 2)) for k in range(4) if rng.random() < 0.2}
        elif rng.random() < 0.35:
            kw["artisans"] = {int(rng.integers(4)): int(rng.integers(0, 2))}
        arts = t.deck().count("artisan")
        kw["artisans"] = dict(list(kw.get("artisans", {}).items())[:arts])
        t.put(s, loc, ring=[int(x) for x in ring], **kw)
        if rng.random() < 0.25:
            t.st[s, S_CHOSEN] = int(rng.integers(0, 6))
        if rng.random() < 0.15:
            t.st[s, S_PLUNDER_BY] = (s + 1) % n
    for s in range(n):  # hands: up to 5 cards of the draw pile (never a parrot: it is placed)
        for _ in range(int(rng.integers(0, 6))):
            pile = [c for c in t.deck() if not c.startswith("parrot:")]
            t.give(s, pile[int(rng.integers(len(pile)))])
    t.set_face_up(
        [
            tuple(int(x) for x in t.tcard[int(rng.integers(len(t.tcard)))])
            if rng.random() < 0.8
            else None
            for _ in range(NUM_OUTER)
        ]
    )
    for i in range(NUM_OUTER):  # the stacks under the face-up cards
        rows = rng.integers(0, len(t.tcard), int(rng.integers(0, 6)))
        t.dk[D_STACK + i, : len(rows)] = rows
        t.g[G_STACK_N + i] = len(rows)
    pirates = [t.npc_keys[r] for r in t.dk[D_PIRATE, : t.g[G_PIR_N]]]
    for _ in range(t.tab.prm[P_BLACK_COUNT + n]):
        isl = int(rng.integers(0, 6))
        t.black_ship(isl, pirates.pop(int(rng.integers(len(pirates)))))
        if rng.random() < 0.15:
            t.g[G_BLACK + 3 * (t.g[G_NBLACK] - 1) + 2] = 1  # sunk this month
    if rng.random() < 0.35 or decision in ("letter_of_marque", "navy_target"):
        t.royal_navy(int(rng.integers(0, NUM_OUTER)), int(rng.integers(0, n)))
    if rng.random() < 0.2:
        t.g[G_MAPS] = int(rng.integers(0, n))
        t.g[G_MAPS + 1] = int(rng.integers(0, NUM_OUTER))
        t.g[G_NMAPS] = 1
    t.discard_from_deck(int(rng.integers(0, 6)))
    t.set_dice(list(rng.integers(1, 7, 12)))
    return t


def weakest_target(tab, bt, a) -> tuple[int, int]:
    """The present opponent of battle ship ``a`` with the fewest hits to rout (the lower seat of
    equals) at its weakest section (the first of equals): ``combat_policies.weakest_target``."""
    prm = tab.prm
    best = None
    for s in range(bt.bg[BG_S]):
        if s == a or not bt.present[s]:
            continue
        h = [players.bview_hits(prm, bt, s, k) for k in range(4)]
        k = min(range(4), key=lambda i: (h[i], i))
        key = (h[k], int(bt.bsh[s, BS_SEAT]))
        if best is None or key < best[0]:
            best = (key, s, k)
    assert best is not None, "a broadside needs a present opponent"
    return best[1], best[2]


@dataclass
class _Chunk:
    log: np.ndarray

    def __post_init__(self):
        self.log = np.column_stack([np.zeros(len(self.log), np.int64), self.log])


def _need_readable(what: str) -> None:
    import numba

    if not numba.config.DISABLE_JIT:
        raise RuntimeError(f"{what} needs the readable engine (NUMBA_DISABLE_JIT=1)")
