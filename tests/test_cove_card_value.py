"""The per-seat Tavern card record of the full game (simulator.cove.card_record) and the card value
by paired intervention (simulator.cove.card_value, ``broadside cove card-value``), played by the
compiled engine."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from scenarios import load_scenario
from simulator.cove.api import play_games_tables
from simulator.cove.card_record import BLANK, card_name, tavern_card_names
from simulator.cove.card_value import card_value
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import C_BLANK, FATE_HELD, RC_CODE, RC_DRAW, RC_FATE, RC_SEAT
from simulator.cove.rules import CoveRules
from simulator.errors import UserError
from simulator.runner import Block
from tests.test_cove_combat_cli import run

RULES = load_scenario(None, CoveRules).rules
MIX = list(RULES.default_mix)
#: the pinned sample: pairs recorded from the readable implementation (the Python game with
#: ``card_swap``) before the card value moved onto the compiled engine (issue 28)
CARD_VALUE_CASE = {"n": 3, "seed": 5}
PAIRS_DATA = Path(__file__).resolve().parent / "data" / "cove_card_value_pairs.json"


def test_tavern_card_names_are_the_scenarios():
    names = tavern_card_names(RULES)
    assert names[:5] == ("flint", "long_john_silver", "billy_bones", "squire_trelawney", "artisan")
    assert {"smoke", "powder_keg", "shipwright", "fame_1", "fame_3"} <= set(names)
    assert len(names) == 4 + 1 + 5 + 3 + 7 + 3
    assert card_name("parrot:flint") == "flint" and card_name("fame:2") == "fame_2"


def test_every_card_drawn_in_whole_games_is_accounted_for():
    """200 games: the key (game, rotation, seat, draw) is unique and dense, the held rows are the
    final hands, the played battle and volley cards those the battles played."""
    from simulator.cove.tables import BATTLE_CARDS, VOLLEY_CARDS

    tables, _ = play_games_tables(None, MIX, 4, 200, seed=3, n_jobs=1)
    cards = tables["cards"]
    key = ["game", "rotation", "seat", "draw"]
    assert not cards.duplicated(key).any() and set(cards.fate) == {"played", "returned", "held"}
    dense = cards.groupby(["game", "rotation", "seat"])["draw"].agg(["min", "max", "count"])
    assert (dense["min"] == 0).all() and (dense["max"] == dense["count"] - 1).all()
    assert set(cards.card) <= set(tavern_card_names(RULES))
    assert (cards[cards.fate == "returned"].card.isin(RULES.tavern.parrots)).all()
    # one game played alone: the held rows are its final hands
    import cove_golden as golden

    from simulator.cove.fast.engine import FastGames

    eng = FastGames(RULES, MIX)
    ch = eng.play([MIX], [Block(0, 0, 1, 11)], record=True)
    rows = pd.DataFrame(
        [r[3:] for r in eng.card_rows(ch, [0], [0], [MIX])],
        columns=["seat", "draw", "card", "m", "p", "fate", "mo", "po"],
    )
    final = golden.final_state(eng, ch)
    for s, seat in enumerate(final["seats"]):
        held = sorted(rows[(rows.seat == s) & (rows.fate == "held")].card)
        assert held == sorted(card_name(c) for c in seat["hand"])
    combat = rows[rows.card.isin(BATTLE_CARDS + VOLLEY_CARDS) & (rows.fate == "played")]
    assert (combat.po == "combat").all()


def test_card_value_pairs_are_exact_and_do_not_depend_on_jobs():
    """A fame card changes nothing but its holder's final fame: every paired difference of a fame
    card is exactly its value (the two games are the same game); results equal at 1 and 2 jobs."""
    pairs1, s1 = card_value(None, 6, seed=21, n_jobs=1)
    pairs2, s2 = card_value(None, 6, seed=21, n_jobs=2)
    assert s1["cards"] == s2["cards"]
    pd.testing.assert_frame_equal(pairs1, pairs2)
    for k in (1, 2, 3):
        d = pairs1[pairs1.card == f"fame_{k}"]
        assert len(d) > 0 and ((d.fame_with - d.fame_blank) == k).all()
    assert set(s1["cards"]) == set(tavern_card_names(RULES))
    for v in s1["cards"].values():
        assert set(v) == {"win_rate_effect", "ci95", "fame_effect", "n"} and 0 < v["n"] <= 6
    assert s1["games"] == 6 + len(pairs1) and BLANK not in set(pairs1.card)


def test_card_value_cli_json_files_and_errors(tmp_path):
    out = tmp_path / "cv"
    obj = json.loads(
        run("card-value", "-n", "4", "--seed", "2", "--out", str(out), "--format", "json").stdout
    )
    assert list(obj["cards"]) == list(tavern_card_names(RULES)) and obj["seed"] == "2"
    smoke = obj["cards"]["smoke"]
    assert set(smoke) == {"win_rate_effect", "ci95", "fame_effect", "n"}
    for f in ("card_value.csv", "card_value.parquet", "pairs.csv", "card_value.json"):
        assert (out / f).exists()
    assert json.loads((out / "card_value.json").read_text())["cards"] == obj["cards"]
    csv = run("card-value", "-n", "2", "--seed", "2", "--format", "csv").stdout
    assert csv.splitlines()[0].startswith("card,n,win_rate_effect,ci95_low,ci95_high")
    proc = run(
        "card-value", "-n", "2", "--strategies", "plunderer,nobody,tavern,balanced", check=False
    )
    assert proc.returncode == 2 and "nobody" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_pinned_pairs_are_played_again():
    """The pinned sample (3 seat-rotated deals of the default mix, the readable implementation's
    pairs): the compiled card value gives the same pairs table, row for row."""
    data = json.loads(PAIRS_DATA.read_text())
    assert data["case"] == CARD_VALUE_CASE
    pairs, summary = card_value(None, **CARD_VALUE_CASE)
    want = pd.DataFrame([tuple(r) for r in data["pairs"]], columns=data["columns"])
    pd.testing.assert_frame_equal(pairs, want)
    assert summary["games"] == CARD_VALUE_CASE["n"] + len(want)


def test_a_kind_the_engine_does_not_play_is_refused_in_one_line(monkeypatch):
    from simulator.cove.fast import packed

    monkeypatch.setattr(packed, "COMPILED_ROOTS", ("heuristic-v1", "random", packed.EV_ROOT))
    with pytest.raises(UserError, match=r"kinds rollout are not compiled") as err:
        card_value(None, 1, strategies=["rollout", "brawler", "tavern"], seed=1)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("card", ["smoke", "flint", "artisan"])
def test_the_blank_replaces_exactly_the_first_copy_its_holder_draws(card):
    """Same block streams, one copy swapped: the two card records agree up to that draw, where
    the holder gets the blank; the blank is held to the end."""
    block = Block(index=0, start=0, size=1, entropy=99)
    eng = FastGames(RULES, MIX)
    base = eng.play([MIX], [block], record=True).rec[:, 1:]
    names = eng.tables.card_names
    k = next(i for i, r in enumerate(base) if names[r[RC_CODE]] == card)
    holder, draw = int(base[k, RC_SEAT]), int(base[k, RC_DRAW])
    alt = eng.play([MIX], [block], record=True, swap=(holder, card)).rec[:, 1:]
    assert (alt[:k, : RC_CODE + 1] == base[:k, : RC_CODE + 1]).all()
    swapped = alt[k]
    assert (swapped[RC_SEAT], swapped[RC_DRAW], swapped[RC_CODE]) == (holder, draw, C_BLANK)
    assert swapped[RC_FATE] == FATE_HELD and names[C_BLANK] == BLANK
    assert int((alt[:, RC_CODE] == C_BLANK).sum()) == 1
