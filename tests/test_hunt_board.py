"""Les Pirates board maps: parsing, validation errors (one line each), rendering."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli import cli
from scenarios.loader import ScenarioError, load_scenario
from simulator.hunt.board import STRAIT, TRADE, parse_board
from simulator.hunt.rules import HuntRules

STANDARD = load_scenario("standard", HuntRules)
GOOD = STANDARD.raw["board"]["map"]


def write(tmp_path, map_text=GOOD, pairs="[[0, 8, 11, 8], [0, 9, 11, 9]]"):
    """A user's scenario file: standard.toml with its [board] table replaced."""
    with open(STANDARD.path, encoding="utf-8") as fh:
        base = fh.read()
    head, rest = base.split("[board]", 1)
    tail = "[movement]" + rest.split("[movement]", 1)[1]
    board = f"[board]\nmap = '''{map_text}'''\nstrait_pairs = {pairs}\n\n"
    p = tmp_path / "board.toml"
    p.write_text(
        head.replace('name = "standard"', 'name = "custom"') + board + tail, encoding="utf-8"
    )
    return p


def test_standard_board_counts():
    b = parse_board(STANDARD.rules.board)
    assert (b.rows, b.cols) == (12, 18)
    assert sum(k == TRADE for k in b.kind) == 20
    assert sum(k == STRAIT for k in b.kind) == 2
    assert len(b.anchorage_nodes) == 8 and b.port_numbers == (1, 2, 3, 4)
    assert all(len(x) == 3 for x in b.berth_nodes)


def test_double_board_loads():
    sc = load_scenario("double", HuntRules)
    b = parse_board(sc.rules.board)
    assert b.port_numbers == tuple(range(1, 9)) and len(b.islands) == 2
    assert sum(k == STRAIT for k in b.kind) == 4


def test_user_board_file_loads(tmp_path):
    p = write(tmp_path)
    sc = load_scenario(p, HuntRules)
    assert sc.name == "custom"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda m: m.replace("~~~~~~~~~~~~~~~~~~\n", "~~~~~~~~~~~~~~~~~\n", 1),
            "squares, row 0 has 18",
        ),
        (lambda m: m.replace("1b~~", "1k~~", 1), "unknown symbol 'k'"),
        (
            lambda m: m.replace("bb~~~~~~~~~~~~~~bb\n~~", "b~~~~~~~~~~~~~~~bb\n~~", 1),
            "port 1 has 2 berths",
        ),
        (lambda m: m.replace("~~~~~~~~@@~~~~~~~~", "~~~~~~~~@~~~~~~~~~", 1), "7 anchorages"),
        (lambda m: m.replace("3b~~", "1b~~", 1), "second anchor"),
        (
            lambda m: m.replace(
                "~~~~~~~~~~~~~~~~~~\n~~~~~~~~@@", "~~~~~~~~~~~~~~~~~~\n~~~~~~~~@@", 1
            ).replace(
                "~~~~~~~~~~~~~~~~~~\n~~~~~~~~~~~~~~~~~~\nbb~~~~~~~~~~~~~~bb\n3b",
                "~~~~~~~~~~~~~~~~~~\nXXXXXXXXXXXXXXXXXX\nbb~~~~~~~~~~~~~~bb\n3b",
                1,
            ),
            None,
        ),
    ],
)
def test_bad_maps_give_one_line_errors(tmp_path, mutate, message):
    bad = mutate(GOOD)
    p = write(tmp_path, bad)
    if message is None:  # the wall row above port 3 is fine: the strait still joins the sides
        load_scenario(p, HuntRules)
        return
    with pytest.raises(ScenarioError) as exc:
        load_scenario(p, HuntRules)
    text = str(exc.value)
    assert "\n" not in text and "board.map" in text and message in text and str(p) in text


def test_unreachable_square(tmp_path):
    bad = GOOD.replace(
        "~~~~~~~~~~~~~~~~~~\n~~~~~~~~~~~~~~~~~~\nbb~~",
        "~~~~~~~~~~~~~~~~~~\nXXXXXXXXXXXXXXXXXX\nbb~~",
        1,
    )
    bad = bad.replace("3b~~~~~~^^~~~~~~b4", "3b~~~~~~~~~~~~~~b4")
    p = write(tmp_path, bad, pairs="[[0, 8, 0, 9]]")
    with pytest.raises(ScenarioError, match="cannot be reached"):
        load_scenario(p, HuntRules)


def test_straits_must_be_paired(tmp_path):
    p = write(tmp_path, pairs="[[0, 8, 11, 8]]")
    with pytest.raises(
        ScenarioError, match=r"row 0, column 9: strait half is in no board.strait_pairs"
    ):
        load_scenario(p, HuntRules)
    p = write(tmp_path, pairs="[[0, 8, 11, 8], [0, 9, 5, 5]]")
    with pytest.raises(ScenarioError, match=r"strait_pairs\[1\].*not a strait half"):
        load_scenario(p, HuntRules)


def test_show_prints_the_board_and_json():
    r = CliRunner().invoke(cli, ["hunt", "show"])
    assert r.exit_code == 0, r.output
    assert "r05  ~~=====@##@=====~~" in r.output
    r = CliRunner().invoke(cli, ["hunt", "show", "--variant", "double-board", "--format", "json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.output)
    assert info["rows"] == 25 and info["treasures"] == 2 and info["dice"] == 4
