"""Reading records back: a line's form and checksum (:func:`parse`), the step-by-step replay that
checks every action and state against the record (:func:`steps`, :func:`replay`), and the full
check of a line or a file (:func:`check`, :func:`check_file`)."""

from __future__ import annotations

import json
import os
import pickle
import sys
import warnings
from typing import Any, Iterator, Mapping, TextIO

from card_envs.records.format import (
    SEAL,
    TRACE_DIGITS,
    Trace,
    checksum,
    _environments,
    _fail,
    _is_int,
    _library_version,
    _parse_form,
    _plain,
)


_TEMPLATES: dict[tuple[str, str, str | None], bytes] = {}


def _new_env(env_name: str, options: Mapping[str, Any], render_mode: str | None = None):
    """A new ``env(**options)``, not yet reset. Built once per table and then unpickled (the
    environment pickles whole, ``CardGameEnv.__getstate__``): about 0.1 ms instead of the ~6 ms
    a construction takes (gymnasium's Box prints its bounds), which matters when a file of
    thousands of games is checked."""
    key = (env_name, json.dumps(options, sort_keys=True), render_mode)
    if key not in _TEMPLATES:
        kwargs = dict(options) if render_mode is None else dict(options, render_mode=render_mode)
        _TEMPLATES[key] = pickle.dumps(_environments()[env_name].env(**kwargs))
    return pickle.loads(_TEMPLATES[key])


def parse(line: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The record a line (or a record dict) holds, its form and checksum checked: every field
    present, of its type, the environment and the format version known, the options accepted by
    the game, each agent spec one the library can parse, the line exactly as the writer wrote it
    and its checksum matching its fields (only ``meta`` may be edited). A ValueError names the
    first field that is wrong; for an edited line, it says so and replays the game to name the
    first action or field where it departs. (:func:`check` replays every line in full.)"""
    rec = _parse_form(line)
    if rec["format_version"] >= 2 and rec[SEAL] != checksum(rec):
        where = _departure(rec)
        _fail(rec, "the line was edited after it was recorded: its checksum does not match its fields (only "
                   "'meta' may be edited)" + (f"; replaying it: {where}" if where else
                                             "; the game replays as recorded, so the edit is in a field the "
                                             "replay cannot check (agents, library_version, or the checksum)"))
    return rec


def check(line: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The record a line (or a record dict) holds, checked in full: its form and checksum
    (:func:`parse`), then a replay of the whole game (:func:`replay`: every action, every state
    of the trace, the end, scores, ranks and rewards). The first disagreement is a ValueError."""
    rec = parse(line)
    replay(rec)
    return rec


def _departure(rec: dict[str, Any]) -> str | None:
    """Where the game of an edited record departs from it: the replay's error, or None."""
    try:
        for _ in _replay_steps(rec, None, warn=False):
            pass
    except ValueError as e:
        return str(e).split(": ", 1)[-1] if str(e).startswith("game record") else str(e)
    return None


def read(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of a JSON Lines file, in order (blank lines skipped), each line's form and
    checksum checked by :func:`parse` (not replayed: :func:`check_file` replays them); a bad line
    is a ValueError naming the file and the line number."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(parse(line))
            except ValueError as e:
                raise ValueError(f"{path} line {number}: {e}") from e
    return out


def steps(line: str | Mapping[str, Any], render_mode: str | None = None) -> Iterator[tuple[int, Any]]:
    """Replay a record step by step: yields ``(k, env)`` with the env after its first ``k``
    actions, for ``k = 0`` (just reset) to ``len(actions)`` (the game over). The same env object
    each time, moved on between yields: copy what you keep. It is ``env(**options)`` of the
    record (``render_mode`` as given), so it behaves as the writer's did.

    The line's form and checksum are checked first (:func:`parse`). The deal's state is checked
    against the trace; each action is checked before it is applied (its actor is the agent to
    act, it is legal — the last one may be illegal only in a record that says so, ``end ==
    "illegal"`` — and its name is the one ``action_to_string`` gives now) and the state it leaves
    after (the trace). After the last action: the game is over, ended as recorded, with the
    recorded digest, scores, ranks and rewards. The first disagreement is a ValueError naming the
    action (by its index in ``actions``) or the field, and what the replay found. A record of
    another library version replays with a warning naming both versions.
    """
    yield from _replay_steps(parse(line), render_mode, warn=True)


def _replay_steps(rec: dict[str, Any], render_mode: str | None, warn: bool) -> Iterator[tuple[int, Any]]:
    """:func:`steps` of a record whose form was checked (its checksum need not match)."""
    name = rec["env"]
    if warn and rec["library_version"] != _library_version():
        warnings.warn(f"this {name} record was written by card_envs {rec['library_version']}; this is card_envs "
                      f"{_library_version()}: it replays only if {name}'s rules are the same", stacklevel=3)
    env = _new_env(name, rec["options"], render_mode)
    raw = env.unwrapped
    try:
        env.reset(seed=rec["seed"], options={"deck": rec["deck"]} if rec["deck"] is not None else None)
    except ValueError as e:
        _fail(rec, f"field 'deck': {e}")
    actions = rec["actions"]
    n = len(actions)
    versions = ("" if rec["library_version"] == _library_version() else
                f" (the record was written by card_envs {rec['library_version']}, this is {_library_version()})")
    traced = rec["format_version"] >= 2
    trace = Trace()
    recorded = rec.get("trace", "")

    def check_state(k: int) -> None:
        code = trace.add(raw)
        if not traced or code == recorded[TRACE_DIGITS * k:TRACE_DIGITS * (k + 1)]:
            return
        if k == 0:
            _fail(rec, "the deal departs from the recorded game: the state after reset is not the one recorded "
                       f"(field 'seed' or 'deck' is not the game's){versions}")
        actor, action, text = actions[k - 1]
        _fail(rec, f"action {k - 1} ({actor}: {action} {text!r}): the state after it departs from the recorded "
                   f"game (the trace differs from here){versions}")

    seats = raw.possible_agents
    total = dict.fromkeys(seats, 0.0)  # summed as a loop over env.last() sums them
    check_state(0)
    yield 0, env
    k = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        agent = env.agent_selection
        total[agent] += env._cumulative_rewards[agent]
        if k == n:
            _fail(rec, f"the record ends after {n} actions, but the game is not over: {agent} is to act{versions}")
        actor, action, text = actions[k]
        if actor != agent:
            _fail(rec, f"action {k} ({actor}: {text}): recorded for {actor}, but {agent} is to act{versions}")
        if not 0 <= action < raw.rules.num_actions:
            _fail(rec, f"action {k} ({actor}: {text}): {action} is not an action of {name} "
                       f"(0..{raw.rules.num_actions - 1})")
        replayed = raw.action_to_string(action)
        if replayed != text:
            _fail(rec, f"action {k} ({actor}: {action}): recorded as {text!r}, but action {action} is "
                       f"{replayed!r} now{versions}")
        if not raw._legal_mask()[action] and not (k == n - 1 and rec["end"] == "illegal"):
            _fail(rec, f"action {k} ({actor}: {action} {text!r}) is illegal at this point; legal: "
                       + ", ".join(raw.legal_action_names()) + versions)
        env.step(action)
        k += 1
        check_state(k)
        yield k, env
    if k < n:
        _fail(rec, f"the game is over after {k} actions, but the record has {n}{versions}")
    for a in seats:  # what each seat's last env.last() adds
        total[a] += env._cumulative_rewards[a]
    state = raw.game_state
    end = "terminated" if state.terminated else "truncated" if state.truncated else "illegal"
    if end != rec["end"]:
        _fail(rec, f"field 'end': the game ended {end!r}, the record says {rec['end']!r}{versions}")
    if end != "illegal":
        found = {"scores": _plain([env.infos[a]["score"] for a in seats]),
                 "ranks": [int(env.infos[a]["rank"]) for a in seats]}
    else:
        found = {"scores": None, "ranks": None}
    for key in ("scores", "ranks"):
        if rec[key] != found[key]:
            _fail(rec, f"field {key!r}: the replay gives {found[key]}, the record says {rec[key]}{versions}")
    if rec["rewards"] is not None:
        got = [float(total[a]) for a in seats]
        if got != [float(r) for r in rec["rewards"]]:
            _fail(rec, f"field 'rewards': the replay gives {got}, the record says {rec['rewards']}{versions}")
    if traced and len(recorded) != TRACE_DIGITS * (n + 1):
        _fail(rec, f"field 'trace': {len(recorded) // TRACE_DIGITS} steps recorded, the game has {n + 1} "
                   f"(the deal and {n} actions)")
    if traced and trace.digest != rec["digest"]:
        _fail(rec, f"field 'digest': the replayed game's digest is {trace.digest}, the record says "
                   f"{rec['digest']}{versions}")


def replay(line: str | Mapping[str, Any], step: int | None = None, render_mode: str | None = None):
    """The environment of a record after its first ``step`` actions (None: all of them), bit for
    bit the original's (observations, masks, rewards, infos, the random generator's state).

    Every action up to ``step`` is checked as :func:`steps` says; a full replay (``step`` None
    or the record's length) also checks the end, scores, ranks and rewards. ``step`` out of
    ``0..len(actions)`` is a ValueError. The returned env is ``env(**options)``: call
    ``render_state()``, ``observe(agent)``, ``last()`` on it, or play on from an intermediate step.
    """
    rec = parse(line)
    n = len(rec["actions"])
    if step is not None and (not _is_int(step) or not 0 <= step <= n):
        raise ValueError(f"step must be an int in 0..{n} (the record has {n} actions), got {step!r}")
    env = None
    for k, env in _replay_steps(rec, render_mode, warn=True):
        if step is not None and k == step and step < n:
            return env
    return env


def check_file(path: str | os.PathLike, out: TextIO | None = None) -> int:
    """:func:`check` every game of a records file (its form, its checksum and a full replay);
    the first that does not match is a ValueError naming its line. Returns the number of games."""
    count = 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                check(line)
            except ValueError as e:
                raise ValueError(f"{path} line {number}: {e}") from e
            count += 1
    print(f"{path}: {count} game{'s' if count != 1 else ''} checked: each line as written, and replayed with "
          "every action, state, end, score, rank and reward as recorded", file=out or sys.stdout)
    return count
