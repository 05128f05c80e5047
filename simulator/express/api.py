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

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from scenarios.loader import Scenario, load_scenario
from simulator import dice
from simulator.compiled import CompiledEngine
from simulator.errors import UserError
from simulator.express import battle
from simulator.express.commanders import Commander, commander_name, parse_commanders
from simulator.express.core import hit_on_at, nation_array, pack_rules
from simulator.express.fleets import (
    Fleet,
    Ship,
    enumerate_fleets,
    fleet_array,
    max_crews,
    parse_fleet,
    validate_fleet,
)
from simulator.express.rules import CREW_ROLES, SCENARIO_NAMES, ExpressRules
from simulator.runner import Chunk, run_chunks
from simulator.stats import Z95, wilson_interval

#: the battle engine and commanders (cold compile measured 42 s wall, 19 s CPU, on 2 busy cores)
COMPILED_ENGINE = CompiledEngine("Pirates express engine", (battle.play_many,), 60)
DEFAULT_CHUNK = 500  # battles per chunk (fixes the seed tree together with the seed)


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


def _rngs(seed: np.random.SeedSequence) -> tuple[np.random.Generator, np.random.Generator]:
    """Dice generator and commanders' generator from one chunk seed (children 0 and 1)."""
    dice_ss, policy_ss = (
        np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key + (k,)) for k in (0, 1)
    )
    return np.random.default_rng(dice_ss), np.random.default_rng(policy_ss)


def play(pairing: Pairing, n: int, seed: np.random.SeedSequence | int) -> np.ndarray:
    """Play ``n`` battles of a pairing in this process; int64[n, len(OUT_COLUMNS)]."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng, prng = _rngs(ss)
    return battle.play_many(rng, prng, n, *pairing.args())


def play_traced(pairing: Pairing, seed: int, max_events: int = 4000):
    """One battle with its event trace (see ``battle.EV_*``)."""
    rng, prng = _rngs(np.random.SeedSequence(seed))
    out, trace, n_ev, si = battle.play_traced(rng, prng, *pairing.args(), max_events)
    if n_ev > max_events:
        raise RuntimeError(f"trace overflow: {n_ev} events > {max_events}")
    return out, trace[:n_ev], si


# ----------------------------------------------------------------------------------------------
# Chunk tasks (module level: picklable)


def _pairings_chunk(chunk: Chunk, pairings: tuple[Pairing, ...]) -> np.ndarray:
    """Play ``chunk.size`` battles of every pairing; int64[len(pairings), size, N_OUT]."""
    children = [
        np.random.SeedSequence(chunk.seed.entropy, spawn_key=chunk.seed.spawn_key + (p,))
        for p in range(len(pairings))
    ]
    return np.stack([play(p, chunk.size, ss) for p, ss in zip(pairings, children)])


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
    d["chunk_size"] = run.chunk_size
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
    chunk_size: int = DEFAULT_CHUNK,
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
    summary.update(
        fleet_a=fa.spec(),
        fleet_b=fb.spec(),
        commanders=[commander_name(c) for c in cmd],
        provenance=_provenance(sc, run, scenario_name),
        seed=run.entropy,
    )
    return battles_frame(rows), summary


def mirrored_fleet(rules: ExpressRules, nation: str) -> Fleet:
    """The study's mirrored fleet for a nation (France adds its fifth crew, Americans keep it)."""
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
    chunk_size: int = 100,
    search_candidates: int = 32,
    search_n0: int = 24,
    nations=None,
) -> tuple[pd.DataFrame, dict]:
    """The nation x nation matrix (row nation = seat A).

    ``fleets="mirrored"``: every nation fields the study fleet; ``"best"``: each nation's fleet is
    first found by successive halving over its legal fleets (see :func:`best_fleet`).
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
        chosen = {}
        base_seed = seed if seed is not None else int(np.random.SeedSequence().entropy)
        for k, nat in enumerate(nations):
            fleet, info = best_fleet(
                nat,
                rules=rules,
                candidates=search_candidates,
                n0=search_n0,
                commanders=cmd,
                scenario_name=scenario_name,
                seed=[base_seed, 1000 + k],
                jobs=jobs,
                opponents=nations,
            )
            chosen[nat] = fleet
            search_info[nat] = info
        seed = base_seed
    pairings = [
        make_pairing(chosen[a], chosen[b], rules, cmd, scenario_name)
        for a in nations
        for b in nations
    ]
    rows, run = run_pairings(
        pairings, n, seed=seed, jobs=jobs, quiet=quiet, chunk_size=chunk_size, desc="matrix battles"
    )
    df, matrix = _matrix_frame(nations, rows)
    summary = {
        "nations": nations,
        "matrix": matrix,
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


def best_fleet(
    nation: str,
    *,
    rules: ExpressRules,
    candidates: int = 32,
    n0: int = 24,
    commanders=None,
    scenario_name: str | None = None,
    seed=0,
    jobs: int = 1,
    opponents=None,
) -> tuple[Fleet, dict]:
    """Successive halving over a nation's legal fleets.

    Candidates: the mirrored fleet plus a seeded random sample of the fleets that use every mast
    and every crew slot (``candidates`` in all). Each round plays every survivor ``n_r`` battles
    against each opponent nation's mirrored fleet (scored win = 1, draw = 1/2), keeps the better
    half and doubles ``n_r``, until one fleet is left.
    """
    cmd = (
        parse_commanders(commanders, rules)
        if commanders is None or isinstance(commanders, str)
        else commanders
    )
    pool = enumerate_fleets(rules, nation, full_only=True)
    ss = np.random.SeedSequence(seed)
    pick_rng = np.random.default_rng(ss.spawn(1)[0])
    mirror = mirrored_fleet(rules, nation)
    chosen = [mirror]
    if candidates > 1 and pool:
        idx = pick_rng.choice(len(pool), size=min(candidates - 1, len(pool)), replace=False)
        chosen += [pool[i] for i in sorted(idx)]
    opponents = list(opponents or rules.matrix_nations)
    opp = [mirrored_fleet(rules, o) for o in opponents]
    alive = list(range(len(chosen)))
    n_r = n0
    rounds = []
    round_seed = ss.spawn(64)
    r = 0
    while len(alive) > 1:
        pairings = [
            make_pairing(chosen[c], o, rules, cmd, scenario_name) for c in alive for o in opp
        ]
        rows, _ = run_pairings(
            pairings,
            n_r,
            seed=int(round_seed[r].generate_state(1)[0]),
            jobs=jobs,
            chunk_size=max(1, n_r),
            desc="search",
        )
        res = rows[:, :, battle.O_RESULT]
        score = (
            ((res == 0) + 0.5 * (res == 2)).mean(axis=1).reshape(len(alive), len(opp)).mean(axis=1)
        )
        order = np.argsort(-score, kind="stable")
        keep = max(1, len(alive) // 2)
        rounds.append(
            {
                "round": r,
                "candidates": len(alive),
                "battles_each": n_r * len(opp),
                "best_score": float(score[order[0]]),
            }
        )
        alive = [alive[k] for k in order[:keep]]
        n_r *= 2
        r += 1
    best = chosen[alive[0]]
    return best, {
        "fleet": best.spec(),
        "candidates": len(chosen),
        "pool": len(pool),
        "rounds": rounds,
    }


def crew_value(
    *,
    n: int = 2000,
    commanders=None,
    scenario: str | Scenario | None = None,
    scenario_name: str | None = None,
    seed: int | None = None,
    jobs: int = 1,
    quiet: bool = True,
    chunk_size: int = 250,
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
