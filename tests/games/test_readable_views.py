"""Readable views: every PlayerView by name, one card numbering per game,
docstrings that point to what exists, Guillotine's per-deal scores in ``infos``, and the
README's ways of reading an observation and collecting every agent's final infos."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re

import numpy as np
import pytest

import card_envs
from card_envs import cards, collector_v0, golf_v0, guilders_v0, guillotine_v0, views
from card_envs.base import CardGameEnv
from card_envs.set_collecting import view as collector_view
from card_envs.guillotine import rules as GR
from card_envs.guillotine import view as GV
from tests.conformance.cases import FIRST_CASES, random_action

GAMES = list(card_envs.ENVIRONMENTS.items())
VIEW_MODULES = {
    name: importlib.import_module(f"card_envs.{name.removesuffix('_v0')}.view") for name, _ in GAMES
}


def _is_plain(x) -> bool:
    if x is None or isinstance(x, (bool, int, float, str)):
        return True
    if isinstance(x, list):
        return all(_is_plain(v) for v in x)
    if isinstance(x, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in x.items())
    return False


def _views_along_a_game(module, config, seed=0, every=7, cap=400, check=None):
    """(env, agent, observation vector, PlayerView) every few steps of a random game;
    ``check(env, agent, view)`` is called on each while the table is as the view saw it."""
    env = module.raw_env(**config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for step, agent in enumerate(env.agent_iter(cap)):
        obs, _, term, trunc, _ = env.last()
        if step % every == 0 or term or trunc:
            v = env.decode(obs["observation"])
            out.append((env, agent, obs["observation"], v))
            if check is not None:
                check(env, agent, v)
        env.step(None if term or trunc else random_action(obs, rng))
    return out


# ------------------------------------------------------------------- every game's readable face
@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_every_view_reads_as_plain_names_and_numbers(module, config):
    seen = 0
    for env, _, x, v in _views_along_a_game(module, config):
        fields_before = {f.name: repr(getattr(v, f.name)) for f in dataclasses.fields(v)}
        r = v.readable()
        assert _is_plain(r), r
        json.dumps(r)  # a dict of plain names and numbers
        text, one_line = str(v), repr(v)
        assert text.startswith("PlayerView\n") and one_line.startswith("PlayerView(")
        for key in r:
            assert f"  {key}: " in text and f"{key}=" in one_line
        # the raw fields and the encoding are untouched: kernels read these
        assert {f.name: repr(getattr(v, f.name)) for f in dataclasses.fields(v)} == fields_before
        np.testing.assert_array_equal(env.encode_view(v), x)
        seen += 1
    assert seen > 3


@pytest.mark.parametrize("name, module", GAMES)
def test_every_view_names_its_own_cards_and_says_how_they_are_numbered(name, module):
    PlayerView = VIEW_MODULES[name].PlayerView
    assert isinstance(PlayerView.CARD_NUMBERING, str) and PlayerView.CARD_NUMBERING
    assert callable(PlayerView.card_name)
    assert isinstance(PlayerView.card_name(0), str)


def test_a_declaration_naming_a_missing_field_fails_at_import():
    @dataclasses.dataclass
    class V:
        hand: int

    with pytest.raises(ValueError, match="no field"):
        views.readable_view(card_name=str, numbering="x", fields={"hnad": views.plain})(V)


# --------------------------------------------------------------------------------- Guillotine
def test_guillotine_card_27_is_ts_everywhere_the_game_names_it():
    """The bug: Guillotine's card 27 is Ts while card_envs.cards.to_str(27) says 2h."""
    env = guillotine_v0.env()
    assert GR.card_name(27) == "Ts"
    assert GV.PlayerView.card_name(27) == "Ts"
    assert env.unwrapped.rules.card_name(27) == "Ts"
    assert env.unwrapped.action_to_string(27) == "play Ts"
    # the shared helper keeps the 52-card numbering, and says so
    assert cards.to_str(27) == "2h"
    assert "52-card numbering" in cards.to_str.__doc__
    assert "52-card numbering" in cards.__doc__


def test_guillotine_rules_cards_of_exists_where_the_docstrings_point():
    """The view docstring pointed to ``rules.cards_of``, which env.unwrapped.rules lacked."""
    rules = guillotine_v0.env().unwrapped.rules
    assert rules.cards_of(1 << 27 | 1) == [0, 27]
    assert [rules.card_name(i) for i in rules.cards_of(1 << 27 | 1)] == ["7c", "Ts"]


def test_guillotine_reproduction_hand_4295809_and_contract_0_read_by_name():
    env = guillotine_v0.env(mode="single")
    env.reset(seed=0)
    v = env.unwrapped.decode(env.observe(env.agent_selection)["observation"])
    v = dataclasses.replace(v, hand=4295809, contract=0)
    r = v.readable()
    assert r["hand"] == ["7c", "Ac", "9d", "Td", "Ad", "7h", "Kh"]
    assert r["contract"] == "royalty"
    assert "hand: 7c Ac 9d Td Ad 7h Kh" in str(v) and "contract: royalty" in str(v)
    assert v.hand == 4295809 and v.contract == 0  # the fields keep their numbers


@pytest.mark.parametrize("config", [{"mode": "single"}, {"mode": "single", "contract": "domino"}, {}])
def test_guillotine_readable_view_matches_the_table(config):
    env = guillotine_v0.raw_env(**config)
    rng = np.random.default_rng(3)
    env.reset(seed=11)
    checked = 0
    for step, agent in enumerate(env.agent_iter(300)):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.game_state
        seat = env.possible_agents.index(agent)
        r = env.decode(obs["observation"]).readable()
        zones = env.rules.zones(s)
        assert r["hand"] == [cards.to_str(c) for c in zones[f"hand {seat}"]]  # zones: cards.py ints
        legal = [a for a in np.flatnonzero(obs["action_mask"]) if a < GR.NUM_CARDS]
        assert all(f"play {GR.card_name(a)}" == env.action_to_string(a) for a in legal)
        assert set(GR.card_name(a) for a in legal) <= set(r["hand"])
        assert r["contract"] == (None if s.contract < 0 else GR.CONTRACT_NAMES[s.contract])
        assert r["phase"] == GR.PHASE_NAMES[s.phase]
        rel = lambda p: (p - seat) % 4  # noqa: E731
        for p in range(4):
            c = s.trick[p]
            assert r["trick"][rel(p)] == (None if c < 0 else GR.card_name(c))
            used = [GR.CONTRACT_NAMES[k] for k in range(6) if s.used[p] >> k & 1]
            assert r["used_contracts"][rel(p)] == used
        if s.contract == GR.DOMINO:
            assert r["layout"] == [GR.card_name(i) for i in GR.cards_of(s.table)]
            assert r["anchor"] == (None if s.anchor < 0 else GR.RANK_NAMES[s.anchor])
        elif s.led >= 0:
            assert r["led_suit"] == "cdhs"[s.led]
        checked += 1
        env.step(random_action(obs, rng))
    assert checked > 20


def test_observation_layout_split_reads_the_same_contract():
    env = guillotine_v0.env(mode="single", contract="parliament")
    env.reset(seed=2)
    x = env.observe(env.agent_selection)["observation"]
    parts = env.unwrapped.observation_layout.split(x)
    assert GR.CONTRACT_NAMES[int(np.argmax(parts["contract"]))] == "parliament"
    assert env.unwrapped.decode(x).readable()["contract"] == "parliament"
    hand = [GR.card_name(int(i)) for i in np.flatnonzero(parts["hand"])]
    assert hand == env.unwrapped.decode(x).readable()["hand"]


# ----------------------------------------------------------------------------- the other games
def test_golf_readable_grids_are_the_face_up_ranks():
    def check(env, agent, v):
        s = env.game_state
        seat = env.possible_agents.index(agent)
        r = v.readable()
        for k in range(3):
            p = (seat + k) % 3
            want = [cards.to_str(c)[0].replace("T", "10") if s.face_up[p][i] else None for i, c in enumerate(s.grid[p])]
            assert r["grids"][k] == want
        assert sorted(r["discard_counts"]) == sorted(cards.to_str(c)[0].replace("T", "10") for c in s.discard)

    assert len(_views_along_a_game(golf_v0, {"num_players": 3}, every=3, check=check)) > 10


def test_fiddlesticks_ranks_are_named_two_to_ace():
    from card_envs.fiddlesticks import view as FV

    assert FV.PlayerView.card_name(0) == "2" and FV.PlayerView.card_name(12) == "A"
    for _, _, _, v in _views_along_a_game(card_envs.fiddlesticks_v0, {"num_players": 3}):
        r = v.readable()
        assert len(r["hand"]) == sum(v.hand)
        assert r["hand"] == [FV.RANK_NAMES[i] for i, k in enumerate(v.hand) for _ in range(k)]
        assert r["pile_top"] == (None if v.pile_top is None else FV.RANK_NAMES[v.pile_top])


@pytest.mark.parametrize("module", [collector_v0, card_envs.hot_v0])
def test_collector_and_hot_commitments_are_named_as_the_env_names_actions(module):
    env = module.raw_env()
    names = collector_view.commit_names(env.rules.variant)
    assert list(names) == [env.rules.action_to_string(None, a) for a in range(len(names))]
    for _, _, _, v in _views_along_a_game(module, {}, every=1, cap=200):
        r = v.readable()
        assert r["own_commit"] == (None if v.own_commit is None else names[v.own_commit])
        assert r["hand"] == [collector_view.RANK_NAMES[i] for i, k in enumerate(v.hand) for _ in range(k)]


def test_guilders_cards_and_calls_by_name():
    from card_envs.guilders.rules import ACTION_NAMES

    cases = [c for seed in range(4) for c in _views_along_a_game(guilders_v0, {"num_players": 3}, seed=seed, every=3)]
    assert any(v.readable()["piles"] != [[], [], []] for *_, v in cases)
    for *_, v in cases:
        r = v.readable()
        assert r["unseen"] == [cards.to_str(c) for c in range(54) for _ in range(int(v.unseen[c]))]
        assert r["last_call"] == (None if v.last_call is None else ACTION_NAMES[v.last_call])
        assert r["miss_calls"] == {ACTION_NAMES[a]: int(k) for a, k in enumerate(v.miss_calls) if k}
        assert r["piles"] == [[[cards.to_str(c), val] for c, val in pile] for pile in v.piles]


# ---------------------------------------------------------------- docstrings point to what exists
_DOTTED = re.compile(r"``(card_envs(?:\.[A-Za-z_]\w*)+)``|:(?:func|mod|class|meth|attr):`(card_envs(?:\.\w+)+)`")
_ON_RULES = re.compile(r"env\.unwrapped\.rules\.(\w+)")


def _resolve(dotted: str):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("name, module", GAMES)
def test_view_and_env_docstrings_point_to_what_exists(name, module):
    view_mod = VIEW_MODULES[name]
    texts = [view_mod.__doc__ or "", view_mod.PlayerView.__doc__ or "", module.raw_env.__doc__ or ""]
    rules = module.raw_env().rules
    for text in texts:
        for m in _DOTTED.finditer(text):
            _resolve(m.group(1) or m.group(2))
        for m in _ON_RULES.finditer(text):
            assert hasattr(rules, m.group(1)), f"{name}: env.unwrapped.rules has no {m.group(1)}"
    # the old, wrong pointer is gone
    assert "``rules.cards_of``" not in (view_mod.__doc__ or "")


# ------------------------------------------------------------------- Guillotine's per-deal scores
def _play(env, seed, actions=None):
    """Play a seeded random game; returns (every agent's last info, the step log)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    last, log = {}, []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        last[agent] = info
        action = None if term or trunc else random_action(obs, rng)
        log.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        env.step(action)
    return last, log


def test_a_full_guillotine_game_reports_every_deals_scores():
    env = guillotine_v0.env(first_dealer=0)
    final, _ = _play(env, seed=4)
    assert set(final) == set(env.possible_agents)
    for a, info in final.items():
        assert info["deal"] == 23 and len(info["deal_scores"]) == 24
        assert sum(info["deal_scores"]) == info["score"]
        assert {"score", "rank", "deal", "deal_scores", "deal_contracts"} <= set(info)
    contracts = final["player_0"]["deal_contracts"]
    assert all(final[a]["deal_contracts"] == contracts for a in final)
    assert sorted(contracts) == sorted(list(GR.CONTRACT_NAMES) * 4)  # each dealer used all six
    # every deal's points add to the contract's total (Royalty 120, ..., Domino -40)
    for k in range(24):
        total = sum(final[a]["deal_scores"][k] for a in final)
        assert total in {"royalty": {120}, "queens": {0}, "spades": {0}, "parliament": {-80},
                         "guillotine": {250}, "domino": {-40}}[contracts[k]]
    assert sum(final[a]["score"] for a in final) == 1000


def test_guillotine_deal_scores_arrive_at_each_deals_end():
    env = guillotine_v0.raw_env(first_dealer=2)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    deals_seen = []
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        deal_before = env.game_state.deal
        env.step(random_action(obs, rng))
        s = env.game_state
        if s.deal != deal_before or s.terminated:
            deals_seen.append(deal_before)
            for p, a in enumerate(env.possible_agents):
                assert env.infos[a]["deal"] == deal_before
                assert env.infos[a]["deal_scores"][-1] == s.last_deal[p]
                assert len(env.infos[a]["deal_scores"]) == deal_before + 1
        elif deal_before == 0:
            assert all("deal_scores" not in env.infos[a] for a in env.possible_agents)
    assert deals_seen == list(range(24))


def test_guillotine_single_deal_reports_its_deal():
    final, _ = _play(guillotine_v0.env(mode="single", contract="guillotine"), seed=1)
    for info in final.values():
        assert info["deal"] == 0 and info["deal_scores"] == [info["score"]]
        assert info["deal_contracts"] == ["guillotine"]


def test_an_info_returned_earlier_is_not_changed_by_a_later_deal():
    env = guillotine_v0.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    early = env.last()[4]
    assert early == {}
    while env.game_state.deal == 0:
        env.step(random_action(env.last()[0], rng))
    assert early == {} and "deal_scores" in env.infos["player_0"]


@pytest.mark.parametrize("config", [{}, {"reward_mode": "score", "first_dealer": 1}])
def test_deal_scores_change_no_reward_observation_score_or_rank(config):
    """The same seeded game on the base class (no per-deal infos) steps identically."""

    class Plain(CardGameEnv):
        metadata = guillotine_v0.raw_env.metadata
        Rules = GR.GuillotineRules
        View = GV

    ours, log_ours = _play(guillotine_v0.raw_env(**config), seed=21)
    base, log_base = _play(Plain(**config), seed=21)
    assert log_ours == log_base
    for a in ours:
        assert {k: ours[a][k] for k in ("score", "rank")} == base[a]


# ------------------------------------------------------------- the README's final-infos loop
def test_the_readme_loop_keeps_every_agents_final_info():
    """PettingZoo empties env.infos once agent_iter ends; keeping each agent's last info works."""
    env = card_envs.golf_v0.env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        final[agent] = info
        action = None if terminated or truncated else random_action(obs, rng)
        env.step(action)
    assert env.infos == {}  # PettingZoo's way
    assert set(final) == set(env.possible_agents)
    assert sorted(i["rank"] for i in final.values())[0] == 1
