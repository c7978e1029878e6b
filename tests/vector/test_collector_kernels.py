"""Collector's kernels: the branches the differential test must reach, the hidden commitments,
and the negative control. ``test_hot_kernels.py`` reuses the helpers for Hot."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import card_envs  # noqa: E402
from card_envs import vector  # noqa: E402
from card_envs.set_collecting.engine import ACQUIRE, OVER, PLAY  # noqa: E402
from tests import cases  # noqa: E402
from tests.cases.collector import resolves  # noqa: E402
from tests.conformance.differential import play_differential  # noqa: E402


# ------------------------------------------------------------------------------ helpers
def _extra_branches(game: str) -> dict:
    """Events of the shared round beyond the game's RARE_BRANCHES (tests/cases) that the kernels mirror."""
    def same_deal(b, s):
        return s.deal == b.deal and s.phase != OVER

    return {
        "a known copy is played (the first publicly known card of that rank)":
            lambda b, a, s: b.phase == PLAY and b.pos + 1 == len(b.order)
            and any(len(s.known[p]) < len(b.known[p]) for p in range(b.num_players)),
        "a returned (seen) card is drawn back from the stock":
            lambda b, a, s: resolves(b) and same_deal(b, s) and any(
                len(s.known[p]) > len(b.known[p]) + s.last_taker.count(p) for p in range(b.num_players)),
        "a short stock: a player drawing two gets fewer":
            lambda b, a, s: resolves(b) and same_deal(b, s)
            and any(s.last_claim[p] < 0 and s.last_drawn[p] < 2 for p in range(b.num_players)),
        "a contest with a take": lambda b, a, s: resolves(b) and any(t >= 0 for t in s.last_taker),
    }


def branches_reached(monkeypatch, game: str, configs: list[dict], games: int, seed: int = 0) -> set[str]:
    """Play the differential test over ``configs``, recording which rare branches the rules
    engine's games (the very games compared against the kernels) went through."""
    env_mod = card_envs.ENVIRONMENTS[f"{game}_v0"]
    rules_cls = env_mod.raw_env.Rules
    predicates = dict(cases.of(game).RARE_BRANCHES) | _extra_branches(game)
    hits: set[str] = set()
    apply = rules_cls.apply

    def recording(self, s, action):
        before = s.copy()
        out = apply(self, s, action)
        for name, pred in predicates.items():
            if name not in hits and pred(before, action, s):
                hits.add(name)
        return out

    monkeypatch.setattr(rules_cls, "apply", recording)
    for k, cfg in enumerate(configs):
        report = play_differential(game, cfg, games=games, seed=seed + k)
        assert report.mismatch is None, (cfg, report.mismatch)
        assert report.games >= games
    monkeypatch.undo()
    return hits, set(predicates)


def play_lockstep(game: str, config: dict, deck: list[int], actions: list[int]):
    """One game from a stacked deck through raw_env() and vector_env, the given actions, every
    output compared at every step (masks, every seat's observation, rewards, ends, final infos
    and final observations). Returns the raw env at the end."""
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    venv = vector.make(game, 1, config)
    venv.reset(seed=0, options={"decks": [deck]})
    env = module.raw_env(**config)
    env.reset(seed=0, options={"deck": deck})
    agents = env.possible_agents
    for step, a in enumerate(actions):
        assert not env._done, f"the game ended before step {step}"
        assert venv._current[0] == env.game_state.current_player
        assert venv._mask[0].tobytes() == env.observe(env.agent_selection)["action_mask"].tobytes()
        for p, agent in enumerate(agents):
            assert venv.observe(np.full(1, p))[0].tobytes() == env.observe(agent)["observation"].tobytes(), (step, p)
        _, rewards, term, trunc, infos = venv.step(np.array([a]))
        env.step(a)
        want = np.array([env.rewards[x] for x in agents], dtype=np.float32)
        assert rewards[0].tobytes() == want.tobytes(), (step, rewards[0], want)
        assert (bool(term[0]), bool(trunc[0])) == (env.game_state.terminated, env.game_state.truncated)
    assert env._done, "the game did not end"
    fi = infos["final_info"]
    for p, agent in enumerate(agents):
        assert (fi["score"][0, p], fi["rank"][0, p]) == (env.infos[agent]["score"], env.infos[agent]["rank"])
        assert infos["final_obs"][0, p].tobytes() == env.observe(agent)["observation"].tobytes()
    return env


def _card(rank: int, suit: int) -> int:
    return suit * 13 + rank


def two_complete_deck(num_players: int, completing: list[int], dealer: int = 0) -> list[int]:
    """A 12-card-hand deck in which every seat of ``completing`` holds A, A, 2..J and the lead
    seat's draws (in seat order from the lead seat) bring each of them a Q and a K; the other
    seats hold pairs of low ranks. All play an A (or their first card), all draw two."""
    n = num_players
    hands = {p: [] for p in range(n)}
    used = set()

    def take(rank):
        for suit in range(4):
            c = _card(rank, suit)
            if c not in used:
                used.add(c)
                return c
        raise AssertionError(rank)

    for p in completing:
        hands[p] = [take(0), take(0)] + [take(r) for r in range(1, 11)]
    for p in range(n):
        if p not in completing:
            hands[p] = [take(r) for r in (1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6)]
    deck = [hands[(dealer + 1 + i) % n][i // n] for i in range(12 * n)]
    lead = (dealer + 1) % n
    for i in range(n):
        p = (lead + i) % n
        if p in completing:
            deck += [take(11), take(12)]
        else:
            deck += [take(11), take(11)]
    deck += [c for c in range(52) if c not in used]
    assert sorted(deck) == list(range(52))
    return deck


def hidden_commitment_check(game: str, config: dict, games: int = 6, seed: int = 0) -> int:
    """Two rows of a vector env set to one state at the start of a commit phase; the first
    mover commits differently in each; every later mover's mask and every other seat's
    observation must be byte-identical in the two rows, to the end of the phase. Returns how
    many phases were checked."""
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    venv = vector.make(game, 2, config)
    venv.reset(seed=seed)
    n = venv.num_players
    env = module.raw_env(**config)
    pick = np.random.default_rng(seed)
    checked = {PLAY: 0, ACQUIRE: 0}
    for k in range(games):
        env.reset(seed=seed * 1000 + k)
        while not env._done:
            s = env.game_state
            mask = env.observe(env.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            if s.pos == 0 and len(s.order) > 1 and len(legal) > 1:
                first = s.current_player
                venv.set_state(0, s.copy())
                venv.set_state(1, s.copy())
                a0, a1 = pick.choice(legal, 2, replace=False)
                venv.step(np.array([a0, a1]))
                own = venv.observe(np.full(2, first))
                assert own[0].tobytes() != own[1].tobytes(), "the two rows do not hold different commitments"
                for _ in range(len(s.order) - 1):  # the later movers of this phase
                    assert venv._current[0] == venv._current[1] != first
                    assert venv._mask[0].tobytes() == venv._mask[1].tobytes(), "a mask depends on another's commitment"
                    assert venv._obs[0].tobytes() == venv._obs[1].tobytes(), "a later mover sees a commitment"
                    for p in range(n):
                        if p != first:
                            obs = venv.observe(np.full(2, p))
                            assert obs[0].tobytes() == obs[1].tobytes(), f"seat {p} sees seat {first}'s commitment"
                    if venv._current[0] == venv.get_state(0).order[-1]:
                        break  # the last commitment reveals (or resolves): the phase is over
                    later = np.flatnonzero(venv._mask[0])
                    b = later[pick.integers(len(later))]
                    venv.step(np.array([b, b]))
                checked[s.phase] += 1
            env.step(int(legal[pick.integers(len(legal))]))
    assert checked[PLAY] > 0 and checked[ACQUIRE] > 0, checked
    return sum(checked.values())


# ------------------------------------------------------------------------ the branches
def test_collector_rare_branches_are_reached_and_compared(monkeypatch):
    configs = [
        {"num_players": 4, "hand_size": 1, "contest_fallback": "nothing", "max_rounds": 40},
        {"num_players": 3, "hand_size": 12, "max_rounds": 60, "dealer": 1},
        {"num_players": 3, "max_rounds": 12, "truncation_rule": "most_ranks", "dealer": 2},
    ]
    hits, every = branches_reached(monkeypatch, "collector", configs, games=6)
    assert hits == every, f"branches never compared: {sorted(every - hits)}"


def test_collector_kernels_draw_randomness_only_for_a_new_game():
    """Collector shuffles once: no step of a game in progress may move a row's generator."""
    report = play_differential("collector", {"num_players": 3, "hand_size": 12, "max_rounds": 60}, games=6, seed=2)
    assert report.mismatch is None, report.mismatch
    assert report.random_events == 0


def test_collector_players_completing_together_share_the_win():
    deck = two_complete_deck(3, [0, 2], dealer=0)
    # PLAY from the lead seat 1: seat 1 plays a 2, seats 2 and 0 an A; ACQUIRE: all draw two
    env = play_lockstep("collector", {"num_players": 3, "hand_size": 12}, deck, [1, 0, 0, 13, 13, 13])
    s = env.game_state
    assert s.terminated and s.winners == [0, 2] and s.first_place == [True, False, True]
    assert [env.rewards[a] for a in env.possible_agents] == [0.5, -1.0, 0.5]


def test_collector_most_ranks_truncation_compared_step_by_step():
    deck = two_complete_deck(2, [1], dealer=0)
    env = play_lockstep("collector", {"num_players": 2, "hand_size": 12, "max_rounds": 1, "truncation_rule": "most_ranks"},
                        deck, [1, 1, 14, 14])  # both play a 2 and take the other's: nobody completes
    assert env.game_state.truncated and env.rules.ranks(env.game_state) == [2, 1]  # 6 ranks vs 11


# ------------------------------------------------------------------- hidden commitments
@pytest.mark.parametrize("config", [{"num_players": 3}, {"num_players": 4, "hand_size": 1, "max_rounds": 30}])
def test_collector_a_later_mover_sees_nothing_of_an_earlier_commitment(config):
    assert hidden_commitment_check("collector", config, games=3) > 0


def test_collector_wait_is_never_legal_in_the_vector_env():
    venv = card_envs.collector_v0.vector_env(num_envs=16, num_players=4, hand_size=1, max_rounds=30)
    venv.reset(seed=0)
    for _ in range(300):
        assert not venv._mask[:, 17].any()
        venv.step(venv.sample_actions())


# --------------------------------------------------------------------- negative control
def _planted_collector():
    """A one-line rule change: a losing claimant draws one card instead of two."""
    from card_envs.set_collecting import kernels as ck

    class Planted(ck.Kernels):
        def __init__(self, rules):
            super().__init__(rules)
            self.cfg[ck.C_LOSER_DRAWS] = 1

    return Planted


def test_a_planted_rule_change_in_the_collector_kernels_is_caught():
    report = play_differential("collector", {"num_players": 4, "max_rounds": 30}, games=8, seed=5, kernels=_planted_collector())
    assert report.mismatch is not None, "the differential test missed a changed rule"
