"""Plain words for the page: display names of cards, crews, fleets, nations and table columns,
and the glossary (one line per method term; the strategies' lines come from the scenarios).

The CSV files keep the raw names (``long_john_silver``, ``5,4,3 helmsman@0``, ``win_rate``):
scripts and the findings' evidence read them. The page shows the display form; each table
header keeps the raw column name in its ``data-col`` attribute.
"""

from __future__ import annotations

import re

#: Tavern cards and parrots whose display name is not the key in title case
CARD_NAMES = {
    "fame_1": "Fame card (1 fame)",
    "fame_2": "Fame card (2 fame)",
    "fame_3": "Fame card (3 fame)",
    "long_john_silver": "Long John Silver (parrot)",
    "flint": "Flint (parrot)",
    "billy_bones": "Billy Bones (parrot)",
    "squire_trelawney": "Squire Trelawney (parrot)",
    "powder_keg": "Powder keg",
    "letter_of_marque": "Letter of marque",
    "treasure_map": "Treasure map",
    "sneak_away": "Sneak away",
    "favourable_wind": "Favourable wind",
    "royal_navy": "Royal Navy",
}
NATION_NAMES = {
    "spain": "Spain",
    "france": "France",
    "pirates": "Pirates",
    "chinese": "Chinese",
    "american": "Americans",
    "turkish": "Turks",
    "viking": "Vikings",
    "none": "no nation power",
}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def title(key: str) -> str:
    """``long_john_silver`` -> ``Long john silver`` (first letter up, separators as spaces)."""
    text = str(key).replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def card(key: str) -> str:
    return CARD_NAMES.get(str(key), title(key))


def nation(key: str) -> str:
    k = str(key)
    return NATION_NAMES.get(k, title(k))


_CREW = re.compile(r"^(?P<role>[a-z_]+)@(?P<ship>\d+)$")


def fleet(spec: str) -> str:
    """``american:4,4 gunner@1`` -> ``Americans: masts 4-4, Gunner on the second ship``."""
    text = str(spec).strip()
    if not text or text == "nan":
        return ""
    prefix = ""
    if ":" in text.split(" ")[0]:
        nat, _, text = text.partition(":")
        prefix = f"{nation(nat)}: "
    tokens = text.split()
    if not tokens:
        return str(spec)
    masts = "-".join(tokens[0].split(","))
    parts = [f"masts {masts}"]
    for tok in tokens[1:]:
        m = _CREW.match(tok)
        if not m:
            parts.append(tok)
            continue
        i = int(m["ship"])
        ship = f"the {ORDINALS[i]} ship" if i < len(ORDINALS) else f"ship {i + 1}"
        role = "oars" if m["role"] == "oars" else title(m["role"])
        parts.append(f"{role} on {ship}")
    return prefix + ", ".join(parts)


_BEST_RESPONSE = re.compile(r"^br(?P<k>\d+)_(?P<base>.+)$")


def strategy(name: str) -> str:
    """A strategy's name; a best response (``br1_planner``) says what it is."""
    m = _BEST_RESPONSE.match(str(name))
    if m:
        return f"{name} (best response {m['k']}, tuned from {m['base']})"
    return str(name)


def crew_or_nation(name: str) -> str:
    return NATION_NAMES.get(str(name), title(name))


#: table columns whose values are shown in display form (raw in the CSV)
VALUE_DISPLAY = {
    "strategy": strategy,
    "name": crew_or_nation,
    "card": card,
    "nation": nation,
    "vs": nation,
    "best_fleet_found": fleet,
    "mirrored_fleet": fleet,
    "fleet": fleet,
    "baseline": fleet,
}

#: column headers in words (others: underscores as spaces)
COLUMN_LABELS = {
    "win_rate": "win share",
    "ci_low": "95% low",
    "ci_high": "95% high",
    "ci95_low": "95% low",
    "ci95_high": "95% high",
    "win_lo": "win 95% low",
    "win_hi": "win 95% high",
    "score_lo": "95% low",
    "score_hi": "95% high",
    "score_ci_low": "score 95% low",
    "score_ci_high": "score 95% high",
    "seat_in_turn_order": "seat (1 = first)",
    "p_value": "p",
    "p_page": "p (Holm, page)",
    "settled_by": "would settle it",
    "n": "n",
    "wins": "outright wins",
    "shared": "shared wins",
    "mean_value_gap": "value gap vs chosen (fame)",
    "win_rate_effect": "change in win share",
    "fame_effect": "change in fame",
    "score_gain": "change in score",
    "score_gain_lo": "95% low",
    "score_gain_hi": "95% high",
    "vp_gain": "change in VP margin",
    "vp_gain_lo": "VP 95% low",
    "vp_gain_hi": "VP 95% high",
    "gain_lo": "gain 95% low",
    "gain_hi": "gain 95% high",
    "best_p_sink_lone": "best odds alone",
    "best_p_sink_company": "best odds with company",
    "in_support": "in the equilibrium's support",
}


def column_label(col: str) -> str:
    return COLUMN_LABELS.get(col, str(col).replace("_", " "))


#: method terms: (anchor, term as it appears in text, one line)
METHOD_TERMS = (
    (
        "fair-share",
        "fair share",
        "what a seat or strategy wins when nothing favours it: 1/P of the games at P players "
        "(an even 50% score in Pirates express).",
    ),
    (
        "balanced",
        "balanced",
        "a verdict: every row of the axis has its 95% interval within 3 points of fair.",
    ),
    (
        "imbalanced",
        "imbalanced",
        "a verdict: some row is conclusive (after Holm's correction over the page) and its "
        "value lies more than 3 points from fair.",
    ),
    (
        "inconclusive",
        "inconclusive",
        "neither balanced nor imbalanced at this number of games; the row says which --size "
        "would settle it.",
    ),
    (
        "interval",
        "95% interval",
        "the range that covers the true value in 95% of runs (Wilson for rates, normal or "
        "Student's t for means and paired differences).",
    ),
    (
        "conclusive",
        "conclusive",
        "the row's p-value stays at most 0.05 after Holm's correction over every claim on the "
        "page; the same word in every table, verdict and finding.",
    ),
    (
        "holm",
        "Holm",
        "Holm's step-down correction: many rows tested at once would show some 95% intervals "
        "clear of no effect by chance; Holm keeps the chance of any false 'conclusive' on the "
        "page at 5%.",
    ),
    (
        "bonferroni",
        "Bonferroni",
        "a wider interval for the largest of k estimates (each at 5%/k), so picking the best "
        "does not overstate it.",
    ),
    (
        "paired",
        "paired",
        "both rule sets play the same games on the same random streams (common random "
        "numbers), so the difference is measured with much less noise.",
    ),
    (
        "seats-rotated",
        "seats rotated",
        "every strategy sits in every seat equally often, so seat and strategy effects separate.",
    ),
    (
        "equilibrium",
        "equilibrium population",
        "a mix of strategies in which no strategy of the population does better than the mix "
        "itself (a symmetric Nash equilibrium, found by broadside metagame); its Nash gap is "
        "how far from that it is.",
    ),
    (
        "nash-gap",
        "Nash gap",
        "the best gain any strategy of the population has against the equilibrium on the "
        "measured table; 0 for an exact equilibrium.",
    ),
    (
        "exploitability",
        "exploitability",
        "the most a strategy we tried gains against the equilibrium (a lower bound: only a "
        "search finds the best reply).",
    ),
    (
        "best-response",
        "best response",
        "a strategy tuned (broadside tune) to beat an equilibrium; br1_X is the first one, "
        "tuned from X.",
    ),
    (
        "reference",
        "reference player",
        "a floor such as random play (reference = true in the scenario): shown for scale, never "
        "part of a balance share or a default table.",
    ),
    (
        "default-mix",
        "default mix",
        "the scenario's hand-written table of strategies (default_mix), seats rotated.",
    ),
    (
        "score",
        "score",
        "the share of the win: 1 for a win, 1/2 for a draw in Pirates express (1/k for k tied "
        "winners in the other games).",
    ),
    (
        "vp",
        "VP",
        "victory points in Pirates express: masts and hulls destroyed, ships sunk, objectives; "
        "the battle's winner is the side with more VP, so a fleet can win more often yet "
        "average fewer VP (big losses, narrow wins).",
    ),
    (
        "effect-size",
        "effect size",
        "how the findings are ranked: |value - fair| / fair for a share, the relative change "
        "for a difference with a base, the difference itself for a score change on 0..1.",
    ),
    (
        "stalemate",
        "stalemate",
        "a game reaching the turn limit; every player then scores 1/P.",
    ),
)
