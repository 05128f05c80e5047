"""Balance under strong play (reports/strong_play.py and the report's strong-play part) on the
synthetic protocol game "toy" of tests/protocol_games.py, whose expected scores are exact.

The population is rock-paper-scissors at two players with the uniform equilibrium; the dud
scores 0.4 against each of them. With the toy's draw rate d = 0.1 a table's expected score is
``(1 - d) * M[x][o] + d / 2``, so against σ: rock, paper and scissors score exactly 1/2 (gain 0),
the dud 0.41 (gain -0.09), and seat 1 scores exactly 1/2 (the toy has no seat effect).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import protocol_games as toy
import pytest

from reports import strong_play as sp
from reports.html import Section
from reports.sections.common import strong_play
from scenarios.populations import load_population, population_text

K = 4  # standard errors
#: games per strategy. A slice of 32 games meets one opponent drawn from σ, so a member's slice
#: means vary with the draw (0.23, 0.5 or 0.77, variance 0.049, plus 0.25 / 32 within a slice):
#: its standard error is about sqrt(0.057 / 1,250) = 0.0068 and a bias of 2.7 points (K SE)
#: fails; the dud meets 0.41 from every member, its standard error is about
#: sqrt(0.24 / 40,000) = 0.0025 and a 1-point bias fails
N = 40_000


def _write(folder, scen, name="rps", equilibrium=None, scenario_hash=None):
    text = population_text(
        scenario=scen,
        players=2,
        population=["rock", "paper", "scissors"],
        equilibrium=equilibrium or {"rock": 1 / 3, "paper": 1 / 3, "scissors": 1 / 3},
        nash_gap=0.0,
        games_per_table=64,
        command="broadside metagame --game toy --population rock,paper,scissors",
        verdict="no dominant strategy",
        extra={},
    )
    if scenario_hash is not None:
        text = text.replace(scen.content_hash, scenario_hash)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def test_gains_against_the_equilibrium_match_the_exact_scores(tmp_path):
    """Each gain u(X, σ) - 1/2 within K standard errors of its exact value (0 for the members,
    -0.09 for the dud), at N games each: a 1-point bias fails. The exploitability row is the
    largest gain with a wider (Bonferroni) interval."""
    scen = toy.load()
    pop = load_population(_write(tmp_path, scen), scen)
    g = sp.gains_against(
        toy, pop, ["rock", "paper", "scissors", "dud"], n=N, seed=7, jobs=1
    ).set_index("strategy")
    exact = {"rock": 0.0, "paper": 0.0, "scissors": 0.0, "dud": 0.9 * 0.4 + 0.05 - 0.5}
    for name, want in exact.items():
        r = g.loc[name]
        assert r["games"] >= N
        assert abs(r["gain"] - want) <= K * r["se"], (name, r["gain"], want, r["se"])
        assert r["ci_low"] < r["gain"] < r["ci_high"]
    assert g["conclusive"].isin([True, False]).all()
    assert bool(g.loc["dud", "conclusive"]) and g.loc["dud", "ci_high"] < 0
    ex = g.loc["exploitability (by these strategies)"]
    best = g.drop(index="exploitability (by these strategies)")["gain"].idxmax()
    assert ex["best_of"] == best and ex["gain"] == g.loc[best, "gain"]
    assert ex["ci_high"] - ex["ci_low"] > g.loc[best, "ci_high"] - g.loc[best, "ci_low"]


def test_seats_drawn_from_the_equilibrium_play_whole_slices_with_no_seat_effect(tmp_path):
    """Every seat drawn from σ: only members sit, slices are whole, and seat 1 scores 1/2 within
    K standard errors at N games (a 1-point seat bias fails)."""
    scen = toy.load()
    pop = load_population(_write(tmp_path, scen), scen)
    seats = sp.play_under(toy, pop, n=N, seed=3, jobs=1)
    assert set(seats["strategy"]) == {"rock", "paper", "scissors"}
    games = seats["game"].nunique()
    assert games >= N and games % 32 == 0
    assert (seats.groupby("game")["score"].sum() - 1).abs().max() < 1e-12
    first = seats[seats["seat"] == 1]["score"]
    se = first.std(ddof=1) / math.sqrt(len(first))
    assert abs(first.mean() - 0.5) <= K * se
    # the same seed gives the same games (the seat draws come from the runner's streams)
    again = sp.play_under(toy, pop, n=64, seed=3, jobs=1)
    assert again.equals(seats[seats["game"] < 64].reset_index(drop=True))


def test_the_report_part_says_plainly_when_there_is_no_population(tmp_path, monkeypatch):
    monkeypatch.setattr(sp, "population_dir", lambda game: tmp_path / game)
    sec = Section("toy", "Toy")
    ctx = SimpleNamespace(jobs=1, engine_for=lambda api: None)
    out = strong_play(
        ctx, sec, toy, toy.load(), 1, game="toy", n=64, mix=["rock"], stem_prefix="toy"
    )
    assert out.claims == {} and out.runs == {} and not sec.claims
    assert "no population saved for this game yet" in sec.strong_play[0][0]


@pytest.mark.parametrize("inside", [False, True], ids=["outside", "inside-the-project"])
def test_a_population_of_another_scenario_is_listed_and_not_used(tmp_path, monkeypatch, inside):
    """The reason names the file: as given outside the project, from the project inside it (the
    page holds no path of the checkout)."""
    monkeypatch.setattr(sp, "population_dir", lambda game: tmp_path / game)
    if inside:  # the project's root is tmp_path: the file lies inside it
        monkeypatch.setattr(sp, "PROJECT_ROOT", tmp_path)
    scen = toy.load()
    _write(tmp_path / "toy", scen, scenario_hash="0123456789abcdef")
    sec = Section("toy", "Toy")
    out = strong_play(
        SimpleNamespace(jobs=1, engine_for=lambda api: None),
        sec,
        toy,
        scen,
        1,
        game="toy",
        n=64,
        mix=["rock"],
        stem_prefix="toy",
    )
    assert out.claims == {} and out.runs == {} and not sec.claims
    table = sec.tables["toy_populations"]
    where = "toy/rps.toml" if inside else str(tmp_path / "toy" / "rps.toml")
    assert table["status"].iloc[0].startswith(where)
    assert "scenario_hash" in table["status"].iloc[0]
    assert "no usable population" in sec.strong_play[0][0]


def test_the_report_part_measures_under_a_usable_population(tmp_path, monkeypatch):
    """The tables, the summary line and the strong-play measures the claims take (first seat,
    each strategy) come from the same rows."""
    monkeypatch.setattr(sp, "population_dir", lambda game: tmp_path / game)
    scen = toy.load()
    _write(tmp_path / "toy", scen)
    sec = Section("toy", "Toy")
    out = strong_play(
        SimpleNamespace(jobs=1, engine_for=lambda api: None),
        sec,
        toy,
        scen,
        5,
        game="toy",
        n=320,
        mix=["dud"],
        stem_prefix="toy",
    )
    assert set(out.claims) == {
        ("seat", 2, 1),
        ("seat", 2, 2),
        ("strategy", 2, "rock"),
        ("strategy", 2, "paper"),
        ("strategy", 2, "scissors"),
        ("strategy", 2, "dud"),
    }
    assert set(out.runs) == {2} and out.runs[2][0].name == "rps"
    claims = {c.key: c for c in sec.claims}
    assert set(out.claims.values()) <= set(claims)
    seats, gains = sec.tables["toy_strong_seats"], sec.tables["toy_strong_gains"]
    c = claims[out.claims[("seat", 2, 1)]]
    row = seats[(seats["population"] == "rps") & (seats["seat_in_turn_order"] == 1)].iloc[0]
    m = c.baseline
    assert (m.value, m.ci_low, m.ci_high) == (row["win_rate"], row["ci_low"], row["ci_high"])
    assert (m.crit, m.df) == (row["crit"], row["df"]) and c.anchor == "tbl-toy_strong_seats"
    m = claims[out.claims[("strategy", 2, "dud")]].baseline
    row = gains[gains["strategy"] == "dud"].iloc[0]
    assert m.value == pytest.approx(row["gain"] + 0.5)
    assert (m.ci_low, m.ci_high) == (row["score_ci_low"], row["score_ci_high"])
    # the exploitability row is a claim too, with its Bonferroni factor over the 4 strategies
    ex = claims["toy/strategy/2p/rps/exploitability (by these strategies)"].baseline
    assert ex.p_factor == 4.0 and ex.crit > m.crit
    line = sec.strong_play[0][0]
    assert "exploitability by the 4 real strategies tried" in line and "rps" in line


def test_the_populations_table_names_the_solver_and_its_gap_and_refuses_an_old_file(
    tmp_path, monkeypatch
):
    """A usable file's rows carry its solver (nash) and Nash gap; a file of the old format
    (which recorded `method`, possibly α-Rank's ranking) is listed as not used, with the
    loader's one-line reason."""
    monkeypatch.setattr(sp, "population_dir", lambda game: tmp_path / game)
    scen = toy.load()
    _write(tmp_path / "toy", scen)
    old = _write(tmp_path / "toy", scen, name="old").read_text()
    old = old.replace("broadside-population/2", "broadside-population/1")
    old = old.replace('solver = "nash"', 'method = "alpha-rank"')
    (tmp_path / "toy" / "old.toml").write_text(old)
    table = sp.weights_table(sp.find_populations("toy", scen)).set_index("population")
    assert set(table.loc["rps", "solver"]) == {"nash"} and (table.loc["rps", "nash_gap"] == 0).all()
    status = table.loc["old", "status"]
    assert "format" in status and "broadside-population/1" in status and "\n" not in status
