"""Baseline agents: legal play everywhere, heuristics blind to hidden cards, tournaments, and
terminal play driven through its input."""

import io

import numpy as np
import pytest

import agents
import card_envs
from agents.heuristic import HeuristicAgent
from tests.cases import resample_hidden
from tests.conformance.cases import FIRST_CASES, STEP_CAP
from training.evaluate import parse_config, tournament
from training.opponents import heuristic_available

#: the games with a heuristic written (``agents/heuristics/<game>.py``); a game without one is refused
#: by name (test_a_game_without_a_heuristic_is_refused_naming_the_file_to_write)
GAMES_WITH_HEURISTIC = [p for p in FIRST_CASES if heuristic_available(p.id)]


def test_load_gives_the_random_and_heuristic_agents_and_rejects_unknown_specs():
    assert isinstance(agents.load("random"), agents.RandomAgent)
    assert isinstance(agents.load("heuristic"), HeuristicAgent)
    with pytest.raises(ValueError, match="unknown agent spec"):
        agents.load("genius")


@pytest.mark.parametrize("module, config", FIRST_CASES)
@pytest.mark.parametrize(
    "spec, seeds",
    # the slow suite plays the deals after the default suite's (seeds 0-149 and 0-79 in all)
    [pytest.param("random", range(100), id="random-0..99"),
     pytest.param("heuristic", range(50), id="heuristic-0..49"),
     pytest.param("random", range(100, 150), marks=pytest.mark.slow, id="random-100..149"),
     pytest.param("heuristic", range(50, 80), marks=pytest.mark.slow, id="heuristic-50..79")],
)
def test_baseline_agents_never_choose_an_illegal_action(module, config, spec, seeds):
    name = module.env().metadata["name"]
    env = module.raw_env(**config)  # raw_env raises on an illegal action
    player = agents.load(spec, seed=1)
    if spec == "heuristic" and not heuristic_available(name):
        env.reset(seed=0)
        agent = env.agent_selection
        with pytest.raises(ValueError, match=f"no heuristic written for {name}: write agents/heuristics/"):
            player.act(env.observe(agent), agent, name)
        return
    if hasattr(player, "setup"):
        player.setup(name, config)
    for g in seeds:
        env.reset(seed=g)
        for agent in env.agent_iter(STEP_CAP):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else player.act(obs, agent, name))


@pytest.mark.parametrize("module, config", GAMES_WITH_HEURISTIC)
def test_the_heuristic_decides_the_same_when_only_hidden_cards_change(module, config):
    env = module.raw_env(**config)
    name = env.metadata["name"]
    player = HeuristicAgent(seed=0)
    player.setup(name, config)
    rules = env.rules
    rng = np.random.default_rng(0)
    checked = 0
    for g in range(10):
        env.reset(seed=g)
        for agent in env.agent_iter(STEP_CAP):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            original = env.game_state
            choice = HeuristicAgent(seed=5)
            choice.setup(name, config)
            first = choice.act(obs, agent, name)
            for _ in range(2):
                env.game_state = resample_hidden(rules, original, seat, rng)
                env._mask = None
                again = HeuristicAgent(seed=5)
                again.setup(name, config)
                assert again.act(env.observe(agent), agent, name) == first
                checked += 1
            env.game_state = original
            env._mask = None
            env.step(player.act(obs, agent, name))
    assert checked > 100


def test_a_tournament_reports_means_with_confidence_intervals_and_rotates_seats():
    result = tournament("golf_v0", ["heuristic", "random"], 60, {"num_players": 2, "num_rounds": 1}, seed=3)
    rows = result.summary()
    assert [r["name"] for r in rows] == ["heuristic", "random"]
    assert rows[0]["mean_reward"] > 0 > rows[1]["mean_reward"]
    assert rows[0]["reward_ci95"] >= 0 and rows[0]["elo"] > rows[1]["elo"]
    seats = {tuple(g.lineup) for g in result.games}
    assert seats == {(0, 1), (1, 0)}, "every agent plays every seat"
    m, h = result.margin()
    assert m > h >= 0
    assert result.win_matrix()[0, 1] > 0.5
    assert "excludes 0" in result.table()


def test_a_tournament_over_two_processes_gives_the_same_games_as_one():
    a = tournament("golf_v0", ["random", "random"], 20, {"num_players": 2, "num_rounds": 1}, seed=1, workers=1)
    b = tournament("golf_v0", ["random", "random"], 20, {"num_players": 2, "num_rounds": 1}, seed=1, workers=2)
    assert [g.seed for g in a.games] == [g.seed for g in b.games]
    assert [g.lineup for g in a.games] == [g.lineup for g in b.games]


def test_evaluate_writes_csv_and_json(tmp_path):
    result = tournament("golf_v0", ["random", "heuristic"], 10, {"num_players": 3, "num_rounds": 1})
    summary, games = result.write(tmp_path)
    assert summary.exists() and games.read_text().count("\n") == 1 + len(result.games) * 3
    assert len(result.games) == 12, "10 games round up to 4 duplicate deals of 3 rotations"


def test_evaluate_rejects_an_unknown_game_and_bad_options():
    with pytest.raises(ValueError, match="unknown game"):
        tournament("chess_v0", ["random"], 1)
    with pytest.raises(ValueError, match="num_players"):
        tournament("golf_v0", ["random"], 1, {"num_players": 1})
    assert parse_config(["num_players=4", "mode=single", "public_discards=true", "num_rounds=None"]) == {
        "num_players": 4, "mode": "single", "public_discards": True, "num_rounds": None}


def test_the_evaluate_command_prints_the_table(capsys):
    from training.evaluate import main

    main(["golf_v0", "heuristic", "random", "--games", "20", "--workers", "1", "--config", "num_players=2", "num_rounds=1"])
    out = capsys.readouterr().out
    assert "heuristic" in out and "seating: line-up" in out and "reward margin" in out


def test_terminal_play_works_end_to_end_through_its_input():
    from agents.play import play

    typed = iter(["nonsense", "draw stock", "take discard", "?"] + ["9"] * 0)
    out = io.StringIO()
    env = card_envs.golf_v0.raw_env(num_players=2, num_rounds=1)

    # a person who always picks the first legal action by its name, after a few mistakes
    def person(prompt):
        try:
            return next(typed)
        except StopIteration:
            text = out.getvalue().rsplit("your actions: ", 1)[1].splitlines()[0]
            return text.split("] ", 1)[1].split(",")[0]

    info = play("golf_v0", ["heuristic"], {"num_players": 2, "num_rounds": 1}, seat=0, seed=4,
                input_fn=person, out=out)
    text = out.getvalue()
    assert info is not None and info["rank"] in (1, 2)
    assert "not an action" in text, "a mistyped choice gets a clear message"
    assert "is not legal now" in text or "not an action" in text
    assert "Game over" in text
    del env


def test_with_more_agents_than_seats_every_agent_meets_every_other_in_every_seat():
    from training.evaluate import seating_plan

    assert {tuple(lu) for lu in seating_plan([0, 1, 2], 2)} == {(0, 1), (1, 0), (1, 2), (2, 1), (2, 0), (0, 2)}
    assert {tuple(lu) for lu in seating_plan([0, 1], 4)} == {(0, 1, 0, 1), (1, 0, 1, 0)}
