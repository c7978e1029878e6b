"""Guillotine's kernels: the branches the differential test must reach, the full 24-deal game,
the kernels' own deals, and the negative controls (planted one-line rule changes)."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from card_envs.guillotine import kernels as gk  # noqa: E402
from card_envs.guillotine import rules as gr  # noqa: E402
from card_envs.guillotine import view as gv  # noqa: E402
from tests.cases.guillotine import RARE_BRANCHES  # noqa: E402
from tests.conformance.differential import play_differential  # noqa: E402


#: what the recorder keeps of the state before each action (a full copy deep-copies the generator)
_SNAPSHOT = ("phase", "current_player", "hands", "table", "playable", "contract", "deal", "terminated")


def _recording(monkeypatch):
    """Record, for every action the rules engine applies during a differential run, the RARE_BRANCHES
    it took, the contracts played and the deals reached (the vector side is compared at each)."""
    seen = Counter()
    contracts = Counter()
    deals = set()
    apply = gr.GuillotineRules.apply

    def recorded(self, s, action):
        kept = {name: getattr(s, name) for name in _SNAPSHOT}
        before = SimpleNamespace(**{k: list(v) if isinstance(v, list) else v for k, v in kept.items()})
        out = apply(self, s, action)
        for name, hit in RARE_BRANCHES.items():
            if hit(before, action, s):
                seen[name] += 1
        if before.contract >= 0 and (s.deal != before.deal or s.terminated):
            contracts[before.contract] += 1  # a deal of this contract was played to its end
        deals.add(before.deal)
        return out

    monkeypatch.setattr(gr.GuillotineRules, "apply", recorded)
    return seen, contracts, deals


def test_the_domino_rare_branches_are_reached_and_compared(monkeypatch):
    seen, _, _ = _recording(monkeypatch)
    for k, cfg in enumerate([{"mode": "single", "contract": "domino"},
                             {"mode": "single", "contract": "domino", "first_dealer": 1, "reward_mode": "score"}]):
        report = play_differential("guillotine", cfg, games=40, batch=8, seed=20 + k)
        assert report.mismatch is None, report.mismatch
    missing = [name for name in RARE_BRANCHES if not seen[name]]
    assert not missing, f"branches never compared: {missing} (seen {dict(seen)})"


def test_every_deal_of_the_full_game_is_compared(monkeypatch):
    """Full 24-deal games: every deal, each dealer's six contracts, each redeal a random event
    compared (card census) and resynchronised."""
    _, contracts, deals = _recording(monkeypatch)
    for k, cfg in enumerate([{}, {"trick_rank_order": "french", "reward_mode": "score", "first_dealer": 2}]):
        report = play_differential("guillotine", cfg, games=2, batch=2, seed=40 + k)
        assert report.mismatch is None, report.mismatch
        assert report.games == 2
        assert report.random_events == 2 * (gr.NUM_DEALS - 1), "a redeal went unchecked"
    assert deals == set(range(gr.NUM_DEALS))
    assert all(contracts[c] == 2 * 2 * gr.NUM_PLAYERS for c in range(gr.NUM_CONTRACTS)), contracts


def _raw(config, deck=None, seed=0):
    e = card_envs.guillotine_v0.raw_env(**config)
    e.reset(seed=seed, options=None if deck is None else {"deck": deck})
    return e


@pytest.mark.parametrize("config", [
    {"mode": "single", "first_dealer": 2},
    {"mode": "single", "contract": "domino", "first_dealer": 1},
    {"mode": "single", "contract": "parliament", "first_dealer": 3},
    {"first_dealer": 0},
])
def test_the_kernels_own_deal_from_a_stacked_deck_is_the_rules_engines(config):
    """``new_games`` is not compared by the differential test (it loads the rules' states):
    dealt from the same stacked decks, the two engines start in the same state."""
    batch = 4
    rng = np.random.default_rng(7)
    deck = gr.GuillotineRules(**config).deck()
    decks = [[deck[i] for i in rng.permutation(len(deck))] for _ in range(batch)]
    venv = card_envs.guillotine_v0.vector_env(num_envs=batch, **config)
    obs, _ = venv.reset(seed=1, options={"decks": decks})
    for i in range(batch):
        e = _raw(config, decks[i])
        s = e.game_state
        mine = venv.get_state(i)
        for name in gr.STATE.names:
            if name != "rng":
                assert getattr(mine, name) == getattr(s, name), name
        agent = e.agent_selection
        assert obs["observation"][i].tobytes() == e.observe(agent)["observation"].tobytes()
        assert obs["action_mask"][i].tobytes() == e.observe(agent)["action_mask"].tobytes()
        for p in range(4):
            seats = np.full(batch, p, dtype=np.int64)
            assert venv.observe(seats)[i].tobytes() == e.observe(f"player_{p}")["observation"].tobytes()


def test_vector_only_full_games_keep_the_rules_invariants():
    """The kernels' own shuffles and deals (no resynchronising): each dealer uses each contract
    once, the four totals add up to 1000, the deal index and ``single_deal`` segments follow the
    deals, and every state the kernels reach is one the rules engine accepts."""
    batch = 4
    venv = card_envs.guillotine_v0.vector_env(num_envs=batch)
    venv.reset(seed=3)
    codec = gv.Codec()
    rules = gr.GuillotineRules()
    finished = 0
    deals_seen = set()
    for step in range(6000):
        for i in (step % batch,):  # one row per step, in turn
            s = venv.get_state(i)
            v = codec.decode(venv._obs[i])
            assert v.deal == s.deal and v.num_deals == gr.NUM_DEALS
            deals_seen.add(s.deal)
            assert sorted(c for z in rules.zones(s).values() for c in z) == sorted(rules.deck())
            assert venv._mask[i].tobytes() == rules.legal_mask(s).tobytes()
            venv.set_state(i, s)  # the dump/load round trip changes nothing
            assert venv._obs[i].tobytes() == gv.Codec().encode(gv.view(s, s.current_player)).tobytes()
        _, _, term, _, infos = venv.step(venv.sample_actions())
        for i in np.flatnonzero(term):
            assert infos["final_info"]["score"][i].sum() == 1000
            final = codec.decode(infos["final_obs"][i, 0])
            assert final.used_contracts == [63] * 4 and final.deal == gr.NUM_DEALS - 1
            finished += 1
        if finished >= 4:
            break
    assert finished >= 4 and deals_seen == set(range(gr.NUM_DEALS))
    venv = card_envs.guillotine_v0.vector_env(num_envs=4, mode="single")
    obs, _ = venv.reset(seed=0)
    assert all(codec.decode(x).num_deals == 1 for x in obs["observation"])


# --------------------------------------------------------------------- negative controls
def _planted(change):
    class Planted(gk.Kernels):
        def __init__(self, rules):
            super().__init__(rules)
            change(self)

    return Planted


def _no_follow_suit(k):
    """A player may always play any card (the follow-suit rule dropped)."""
    legal = k.legal

    def planted(a, mask):
        legal(a, mask)
        row, seat = a["row"], a["seat"]
        for g in range(mask.shape[0]):
            if row[g, gk.PHASE] == gr.TRICK:
                hand = int(seat[g, row[g, gk.CUR], gk.HAND])
                mask[g, :32] = [(hand >> i) & 1 for i in range(32)]

    k.legal = planted


CONTROLS = [
    ("follow suit dropped", _no_follow_suit, {"mode": "single", "contract": "royalty"}),
    ("king_rule ignored", lambda k: k.cfg.__setitem__(gk.C_EVERY_KING, 1),
     {"mode": "single", "contract": "spades", "king_rule": "contract_suit_king", "reward_mode": "score"}),
    ("seed trick order under french", lambda k: k.strength.__setitem__(slice(None), np.arange(8)),
     {"mode": "single", "contract": "guillotine", "trick_rank_order": "french"}),
    ("no Ace bonus", lambda k: k.cfg.__setitem__(gk.C_BONUS, 0), {"mode": "single", "contract": "domino"}),
]


@pytest.mark.parametrize("name, change, config", CONTROLS, ids=[c[0] for c in CONTROLS])
def test_a_planted_rule_change_in_the_guillotine_kernels_is_caught(name, change, config):
    report = play_differential("guillotine", config, games=40, seed=5, kernels=_planted(change))
    assert report.mismatch is not None, f"the differential test missed a changed rule: {name}"
