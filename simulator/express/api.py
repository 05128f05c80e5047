"""Python API for Pirates express studies (battles, nation matrix, crew value, fleet search).

Every function returns tidy pandas DataFrames plus a summary dict, and runs through
:func:`simulator.runner.run_chunks`: the same seed gives the same numbers for any ``jobs``.
Intervals are Wilson 95 % for proportions and normal 95 % for mean VP.

Example::

    from simulator.express import api
    df, summary = api.battle_stats("spain:5,3,2,1,1 captain@0", "viking:5,3,2,1,1", n=2000, seed=1)
    matrix, summary = api.nation_matrix(n=500, seed=1)
    crew, summary = api.crew_value(n=2000, seed=1)
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from scenarios.loader import Scenario, load_scenario
from scenarios.strategies import strategy_hash, unknown_name_message
from simulator import dice
from simulator.errors import UserError
from simulator.express import battle, racing
from simulator.express.admiral import pmf_table
from simulator.express.commanders import (
    Commander,
    commander_name,
    make_commander,
    parse_commanders,
)
from simulator.express.core import hit_on_at, nation_array, pack_rules
from simulator.express.fleets import (
    Fleet,
    Ship,
    canonical,
    enumerate_fleets,
    fleet_array,
    max_crews,
    parse_fleet,
    validate_fleet,
)
from simulator.express.rules import CREW_ROLES, SCENARIO_NAMES, ExpressRules
from simulator.output import SCHEMA_VERSION
from simulator.protocol import TABLE_PROVENANCE, PlayResult, outcomes_from_scores, score_summary
from simulator.runner import Block, Chunk, derive_seed, fresh_entropy, run_chunks
from simulator.stats import Z95, wilson_interval

COMPILED_ENGINE = racing.COMPILED_ENGINE
#: battles per block of random streams (part of the seed tree: a block's battles of a pairing
#: draw from its "dice" and "commanders" sub-streams, so numbers never depend on the chunk size)
BLOCK_SIZE = 100
DEFAULT_CHUNK = None  # chosen by the runner (whole blocks)


# ----------------------------------------------------------------------------------------------
# Set-up


def load(scenario: str | Scenario | None = None) -> Scenario:
    """The express scenario (a path, a built-in name, a loaded Scenario, or None: standard)."""
    if isinstance(scenario, Scenario):
        return scenario
    return load_scenario(scenario, ExpressRules)


def _check_nation(rules: ExpressRules, nation: str) -> None:
    if nation not in rules.nations:
        raise UserError(
            f"--nation {nation!r} is not a nation (allowed: {', '.join(rules.nations)})"
        )


def check_scenario_name(name: str | None) -> str | None:
    if name is not None and name not in SCENARIO_NAMES:
        raise UserError(f"--scenario-name {name!r} (allowed: {', '.join(SCENARIO_NAMES)})")
    return name


@dataclass(frozen=True)
class Pairing:
    """Everything the compiled engine needs for one fleet A vs fleet B match-up."""

    fleets: np.ndarray  # int64[2, ships, 4]
    nations: np.ndarray  # int64[2, NA_N]
    kinds: np.ndarray  # int64[2]
    params: np.ndarray  # float64[2, 4]
    ri: np.ndarray
    rf: np.ndarray
    move_cm: np.ndarray
    hit_on_cm: np.ndarray
    islands: np.ndarray

    def args(self):
        return (
            self.fleets,
            self.nations,
            self.kinds,
            self.params,
            self.ri,
            self.rf,
            self.move_cm,
            self.hit_on_cm,
            self.islands,
        )


def as_fleet(f: str | Fleet, rules: ExpressRules) -> Fleet:
    if isinstance(f, Fleet):
        validate_fleet(f, rules)
        return f
    return parse_fleet(f, rules)


def make_pairing(
    fleet_a: str | Fleet,
    fleet_b: str | Fleet,
    rules: ExpressRules,
    commanders: str | tuple[Commander, Commander] | None = None,
    scenario_name: str | None = None,
) -> Pairing:
    """Pack two fleets, their nations and commanders with the rules."""
    fa = as_fleet(fleet_a, rules)
    fb = as_fleet(fleet_b, rules)
    if commanders is None or isinstance(commanders, str):
        ca, cb = parse_commanders(commanders, rules)
    else:
        ca, cb = commanders
    packed = pack_rules(rules, check_scenario_name(scenario_name))
    n_ships = max(len(fa.ships), len(fb.ships))
    fleets = np.stack([fleet_array(fa, rules, n_ships), fleet_array(fb, rules, n_ships)])
    nations = np.stack([nation_array(rules, fa.nation), nation_array(rules, fb.nation)])
    kinds = np.array([ca.kind, cb.kind], dtype=np.int64)
    params = np.stack([ca.params(), cb.params()])
    return Pairing(
        fleets,
        nations,
        kinds,
        params,
        packed.ri,
        packed.rf,
        packed.move_cm,
        packed.hit_on_cm,
        packed.islands,
    )


@functools.cache
def volley_table() -> np.ndarray:
    """The admiral's exact volley odds (:func:`admiral.pmf_table`), made once per process."""
    t = pmf_table()
    t.setflags(write=False)
    return t


def _rngs(block: Block, pairing: int = 0) -> tuple[np.random.Generator, np.random.Generator]:
    """The dice and commanders' generators of one pairing in one block of battles."""
    return block.rng("dice", pairing), block.rng("commanders", pairing)


def play_pairing(pairing: Pairing, n: int, seed: int) -> np.ndarray:
    """Play ``n`` battles of a pairing in this process, as one block of a run with root seed
    ``seed``; int64[n, len(OUT_COLUMNS)]."""
    rng, prng = _rngs(Block(index=0, start=0, size=n, entropy=int(seed)))
    return battle.play_many(rng, prng, n, *pairing.args(), volley_table())


def play_traced(pairing: Pairing, seed: int, max_events: int = 4000):
    """One battle with its event trace (see ``battle.EV_*``)."""
    rng, prng = _rngs(Block(index=0, start=0, size=1, entropy=int(seed)))
    out, trace, n_ev, si = battle.play_traced(
        rng, prng, *pairing.args(), max_events, volley_table()
    )
    if n_ev > max_events:
        raise RuntimeError(f"trace overflow: {n_ev} events > {max_events}")
    return out, trace[:n_ev], si


# ----------------------------------------------------------------------------------------------
# Chunk tasks (module level: picklable)


def _pairings_chunk(chunk: Chunk, pairings: tuple[Pairing, ...]) -> np.ndarray:
    """Play ``chunk.size`` battles of every pairing; int64[len(pairings), size, N_OUT].

    Pairing ``p`` of block ``b`` draws from the block's ``dice`` and ``commanders`` sub-streams
    ``p``: the same battles whatever the chunk size or ``--jobs``."""
    out = []
    for p, pairing in enumerate(pairings):
        rows = []
        for block in chunk.blocks():
            rng, prng = _rngs(block, p)
            rows.append(battle.play_many(rng, prng, block.size, *pairing.args(), volley_table()))
        out.append(np.concatenate(rows))
    return np.stack(out)


def run_pairings(
    pairings, n, *, seed=None, jobs=1, quiet=True, chunk_size=DEFAULT_CHUNK, desc="battles"
):
    """Play n battles of each pairing through the runner; returns
    (int64[P, n, N_OUT], RunResult)."""
    if n <= 0:
        raise UserError(f"-n must be at least 1 (got {n})")
    task = functools.partial(_pairings_chunk, pairings=tuple(pairings))
    run = run_chunks(
        task,
        n,
        seed=seed,
        n_jobs=jobs,
        quiet=quiet,
        chunk_size=chunk_size,
        block_size=BLOCK_SIZE,
        desc=desc,
        compiled=COMPILED_ENGINE,
    )
    return np.concatenate(run.results, axis=1), run


# ----------------------------------------------------------------------------------------------
# Summaries


def outcome_summary(rows: np.ndarray) -> dict:
    """win / loss / draw counts with Wilson intervals and mean VP per side (A's point of view)."""
    n = int(rows.shape[0])
    res = rows[:, battle.O_RESULT]
    out: dict = {"n": n}
    for key, code in (("win", 0), ("loss", 1), ("draw", 2)):
        k = int((res == code).sum())
        lo, hi = wilson_interval(k, n)
        out[key] = {"count": k, "p": k / n if n else math.nan, "ci95": [lo, hi]}
    score = ((res == 0) + 0.5 * (res == 2)).astype(float)
    out["score"] = _mean_ci(score)
    out["mean_vp"] = {"a": _mean_ci(rows[:, battle.O_VP0]), "b": _mean_ci(rows[:, battle.O_VP1])}
    out["mean_vp_margin"] = _mean_ci(rows[:, battle.O_VP0] - rows[:, battle.O_VP1])
    out["mean_turns"] = float(rows[:, battle.O_TURNS].mean()) if n else math.nan
    return out


#: what can happen in a battle, in the words of the warning (``outcome_counts`` keys)
OUTCOME_WORDS = {
    "a_win": "a win of fleet A",
    "b_win": "a win of fleet B",
    "draw": "a draw",
    "defender_win": "a win of the convoy's defender",
    "attacker_win": "a win of the convoy's attacker",
    "convoy_exit": "a convoy exit",
    "treasure_held": "the treasure held at the end",
    "treasure_home": "the treasure brought home",
}


def outcome_counts(rows: np.ndarray, scenario_name: str) -> dict[str, int]:
    """Battles (rows of ``battle.OUT_COLUMNS``) in which each outcome happened: a win of either
    fleet and a draw; in a convoy game also a win of the defender and of the attacker and a convoy
    exit (at least one convoy ship left); in a treasure game the token held at the end and
    brought home."""
    res = rows[:, battle.O_RESULT]
    out = {"a_win": int((res == 0).sum()), "b_win": int((res == 1).sum())}
    out["draw"] = int((res == 2).sum())
    if scenario_name == "convoy":
        d = rows[:, battle.O_DEF]
        out["defender_win"] = int((res == d).sum())  # result 0 is A's win, defender 0 is A
        out["attacker_win"] = int((res == 1 - d).sum())
        out["convoy_exit"] = int((rows[:, battle.O_EXITS] > 0).sum())
    elif scenario_name == "treasure":
        out["treasure_held"] = int((rows[:, battle.O_TREASURE] == 1).sum())
        out["treasure_home"] = int((rows[:, battle.O_TREASURE] == 2).sum())
    return out


def never_happened(counts: dict[str, int]) -> list[str]:
    """The outcomes of :func:`outcome_counts` that no battle of the run had."""
    return [k for k, v in counts.items() if v == 0]


def never_happened_text(missing: list[str], n: int) -> str | None:
    """A sentence naming the outcomes no battle of a run of ``n`` had, with the 95 % upper bound
    on their rate that the run gives (Wilson, 0 of n); None when every outcome happened."""
    if not missing:
        return None
    words = ", ".join(OUTCOME_WORDS[k] for k in missing)
    upper = wilson_interval(0, n)[1]
    return (
        f"never happened in {n:,} battles: {words} (0 of {n:,}: each below {upper:.1%} at 95% "
        "confidence; nothing of this run measures them)"
    )


def never_happened_warning(missing: list[str], n: int) -> str | None:
    """The warning line ``express battle`` prints on stderr (None when every outcome happened)."""
    text = never_happened_text(missing, n)
    return None if text is None else f"warning: {text}; the JSON lists them in never_happened"


def _mean_ci(values) -> dict:
    v = np.asarray(values, dtype=float)
    n = v.size
    if n == 0:
        return {"mean": math.nan, "ci95": [math.nan, math.nan]}
    m = float(v.mean())
    se = float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return {"mean": m, "se": se, "ci95": [m - Z95 * se, m + Z95 * se]}


def battles_frame(rows: np.ndarray) -> pd.DataFrame:
    """One row per battle with named columns."""
    df = pd.DataFrame(rows, columns=list(battle.OUT_COLUMNS))
    df.insert(0, "battle", np.arange(len(df)))
    df["result"] = df["result"].map({0: "a", 1: "b", 2: "draw"})
    return df


def _provenance(sc: Scenario, run, scenario_name, extra=None) -> dict:
    d = dict(sc.provenance())
    d["scenario_name"] = scenario_name or sc.rules.scenario
    d["seed"] = run.entropy
    d["block_size"] = BLOCK_SIZE
    d["method"] = "monte-carlo"
    if extra:
        d.update(extra)
    return d


def battle_stats(
    fleet_a: str | Fleet,
    fleet_b: str | Fleet,
    *,
    n: int = 1000,
    commanders=None,
    scenario: str | Scenario | None = None,
    scenario_name: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
    chunk_size: int | None = DEFAULT_CHUNK,
) -> tuple[pd.DataFrame, dict]:
    """Fleet A vs fleet B, ``n`` battles.

    Returns:
        (per-battle DataFrame, summary dict with ``n``, ``win``/``loss``/``draw`` (A's view) each
        with ``ci95``, ``mean_vp`` per side, fleets, commanders and provenance incl. ``seed``).
    """
    sc = load(scenario)
    rules = sc.rules
    fa, fb = as_fleet(fleet_a, rules), as_fleet(fleet_b, rules)
    cmd = (
        parse_commanders(commanders, rules)
        if commanders is None or isinstance(commanders, str)
        else commanders
    )
    pairing = make_pairing(fa, fb, rules, cmd, scenario_name)
    rows, run = run_pairings([pairing], n, seed=seed, jobs=jobs, quiet=quiet, chunk_size=chunk_size)
    rows = rows[0]
    summary = outcome_summary(rows)
    counts = outcome_counts(rows, scenario_name or rules.scenario)
    summary.update(
        fleet_a=fa.spec(),
        fleet_b=fb.spec(),
        commanders=[commander_name(c) for c in cmd],
        outcomes=counts,
        never_happened=never_happened(counts),
        provenance=_provenance(sc, run, scenario_name),
        seed=run.entropy,
    )
    return battles_frame(rows), summary


def mirrored_fleet(rules: ExpressRules, nation: str) -> Fleet:
    """The study's fleet for a nation: the mirrored fleet, except where the nation's power changes
    what is legal: France adds its fifth crew (``studies.mirrored_extra``), the Americans field
    ``studies.power_fleet`` (two 4-mast ships)."""
    power = rules.studies.power_fleet.get(nation)
    if power:
        return parse_fleet(power, rules, nation)
    base = parse_fleet(rules.studies.mirrored_fleet, rules, nation)
    extra = rules.studies.mirrored_extra.get(nation)
    if extra:
        return parse_fleet(f"{rules.studies.mirrored_fleet} {extra}", rules, nation)
    return base


def _matrix_frame(nations, rows3: np.ndarray) -> tuple[pd.DataFrame, list]:
    k = len(nations)
    recs = []
    matrix = []
    for a in range(k):
        line = []
        for b in range(k):
            s = outcome_summary(rows3[a * k + b])
            cell = {key: s[key]["p"] for key in ("win", "loss", "draw")}
            cell["ci95"] = {key: s[key]["ci95"] for key in ("win", "loss", "draw")}
            cell["score"] = s["score"]["mean"]
            cell["score_ci95"] = s["score"]["ci95"]
            cell["n"] = s["n"]
            cell["mean_vp_margin"] = s["mean_vp_margin"]["mean"]
            line.append(cell)
            recs.append(
                {
                    "nation": nations[a],
                    "vs": nations[b],
                    "n": s["n"],
                    "win": s["win"]["p"],
                    "win_lo": s["win"]["ci95"][0],
                    "win_hi": s["win"]["ci95"][1],
                    "loss": s["loss"]["p"],
                    "loss_lo": s["loss"]["ci95"][0],
                    "loss_hi": s["loss"]["ci95"][1],
                    "draw": s["draw"]["p"],
                    "draw_lo": s["draw"]["ci95"][0],
                    "draw_hi": s["draw"]["ci95"][1],
                    "score": s["score"]["mean"],
                    "score_lo": s["score"]["ci95"][0],
                    "score_hi": s["score"]["ci95"][1],
                    "mean_vp_margin": s["mean_vp_margin"]["mean"],
                }
            )
        matrix.append(line)
    return pd.DataFrame(recs), matrix


def nation_matrix(
    *,
    n: int = 500,
    fleets: str = "mirrored",
    commanders=None,
    scenario: str | Scenario | None = None,
    scenario_name: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
    chunk_size: int | None = DEFAULT_CHUNK,
    search_candidates: int | None = None,
    search_n0: int = 28,
    search_validate_n: int = 1400,
    nations=None,
) -> tuple[pd.DataFrame, dict]:
    """The nation x nation matrix (row nation = seat A).

    ``fleets="mirrored"``: every nation fields its study fleet (:func:`mirrored_fleet`: one fleet
    for all, France with its fifth crew, the Americans with their power fleet); ``"best"``: each
    nation's fleet is first found by a race over all its legal full fleets (:func:`fleet_search`),
    against the other nations' study fleets.
    """
    sc = load(scenario)
    rules = sc.rules
    nations = list(nations or rules.matrix_nations)
    if not nations:
        raise UserError("no nations: the scenario's matrix_nations is empty")
    if fleets not in ("mirrored", "best"):
        raise UserError(f"--fleets {fleets!r} (allowed: mirrored, best)")
    cmd = (
        parse_commanders(commanders, rules)
        if commanders is None or isinstance(commanders, str)
        else commanders
    )
    search_info = {}
    if fleets == "mirrored":
        chosen = {nat: mirrored_fleet(rules, nat) for nat in nations}
    else:
        seed = seed if seed is not None else fresh_entropy()
        found = best_fleets(
            nations=nations,
            scenario=sc,
            commanders=cmd,
            scenario_name=scenario_name,
            candidates=search_candidates,
            n0=search_n0,
            validate_n=search_validate_n,
            seed=seed,
            jobs=jobs,
            quiet=quiet,
        )
        chosen = {nat: parse_fleet(found["fleets"][nat], rules) for nat in nations}
        search_info = found["searches"]
    pairings = [
        make_pairing(chosen[a], chosen[b], rules, cmd, scenario_name)
        for a in nations
        for b in nations
    ]
    rows, run = run_pairings(
        pairings, n, seed=seed, jobs=jobs, quiet=quiet, chunk_size=chunk_size, desc="matrix battles"
    )
    df, matrix = _matrix_frame(nations, rows)
    counts = outcome_counts(rows.reshape(-1, rows.shape[-1]), scenario_name or rules.scenario)
    summary = {
        "nations": nations,
        "matrix": matrix,
        "outcomes": counts,
        "never_happened": never_happened(counts),
        "fleets": {nat: chosen[nat].spec() for nat in nations},
        "fleet_mode": fleets,
        "n": n,
        "commanders": [commander_name(c) for c in cmd],
        "provenance": _provenance(sc, run, scenario_name),
        "seed": run.entropy,
    }
    if search_info:
        summary["search"] = search_info
    return df, summary


def _commander_pair(rules: ExpressRules, commanders) -> tuple[Commander, Commander]:
    if commanders is None or isinstance(commanders, str):
        return parse_commanders(commanders, rules)
    return commanders


def _games_multiple(n: int, field_size: int) -> int:
    """``n`` rounded up to whole rounds of the field in both seats."""
    step = 2 * field_size
    return max(step, -(-n // step) * step)


def fleet_search(
    nation: str,
    *,
    scenario: str | Scenario | None = None,
    rules: ExpressRules | None = None,
    commanders=None,
    scenario_name: str | None = None,
    opponents=None,
    n0: int = 28,
    eta: int = 2,
    candidates: int | None = None,
    validate_n: int = 1400,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """A nation's best fleet: a race (successive halving, paired games) over every legal full
    fleet (all masts, every crew slot), then a validation on fresh games.

    The field is every opponent nation's study fleet (:func:`mirrored_fleet`); game ``g`` of a
    candidate meets field fleet ``g mod F`` with sides alternated, and every candidate meets the
    same dice in game ``g`` (:mod:`simulator.express.racing`). The candidates play
    ``commanders[0]``, the field ``commanders[1]`` (default: the scenario's ``default_mix``).
    ``candidates`` limits the race to the study fleet plus a seeded sample (None: every fleet).
    The winner's reported score comes from ``validate_n`` fresh games that the race never used,
    beside the study fleet's on the same games (no winner's curse).

    Returns:
        (one row per rung, summary with the fleet, its validated score and interval, the study
        fleet's, their paired difference, the finalists, the budget and the seeds).
    """
    if rules is None:
        sc = load(scenario)
        rules = sc.rules
    _check_nation(rules, nation)
    if n0 < 1 or validate_n < 1:
        raise UserError(f"--search-n and --validate-n must be at least 1 (got {n0}, {validate_n})")
    if eta < 2:
        raise UserError(f"--eta {eta} (allowed: 2 or more)")
    cmd = _commander_pair(rules, commanders)
    entropy = int(seed) if seed is not None else fresh_entropy()
    study = mirrored_fleet(rules, nation)
    pool = enumerate_fleets(rules, nation, full_only=True)
    keys = {f.ships: k for k, f in enumerate(pool)}
    if canonical(study).ships not in keys:
        pool.append(canonical(study))
    if candidates is not None and candidates < len(pool):
        if candidates < 1:
            raise UserError(f"--candidates {candidates} (allowed: at least 1)")
        others = [f for f in pool if f.ships != canonical(study).ships]
        pick = Block(0, 0, 1, derive_seed(entropy, "fleet-sample")).rng("sample")
        idx = pick.choice(len(others), size=candidates - 1, replace=False)
        chosen = [canonical(study)] + [others[i] for i in sorted(idx)]
    else:
        chosen = pool
    opponents = list(opponents or rules.matrix_nations)
    field_fleets = [mirrored_fleet(rules, o) for o in opponents]
    packed = pack_rules(rules, check_scenario_name(scenario_name))
    field_seats = racing.make_seats([(f, cmd[1]) for f in field_fleets], rules)
    res = racing.race(
        racing.make_seats([(f, cmd[0]) for f in chosen], rules),
        field_seats,
        packed,
        n0=n0,
        eta=eta,
        seed=derive_seed(entropy, "fleet-race"),
        jobs=jobs,
        quiet=quiet,
    )
    best = chosen[res.winner]
    n_val = _games_multiple(validate_n, len(field_fleets))
    codes, margins, vrun = racing.paired_games(
        racing.make_seats([(best, cmd[0]), (study, cmd[0])], rules),
        field_seats,
        packed,
        n_val,
        seed=derive_seed(entropy, "fleet-validate"),
        jobs=jobs,
        quiet=quiet,
        desc="validation",
    )
    sc_best, sc_study = racing.scores(codes[0]), racing.scores(codes[1])
    rungs = pd.DataFrame([dataclasses.asdict(r) for r in res.rungs])
    summary = {
        "nation": nation,
        "fleet": best.spec(),
        "study_fleet": study.spec(),
        "pool": len(pool),
        "candidates": len(chosen),
        "field": [f.spec() for f in field_fleets],
        "commanders": [commander_name(c) for c in cmd],
        "scenario_name": scenario_name or rules.scenario,
        "n0": int(res.rungs[0].games_each),
        "eta": eta,
        "rungs": rungs.to_dict("records"),
        "race_battles": res.battles,
        "race_wall_time_s": res.wall_time_s,
        "race_cpu_s": res.cpu_s,
        "finalists": [
            {"fleet": chosen[k].spec(), "score": float(res.score[k]), "games": int(res.games[k])}
            for k in res.finalists
        ],
        "validation": {
            "n": n_val,
            "score": _mean_ci(sc_best),
            "study_score": _mean_ci(sc_study),
            "gain_over_study": _mean_ci(sc_best - sc_study),
            "vp_margin": _mean_ci(margins[0]),
            "wall_time_s": vrun.wall_time_s,
            "cpu_s": vrun.meta["cpu_s"],
        },
        "seed": entropy,
        "streams": "runner blocks: one per game ('dice', 'commanders'), games of a rung shared by "
        "every candidate; race seed = derive_seed(seed, 'fleet-race'), validation = "
        "derive_seed(seed, 'fleet-validate')",
    }
    return rungs, summary


def best_fleets(
    *,
    nations=None,
    scenario: str | Scenario | None = None,
    commanders=None,
    scenario_name: str | None = None,
    candidates: int | None = None,
    n0: int = 28,
    eta: int = 2,
    validate_n: int = 1400,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
) -> dict:
    """:func:`fleet_search` for each nation (default: the matrix nations), each against every
    nation's study fleet; nation ``k`` searches with ``derive_seed(seed, "fleet-search", k)``
    (the seeds ``matrix --fleets best`` uses)."""
    sc = load(scenario)
    rules = sc.rules
    field_nations = list(rules.matrix_nations)
    nations = list(nations or field_nations)
    for nat in nations:
        _check_nation(rules, nat)
    cmd = _commander_pair(rules, commanders)
    entropy = int(seed) if seed is not None else fresh_entropy()
    searches = {}
    for k, nat in enumerate(nations):
        _rungs, info = fleet_search(
            nat,
            rules=rules,
            commanders=cmd,
            scenario_name=scenario_name,
            opponents=field_nations,
            n0=n0,
            eta=eta,
            candidates=candidates,
            validate_n=validate_n,
            seed=derive_seed(entropy, "fleet-search", k),
            jobs=jobs,
            quiet=quiet,
        )
        searches[nat] = info
    return {
        "nations": nations,
        "fleets": {nat: searches[nat]["fleet"] for nat in nations},
        "searches": searches,
        "commanders": [commander_name(c) for c in cmd],
        "field_nations": field_nations,
        "field": [mirrored_fleet(rules, o).spec() for o in field_nations],
        "race_battles": int(sum(x["race_battles"] for x in searches.values())),
        "race_cpu_s": float(sum(x["race_cpu_s"] for x in searches.values())),
        "race_wall_time_s": float(sum(x["race_wall_time_s"] for x in searches.values())),
        "seed": entropy,
        "provenance": {
            **dict(sc.provenance()),
            "scenario_name": scenario_name or rules.scenario,
            "seed": entropy,
            "method": "monte-carlo race, paired block streams",
        },
    }


@dataclass(frozen=True)
class StrategySeat:
    """What a strategy brings to the table: its commander, nation and fleet."""

    name: str
    commander: Commander
    fleet: Fleet


def strategy_seat(rules: ExpressRules, name: str) -> StrategySeat:
    """The seat of ``[strategies.NAME]``: its commander, and its fleet (default: the study fleet of
    ``nation``, itself defaulting to ``studies.mirror_nation``)."""
    cmd = make_commander(name, rules)
    strat = rules.strategies[name]
    nation = strat.nation or rules.studies.mirror_nation
    fleet = (
        parse_fleet(strat.fleet, rules, nation) if strat.fleet else mirrored_fleet(rules, nation)
    )
    return StrategySeat(name, cmd, fleet)


def strategies(scenario: str | Scenario | None = None):
    """The scenario's named strategies (``[strategies.*]``)."""
    return load(scenario).rules.strategies


def kinds(scenario: str | Scenario | None = None):
    """The commander kinds and their parameter spaces (``[kinds.*]``)."""
    return load(scenario).rules.kinds


def default_mix(scenario: str | Scenario | None = None) -> tuple[str, ...]:
    """The strategies of seat A and seat B when none are named."""
    return tuple(load(scenario).rules.default_mix)


def player_counts(scenario: str | Scenario | None = None) -> tuple[int, ...]:
    """Pirates express is a two-player game."""
    return (2,)


def _duel_summary(codes: np.ndarray, margins: np.ndarray) -> dict:
    n = int(codes.size)
    out: dict = {"n": n}
    for key, code in (("win", racing.WIN), ("loss", racing.LOSS), ("draw", racing.DRAW)):
        k = int((codes == code).sum())
        lo, hi = wilson_interval(k, n)
        out[key] = {"count": k, "p": k / n if n else math.nan, "ci95": [lo, hi]}
    out["score"] = _mean_ci(racing.scores(codes))
    out["mean_vp_margin"] = _mean_ci(margins)
    return out


def commander_duel(
    me: Commander,
    other: Commander,
    fleet: str | Fleet,
    *,
    rules: ExpressRules,
    scenario_name: str | None = None,
    n: int = 2000,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """Commander ``me`` against ``other`` in a mirror (both sides field ``fleet``), seats
    alternated game by game, on the runner's block streams.

    Returns:
        (one row per game: seat of ``me``, result, VP margin; summary with win / loss / draw
        (Wilson 95 %), score (win + draw/2) and VP margin (normal 95 %)).
    """
    f = as_fleet(fleet, rules)
    n = _games_multiple(n, 1)
    entropy = int(seed) if seed is not None else fresh_entropy()
    packed = pack_rules(rules, check_scenario_name(scenario_name))
    codes, margins, _run = racing.paired_games(
        racing.make_seats([(f, me)], rules),
        racing.make_seats([(f, other)], rules),
        packed,
        n,
        seed=entropy,
        jobs=jobs,
        quiet=quiet,
        desc="duel",
    )
    df = pd.DataFrame(
        {
            "game": np.arange(n),
            "seat": np.where(np.arange(n) % 2 == 0, "a", "b"),
            "result": pd.Categorical.from_codes(codes[0], ["win", "loss", "draw"]),
            "vp_margin": margins[0],
        }
    )
    summary = _duel_summary(codes[0], margins[0])
    summary.update(
        commander=commander_name(me),
        vs=commander_name(other),
        fleet=f.spec(),
        scenario_name=scenario_name or rules.scenario,
        seed=entropy,
    )
    return df, summary


def commander_table(
    names: list[str] | None = None,
    *,
    scenario: str | Scenario | None = None,
    nation: str | None = None,
    fleet: str | None = None,
    scenario_names: list[str] | None = None,
    n: int = 2000,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """Every commander against every commander (each strategy name in ``names``), in a mirror of
    ``fleet`` (default: the study fleet of ``nation``, default ``studies.mirror_nation``), seats
    alternated, ``n`` battles per pair and scenario. Every pair meets the same dice in game ``g``
    of a scenario (paired seeds), so the columns of the table are comparable.

    Returns:
        (one row per scenario name, commander and opponent with the score share and its 95 %
        interval, win / draw / loss with Wilson intervals and the VP margin; summary with the
        table as records, the exits and sinkings of convoy ships, and provenance).
    """
    sc = load(scenario)
    rules = sc.rules
    names = list(names or ["admiral", "gunline", "boarder"])
    cmds = [make_commander(x, rules) for x in names]
    nation = nation or rules.studies.mirror_nation
    _check_nation(rules, nation)
    f = parse_fleet(fleet, rules, nation) if fleet else mirrored_fleet(rules, nation)
    scenario_names = list(scenario_names or SCENARIO_NAMES)
    for x in scenario_names:
        check_scenario_name(x)
    entropy = int(seed) if seed is not None else fresh_entropy()
    k = len(cmds)
    n_games = _games_multiple(n * k, k)
    seats = racing.make_seats([(f, c) for c in cmds], rules)
    recs = []
    for si_, sn in enumerate(scenario_names):
        packed = pack_rules(rules, sn)
        codes, margins, _run = racing.paired_games(
            seats,
            seats,
            packed,
            n_games,
            seed=derive_seed(entropy, "duel", si_),
            jobs=jobs,
            quiet=quiet,
            desc=f"commanders {sn}",
        )
        opp = np.arange(n_games) % k
        for a in range(k):
            for b in range(k):
                sel = opp == b
                s = _duel_summary(codes[a, sel], margins[a, sel])
                recs.append(
                    {
                        "scenario_name": sn,
                        "commander": names[a],
                        "vs": names[b],
                        "n": s["n"],
                        "score": s["score"]["mean"],
                        "score_lo": s["score"]["ci95"][0],
                        "score_hi": s["score"]["ci95"][1],
                        "win": s["win"]["p"],
                        "draw": s["draw"]["p"],
                        "loss": s["loss"]["p"],
                        "vp_margin": s["mean_vp_margin"]["mean"],
                        "vp_margin_lo": s["mean_vp_margin"]["ci95"][0],
                        "vp_margin_hi": s["mean_vp_margin"]["ci95"][1],
                    }
                )
    df = pd.DataFrame(recs)
    summary = {
        "commanders": names,
        "fleet": f.spec(),
        "scenario_names": scenario_names,
        "n": int(n_games // k),
        "rows": recs,
        "seed": entropy,
        "provenance": {
            **dict(sc.provenance()),
            "seed": entropy,
            "method": "monte-carlo, paired block streams",
        },
    }
    return df, summary


def crew_value(
    *,
    n: int = 2000,
    commanders=None,
    scenario: str | Scenario | None = None,
    scenario_name: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
    chunk_size: int | None = DEFAULT_CHUNK,
) -> tuple[pd.DataFrame, dict]:
    """VP and win-rate gain of each crew role and each nation power over a no-power baseline.

    Crew roles: the baseline nation's bare fleet plus that one role on ``studies.crew_ship`` vs the
    bare baseline fleet. Nation powers: the nation with the full mirrored fleet (France: + its
    fifth crew; a nation with a ``power_fleet``: that fleet) vs the baseline nation with the full
    mirrored fleet. Both seats are otherwise identical, so the no-power mirror has score 1/2 and VP
    margin 0 exactly; ``score_gain`` = score - 1/2 and ``vp_gain`` = mean VP margin, with 95 %
    intervals.
    """
    sc = load(scenario)
    rules = sc.rules
    st = rules.studies
    cmd = (
        parse_commanders(commanders, rules)
        if commanders is None or isinstance(commanders, str)
        else commanders
    )
    base_nat = st.baseline_nation
    bare = parse_fleet(st.baseline_fleet, rules, base_nat)
    if st.crew_ship >= len(bare.ships):
        raise UserError(f"studies.crew_ship {st.crew_ship} is not a ship of {bare.spec()}")
    labels = []
    pairings = []
    for role in CREW_ROLES:
        ships = list(bare.ships)
        ships[st.crew_ship] = Ship(ships[st.crew_ship].masts, role, ships[st.crew_ship].oars)
        test = Fleet(base_nat, tuple(ships))
        validate_fleet(test, rules)
        labels.append(("crew", role, test.spec(), bare.spec()))
        pairings.append(make_pairing(test, bare, rules, cmd, scenario_name))
    full_base = parse_fleet(st.mirrored_fleet, rules, base_nat)
    for nat in rules.matrix_nations:
        if nat in st.power_fleet:
            test = parse_fleet(st.power_fleet[nat], rules, nat)
        else:
            test = mirrored_fleet(rules, nat)
        labels.append(("nation", nat, test.spec(), full_base.spec()))
        pairings.append(make_pairing(test, full_base, rules, cmd, scenario_name))
    rows, run = run_pairings(
        pairings,
        n,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
        chunk_size=chunk_size,
        desc="crew-value battles",
    )
    recs = []
    for (kind, name, test, base), r in zip(labels, rows):
        s = outcome_summary(r)
        sc_ = s["score"]
        vm = s["mean_vp_margin"]
        recs.append(
            {
                "kind": kind,
                "name": name,
                "n": s["n"],
                "win": s["win"]["p"],
                "loss": s["loss"]["p"],
                "draw": s["draw"]["p"],
                "score_gain": sc_["mean"] - 0.5,
                "score_gain_lo": sc_["ci95"][0] - 0.5,
                "score_gain_hi": sc_["ci95"][1] - 0.5,
                "vp_gain": vm["mean"],
                "vp_gain_lo": vm["ci95"][0],
                "vp_gain_hi": vm["ci95"][1],
                "fleet": test,
                "baseline": base,
            }
        )
    df = pd.DataFrame(recs)
    summary = {
        "n": n,
        "baseline_nation": base_nat,
        "commanders": [commander_name(c) for c in cmd],
        "rows": recs,
        "provenance": _provenance(sc, run, scenario_name),
        "seed": run.entropy,
    }
    return df, summary


# ----------------------------------------------------------------------------------------------
# Exact odds through the scenario's rules (the same numbers as ``broadside odds``)


def volley_odds(
    rules: ExpressRules,
    masts: int,
    range_cm: int,
    *,
    captain: bool = False,
    gunner: bool = False,
    nation: str | None = None,
) -> tuple[Fraction, ...]:
    """Exact hits distribution of one cannon volley at a whole-cm range."""
    packed = pack_rules(rules)
    h = hit_on_at(range_cm, packed.hit_on_cm)
    rerolls = rules.crew.captain_rerolls if captain else 0
    if nation:
        rerolls += rules.nations[nation].attack_rerolls
    extra = rules.crew.gunner_cannon_dice if gunner and masts > 0 else 0
    if masts <= 0:
        return (Fraction(1),)
    return dice.volley_pmf(masts, h, rerolls, extra)


def boarding_odds(
    rules: ExpressRules,
    masts_a: int,
    masts_b: int,
    *,
    extra_a: int = 0,
    extra_b: int = 0,
    reroll_a: int = 0,
    reroll_b: int = 0,
) -> dict[int, Fraction]:
    """Exact distribution of boarder successes minus defender successes (mastless: no dice)."""
    da = masts_a if masts_a > 0 else 0
    db = masts_b if masts_b > 0 else 0
    ea = extra_a if masts_a > 0 else 0
    eb = extra_b if masts_b > 0 else 0
    return dice.boarding_pmf(da, db, ea, eb, rules.boarding.success_on, reroll_a, reroll_b)


def disengage_odds(
    rules: ExpressRules,
    start: int,
    masts: int,
    nation: str | None = None,
    vs_mastless: bool = False,
) -> tuple[int, Fraction]:
    """(difficulty, exact probability) of one disengagement roll (difficulty 7: impossible)."""
    if vs_mastless and rules.disengagement.automatic_vs_mastless:
        return 1, Fraction(1)
    d = start + (start - masts)
    cap_n = rules.nations[nation].disengage_cap if nation else 0
    if cap_n and d > cap_n:
        d = cap_n
    cap = rules.disengagement.cap
    if cap <= 6 and d > cap:
        d = cap
    d = max(1, min(d, 7))
    return d, dice.p_hit(d)


def fleets_frame(
    rules: ExpressRules, nation: str, full_only: bool = False, oars: bool = False
) -> pd.DataFrame:
    """Every legal fleet of a nation as a table."""
    fl = enumerate_fleets(rules, nation, full_only=full_only, oars=oars)
    return pd.DataFrame(
        {
            "fleet": [f.spec() for f in fl],
            "ships": [len(f.ships) for f in fl],
            "masts": [",".join(str(s.masts) for s in f.ships) for f in fl],
            "total_masts": [f.total_masts for f in fl],
            "crews": [len(f.crews) for f in fl],
            "max_crews": max_crews(rules, nation),
        }
    )


# ----------------------------------------------------------------------------------------------
# The game protocol (simulator/protocol.py): seated play for the report, compare and the search

GAME = "express"
#: the engines of ``play(..., engine=...)``: the compiled one only
ENGINES = ("fast",)


def _seated_chunk(chunk: Chunk, pairings: tuple[Pairing, ...], rotate: bool) -> np.ndarray:
    """Battles of ``chunk``: game ``g`` is played by ``pairings[g % 2]`` when rotating (sides
    swapped on odd games), else ``pairings[0]``; each block's games of a pairing draw from its
    ``dice``/``commanders`` sub-streams (index = the pairing), in game order."""
    rows = np.zeros((chunk.size, len(battle.OUT_COLUMNS)), dtype=np.int64)
    for block in chunk.blocks():
        games = np.arange(block.start, block.start + block.size)
        rot = games % 2 if rotate else np.zeros_like(games)
        for p in (0, 1) if rotate else (0,):
            idx = np.flatnonzero(rot == p)
            if idx.size == 0:
                continue
            rng, prng = _rngs(block, p)
            out = battle.play_many(rng, prng, idx.size, *pairings[p].args(), volley_table())
            rows[games[idx] - chunk.start] = out
    return rows


def play(
    scenario=None,
    strategies: Sequence[str] | str | None = None,
    *,
    n: int,
    players: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    rotate_seats: bool = False,
    quiet: bool = True,
    check: bool = False,
    engine: str | None = None,
    chunk_size: int | None = None,
    scenario_name: str | None = None,
) -> PlayResult:
    """Play ``n`` seated battles (the protocol's ``play``): seat 1 is side A, seat 2 side B.

    A strategy is a seat: its commander (kind and parameters), nation and fleet
    (``[strategies.NAME]``). ``strategies``: two names (or one for both; ``None``: the scenario's
    ``default_mix``). With ``rotate_seats`` game ``g`` swaps the sides on odd ``g`` (rotation
    1), so each strategy plays each side equally often. Scores: 1 for a win, 1/2 each for a
    draw. ``scenario_name`` picks the battle scenario (pitched, treasure, convoy).
    """
    if engine not in (None, "fast"):
        raise UserError(f"--engine {engine!r} (allowed: fast; Pirates express is compiled only)")
    if check:
        raise UserError(
            "--check is not available for Pirates express (allowed: without --check; its "
            "invariants are checked by event-trace replays, tests/test_express_battle.py)"
        )
    sc = load(scenario)
    rules = sc.rules
    if players not in (None, 2):
        raise UserError(f"--players {players} (allowed: 2)")
    if strategies is None:
        names = list(rules.default_mix)
    else:
        names = (
            [s.strip() for s in strategies.split(",")]
            if isinstance(strategies, str)
            else list(strategies)
        )
    if len(names) == 1:
        names = names * 2
    if len(names) != 2:
        raise UserError(f"--strategies: {len(names)} given (allowed: 2, or 1 for both sides)")
    for name in names:
        if name not in rules.strategies:
            raise UserError(
                "--strategies: " + unknown_name_message("strategy", name, rules.strategies)
            )
    if n < 1:
        raise UserError(f"-n {n} (allowed: >= 1)")
    seats = [strategy_seat(rules, nm) for nm in names]
    ab = make_pairing(
        seats[0].fleet, seats[1].fleet, rules, (seats[0].commander, seats[1].commander),
        scenario_name,
    )  # fmt: skip
    ba = make_pairing(
        seats[1].fleet, seats[0].fleet, rules, (seats[1].commander, seats[0].commander),
        scenario_name,
    )  # fmt: skip
    prov = {
        **sc.provenance(),
        "scenario_name": scenario_name or rules.scenario,
        "strategy_hashes": {k: strategy_hash(rules.strategies[k]) for k in dict.fromkeys(names)},
    }
    run = run_chunks(
        functools.partial(_seated_chunk, pairings=(ab, ba), rotate=rotate_seats),
        n,
        seed=seed,
        n_jobs=jobs,
        quiet=quiet,
        chunk_size=chunk_size,
        block_size=BLOCK_SIZE,
        desc="battles",
        manifest={"scenario": prov, "strategies": names, "rotate_seats": rotate_seats},
        compiled=COMPILED_ENGINE,
    )
    rows = np.concatenate(run.results) if run.results else np.zeros((0, len(battle.OUT_COLUMNS)))
    games = np.arange(n)
    rot = games % 2 if rotate_seats else np.zeros(n, dtype=np.int64)
    result = rows[:, battle.O_RESULT]
    # side A's share: 1 win, 1/2 draw; the strategy at seat s is names[(s + rot) % 2]
    share_a = np.where(result == 0, 1.0, np.where(result == 2, 0.5, 0.0))
    frames = []
    for side in (0, 1):
        share = share_a if side == 0 else 1.0 - share_a
        who = [names[(side + r) % 2] for r in rot]
        frames.append(
            pd.DataFrame(
                {
                    "game": games,
                    "rotation": rot,
                    "seat": side + 1,
                    "strategy": who,
                    "outcome": outcomes_from_scores(share),
                    "score": share,
                    "side": "ab"[side],
                    "nation": [seats[(side + r) % 2].fleet.nation for r in rot],
                    "fleet": [seats[(side + r) % 2].fleet.spec() for r in rot],
                    "vp": rows[:, battle.O_VP0 if side == 0 else battle.O_VP1],
                    "vp_opponent": rows[:, battle.O_VP1 if side == 0 else battle.O_VP0],
                    "masts_left": rows[:, battle.O_LEFT0 if side == 0 else battle.O_LEFT1],
                    "turns": rows[:, battle.O_TURNS],
                }
            )
        )
    table = pd.concat(frames).sort_values(["game", "seat"], kind="stable").reset_index(drop=True)
    for key in TABLE_PROVENANCE:
        table[key] = prov[key]
    table["seed"] = str(run.entropy)
    by_strategy = score_summary(table)
    by_seat = score_summary(table, by="seat")
    summary = {
        "schema_version": SCHEMA_VERSION,
        "n_games": n,
        "players": 2,
        "strategies": by_strategy,
        "seats": by_seat,
        "draw_rate": float((result == 2).mean()),
        "mean_turns": float(rows[:, battle.O_TURNS].mean()),
        "strategies_by_seat": names,
        "rotate_seats": rotate_seats,
        "seed": run.entropy,
        "block_size": BLOCK_SIZE,
        "provenance": prov,
    }
    return PlayResult(game=GAME, seats=table, summary=summary, entropy=run.entropy, provenance=prov)


def balance_roster(
    scenario=None,
    *,
    seed: int,
    jobs: int = 1,
    effort: int = 0,
    start=None,
) -> tuple[dict, int]:
    """The roster of a balance search's ``nation-spread`` (:mod:`simulator.balance`): each matrix
    nation as a seat, the default mix's first commander (the admiral) with the nation and a
    fleet.

    ``effort`` 0 plays nothing: each nation keeps ``start``'s fleet (a roster found earlier) when
    it is legal under these rules, else fields its study fleet (:func:`mirrored_fleet`; the
    plain mirrored fleet when the study fleet is not legal either). ``effort`` N finds each
    nation's best fleet under these rules: :func:`fleet_search` races N fleets (the study fleet
    and a seeded sample of the legal full fleets) against the six other nations' study fleets,
    nation ``k`` on ``derive_seed(seed, "roster-nation", k)``.

    Returns:
        (nation -> its seat declaration, battles played).
    """
    sc = load(scenario)
    rules = sc.rules
    template = rules.strategies[rules.default_mix[0]]
    nations = list(rules.matrix_nations)
    start = dict(start or {})
    out, battles = {}, 0
    for k, nat in enumerate(nations):
        fleet = None
        if effort > 0:
            _rungs, info = fleet_search(
                nat,
                rules=rules,
                opponents=[o for o in nations if o != nat],
                candidates=effort,
                n0=14,
                validate_n=1,
                seed=derive_seed(seed, "roster-nation", k),
                jobs=jobs,
            )
            fleet = info["fleet"]
            battles += int(info["race_battles"]) + 2 * int(info["validation"]["n"])
        else:
            for spec in [getattr(start.get(nat), "fleet", None), "study", "mirrored"]:
                try:
                    if spec == "study":
                        fleet = mirrored_fleet(rules, nat).spec()
                    elif spec == "mirrored":
                        fleet = parse_fleet(rules.studies.mirrored_fleet, rules, nat).spec()
                    elif spec is not None:
                        fleet = parse_fleet(spec, rules, nat).spec()
                except UserError:
                    continue
                if fleet is not None:
                    break
        out[nat] = dataclasses.replace(
            template,
            description=f"{nat} under the {template.kind} (balance roster)",
            nation=nat,
            fleet=fleet,
            tuned=None,
        )
    return out, battles
