"""Who sits where in a tournament: the distinct agents of a list, their names, and every line-up
a deal is played with (the rotations of the listed line-up, or of every combination of as many
agents as seats), with the sentence that says so.

A line-up is a list of agent indices, one per seat (``[0, 1, 1]``: agent 0 in player_0, agent 1
in player_1 and player_2).
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence


def agent_name(spec: Any) -> str:
    """An agent's name: its spec, else its ``name``, else its class's name."""
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", None) or type(spec).__name__)


def distinct_agents(agents: Sequence[Any], names: Sequence[str] | None) -> tuple[list[Any], list[str], list[int]]:
    """Distinct agents (equal specs, or the same object, are one agent), their names, and the
    distinct agent of every listed one."""
    entries: list[Any] = []
    entry_names: list[str] = []
    index: list[int] = []
    for k, a in enumerate(agents):
        for i, e in enumerate(entries):
            if (isinstance(a, str) and isinstance(e, str) and a == e) or a is e:
                index.append(i)
                break
        else:
            entries.append(a)
            entry_names.append(str(names[k]) if names else agent_name(a))
            index.append(len(entries) - 1)
    seen: dict[str, int] = {}
    for i, n in enumerate(entry_names):  # two different agents of one name: tell them apart
        if n in seen:
            entry_names[i] = f"{n}#{i}"
        seen.setdefault(n, i)
    return entries, entry_names, index


def field_agents(agents: Sequence[Any], names: Sequence[str] | None,
                 num_seats: int) -> tuple[list[Any], list[str], list[int]]:
    """The field seating's two agents (A, then B), their names, and the line-up: A in player_0,
    copies of B in the other seats. A is never pooled with B, even when they are the same spec."""
    b_entries, b_names, _ = distinct_agents([agents[1]], names[1:2] if names else None)
    a_entries, a_names, _ = distinct_agents([agents[0]], names[:1] if names else None)
    entries, entry_names = a_entries + b_entries, a_names + b_names
    if entry_names[0] == entry_names[1]:
        entry_names[1] = f"{entry_names[1]}#1"
    return entries, entry_names, [0] + [1] * (num_seats - 1)


def rotations_of(lineup: Sequence[int]) -> list[list[int]]:
    """The distinct rotations of a line-up (``A B A B`` has two)."""
    out: list[list[int]] = []
    for r in range(len(lineup)):
        lu = list(lineup[r:]) + list(lineup[:r])
        if lu not in out:
            out.append(lu)
    return out


def seating_plan(index: Sequence[int], num_seats: int) -> list[list[int]]:
    """Every line-up a deal is played with: the rotations of the listed line-up, or with more
    listed agents than seats the rotations of every combination of ``num_seats`` of them."""
    if len(index) <= num_seats:  # fewer agents than seats: the list repeated to fill them
        return rotations_of([index[s % len(index)] for s in range(num_seats)])
    plan: list[list[int]] = []
    for combo in itertools.combinations(range(len(index)), num_seats):
        for lu in rotations_of([index[c] for c in combo]):
            if lu not in plan:
                plan.append(lu)
    return plan


def describe_seating(entry_names: Sequence[str], plan: list[list[int]], num_seats: int, listed: int,
                     field: bool) -> tuple[str, list[str]]:
    """The sentence printed with every result that says who sat where, and a note for a list of
    two agents repeated to fill the seats (the field seating is what sets one against the other).

    ``entry_names``: the distinct agents' names; ``listed``: how many agents were listed."""
    notes: list[str] = []
    if field:
        a, b = entry_names[0], entry_names[-1]
        copies = f"{num_seats - 1} {'copy' if num_seats == 2 else 'copies'}"
        text = f"field: {a} in one seat against {copies} of {b}, {a}'s seat rotated through all {num_seats} seats"
    elif listed <= num_seats:
        seats = ", ".join(f"{entry_names[i]} in player_{s}" for s, i in enumerate(plan[0]))
        text = f"line-up: {seats}; rotated through its {len(plan)} distinct rotations"
        if listed < num_seats:
            text += f" ({listed} agents listed for {num_seats} seats: the list repeats)"
            if len(entry_names) == 2:
                notes.append(f"for {entry_names[0]} against {num_seats - 1} copies of {entry_names[1]} "
                             f"(what training reports), use the field seating: --field {entry_names[0]} "
                             f"{entry_names[1]}")
    else:
        text = f"line-up: every {num_seats} of the {listed} agents listed, each line-up rotated ({len(plan)} line-ups)"
    return text, notes
