"""The process property: nothing hidden from a player may shape what it sees next.

The single-state hidden-information test compares two worlds at one moment. This one compares
what happens *next*: at a step of a random game, take the state, resample every card an observer
cannot see (``resample_hidden(rules, state, observer, rng)``, from ``tests/cases``), apply the same
action in the true world and in each resampled twin (where that action is legal in both), and
compare everything the observer can see afterwards:

- who acts next, and whether the game ended (terminated / truncated);
- the observer's observation, its action mask (when it is the one to act) and its rendering;
- the step's score-mode rewards and, at the end, every seat's score and rank (``infos``).

A real table shows the same thing in both worlds, so these must be identical. The one exception is
an action that itself turns up a card the observer could not see (Golf's ``replace`` of a face-down
slot, a Fiddlesticks blind play, a Guilders draw from the fan): the two worlds then rightly differ in
that card, so only who acts next is compared (and not even that when the step ended the game in
either world: a round end that turns cards up scores them, and whether the target is reached rightly
depends on them). A game says which actions those are with the optional rules method
``reveals(state, action, seat)``: False, True, or — for a step whose revealed cards decide a public
outcome (Collector's and Hot's round resolution: who completes a set, every hand's size) — a value
describing that outcome; twin worlds whose outcomes differ are then not compared at all (the table
rightly sees different things), and worlds with equal outcomes are compared on who acts next.
A game may also say *what* a revealing action shows, ``revealed(state, action, seat)`` (hashable):
twins that show the same are then compared in full, the others skipped (Fiddlesticks' blind play:
who goes next rightly depends on the card turned up).

A game's cases (``tests/cases/<game>.py``) may declare ``PROCESS_CONFIGS`` (default: its
``CONFORMANCE_CONFIGS``) and ``RARE_BRANCHES``: ``{name: predicate(before, action, after) -> bool}``,
events the property must be checked at least once at (a Domino Ace bonus, a Golf stock rebuild, a
forced pick-up, ...).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tests.cases import resample_hidden

STEP_CAP = 20_000


@dataclass
class ProcessReport:
    """What a run of the property checked, and the first violation if any."""

    checked: int = 0  # (step, observer, world) comparisons made
    resampled_differently: int = 0  # worlds that differed from the truth in some hidden card
    revealing: int = 0  # comparisons cut to "who acts next" by a revealing action
    branches: Counter = field(default_factory=Counter)  # rare branches reached (and checked)
    violation: str | None = None


def _after(env, state, action: int, seat: int, compare_all: bool) -> dict[str, Any]:
    """Apply ``action`` to a copy of ``state``; what ``seat`` can see afterwards."""
    rules = env.rules
    s = state.copy()
    shaped = rules.apply(s, action)
    out: dict[str, Any] = {
        "next to act": s.current_player,
        "terminated": bool(s.terminated),
        "truncated": bool(s.truncated),
    }
    if not compare_all:
        return out
    done = s.terminated or s.truncated
    out["rewards"] = None if shaped is None else [float(r) for r in shaped]
    if done:
        out["scores"] = list(rules.scores(s))
        out["ranks"] = [int(r) for r in rules.ranks(s)]
    out["observation"] = env._encode(s, seat).tobytes()
    out["mask"] = rules.legal_mask(s).tobytes() if (not done and s.current_player == seat) else None
    out["rendering"] = env._render_view(s, seat)
    return out


def _explain(truth: dict, other: dict, bad: list[str]) -> str:
    """A readable account of the first difference (rendering lines rather than bytes)."""
    for key in bad:
        a, b = truth[key], other.get(key)
        if key == "rendering":
            la, lb = a.splitlines(), b.splitlines()
            for x, y in zip(la + [""] * len(lb), lb + [""] * len(la)):
                if x != y:
                    return f"rendering line {x!r} vs {y!r}"
        if not isinstance(a, bytes):
            return f"{key} {a!r} vs {b!r}"
    return "observation bytes differ"


def _diff(a: dict, b: dict) -> list[str]:
    return [k for k in a if a[k] != b.get(k)]


def check_process(
    env,
    seeds,
    *,
    worlds: int = 2,
    every: int = 1,
    branches: dict | None = None,
    rng_seed: int = 0,
    stop_at_first: bool = True,
    sampler=resample_hidden,
) -> ProcessReport:
    """Play random games of ``env`` (a raw env: its rules and view) and check the property.
    ``sampler(rules, state, seat, rng)`` draws the twin worlds (default: the game's
    ``resample_hidden``)."""
    rules = env.rules
    branches = branches or {}
    reveals = getattr(rules, "reveals", None)
    revealed = getattr(rules, "revealed", None)  # optional: what a revealing action shows (hashable)
    report = ProcessReport()
    pick = np.random.default_rng(rng_seed)
    resample = np.random.default_rng(rng_seed + 1)
    n = rules.num_players
    for seed in seeds:
        state = rules.new_game(np.random.default_rng(seed), None)
        for step in range(STEP_CAP):
            if state.terminated or state.truncated:
                break
            actor = state.current_player
            mask = rules.legal_mask(state)
            legal = np.flatnonzero(mask)
            action = int(legal[pick.integers(len(legal))])
            probe = state.copy()
            rules.apply(probe, action)
            hit = [name for name, pred in branches.items() if pred(state, action, probe)]
            if step % every == 0 or hit:
                before = report.checked
                for observer in range(n):
                    if observer == actor:
                        continue
                    for _ in range(worlds):
                        twin = sampler(rules, state, observer, resample)
                        if rules.zones(twin) != rules.zones(state):
                            report.resampled_differently += 1
                        if not rules.legal_mask(twin)[action]:
                            continue
                        r_truth = reveals(state, action, observer) if reveals else False
                        r_twin = reveals(twin, action, observer) if reveals else False
                        if not isinstance(r_truth, bool) or not isinstance(r_twin, bool):
                            if r_truth != r_twin:  # the cards turned up decide what follows, and differ
                                report.revealing += 1
                                continue
                        full = not (r_truth or r_twin)
                        if not full and revealed is not None:
                            # the action shows cards: worlds that show the same are compared in full;
                            # the others rightly differ (even in who acts next) and are skipped
                            if revealed(state, action, observer) != revealed(twin, action, observer):
                                report.revealing += 1
                                continue
                            full = True
                        if not full:
                            report.revealing += 1
                        truth = _after(env, state, action, observer, full)
                        other = _after(env, twin, action, observer, full)
                        report.checked += 1
                        bad = _diff(truth, other)
                        if not full and (truth["terminated"] or other["terminated"]):
                            bad = []  # the revealed cards were scored: whether the game ends rightly depends on them
                        if bad:
                            report.violation = (
                                f"seed {seed}, step {step}: player_{actor} plays {action} "
                                f"({rules.action_to_string(state, action)}); player_{observer} would "
                                f"see a different {', '.join(bad)} in a world that differs only in cards "
                                f"it cannot see: {_explain(truth, other, bad)}"
                            )
                            if stop_at_first:
                                return report
                if report.checked > before:  # a branch counts once it was actually compared
                    for name in hit:
                        report.branches[name] += 1
            rules.apply(state, action)
    return report
