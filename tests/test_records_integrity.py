"""A record is what was played, or it is refused.

Recorded games of every game are edited at random (each field, each card of the deck, each
action, the seed, single characters of the line) and every edited line must be refused with a
ValueError, or be byte for byte the original. Edits re-sealed with a fresh checksum (a forger's)
that change the game must still be refused: the trace of states catches them at the first action
where the replay departs. Fields the replay cannot check (the agent specs, the library version)
are checked for what they can be.
"""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest

import card_envs
from card_envs import records

#: a short table of every game (a few dozen to a few hundred actions)
TABLES = [
    ("golf_v0", {"num_players": 2, "num_rounds": 1}),
    ("fiddlesticks_v0", {"num_players": 3, "num_decks": 1, "dealer": 0}),
    ("guillotine_v0", {"mode": "single"}),
    ("collector_v0", {"num_players": 2, "max_rounds": 6, "truncation_rule": "most_ranks"}),
    ("hot_v0", {"num_players": 2, "max_rounds_per_deal": 4, "max_deals": 3}),
    ("guilders_v0", {"num_players": 2}),
]
#: random edits of each kind per record in the default suite, and in the slow one
EDITS, SLOW_EDITS = 12, 60


def _record(name: str, config: dict, seed: int, stacked: bool) -> str:
    deck = None
    if stacked:
        rules = card_envs.ENVIRONMENTS[name].raw_env(**config).rules
        deck = [card_envs.cards.to_str(int(c)) for c in np.random.default_rng(seed).permutation(rules.deck())]
    return records.dumps(records.record(name, "random", config, seed=seed, deck=deck))


def _line(rec: dict) -> str:
    return json.dumps(rec, separators=(",", ":"))


def _resealed(rec: dict) -> str:
    out = dict(rec)
    out["checksum"] = records.checksum(out)
    return _line(out)


def _refused_or_original(edited: str, original: str, what: str) -> bool:
    """Whether ``edited`` is refused (True) or is the original line; fails the test otherwise."""
    if edited == original:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            records.check(edited)
        except ValueError:
            return True
    pytest.fail(f"{what}: an edited line replays as a valid record:\n{edited[:300]}")


def _same_game(edited: str, original: str) -> bool:
    """Whether two records replay as the same game: every seat's observation and mask, the
    rewards, the agent to act and the random generator's state equal after every step."""
    from tests.test_records import fingerprint

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = [fingerprint(env) for _, env in records.steps(original)]
        b = [fingerprint(env) for _, env in records.steps(edited)]
    return a == b


def _refused_or_same_game(edited: str, original: str, what: str) -> bool:
    """A re-sealed edit (its checksum recomputed) is refused (True), or replays exactly as the
    original game (a deck swap inside one hand, a choice a void deal erases); fails otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            records.check(edited)
        except ValueError:
            return True
    assert _same_game(edited, original), f"{what}: a re-sealed edit replays as another game"
    return False


def _other_legal(name: str, rec: dict, k: int, rng) -> tuple[int, str] | None:
    """Another legal action at action k of the recorded game, with its name (a consistent edit)."""
    env = records.replay(rec, step=k)
    legal = [int(a) for a in np.flatnonzero(env.unwrapped._legal_mask()) if a != rec["actions"][k][1]]
    if not legal:
        return None
    a = legal[int(rng.integers(len(legal)))]
    return a, env.unwrapped.action_to_string(a)


def _game_edits(name: str, rec: dict, rng, count: int):
    """Edits that change the game itself (the deal, the seed, an action, the options)."""
    n = len(rec["actions"])
    if rec["deck"] is not None:
        for _ in range(count):
            i, j = rng.choice(len(rec["deck"]), 2, replace=False)
            e = copy.deepcopy(rec)
            e["deck"][i], e["deck"][j] = e["deck"][j], e["deck"][i]
            yield f"deck cards {i} and {j} swapped", e
    for delta in (1, -1, 1000):
        e = copy.deepcopy(rec)
        e["seed"] = max(0, rec["seed"] + delta)
        yield f"seed {e['seed']}", e
    for k in rng.choice(n, min(count, n), replace=False):
        other = _other_legal(name, rec, int(k), rng)
        if other is not None:
            e = copy.deepcopy(rec)
            e["actions"][int(k)][1:] = list(other)
            yield f"action {k} replaced by {other}", e
        e = copy.deepcopy(rec)
        e["actions"][int(k)][1] = (rec["actions"][int(k)][1] + 1) % 5
        yield f"action {k}'s index changed", e
    e = copy.deepcopy(rec)
    e["deck"] = None if rec["deck"] is not None else None
    if rec["deck"] is not None:
        yield "the deck removed", e


def _field_edits(rec: dict, rng):
    n = len(rec["actions"])
    values = {
        "format": "card_envs.record", "format_version": 3, "library_version": "9.9.9", "env": "golf_v0",
        "options": {**rec["options"], "reward_mode": "score"}, "seed": rec["seed"] + 1,
        "agents": ["randoo"] * len(rec["agents"]), "end": "truncated" if rec["end"] != "truncated" else "terminated",
        "scores": None, "ranks": [1] * len(rec["agents"]), "rewards": [0.0] * len(rec["agents"]),
        "trace": rec["trace"][:-1] + ("0" if rec["trace"][-1] != "0" else "1"),
        "digest": rec["digest"][::-1], "checksum": rec["checksum"][::-1], "actions": rec["actions"][: n // 2],
    }
    for field, value in values.items():
        e = copy.deepcopy(rec)
        e[field] = value
        yield f"field {field!r}", e
        if field not in ("checksum",):
            e = copy.deepcopy(rec)
            del e[field]
            yield f"field {field!r} removed", e


@pytest.mark.parametrize("name, config", TABLES, ids=[t[0] for t in TABLES])
def test_every_edit_of_a_record_is_refused(name, config):
    _fuzz(name, config, EDITS)


@pytest.mark.slow
@pytest.mark.parametrize("name, config", TABLES, ids=[t[0] for t in TABLES])
def test_every_edit_of_a_record_is_refused_in_many_edits(name, config):
    _fuzz(name, config, SLOW_EDITS, seeds=(11, 12))


def _fuzz(name: str, config: dict, count: int, seeds=(7,)):
    rng = np.random.default_rng(hash(name) % 2**32)
    refused = 0
    for seed in seeds:
        for stacked in (False, True):
            line = _record(name, config, seed, stacked)
            rec = json.loads(line)
            records.check(line)  # the original is fine
            for what, edited in list(_field_edits(rec, rng)) + list(_game_edits(name, rec, rng, count)):
                refused += _refused_or_original(_line(edited), line, what)
            for what, edited in _game_edits(name, rec, rng, count):  # re-sealed: the trace catches it
                refused += _refused_or_same_game(_resealed(edited), line, "re-sealed " + what)
            printable = [chr(c) for c in range(32, 127)]
            for _ in range(4 * count):  # single characters of the line
                i = int(rng.integers(len(line)))
                edited = line[:i] + printable[int(rng.integers(len(printable)))] + line[i + 1:]
                refused += _refused_or_original(edited, line, f"character {i}")
            edited = line.replace(",", ", ", 1)  # the same values, spelled otherwise
            refused += _refused_or_original(edited, line, "a space")
    assert refused > 20 * count


def test_a_resealed_edit_names_the_action_where_the_game_departs():
    name, config = TABLES[0]
    rec = json.loads(_record(name, config, 3, stacked=False))
    other = _other_legal(name, rec, 5, np.random.default_rng(0))
    assert other is not None
    rec["actions"][5][1:] = list(other)
    with pytest.raises(ValueError, match=r"action 5 \(player_\d: \d+ '[^']+'\): the state after it departs"):
        records.check(_resealed(rec))
    rec = json.loads(_record(name, config, 3, stacked=False))
    rec["seed"] += 1
    with pytest.raises(ValueError, match=r"the deal departs from the recorded game.*field 'seed' or 'deck'"):
        records.check(_resealed(rec))


def test_an_unresealed_edit_says_the_line_was_edited_and_where_the_game_departs():
    rec = json.loads(_record(*TABLES[2], 4, stacked=True))
    rec["deck"][0], rec["deck"][1] = rec["deck"][1], rec["deck"][0]  # two seats' first cards
    with pytest.raises(ValueError, match=r"checksum does not match.*replaying it: the deal departs"):
        records.parse(_line(rec))


def test_agent_specs_must_be_specs_the_library_can_load():
    rec = json.loads(_record(*TABLES[0], 5, stacked=False))
    rec["agents"] = ["randoo", None]
    with pytest.raises(ValueError, match=r"field 'agents': seat 0's spec 'randoo' is not one the library can load"):
        records.parse(_resealed(rec))
    rec["agents"] = ["heuristic", "pimc:worlds=8"]
    records.check(_resealed(rec))  # other valid specs of the same game: the same game


def test_another_library_version_replays_with_a_warning_naming_both():
    rec = json.loads(_record(*TABLES[0], 5, stacked=False))
    rec["library_version"] = "9.9.9"
    with pytest.warns(UserWarning, match=rf"written by card_envs 9\.9\.9; this is card_envs {card_envs.__version__}"):
        records.check(_resealed(rec))


def test_meta_is_free_to_edit_and_the_game_stays_checked():
    rec = json.loads(_record(*TABLES[0], 5, stacked=False))
    rec["meta"] = {"note": "annotated later"}
    order = [k for k in rec if k != "checksum"] + ["checksum"]
    line = _line({k: rec[k] for k in order})
    assert records.check(line)["meta"] == {"note": "annotated later"}
    assert records.dumps(json.loads(line)) == line


def test_a_record_of_format_version_1_still_reads_and_replays_with_a_warning():
    rec = json.loads(_record(*TABLES[0], 5, stacked=False))
    old = {k: rec[k] for k in records.FIELDS_V1}
    old["format_version"] = 1
    with pytest.warns(UserWarning, match="format_version 1 has no trace or checksum"):
        records.check(_line(old))
    old["actions"][2][1:] = ["oops", 1]
    with pytest.raises(ValueError, match="action 2 must be"):
        records.check(_line(old))
