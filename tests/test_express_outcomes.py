"""Pirates express: the convoy scenario's own geometry (issue 27, item 6), and the flag on runs in
which an outcome of the game (a side's win, a draw, a scenario objective) never happened: the
``express battle`` command (a warning line on stderr, ``never_happened`` in its JSON) and the
report (a warning beside the nation matrix)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from cli import cli
from reports.html import Paragraph, Section, TableBlock
from reports.sections import express as express_section
from scenarios.loader import ScenarioError, load_scenario
from simulator.express import api, battle
from simulator.express.core import (
    F_X,
    F_Y,
    RF_CONVOY_START,
    RF_D,
    RF_DEPLOY_DEPTH,
    RF_W,
    RI_MAX_TURNS,
    S_CONVOY,
    S_N,
    pack_rules,
)
from simulator.express.rules import ExpressRules
from simulator.stats import wilson_interval

STD = load_scenario(None, ExpressRules).rules
LONG = load_scenario("long-edges", ExpressRules).rules
MIRROR = "none:5,3,2,1,1 captain@0 gunner@1 carpenter@2 helmsman@3"


# ---------------------------------------------------------------------------------------------
# The convoy's own table depth, start lines and turn limit


def test_only_the_convoy_game_uses_the_convoy_geometry():
    c = STD.convoy
    for name in ("pitched", "treasure"):
        p = pack_rules(STD, name)
        assert p.ri[RI_MAX_TURNS] == STD.turns.max_turns
        assert (p.rf[RF_W], p.rf[RF_D]) == (STD.table.width_cm, STD.table.depth_cm)
        assert p.rf[RF_DEPLOY_DEPTH] == STD.table.deployment_depth_cm
    p = pack_rules(STD, "convoy")
    assert p.ri[RI_MAX_TURNS] == c.max_turns
    assert (p.rf[RF_W], p.rf[RF_D]) == (c.table_depth_cm, STD.table.depth_cm)  # short edges
    assert (p.rf[RF_DEPLOY_DEPTH], p.rf[RF_CONVOY_START]) == (
        c.deployment_depth_cm,
        c.convoy_start_cm,
    )
    p = pack_rules(LONG, "convoy")  # long edges: the depth is the distance between the fleets
    assert (p.rf[RF_W], p.rf[RF_D]) == (LONG.table.width_cm, LONG.convoy.table_depth_cm)


@pytest.mark.parametrize("rules", [STD, LONG], ids=["short-edges", "long-edges"])
def test_fleets_and_convoy_start_on_their_lines(rules):
    """Deployment of a convoy game: every ship on its fleet's start line, the convoy ships on
    theirs, the defender the d6 roll-off's loser (edges and defender both vary with the seed)."""
    c = dataclasses.replace(rules.convoy, convoy_start_cm=7.5)
    rules = dataclasses.replace(rules, convoy=c)
    pairing = api.make_pairing(MIRROR, MIRROR, rules, "admiral", "convoy")
    n = pairing.fleets.shape[1]
    long = rules.table.deployment == "long_edges"
    axis = F_Y if long else F_X
    far = c.table_depth_cm
    for seed in range(12):
        si = np.zeros((2, n, S_N), dtype=np.int64)
        sf = np.zeros((2, n, 2))
        eng = np.zeros((n, n), dtype=np.bool_)
        edges = np.zeros(2, dtype=np.int64)
        rng = np.random.default_rng(seed)
        defender, _ = battle._setup(
            rng, si, sf, eng, np.zeros(5), edges, pairing.fleets, pairing.ri, pairing.rf
        )
        assert si[defender, :, S_CONVOY].tolist() == [0, 0, 0, 1, 1]  # the two 1-mast ships
        for s in range(2):
            for i in range(n):
                line = c.convoy_start_cm if si[s, i, S_CONVOY] else c.deployment_depth_cm
                want = line if edges[s] == 0 else far - line
                assert sf[s, i, axis] == pytest.approx(want), (seed, s, i)


@pytest.mark.parametrize(
    ("overlay", "key"),
    [
        ("[convoy]\ndeployment_depth_cm = 45.0\n", "convoy.deployment_depth_cm"),
        ("[convoy]\nconvoy_start_cm = 89.5\n", "convoy.convoy_start_cm"),
        ("[convoy]\nmax_turns = 0\n", "convoy.max_turns"),
    ],
)
def test_impossible_convoy_geometry_names_the_key(tmp_path, overlay, key):
    f = tmp_path / "o.toml"
    f.write_text('game = "express"\nrules_version = "x"\nextends = "standard"\n' + overlay)
    with pytest.raises(ScenarioError) as info:
        load_scenario(f, ExpressRules)
    assert key in str(info.value) and "\n" not in str(info.value)


def test_convoy_between_admirals_is_a_contest():
    """Admiral against admiral in the standard convoy (no-power mirror, 600 battles, seed 27):
    each side (defender, attacker) wins with a 95 % Wilson lower bound above 10 %, draws too
    happen, and convoy ships leave. The measured rates are about 0.49, 0.42, 0.08 and 0.15 (in
    4,000 battles, docs/rules-express.md): at n = 600 a side that truly won 10 % would pass with
    probability below 0.025, one winning 0.42 fails with probability below 1e-9."""
    pairing = api.make_pairing(MIRROR, MIRROR, STD, "admiral", "convoy")
    rows = api.play_pairing(pairing, 600, 27)
    counts = api.outcome_counts(rows, "convoy")
    for side in ("defender_win", "attacker_win"):
        assert wilson_interval(counts[side], 600)[0] > 0.10, counts
    assert api.never_happened(counts) == [], counts


# ---------------------------------------------------------------------------------------------
# Outcome counts and the flag


def test_outcome_counts_are_the_rows_counts():
    """Exact, on hand-made rows: result (A, B, draw), defender, exits, treasure end."""
    rows = np.zeros((6, len(battle.OUT_COLUMNS)), dtype=np.int64)
    rows[:, battle.O_RESULT] = [0, 1, 2, 0, 1, 1]
    rows[:, battle.O_DEF] = [0, 0, 1, 1, 1, 0]
    rows[:, battle.O_EXITS] = [0, 2, 0, 1, 0, 0]
    got = api.outcome_counts(rows, "convoy")
    # the defender wins games 0 (A defends, A wins) and 4 (B, B); the attacker 1, 3 and 5
    assert got == {
        "a_win": 2,
        "b_win": 3,
        "draw": 1,
        "defender_win": 2,
        "attacker_win": 3,
        "convoy_exit": 2,
    }
    assert api.never_happened(got) == []
    rows[:, battle.O_TREASURE] = [0, 1, 1, 0, 0, 0]
    got = api.outcome_counts(rows, "treasure")
    assert (got["treasure_held"], got["treasure_home"]) == (2, 0)
    assert api.never_happened(got) == ["treasure_home"]
    assert api.never_happened(api.outcome_counts(rows[:2], "pitched")) == ["draw"]


def test_never_happened_text_gives_the_runs_upper_bound():
    assert api.never_happened_text([], 200) is None
    text = api.never_happened_text(["draw", "convoy_exit"], 200)
    upper = wilson_interval(0, 200)[1]
    assert "a draw, a convoy exit" in text and f"{upper:.1%}" in text and "200" in text


def _battle(args):
    return CliRunner().invoke(
        cli,
        ["express", "battle", "--fleet", MIRROR, "--vs", MIRROR, "--jobs", "1", *args],
    )


def test_battle_command_flags_an_outcome_that_never_happened():
    """Gunline against gunline in the convoy (seed 1, 100 battles): no convoy ship leaves and no
    game is drawn; the command says so on one stderr line, even with --quiet, and in the JSON."""
    res = _battle(["--scenario-name", "convoy", "--commanders", "gunline", "-n", "100"]
                  + ["--seed", "1", "--format", "json", "-q"])  # fmt: skip
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert obj["never_happened"] == ["draw", "convoy_exit"]
    assert obj["outcomes"]["convoy_exit"] == obj["outcomes"]["draw"] == 0
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("warning: never happened in 100 battles")
    assert "a draw, a convoy exit" in lines[0]


def test_battle_command_is_silent_when_every_outcome_happened():
    """Admiral against admiral in the convoy (seed 3, 300 battles): both fleets win, both roles
    win, games are drawn and convoy ships leave; no warning, an empty list."""
    res = _battle(["--scenario-name", "convoy", "-n", "300", "--seed", "3", "--format", "json"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert obj["never_happened"] == [] and min(obj["outcomes"].values()) > 0
    assert set(obj["outcomes"]) == {
        "a_win",
        "b_win",
        "draw",
        "defender_win",
        "attacker_win",
        "convoy_exit",
    }
    assert "warning" not in res.stderr


def _matrix_df(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "nation": ["spain", "spain"],
            "vs": ["spain", "viking"],
            "n": [n, n],
            "win": [0.5, 0.4],
            "win_lo": [0.3, 0.2],
            "win_hi": [0.7, 0.6],
            "draw": [0.0, 0.0],
            "mean_vp_margin": [0.0, -1.0],
            "conclusive": [False, False],
        }
    )


def test_report_notes_beside_the_matrix_the_outcomes_that_never_happened():
    sec = Section("express", "Pirates express")
    express_section.matrix_table(sec, _matrix_df(20), {"never_happened": ["draw"]})
    table, note = sec.blocks[-2:]
    assert isinstance(table, TableBlock) and table.stem == "express_nation_matrix"
    assert isinstance(note, Paragraph) and note.kind == "warning"
    assert "never happened in 40 battles: a draw" in note.text
    sec = Section("express", "Pirates express")
    express_section.matrix_table(sec, _matrix_df(20), {"never_happened": []})
    assert len(sec.blocks) == 1 and isinstance(sec.blocks[0], TableBlock)


def test_the_matrix_summary_carries_its_outcomes():
    """``nation_matrix`` pools its battles' outcomes: what the report's note reads."""
    df, s = api.nation_matrix(n=3, nations=["spain", "viking"], seed=5, commanders="gunline")
    assert sum(s["outcomes"][k] for k in ("a_win", "b_win", "draw")) == 12
    assert s["never_happened"] == api.never_happened(s["outcomes"])


def test_the_trace_counts_behind_the_docs_table():
    """``python -m simulator.express.traces`` (the table of docs/rules-express.md): counts agree
    with the battles' own rows (convoy ships fielded, exits) on a few games."""
    from simulator.express import traces

    c = traces.count_events("convoy", "admiral", "admiral", 6, 0)
    pairing = api.make_pairing(MIRROR, MIRROR, STD, "admiral,admiral", "convoy")
    exits = sum(int(api.play_traced(pairing, k)[0][battle.O_EXITS]) for k in range(6))
    assert c[0]["convoy_fielded"] + c[1]["convoy_fielded"] == 12
    assert c[0]["convoy_exits"] + c[1]["convoy_exits"] == exits
    for side in c:
        assert side["convoy_sunk"] + side["convoy_exits"] <= side["convoy_fielded"]
    assert len(traces.table(1, 0).splitlines()) == 2 + len(traces.PAIRINGS)
