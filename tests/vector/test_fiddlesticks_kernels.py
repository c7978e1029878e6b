"""Fiddlesticks' kernels: the branches the differential test must reach, and its negative controls.

Fiddlesticks draws randomness only when a game is dealt (no reshuffle: cleared cards are gone
for good), so ``report.random_events`` stays 0. Instead the rules engine's side of the
differential run is watched: every ``FiddlesticksRules.apply`` of a compared step is classified
(hidden swap, wild 2s and 10s, the 9 rule, four in a row, pick-ups, blind plays, the end modes),
and each branch must have been reached, with the two engines agreeing, over the configurations
``tests/conformance/test_kernels.py`` plays (the same seeds and game counts: the same games).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba")

from card_envs.fiddlesticks import rules as fr  # noqa: E402
from tests.conformance.differential import play_differential  # noqa: E402
from tests.conformance.test_kernels import _games, configurations  # noqa: E402

NINE, TEN, TWO, EMPTY = fr.NINE, fr.TEN, fr.TWO, fr.EMPTY


def _classify(rules, s, action, b) -> list[str]:
    """The branches one applied action reached (``b``: what the state held before it)."""
    hits = []
    p = b["p"]
    if b["phase"] == fr.SWAP:
        r = action - rules.pick_base
        hits.append("swap pick from the face-up row" if b["up_counts"][r] else "swap pick from the hand (hidden commit)")
        if s.phase == fr.PLAY:
            hits.append("swap reveal")
        return hits
    top = b["top"]
    cleared = len(s.cleared) > b["cleared"]
    if action < rules.pick_base or rules.blind_base <= action < rules.pickup:
        if action < rules.pick_base:
            r, k = divmod(action, rules.copies)
            k += 1
            kind = "play"
        else:
            r = fr.GAME_RANK[b["face_down"][action - rules.blind_base]]
            k = 1
            kind = "blind"
        landed = fr.PLAYABLE[top][r]
        if kind == "blind":
            hits.append("blind play that fits" if landed else "blind play that fails")
            if landed and cleared:
                hits.append("blind play that clears")
        if landed:
            if r == TWO and top not in (EMPTY, TWO):
                hits.append("wild 2 on a higher card")
            if top == TWO and r != TWO:
                hits.append("a card on a 2")
            if r == TEN and b["pile"]:
                hits.append("a 10 burns the pile")
            if r == TEN and top != EMPTY and top > TEN:
                hits.append("wild 10 on a higher card")
            if top == NINE and TWO < r < NINE:
                hits.append("9 rule: a lower card on a 9")
            if top == NINE and r == NINE:
                hits.append("a 9 on a 9")
            if k > 1:
                hits.append("multiple cards in one play")
            if cleared and r != TEN:
                hits.append("four in a row clears the pile")
                if b["run_rank"] == r:
                    hits.append("four in a row completed across plays")
            if not rules.config.four_in_a_row_clears and s.run_len >= 4:
                hits.append("a run of four stays (four_in_a_row_clears off)")
            if cleared and s.current_player == p:
                hits.append("extra turn after a clear")
            if cleared and s.out[p]:
                hits.append("out on a clear")
        if kind == "play":
            if len(s.stock) < b["stock"]:
                hits.append("refill from the stock")
            if b["face_up"] and not s.face_up[p]:
                hits.append("face-up cards taken into the hand")
    else:
        hits.append("voluntary pick-up" if b["can_play"] else "forced pick-up")
    if s.out[p] and not b["out"]:
        hits.append("a player goes out")
        if not s.terminated:
            hits.append("a player out, play goes on (rank_all)")
    n = rules.num_players
    if s.current_player >= 0 and s.current_player != p and s.out[(p + 1) % n]:
        hits.append("a player who is out is skipped")
    if s.terminated:
        hits.append("game over: " + rules.config.end_mode)
    if s.truncated:
        hits.append("truncated at max_turns")
    return hits


BRANCHES = (
    "swap pick from the hand (hidden commit)", "swap pick from the face-up row", "swap reveal",
    "wild 2 on a higher card", "a card on a 2", "a 10 burns the pile", "wild 10 on a higher card",
    "9 rule: a lower card on a 9", "a 9 on a 9", "multiple cards in one play",
    "four in a row clears the pile", "four in a row completed across plays",
    "a run of four stays (four_in_a_row_clears off)", "extra turn after a clear", "out on a clear",
    "refill from the stock", "face-up cards taken into the hand", "forced pick-up", "voluntary pick-up",
    "blind play that fits", "blind play that fails", "blind play that clears",
    "a player goes out", "a player out, play goes on (rank_all)", "a player who is out is skipped",
    "game over: first_out", "game over: rank_all", "truncated at max_turns",
)


@pytest.fixture
def counted(monkeypatch):
    """Every rules-engine action of the differential runs, classified into ``hits``."""
    hits: Counter = Counter()
    apply = fr.FiddlesticksRules.apply

    def watched(self, s, action):
        p = s.current_player
        ok = fr.PLAYABLE[s.run_rank]
        before = {
            "p": p, "phase": s.phase, "top": s.run_rank, "run_rank": s.run_rank, "pile": len(s.pile),
            "cleared": len(s.cleared), "stock": len(s.stock), "face_up": len(s.face_up[p]),
            "up_counts": list(s.face_up_counts[p]), "face_down": list(s.face_down[p]), "out": s.out[p],
            "can_play": any(c and ok[r] for r, c in enumerate(s.hand_counts[p])),
        }
        out = apply(self, s, action)
        hits.update(_classify(self, s, action, before))
        return out

    monkeypatch.setattr(fr.FiddlesticksRules, "apply", watched)
    return hits


def test_every_rule_branch_is_reached_and_compared_in_the_differential_run(counted):
    per_config = {}
    for k, cfg in enumerate(configurations("fiddlesticks")):
        before = Counter(counted)
        # the same call as tests/conformance/test_kernels.py: the same games
        report = play_differential("fiddlesticks", dict(cfg), games=_games(cfg), seed=k, seats_per_step=6)
        assert report.mismatch is None, (cfg, report.mismatch)
        per_config[k] = counted - before
    missing = [b for b in BRANCHES if not counted[b]]
    assert not missing, f"branches the differential run never reached: {missing} (reached: {dict(counted)})"
    # each end of a game is reached by a configuration of that mode
    cfgs = configurations("fiddlesticks")
    for mode in ("first_out", "rank_all"):
        assert any(per_config[k]["game over: " + mode] for k, c in enumerate(cfgs) if c.get("end_mode", "first_out") == mode)


def test_the_configurations_cover_every_option_deck_count_and_player_count_extreme():
    cfgs = [fr.FiddlesticksRules(**c).config for c in configurations("fiddlesticks")]
    assert {c.num_decks for c in cfgs} >= {1, 2, 3, 4}
    assert {c.end_mode for c in cfgs} == {"first_out", "rank_all"}
    assert {c.four_in_a_row_clears for c in cfgs} == {True, False}
    assert {c.voluntary_pickup for c in cfgs} == {True, False}
    assert {isinstance(c.dealer, int) for c in cfgs} == {True, False}
    assert any(c.max_turns < 1000 for c in cfgs) and any(c.max_turns == 1000 for c in cfgs)
    players = {(c.num_decks, c.num_players) for c in cfgs}
    assert (2, 2) in players and (2, 11) in players and (1, 5) in players  # both ends (11 = 52·2 // 9)


def test_stacked_decks_and_every_config_deal_identically_at_the_start():
    """The kernels' own deal (not loaded from the rules engine): a stacked deck with a fixed
    dealer gives the rules engine's first observations, for every deck count."""
    import card_envs

    for cfg in ({"num_players": 3, "num_decks": 1, "dealer": 0}, {"num_players": 11, "dealer": 10},
                {"num_players": 3, "num_decks": 4, "dealer": 2}):
        venv = card_envs.fiddlesticks_v0.vector_env(num_envs=2, **cfg)
        rng = np.random.default_rng(1)
        deck = venv.rules.deck()
        decks = [card_envs.cards.format_many([deck[i] for i in rng.permutation(len(deck))]).split() for _ in range(2)]
        obs, _ = venv.reset(seed=0, options={"decks": decks})
        for i, stacked in enumerate(decks):
            env = card_envs.fiddlesticks_v0.raw_env(**cfg)
            env.reset(seed=0, options={"deck": stacked})
            assert venv.rules.zones(venv.get_state(i)) == env.rules.zones(env.game_state)
            assert obs["action_mask"][i].tobytes() == env.observe(env.agent_selection)["action_mask"].tobytes()
            for p, agent in enumerate(env.possible_agents):
                assert venv.observe(np.full(2, p))[i].tobytes() == env.observe(agent)["observation"].tobytes()


# --------------------------------------------------------------------- negative controls
def _planted_nine_rule():
    """A one-line rule change: the 9 rule forgotten (on a 9 a higher card may be played too)."""
    from card_envs.fiddlesticks import kernels as fk

    class Planted(fk.Kernels):
        def legal(self, a, mask):
            super().legal(a, mask)
            row, hcnt, K = a["row"], a["hcnt"], self.copies
            for g in np.flatnonzero((row[:, fk.RUN_RANK] == NINE) & (row[:, fk.PHASE] == fr.PLAY)):
                p = row[g, fk.CUR]
                for r in range(NINE + 1, 13):
                    mask[g, r * K : r * K + hcnt[g, p, r]] = 1

    return Planted


def _planted_ten_turn():
    """A one-line rule change: a 10 burns the pile but the turn passes on (no extra turn)."""
    from card_envs.fiddlesticks import kernels as fk

    class Planted(fk.Kernels):
        def step(self, a, actions, rewards, term, trunc):
            row, pl, n, K = a["row"], a["pl"], self.num_players, self.copies
            before = row[:, fk.CUR].copy()
            ten = (row[:, fk.PHASE] == fr.PLAY) & (actions < 13 * K) & (actions // K == TEN)
            super().step(a, actions, rewards, term, trunc)
            for g in np.flatnonzero(ten & (row[:, fk.CUR] == before)):
                q = (before[g] + 1) % n
                while pl[g, q, fk.PLACE]:
                    q = (q + 1) % n
                row[g, fk.CUR] = q

    return Planted


@pytest.mark.parametrize("planted", [_planted_nine_rule, _planted_ten_turn], ids=["nine-rule", "ten-extra-turn"])
def test_a_planted_rule_change_in_the_fiddlesticks_kernels_is_caught(planted):
    report = play_differential("fiddlesticks", {"num_players": 4}, games=40, seed=5, kernels=planted())
    assert report.mismatch is not None, "the differential test missed a changed rule"
