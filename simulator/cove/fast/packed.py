"""Packed data of the compiled Pirate's Cove game: static tables, the game state, the outputs.

Everything the compiled code reads is an integer (or, for the players' parameters, float64)
array; the compiled functions index them only through the named constants below -- one block per
array, each index documented where it is declared (``STYLE.md`` pattern 18). :func:`pack_rules`
builds the static tables from a scenario's :class:`~simulator.cove.rules.CoveRules` (the same
decks, mat and cards of :mod:`simulator.cove.tables`: ``build_tavern_deck``,
``build_treasure_deck``), :func:`pack_players` the players' parameter rows from the
scenario's strategies (``tables.strategy_params``).

Static tables (``Tables``, one per run):

* ``prm`` -- int64 rule parameters, ``P_*``;
* ``val`` -- int64 ``[section, position]`` value of a section at a 1-based ring position
  (position 0, destroyed: 0), sections in ``SECTIONS`` order (hull, crew, cannons, sails);
* ``step`` -- int64 ``[position - 1]`` gold to move a ring into that position (``step_cost``);
* ``tcard`` -- int64 ``[card, TC_*]`` the Treasure deck, unshuffled;
* ``npc`` -- int64 ``[npc, N_*]`` the Legendary Pirates in scenario order, then the Royal Navy
  (row ``prm[P_RN]``);
* ``par`` -- int64 ``[parrot, PA_*]`` the parrots in scenario order;
* ``ckind`` -- int64 ``[card code, CK_*]`` what each Tavern card code is;
* ``tdeck`` -- int64 the unshuffled Tavern deck (card codes), ``pdeck`` the unshuffled pirate
  deck (``npc`` rows);
* ``pmf`` -- float64 ``[n, k]`` P(k hits of n dice) at the players' hit chance, computed by
  :func:`simulator.cove.tables.hit_pmf`.

Card codes (a hand holds codes; :data:`CARD_NAMES` / ``card_names(rules)`` give the scenario's
names): the fixed ``C_*`` codes below, then one code per parrot (``C_PARROT0 + parrot row``),
then one per fame-card value (``fame_code``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from simulator import compiled as house  # (this module's own compiled() is a kind test)
from simulator.cove.card_record import BLANK, card_name
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.cove.tables import (
    ROYAL_NAVY,
    V1_BASE_PARAMS,
    build_tavern_deck,
    build_treasure_deck,
    hit_chance,
    hit_pmf,
    kind_root,
    strategy_params,
)

HULL, CREW, CANNONS, SAILS = house.codes(4)  # SECTIONS order
TAVERN, TREASURE, COVE = 0, 5, 6  # islands: 0..4 the outer islands, 5 Treasure Island, 6 the Cove
NUM_OUTER = 5
NUM_NAV = house.code(6)  # islands a ship may sail to (never the Cove)

# ---------------------------------------------------------------------------- Tavern card codes
C_ARTISAN = house.code(0)
C_BECALMED = house.code(1)  # battle cards 1..5, combat_policies.BATTLE_CARDS order
C_WIND = house.code(2)
C_GRAPPLE = house.code(3)
C_SMOKE = house.code(4)
C_OVERBOARD = house.code(5)
C_GRAPESHOT = house.code(6)  # volley cards 6..8, combat_policies.VOLLEY_CARDS order
C_KEG = house.code(7)
C_CANNONADE = house.code(8)
C_SNEAK = house.code(9)  # event cards 9..15, game.EVENT_CARDS order
C_ROYAL_NAVY = house.code(10)
C_LETTER = house.code(11)
C_MAP = house.code(12)
C_PLUNDER = house.code(13)
C_LOOKOUT = house.code(14)
C_SHIPWRIGHT = house.code(15)
C_BLANK = house.code(16)  # card_record.BLANK: the card-value intervention's inert card
C_PARROT0 = house.code(17)  # then one code per parrot, then one per fame-card value
#: names of the fixed codes (the hand strings of simulator.cove.game)
FIXED_CARDS = (
    "artisan",
    "becalmed",
    "favourable_wind",
    "grapple",
    "smoke",
    "overboard",
    "grapeshot",
    "powder_keg",
    "cannonade",
    "sneak_away",
    "royal_navy",
    "letter_of_marque",
    "treasure_map",
    "plunder",
    "lookout",
    "shipwright",
    BLANK,
)
BATTLE_LO, BATTLE_HI = C_BECALMED, C_OVERBOARD  # battle cards: codes BATTLE_LO..BATTLE_HI
VOLLEY_LO, VOLLEY_HI = C_GRAPESHOT, C_CANNONADE

# ckind[code, CK_*]
CK_KIND = 0  # K_* below
CK_ARG = 1  # parrot row (K_PARROT), fame value (K_FAME)
CK_COLS = 2
K_ARTISAN, K_BATTLE, K_VOLLEY, K_EVENT, K_BLANK, K_PARROT, K_FAME = house.codes(7)

# ---------------------------------------------------------------------------- rule parameters
(
    P_NPOS,  # ship_mat.num_positions
    P_START_POS,  # ship_mat.start_position (1-based)
    P_NUM_MONTHS,
    P_START_GOLD,
    P_START_CARDS,  # setup.start_tavern_cards
    P_START_FAME,
    P_SECRET_ARMING,  # 1: setup.secret_initial_arming
    P_BANK_GOLD,  # bank.gold (all the gold of the game)
    P_BANK_CHESTS,
    P_NUM_STACKS,  # treasure.num_stacks
    P_STACK_SIZE,
    P_HIT_ON,  # combat.*
    P_SMOKE_HIT_ON,
    P_GRAPE_HIT_ON,
    P_GRAPE_SELF,
    P_GRAPE_BEATS_SMOKE,
    P_WIND_SPEED,
    P_OVERBOARD_SPEED,
    P_ART_ABSORBS,
    P_ART_REPAIR,
    P_ART_PER_SECTION,  # 1: artisan_limit = "per_section"
    P_FLIGHT_FAME,
    P_ROUT_FAME,
    P_MUTINY_ON,
    P_MUTINY_LOSS,
    P_PARROT_LOSS,
    P_PARROT_HITS,  # parrot_hits_to_kill
    P_MAX_EXCH,
    P_PARROT_ABSORBS,
    P_SMOKE_BLOCKS_MISFIRE,
    P_CARD_PRICE,  # economy.*
    P_MAX_BUY,
    P_BURY_CHEST_FAME,
    P_BURY_GOLD_PER_FAME,
    P_TI_LEVELS,
    P_TI_MULT,
    P_COVE_REPAIR,
    P_COVE_CARDS,
    P_COVE_ALT_CARDS,
    P_COVE_ALT_GOLD,
    P_SWAP_COST,  # parrot_swap_fame_cost
    P_SHIPWRIGHT_LEVELS,
    P_TIE_DUEL,  # decisions.*: 1: tie_break = "duel"
    P_CACA_TI_FASTEST,  # 1: cacafuego_at_treasure_island = "fastest"
    P_FAME_FLOOR,
    P_ROTATE_FIRST,  # 1: first_player = "rotate_monthly"
    P_PUT_BACK,  # parrot_put_back: PUT_SHUFFLE, PUT_TOP, PUT_BOTTOM
    P_UNPAID_PAYS,  # 1: cove_unpaid_repair = "pay_what_you_can"
    P_PLUNDER_CARDS,  # 1: plunder_includes_tavern_cards
    P_PLUNDER_BURY,  # 1: plunder_includes_burying
    P_SNEAK_NO_SHIP,  # 1: sneak_away_unoccupied = "no_ship"
    P_RN_PER_MONTH,
    P_RN_NOT_CONTROLLER,  # 1: royal_navy_not_at_controller_island
    P_HEAL_SOLE,  # 1: parrot_heals_on = "sole_survivor" (0: "survive_battle")
    P_CACA_LONE,  # 1: cacafuego_lone_ship_captures
    P_MAP_REROLL,  # treasure_map_reroll_from
    P_MAP_MULT,  # treasure_map_chest_multiplier
    P_DUEL_REPEATS,
    P_DUEL_CARDS,  # 1: duel_uses_hand_cards
    P_NAVY_ORDER,  # pirate_and_navy_order: ORDER_ONE, ORDER_PIRATE_FIRST, ORDER_NAVY_FIRST
    P_NPIRATES,  # rows of npc before the Royal Navy
    P_RN,  # npc row of the Royal Navy (= P_NPIRATES)
    P_NPARROTS,
    P_NTAVERN,  # Tavern cards in the deck
    P_NTREASURE,  # Treasure cards
    P_NPDECK,  # Legendary Pirates in the pirate deck
    P_NCODES,  # card codes
    P_NPMF,  # rows of pmf (largest dice count + 1)
    P_BLACK_START,  # island of black ship i: P_BLACK_START + i, i < MAX_BLACK
) = range(69)
P_BLACK_COUNT = P_BLACK_START + 3  # black ships with n players: P_BLACK_COUNT + n, n <= 8
P_LEN = P_BLACK_COUNT + 9
PUT_SHUFFLE, PUT_TOP, PUT_BOTTOM = range(3)
ORDER_ONE, ORDER_PIRATE_FIRST, ORDER_NAVY_FIRST = range(3)
MAX_BLACK = 3

# tcard[card, TC_*]
TC_FAME, TC_GOLD, TC_CHESTS, TC_TAVERN = range(4)

# npc[row, N_*]: a Legendary Pirate or the Royal Navy
N_DICE = 0
N_DAMAGE = 1  # 0..3 the section it damages, D_EVERY every section, D_CONTROLLER its controller's
N_TARGET = 2  # T_* first-target criterion
N_HULL = 3
N_SAILS = 4
N_FAME = 5
N_FAME_DIE = 6  # 1: the captor rolls a die for fame (Cacafuego)
N_REGEN = 7  # hull regained per exchange (Flying Dutchman)
N_MISFIRE = 8  # 1: Captain Hook's misfires
N_MISFIRE_POS = 9
N_FIGHTS = 10  # 0: a treasure galleon (does not fight)
N_COLS = 11
D_EVERY = 4
D_CONTROLLER = -1
T_MOST_CANNONS, T_LARGEST_CREW, T_STRONGEST_HULL, T_FASTEST, T_CONTROLLER = house.codes(5)
TARGETS = ("most_cannons", "largest_crew", "strongest_hull", "fastest", "controller")

# par[row, PA_*]
PA_SECTION = 0  # the section it sits on
PA_UNLIMITED = 1  # 1: carries any number of chests (Flint)
PA_FIXED_DICE = 2  # always rolls this many dice (Long John Silver; 0: no)
PA_DICE_CANNONS = 3  # 1: dice = cannons (Billy Bones)
PA_SPEED = 4  # speed bonus (Squire Trelawney)
PA_COLS = 5

# ---------------------------------------------------------------------------- players' rows
#: the implemented player roots (``tables.PLAYER_ROOTS``) the compiled game plays: the
#: issue-13 baselines (``*-v1`` kinds, :mod:`simulator.cove.fast.players`),
#: ``random``, the expected-value kinds (root ``heuristic``,
#: :mod:`simulator.cove.fast.players_ev` and
#: :mod:`simulator.cove.fast.players_ev_battle`) and their search player (root ``rollout``,
#: :mod:`simulator.cove.fast.rollout`): every implemented kind
EV_ROOT = "heuristic"
ROLLOUT_ROOT = "rollout"
COMPILED_ROOTS = ("heuristic-v1", "random", EV_ROOT, ROLLOUT_ROOT)
#: the search player's ``rollout_opponents`` choices, in the order of ``PP_OPP_MODEL``'s codes
OPPONENT_MODELS = ("mix", "balanced")
OPP_MIX, OPP_BALANCED = range(2)
#: pp[seat, :] holds tables.V1_BASE_PARAMS in this order, then the columns below (an EV
#: seat's row: its own parameters under the same names, 0.0 for the v1-only ones)
PARAM_NAMES = tuple(V1_BASE_PARAMS)
PP = {name: i for i, name in enumerate(PARAM_NAMES)}
PP_BUY_LAST_MONTH = PP["buy_last_month"]  # != 0: buys cards in the last month too (tavern-v1)
PP_IS_RANDOM = len(PARAM_NAMES)  # 1.0: root kind "random"
PP_IS_EV = PP_IS_RANDOM + 1  # 1.0: root kind "heuristic" or "rollout" (its decisions are EV's)
PP_OPP_TEMP = PP_IS_EV + 1  # opp_temperature (EV kinds)
# the EV player's state between decisions (HeuristicPlayer attributes), reset every game:
PP_STAKE = PP_OPP_TEMP + 1  # _stake: value of holding this month's island (0.0 at the start)
PP_HV_CHEST = PP_STAKE + 1  # _hv_chest: a chest aboard this month (w_chest at the start)
PP_GOLD_SEEN = PP_HV_CHEST + 1  # _gold: the gold of its last decision asked (0)
PP_MONTH_SEEN = PP_GOLD_SEEN + 1  # _month (0)
# the search player (root "rollout"; [kinds.rollout] of scenarios/cove/standard.toml)
PP_IS_ROLLOUT = PP_MONTH_SEEN + 1  # 1.0: navigates by rollouts (simulator.cove.fast.rollout)
PP_ROLLOUTS = PP_IS_ROLLOUT + 1  # rollouts: K simulations of the month per candidate island
PP_CANDIDATES = PP_ROLLOUTS + 1  # rollout_candidates: islands simulated (the best by value)
PP_OPP_MODEL = PP_CANDIDATES + 1  # rollout_opponents: OPP_MIX or OPP_BALANCED
PP_PARROT0 = PP_OPP_MODEL + 1  # how much it likes parrot row i: p.get("parrot_<key>", 1.0)


# ---------------------------------------------------------------------------- the game state
#: phase codes (the phase names of traces and --check messages, PHASES order)
PHASES = (
    "setup",
    "arming",
    "treasure",
    "navigation",
    "combat",
    "plunder",
    "island_effects",
    "black_ships",
    "end",
)
(
    PH_SETUP,
    PH_ARMING,
    PH_TREASURE,
    PH_NAVIGATION,
    PH_COMBAT,
    PH_PLUNDER,
    PH_ISLAND,
    PH_BLACK,
    PH_END,
) = range(9)
FAME_SRC = ("plunder", "burying", "combat", "pirates", "fame_cards", "penalties")  # game order
SRC_PLUNDER, SRC_BURYING, SRC_COMBAT, SRC_PIRATES, SRC_FAME_CARDS, SRC_PENALTIES = house.codes(6)
MAX_MAPS = 8

# g: int64[G_LEN], the game's scalars
G_N = 0  # players
G_MONTH = 1  # 0 during setup, then 1..num_months
G_PHASE = 2  # PH_* code
G_FIRST = 3  # first player of the month (events are played in seat order from it)
G_BANK_GOLD = 4
G_BANK_CHESTS = 5
G_TAV_N = 6  # Tavern deck: dk[D_TAVERN, :G_TAV_N], the top card last
G_DISC_N = 7  # Tavern discard pile: dk[D_DISCARD, :G_DISC_N]
G_PLAY_N = 8  # cards in play this month: dk[D_INPLAY, :G_PLAY_N]
G_PIR_N = 9  # Legendary Pirate deck: dk[D_PIRATE, :G_PIR_N] (npc rows), top last
G_PDISC_N = 10  # pirate discard: dk[D_PDISC, :G_PDISC_N]
G_NBLACK = 11  # black ships
G_BLACK = 12  # black ship i: G_BLACK + 3 i + BK_*
G_RN_ISLAND = G_BLACK + 3 * MAX_BLACK  # the Royal Navy's island this month (-1: none)
G_RN_CONTROLLER = G_RN_ISLAND + 1  # its controller's seat (-1)
G_RN_SENDER = G_RN_ISLAND + 2  # its sender's seat (-1)
G_RN_SENT = G_RN_ISLAND + 3  # Royal Navy cards played this month
G_NMAPS = G_RN_ISLAND + 4  # Treasure maps in play this month
G_MAPS = G_NMAPS + 1  # map i: G_MAPS + 2 i = seat, + 1 = island (outer island 0..4)
G_STACK_N = G_MAPS + 2 * MAX_MAPS  # 5 entries: cards left in each Treasure stack
G_FACE_UP = G_STACK_N + 5  # 5 entries: the face-up Treasure card (tcard row, -1 none)
G_NPC_BATTLES = G_FACE_UP + 5  # battles against non-player ships so far (numbered from 1)
G_BATTLES_FOUGHT = G_NPC_BATTLES + 1  # ship-battles fought
G_CAPPED = G_NPC_BATTLES + 2  # battles that reached the exchange cap
G_TIE = G_NPC_BATTLES + 3  # 1: the top fame was tied
G_DUEL = G_NPC_BATTLES + 4  # 1: a duel settled it
G_DUELS = G_NPC_BATTLES + 5  # duels fought (re-fights included)
G_ERROR = G_NPC_BATTLES + 6  # E_* code (0: none); then where and what
G_ERR_MONTH = G_ERROR + 1
G_ERR_PHASE = G_ERROR + 2
G_ERR_A = G_ERROR + 3  # details of the error (see game.error_message)
G_ERR_B = G_ERROR + 4
G_ERR_C = G_ERROR + 5
G_NREC = G_ERROR + 6  # card record rows
G_NLOG = G_NREC + 1  # battle log rows
G_NTRACE = G_NREC + 2  # trace rows
G_TRACE = G_NREC + 3  # 1: record every decision (die-for-die tests)
G_RECORD = G_NREC + 4  # 1: keep the card record
G_CHECK = G_NREC + 5  # 1: the invariant checker after every phase
G_SWAP_SEAT = G_NREC + 6  # card-value intervention: seat whose next draw of G_SWAP_CODE is a
G_SWAP_CODE = G_NREC + 7  # blank (-1: none)
G_DECISIONS = G_NREC + 8  # 1: keep the expected-value players' decision records (drec)
G_NDEC = G_NREC + 9  # decision record rows
G_LEN = G_NREC + 10
BK_ISLAND, BK_PIRATE, BK_GONE = range(3)  # black ship: island, npc row (-1 none), sunk/captured

# st: int64[n, S_HAND + hand capacity], one row per seat
S_RING = 0  # 4 columns: 1-based ring positions, SECTIONS order (0 = destroyed)
S_GOLD = 4
S_CHESTS = 5
S_FAME = 6
S_SRC = 7  # 6 columns: fame by source, FAME_SRC order
S_PARROT = 13  # parrot row (-1: none)
S_WOUNDS = 14  # parrot wounds (0/1)
S_ART = 15  # 4 columns: -1 no Artisan on the section, else the hits it has absorbed
S_LOC = 19  # island 0..5, or COVE
S_BATTLES = 20
S_ROUTED = 21
S_FLED = 22
S_MUTINIES = 23
S_FOUGHT = 24  # Legendary Pirates fought
S_SUNK = 25  # Legendary Pirates sunk (shares) or the Cacafuego captured
S_CHOSEN = 26  # island chosen this month (-1: not yet / unknown)
S_PLUNDER_BY = 27  # seat that plays a Plunder card on this seat this month (-1)
S_DRAWS = 28  # Tavern cards drawn so far (the card record's draw number)
S_HAND_N = 29  # cards in hand
S_HAND = 30  # hand: st[seat, S_HAND : S_HAND + S_HAND_N] (card codes, in the order received)

# dk: int64[D_ROWS, width], the decks and piles
D_TAVERN, D_DISCARD, D_INPLAY, D_PIRATE, D_PDISC, D_STACK = house.codes(6)  # + i: stack i
D_ROWS = D_STACK + 5

# rec: int64[rows, RC_COLS], the card record (simulator.cove.card_record)
RC_SEAT, RC_DRAW, RC_CODE, RC_MONTH, RC_PHASE, RC_FATE, RC_MONTH_OUT, RC_PHASE_OUT = range(8)
RC_COLS = 8
FATE_OPEN, FATE_PLAYED, FATE_RETURNED, FATE_HELD = (house.code(f) for f in (-1, 0, 1, 2))

# drec: float64[rows, DR_COLS], the expected-value players' decision records
# (tables.RECORD_COLUMNS, one row per option weighed): every navigation (one row per island) and
# every flee-or-stand choice (two rows), written where the values are computed
# (players_ev.navigate, players_ev_battle.broadside, rollout.navigate); NaN is a record's None
DR_MONTH = 0  # month of the decision (the player's last seen month in a battle)
DR_SEAT = 1  # the deciding seat
DR_DECISION = 2  # REC_NAVIGATE or REC_BATTLE
DR_OPTION = 3  # island 0..5 (navigate), OPT_STAND or OPT_FLEE (battle)
DR_VALUE = 4  # the option's expected value (fame units; rollout: its mean simulated value)
DR_CHOSEN = 5  # 1.0 for the option taken
DR_NPC = 6  # npc row of the non-player ship at that island / in that battle (-1: none)
DR_P_ALONE = 7  # probability that no opponent comes to that island (navigate)
DR_P_SINK_LONE = 8  # P(sink the npc) alone with the hand (navigate; NaN: no fighting npc)
DR_P_SINK_COMPANY = 9  # P(sink while still there) with the likely company (navigate; NaN: none)
DR_EXPECTED = 10  # expected opponents at the island (navigate) / present (battle)
DR_COLS = 11
RECORD_DECISIONS = ("navigate", "battle")  # DR_DECISION codes
REC_NAVIGATE, REC_BATTLE = house.codes(2)
BATTLE_OPTIONS = ("stand", "flee")  # DR_OPTION codes of a battle decision
OPT_STAND, OPT_FLEE = house.codes(2)

# blog: int64[rows, BL_COLS], one row per non-player ship per battle (the game's battle_log)
BL_BATTLE = 0  # battle number in the game
BL_MONTH = 1
BL_ISLAND = 2
BL_NPC = 3  # npc row
BL_SHIPS = 4
BL_SEATS = 5  # bit mask of the seats in the battle
BL_OUTCOME = 6  # OUT_* code
BL_ROUTED = 7  # player ships this non-player ship routed
BL_FLED = 8  # player ships that fled in the battle
BL_EXCHANGES = 9
BL_NPC_A = 10  # the battle's non-player ships (npc rows; -1 none)
BL_NPC_B = 11
BL_ROUTED_BY_PLAYERS = 12
BL_ROUTED_IN_BATTLE = 13
BL_COLS = 14
NPC_OUTCOMES = ("sunk", "survived", "captured", "not_captured")
OUT_SUNK, OUT_SURVIVED, OUT_CAPTURED, OUT_NOT_CAPTURED = house.codes(4)

# tr: int64[rows, TR_COLS], the decisions (in the trace format of the goldens)
TR_SEAT, TR_KIND, TR_A, TR_B, TR_C, TR_D = range(6)
TR_COLS = 6
#: decision kinds (Observation.kind names, then the battle policy's)
DECISIONS = (
    "arm",
    "treasure_map",
    "plunder",
    "lookout",
    "navigate",
    "royal_navy",
    "letter_of_marque",
    "sneak_away",
    "parrot_swap",
    "buy_cards",
    "upgrade",
    "bury_chests",
    "bury_gold",
    "treasure_island_upgrade",
    "cove_reward",
    "artisan",
    "artisan_repair",
    "shipwright",
    "battle_card",
    "overboard_chests",
    "broadside",
    "navy_target",
)
(
    TK_ARM,
    TK_MAP,
    TK_PLUNDER,
    TK_LOOKOUT,
    TK_NAVIGATE,
    TK_ROYAL_NAVY,
    TK_LETTER,
    TK_SNEAK,
    TK_PARROT_SWAP,
    TK_BUY,
    TK_UPGRADE,
    TK_BURY_CHESTS,
    TK_BURY_GOLD,
    TK_TI_UPGRADE,
    TK_COVE_REWARD,
    TK_ARTISAN,
    TK_ARTISAN_REPAIR,
    TK_SHIPWRIGHT,
    TK_BATTLE_CARD,
    TK_OVERBOARD,
    TK_BROADSIDE,
    TK_NAVY_TARGET,
) = house.codes(22)
NONE = house.code(-1)  # a decision's None

# errors (g[G_ERROR]); the message is built by simulator.cove.fast.game.error_message
E_NONE = house.code(0)
E_INVARIANT = house.code(1)  # the checker found an illegal state (G_ERR_A: the I_* invariant)
E_ILLEGAL = house.code(2)  # a player chose outside the legal choices (G_ERR_A: decision kind)
E_CAPACITY = house.code(3)  # a buffer of the compiled engine is full (G_ERR_A: which, CAP_*)
INVARIANTS = (
    "gold {a} != {b}",
    "chests {a} != {b}",
    "tavern cards {a} != {b}",
    "negative bank",
    "seat {a} negative gold/chests/fame",
    "seat {a} ring off the mat",
    "seat {a} destroyed section outside the Cove",
    "seat {a} destroyed section left unrepaired",
    "seat {a} has {b} Artisans",
)
I_GOLD, I_CHESTS, I_CARDS, I_BANK, I_NEGATIVE, I_RING, I_DESTROYED, I_UNREPAIRED, I_ARTISANS = (
    house.codes(9)
)
CAPACITIES = (
    "card record rows",
    "battle log rows",
    "trace rows",
    "Treasure maps in a month",
    "decision record rows",
)
CAP_RECORD, CAP_LOG, CAP_TRACE, CAP_MAPS, CAP_DECISIONS = house.codes(5)

# ---------------------------------------------------------------------------- a battle's state
MAX_SHIPS = 8  # player ships in one battle
MAX_NPCS = 2  # non-player ships in one battle (a Legendary Pirate and the Royal Navy)
# bsh: int64[MAX_SHIPS, BS_COLS], what a ship brings into the battle (fixed during it)
BS_SEAT = 0  # its game seat
BS_PARROT = 1  # parrot row (-1: none)
BS_PFIXED = 2  # the parrot's fixed dice (Long John Silver)
BS_PBONES = 3  # 1: the parrot's dice = cannons (Billy Bones)
BS_PSPEED = 4  # the parrot's speed bonus (Squire Trelawney)
BS_START = 5  # 4 columns: ring positions when the battle began
BS_ART0 = 9  # 4 columns: Artisan hits left when the battle began (0: none)
BS_PHP0 = 13  # parrot hits left when the battle began (0: none)
BS_COLS = 14
# bst: int64[MAX_SHIPS, BT_COLS], the rest of a ship's battle state (pos, art, php, psec,
# was_hit, present, outcome and fame are arrays of their own, as the rule core takes them)
BT_SMOKE = 0  # 1: smoked (only a 6 hits it)
BT_WIND = 1  # Favourable wind cards played
BT_OVERBOARD = 2  # chests thrown with Overboard
BT_BONUS = 3  # speed bonus of Favourable wind and Overboard
BT_CAN_FIRE = 4  # 0 for its turn after a Cannonade
BT_CHESTS = 5  # chests aboard
BT_GOLD = 6
BT_GOLD_LOST = 7  # to a mutiny
BT_CHESTS_LOST = 8
BT_ROUTED_BY = 9  # who routed it: a ship index, or BY_NPC0 - npc slot; BY_NOBODY
BT_HAND_N = 10  # battle and volley cards in hand: bhand[ship, :BT_HAND_N]
BT_PLAYED_N = 11  # cards played: bplayed[ship, :BT_PLAYED_N], in order
BT_COLS = 12
BY_NOBODY = -100
BY_NPC0 = -1  # routed by npc slot j: BY_NPC0 - j
# battle outcomes (battle.OUTCOMES order)
WON, ROUTED, FLED, MUTINY, STAYED = range(5)
# fame by cause (battle.FAME_CAUSES order)
F_FLIGHT, F_ROUT, F_PIRATE, F_CAPTURE, F_PARROT, F_MUTINY = range(6)
# nst: int64[MAX_NPCS, NS_COLS], the non-player ships of the battle
NS_ROW = 0  # npc row
NS_FIGHTS = 1  # 0: the treasure galleon
NS_PRESENT = 2  # a fighting ship still afloat
NS_HULL = 3
NS_SUNK = 4
NS_SUNK_BY = 5  # ship index whose broadside sank it (-1)
NS_SHARED = 6  # bit mask of the ships that shared its fame
NS_FAME_EACH = 7
NS_CAPTOR = 8  # ship index that captured the galleon (-1)
NS_ROUTED = 9  # bit mask of the ships its broadsides routed
NS_BROADSIDES = 10
NS_FIRED_AT = 11  # bit mask of the ships fired at in its current targeting cycle
NS_HAS_FIRED = 12  # 1: it fired in the current exchange
NS_HULL_START = 13  # hull at the start of the exchange (regeneration)
NS_COLS = 14
# bg: int64[BG_LEN], the battle's scalars
BG_S = 0  # player ships
BG_NNPC = 1  # non-player ships
BG_TI = 2  # 1: at Treasure Island (players do not fight each other)
BG_GRAPPLE = 3
BG_BECALMED = 4
BG_EXCHANGE = 5  # 0 during the card rounds, then 1, 2, ...
BG_CARD_ROUND = 6
BG_AFLOAT = 7  # fighting non-player ships not sunk yet
BG_CONTROLLER = 8  # the Royal Navy controller's game seat (-1: the default controller)
BG_CAPPED = 9
BG_NPRESENT = 10  # player ships still in the battle
BG_LEN = 11


@dataclass(frozen=True)
class Tables:
    """The static arrays of one scenario (see the module docstring)."""

    prm: np.ndarray
    val: np.ndarray
    step: np.ndarray
    tcard: np.ndarray
    npc: np.ndarray
    par: np.ndarray
    ckind: np.ndarray
    tdeck: np.ndarray
    pdeck: np.ndarray
    pmf: np.ndarray
    card_names: tuple[str, ...]  # scenario card name of each code (card_record names)
    npc_keys: tuple[str, ...]  # pirates in scenario order, then "royal_navy"
    p_hit: float

    def arrays(self) -> TableState:
        """The tables as the compiled code takes them (``tab``)."""
        return TableState(
            self.prm,
            self.val,
            self.step,
            self.tcard,
            self.npc,
            self.par,
            self.ckind,
            self.tdeck,
            self.pdeck,
            self.pmf,
        )


class UnsupportedScenario(ValueError):
    """The scenario uses something the compiled engine does not hold (use --engine python)."""


def _npc_row(card) -> list[int]:
    if card.first_target == "controller":
        target = T_CONTROLLER
    else:
        target = TARGETS.index(card.first_target)
    if card.damages == "controller":
        damage = D_CONTROLLER
    elif card.damages == "every_section":
        damage = D_EVERY
    else:
        damage = SECTIONS.index(card.damages)
    return [
        card.dice,
        damage,
        target,
        card.hull,
        card.sails,
        card.fame,
        int(card.fame_die),
        card.regenerate_per_exchange,
        int(card.misfire_redirect),
        card.misfire_positions,
        int(card.fights),
    ]


def fame_values(rules: CoveRules) -> tuple[int, ...]:
    """The fame-card values of the deck, in the order their codes are given."""
    deck = build_tavern_deck(rules)
    return tuple(dict.fromkeys(int(c.split(":")[1]) for c in deck if c.startswith("fame:")))


def hand_codes(rules: CoveRules) -> dict[str, int]:
    """Card code of every hand string of traces (``parrot:flint``, ``fame:2``...)."""
    codes = {name: i for i, name in enumerate(FIXED_CARDS)}
    for i, key in enumerate(rules.parrots):
        codes[f"parrot:{key}"] = C_PARROT0 + i
    base = C_PARROT0 + len(rules.parrots)
    for i, v in enumerate(fame_values(rules)):
        codes[f"fame:{v}"] = base + i
    return codes


def pack_rules(rules: CoveRules) -> Tables:
    """The static tables of ``rules`` (raises :class:`UnsupportedScenario` for what they cannot
    hold)."""
    mat = rules.ship_mat
    c = rules.combat
    e = rules.economy
    d = rules.decisions
    s = rules.setup
    for key, card in rules.pirates.items():
        if card.fights and card.damages == "controller" and card.first_target != "controller":
            raise UnsupportedScenario(
                f"pirates.{key}: damages='controller' needs first_target='controller'"
            )
    if len(rules.black_ships.start_islands) > MAX_BLACK or s.max_players > 8:
        raise UnsupportedScenario(
            f"at most {MAX_BLACK} black ships and 8 players in the compiled engine"
        )
    npos = mat.num_positions
    val = np.zeros((4, npos + 1), np.int64)
    for k, sec in enumerate(SECTIONS):
        val[k, 1:] = getattr(mat, sec)
    step = np.array(mat.step_cost, np.int64)
    tcard = np.array(build_treasure_deck(rules), np.int64).reshape(-1, 4)
    keys = (*rules.pirates, ROYAL_NAVY)
    npc = np.array(
        [_npc_row(rules.pirates[k]) for k in rules.pirates] + [_npc_row(rules.royal_navy)],
        np.int64,
    ).reshape(len(keys), N_COLS)
    par = np.zeros((len(rules.parrots), PA_COLS), np.int64)
    for i, p in enumerate(rules.parrots.values()):
        par[i] = [
            SECTIONS.index(p.section),
            int(p.unlimited_chests),
            p.fixed_dice,
            int(p.dice_equal_cannons),
            p.speed_bonus,
        ]
    codes = hand_codes(rules)
    names = [""] * len(codes)
    for text, code in codes.items():
        names[code] = card_name(text)
    ckind = np.zeros((len(codes), CK_COLS), np.int64)
    for text, code in codes.items():
        if code == C_ARTISAN:
            ckind[code] = (K_ARTISAN, 0)
        elif BATTLE_LO <= code <= BATTLE_HI:
            ckind[code] = (K_BATTLE, 0)
        elif VOLLEY_LO <= code <= VOLLEY_HI:
            ckind[code] = (K_VOLLEY, 0)
        elif code == C_BLANK:
            ckind[code] = (K_BLANK, 0)
        elif code < C_PARROT0:
            ckind[code] = (K_EVENT, 0)
        elif text.startswith("parrot:"):
            ckind[code] = (K_PARROT, code - C_PARROT0)
        else:
            ckind[code] = (K_FAME, int(text.split(":")[1]))
    tdeck = np.array([codes[x] for x in build_tavern_deck(rules)], np.int64)
    pdeck = np.array(
        [i for i, k in enumerate(rules.pirates) if rules.pirates[k].in_pirate_deck], np.int64
    )
    p_hit = hit_chance(c.hit_on)
    max_dice = max(
        [*mat.crew, *mat.cannons, *(p.fixed_dice for p in rules.parrots.values())]
        + [card.dice for card in rules.pirates.values()]
        + [rules.royal_navy.dice]
    )
    pmf = np.zeros((max_dice + 1, max_dice + 1), np.float64)
    for n in range(max_dice + 1):
        pmf[n, : n + 1] = hit_pmf(n, p_hit)
    prm = np.zeros(P_LEN, np.int64)
    prm[P_NPOS] = npos
    prm[P_START_POS] = mat.start_position
    prm[P_NUM_MONTHS] = s.num_months
    prm[P_START_GOLD] = s.start_gold
    prm[P_START_CARDS] = s.start_tavern_cards
    prm[P_START_FAME] = s.start_fame
    prm[P_SECRET_ARMING] = int(s.secret_initial_arming)
    prm[P_BANK_GOLD] = rules.bank.gold
    prm[P_BANK_CHESTS] = rules.bank.chests
    prm[P_NUM_STACKS] = rules.treasure.num_stacks
    prm[P_STACK_SIZE] = rules.treasure.stack_size
    prm[P_HIT_ON] = c.hit_on
    prm[P_SMOKE_HIT_ON] = c.smoke_hit_on
    prm[P_GRAPE_HIT_ON] = c.grapeshot_hit_on
    prm[P_GRAPE_SELF] = c.grapeshot_self_hits
    prm[P_GRAPE_BEATS_SMOKE] = int(c.grapeshot_beats_smoke)
    prm[P_WIND_SPEED] = c.favourable_wind_speed
    prm[P_OVERBOARD_SPEED] = c.overboard_speed_per_chest
    prm[P_ART_ABSORBS] = c.artisan_absorbs
    prm[P_ART_REPAIR] = c.artisan_repair_cost
    prm[P_ART_PER_SECTION] = int(c.artisan_limit == "per_section")
    prm[P_FLIGHT_FAME] = c.flight_fame_if_hit
    prm[P_ROUT_FAME] = c.rout_fame
    prm[P_MUTINY_ON] = c.mutiny_on
    prm[P_MUTINY_LOSS] = c.mutiny_fame_loss
    prm[P_PARROT_LOSS] = c.parrot_death_fame_loss
    prm[P_PARROT_HITS] = c.parrot_hits_to_kill
    prm[P_MAX_EXCH] = c.max_exchanges
    prm[P_PARROT_ABSORBS] = int(c.parrot_absorbs_hits)
    prm[P_SMOKE_BLOCKS_MISFIRE] = int(c.smoke_blocks_misfire)
    prm[P_CARD_PRICE] = e.tavern_card_price
    prm[P_MAX_BUY] = e.tavern_max_buy
    prm[P_BURY_CHEST_FAME] = e.bury_fame_per_chest
    prm[P_BURY_GOLD_PER_FAME] = e.bury_gold_per_fame
    prm[P_TI_LEVELS] = e.treasure_island_upgrade_levels
    prm[P_TI_MULT] = e.treasure_island_cost_multiplier
    prm[P_COVE_REPAIR] = e.cove_repair_cost
    prm[P_COVE_CARDS] = e.cove_reward_cards
    prm[P_COVE_ALT_CARDS] = e.cove_reward_alt_cards
    prm[P_COVE_ALT_GOLD] = e.cove_reward_alt_gold
    prm[P_SWAP_COST] = e.parrot_swap_fame_cost
    prm[P_SHIPWRIGHT_LEVELS] = e.shipwright_free_levels
    prm[P_TIE_DUEL] = int(d.tie_break == "duel")
    prm[P_CACA_TI_FASTEST] = int(d.cacafuego_at_treasure_island == "fastest")
    prm[P_FAME_FLOOR] = d.fame_floor
    prm[P_ROTATE_FIRST] = int(d.first_player == "rotate_monthly")
    prm[P_PUT_BACK] = ("shuffle", "top", "bottom").index(d.parrot_put_back)
    prm[P_UNPAID_PAYS] = int(d.cove_unpaid_repair == "pay_what_you_can")
    prm[P_PLUNDER_CARDS] = int(d.plunder_includes_tavern_cards)
    prm[P_PLUNDER_BURY] = int(d.plunder_includes_burying)
    prm[P_SNEAK_NO_SHIP] = int(d.sneak_away_unoccupied == "no_ship")
    prm[P_RN_PER_MONTH] = d.royal_navy_per_month
    prm[P_RN_NOT_CONTROLLER] = int(d.royal_navy_not_at_controller_island)
    prm[P_HEAL_SOLE] = int(d.parrot_heals_on == "sole_survivor")
    prm[P_CACA_LONE] = int(d.cacafuego_lone_ship_captures)
    prm[P_MAP_REROLL] = d.treasure_map_reroll_from
    prm[P_MAP_MULT] = d.treasure_map_chest_multiplier
    prm[P_DUEL_REPEATS] = d.duel_max_repeats
    prm[P_DUEL_CARDS] = int(d.duel_uses_hand_cards)
    prm[P_NAVY_ORDER] = ("one_battle", "pirate_first", "navy_first").index(d.pirate_and_navy_order)
    prm[P_NPIRATES] = len(rules.pirates)
    prm[P_RN] = len(rules.pirates)
    prm[P_NPARROTS] = len(rules.parrots)
    prm[P_NTAVERN] = len(tdeck)
    prm[P_NTREASURE] = len(tcard)
    prm[P_NPDECK] = len(pdeck)
    prm[P_NCODES] = len(codes)
    prm[P_NPMF] = max_dice + 1
    for i, isl in enumerate(rules.black_ships.start_islands):
        prm[P_BLACK_START + i] = rules.islands.index(isl)
    for key, count in rules.black_ships.count_by_players.items():
        prm[P_BLACK_COUNT + int(key)] = count
    return Tables(
        prm=prm,
        val=val,
        step=step,
        tcard=tcard,
        npc=npc,
        par=par,
        ckind=ckind,
        tdeck=tdeck,
        pdeck=pdeck,
        pmf=pmf,
        card_names=tuple(names),
        npc_keys=keys,
        p_hit=p_hit,
    )


def player_root(rules: CoveRules, name: str) -> str | None:
    """The implemented kind that plays strategy ``name`` (:func:`kind_root` of its kind)."""
    return kind_root(rules, rules.strategies[name].kind)


def compiled_kinds(rules: CoveRules) -> tuple[str, ...]:
    """The scenario's kinds the compiled game plays (root in :data:`COMPILED_ROOTS`)."""
    return tuple(k for k in rules.kinds if kind_root(rules, k) in COMPILED_ROOTS)


def compiled(rules: CoveRules, name: str) -> bool:
    """Whether the compiled game plays strategy ``name`` (its root is in :data:`COMPILED_ROOTS`)."""
    return player_root(rules, name) in COMPILED_ROOTS


def player_row(rules: CoveRules, name: str) -> np.ndarray:
    """The float64 parameter row of strategy ``name`` (a ``[strategies.*]`` name): its full
    parameter vector (``random``: the v1 base values). A strategy the compiled game does not
    play is refused."""
    root = player_root(rules, name)
    if root not in COMPILED_ROOTS:
        raise UnsupportedScenario(
            f"strategy {name!r} is played by kind {root!r}, not compiled "
            f"(compiled: {', '.join(COMPILED_ROOTS)})"
        )
    params = dict(V1_BASE_PARAMS) if root == "random" else strategy_params(rules, name)
    ev = root in (EV_ROOT, ROLLOUT_ROOT)
    row = np.zeros(PP_PARROT0 + len(rules.parrots), np.float64)
    for i, pname in enumerate(PARAM_NAMES):
        row[i] = float(params.get(pname, 0.0) if ev else params[pname])
    row[PP_IS_RANDOM] = float(root == "random")
    row[PP_IS_EV] = float(ev)
    if ev:
        row[PP_OPP_TEMP] = float(params["opp_temperature"])
        row[PP_HV_CHEST] = float(params["w_chest"])
    if root == ROLLOUT_ROOT:
        row[PP_IS_ROLLOUT] = 1.0
        row[PP_ROLLOUTS] = float(params["rollouts"])
        row[PP_CANDIDATES] = float(params["rollout_candidates"])
        row[PP_OPP_MODEL] = float(OPPONENT_MODELS.index(params["rollout_opponents"]))
    for i, key in enumerate(rules.parrots):
        row[PP_PARROT0 + i] = float(params.get("parrot_" + key, 1.0))
    return row


def rollout_models(rules: CoveRules) -> np.ndarray:
    """The search player's opponent models (``rollout_opponents``), as float64 parameter rows
    (:func:`player_row`) at their starting state: row 0 the ``balanced`` strategy, then the
    default mix's strategies that are not search players (``"mix"`` draws one of them per
    opponent and rollout; none: ``balanced``). A scenario without a compiled ``balanced``
    strategy has a row of zeros there (refused when a search player asks for it)."""
    width = PP_PARROT0 + len(rules.parrots)
    rows = [np.zeros(width, np.float64)]
    if "balanced" in rules.strategies and compiled(rules, "balanced"):
        if player_root(rules, "balanced") != ROLLOUT_ROOT:
            rows[0] = player_row(rules, "balanced")
    for name in rules.default_mix:
        root = player_root(rules, name)
        if root in COMPILED_ROOTS and root != ROLLOUT_ROOT:
            rows.append(player_row(rules, name))
    return np.stack(rows)


def pack_players(rules: CoveRules, names) -> np.ndarray:
    """float64 ``[strategy, :]`` parameter rows of ``names`` (see :func:`player_row`)."""
    return np.stack([player_row(rules, nm) for nm in names])


#: the fields of the static tables ``tab`` (:meth:`Tables.arrays`), in order
TAB_FIELDS = ("prm", "val", "step", "tcard", "npc", "par", "ckind", "tdeck", "pdeck", "pmf")
#: the fields of the game state ``gs``, in order (layouts above; ``seats`` is ``st``, the
#: seat rows: numba's structref constructor keeps the name ``st`` for itself)
GS_FIELDS = ("g", "seats", "dk", "rec", "blog", "tr", "rs", "pp", "dice", "dctx", "drec")


class TableStateType(house.StateType):
    """numba's type of :class:`TableState`."""


class TableState(house.State):
    """The static tables ``tab`` as one object (:data:`TAB_FIELDS`;
    :class:`simulator.compiled.State`)."""

    FIELDS = TAB_FIELDS


@njit(cache=True)
def _new_table_state(*values):
    """:class:`TableState`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return TableState(*values)


TableState = house.define_state(TableState, TableStateType, _new_table_state)


class GameStateType(house.StateType):
    """numba's type of :class:`GameState`."""


class GameState(house.State):
    """The game state ``gs`` as one object (:data:`GS_FIELDS`;
    :class:`simulator.compiled.State`)."""

    FIELDS = GS_FIELDS


@njit(cache=True)
def _new_game_state(*values):
    """:class:`GameState`'s constructor, cached (:class:`simulator.compiled.State`)."""
    return GameState(*values)


GameState = house.define_state(GameState, GameStateType, _new_game_state)
