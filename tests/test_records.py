"""Game records: a recorded game replays bit for bit, at any step;
a corrupted or mismatched line is a ValueError that says what is wrong; the viewer, and the
writers ``training.evaluate --save-games`` and ``agents.play --save-games``."""

from __future__ import annotations

import copy
import hashlib
import io
import json

import numpy as np
import pytest

import card_envs
from card_envs import records
from tests import cases
from tests.cases import resample_hidden
from tests.conformance.cases import CASES, FIRST_CASES, random_action

#: random games replayed observation by observation in the default suite, and in the slow one
DEFAULT_GAMES = 90
SLOW_GAMES = 600
GOLF2 = {"num_players": 2, "num_rounds": 1}


# ------------------------------------------------------------------------------- helpers
def fingerprint(env) -> bytes:
    """Everything every seat can read after a step, and the generator that decides what comes
    next: each seat's observation and mask bytes, rewards, cumulative rewards, terminations,
    truncations, infos, the agent to act and the random generator's state, as one digest."""
    h = hashlib.blake2b(digest_size=20)
    for a in env.possible_agents:
        obs = env.observe(a)
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
    h.update(repr((env.agent_selection, env.rewards, env._cumulative_rewards, env.terminations,
                   env.truncations, env.infos)).encode())
    h.update(repr(env.unwrapped._rng.bit_generator.state).encode())
    return h.digest()


def play_recorded(module, config, seed, deck=None, rng_seed=0):
    """One game of random moves, recorded with the Recorder as a writer loop does, and the
    fingerprint of the table after every action (index k: after k actions)."""
    env = module.env(**config)
    env.reset(seed=seed, options={"deck": deck} if deck is not None else None)
    rec = records.Recorder(env, seed, deck, config, ["random"] * len(env.possible_agents))
    rng = np.random.default_rng(rng_seed)
    seen = [fingerprint(env)]
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        action = random_action(obs, rng)
        rec.add(action)
        env.step(action)
        seen.append(fingerprint(env))
    return rec.finish(total), seen


def assert_replays(line, seen):
    count = 0
    for k, env in records.steps(line):
        assert fingerprint(env) == seen[k], f"step {k} of the replay differs from the game"
        count += 1
    assert count == len(seen)


def a_stacked_deck(module, config, seed):
    """The configuration's deck in a seeded order, by card name, top first."""
    rules = module.raw_env(**config).rules
    deck = [card_envs.cards.to_str(c) for c in rules.deck()]
    return [deck[i] for i in np.random.default_rng(seed).permutation(len(deck))]


def line_of(module, config=None, seed=5):
    config = dict(cases.of(module).CONFORMANCE_CONFIGS[0] if config is None else config)
    return records.dumps(records.record(module.raw_env.metadata["name"], "random", config, seed=seed))


# ---------------------------------------------------------------------------- round trip
@pytest.mark.parametrize("module,config", CASES)
def test_a_record_written_and_read_back_replays_every_observation_byte_for_byte(module, config, tmp_path):
    rec, seen = play_recorded(module, config, seed=11)
    path = records.write(tmp_path / "games.jsonl", [rec])
    (back,) = records.read(path)
    assert back == json.loads(json.dumps(rec)), "the file holds exactly the record"
    assert_replays(back, seen)


@pytest.mark.parametrize("module,config", FIRST_CASES)
def test_a_stacked_deck_record_replays_byte_for_byte_and_stores_the_deck_by_name(module, config):
    deck = a_stacked_deck(module, config, 3)
    rec, seen = play_recorded(module, config, seed=2, deck=deck)
    assert rec["deck"] == deck
    assert_replays(records.dumps(rec), seen)
    # negative control: the same seed without the deck is another game, which the record refuses
    shuffled = dict(rec, deck=None)
    with pytest.raises(ValueError, match=r"checksum does not match.*the deal departs from the recorded game"):
        next(records.steps(shuffled))


#: short tables of all six games (a few dozen actions each) for the many-games run; the
#: parametrized round trip above covers every configuration, the long ones included
SHORT_TABLES = [
    ("golf_v0", {"num_players": 2, "num_rounds": 1}),
    ("golf_v0", {"num_players": 4, "num_rounds": 1}),
    ("fiddlesticks_v0", {"num_players": 5, "num_decks": 1, "dealer": 2, "max_turns": 80}),
    ("fiddlesticks_v0", {"num_players": 3, "num_decks": 1, "dealer": 0}),
    ("guillotine_v0", {"mode": "single"}),
    ("guillotine_v0", {"mode": "single", "contract": "domino"}),
    ("guillotine_v0", {"mode": "single", "contract": "guillotine", "trick_rank_order": "french", "reward_mode": "score"}),
    ("collector_v0", {"num_players": 2, "max_rounds": 6, "truncation_rule": "most_ranks"}),
    ("hot_v0", {"num_players": 2, "max_rounds_per_deal": 4, "max_deals": 3}),
    ("guilders_v0", {"num_players": 1}),
    ("guilders_v0", {"num_players": 2, "reward_mode": "score"}),
    ("guilders_v0", {"num_players": 3, "evil_joker": True}),
    ("guilders_v0", {"num_players": 3, "chaotic_joker": True}),
]


def test_ninety_recorded_random_games_replay_every_observation():
    _replay_many(DEFAULT_GAMES)


@pytest.mark.slow
def test_six_hundred_recorded_random_games_replay_every_observation():
    _replay_many(SLOW_GAMES)


def _replay_many(games: int):
    """``games`` random games, the short tables in turn, each recorded, written as a line and
    replayed, every seat's observation compared at every step."""
    for g in range(games):
        name, config = SHORT_TABLES[g % len(SHORT_TABLES)]
        rec, seen = play_recorded(card_envs.ENVIRONMENTS[name], config, seed=1000 + g, rng_seed=g)
        assert_replays(records.dumps(rec), seen)


def test_record_plays_a_game_that_replays_and_is_the_same_for_the_same_seed():
    rec = records.record("golf", ["heuristic", "random"], GOLF2, seed=9)
    assert rec["env"] == "golf_v0" and rec["agents"] == ["heuristic", "random"] and rec["seed"] == 9
    assert rec["library_version"] == card_envs.__version__ and rec["format_version"] == records.FORMAT_VERSION
    assert list(rec)[: len(records.FIELDS)] == list(records.FIELDS)
    assert rec == records.record("golf_v0", ["heuristic", "random"], GOLF2, seed=9)
    assert rec["actions"] != records.record("golf_v0", ["heuristic", "random"], GOLF2, seed=10)["actions"]
    env = records.replay(rec)
    assert [env.infos[a]["score"] for a in env.possible_agents] == rec["scores"]
    assert sorted(rec["ranks"]) == sorted([1, 2]) or rec["ranks"] == [1, 1]
    assert rec["rewards"] == pytest.approx([1.0, -1.0] if rec["ranks"] == [1, 2] else
                                           [-1.0, 1.0] if rec["ranks"] == [2, 1] else [0.0, 0.0])


def test_record_without_a_seed_draws_one_and_records_it_so_the_game_replays():
    rec = records.record("guilders", "random", {"num_players": 3})
    assert isinstance(rec["seed"], int) and 0 <= rec["seed"] < 2**53
    records.replay(rec)


def test_record_takes_agent_objects_whose_specs_are_unknown():
    agents = [card_envs_random(1), card_envs_random(2)]
    rec = records.record("golf", agents, GOLF2, seed=1)
    assert rec["agents"] == [None, None]
    records.replay(rec)
    with pytest.raises(ValueError, match="one agent for every seat"):
        records.record("golf", ["random"] * 3, GOLF2, seed=1)
    with pytest.raises(ValueError, match="unknown environment 'poker'"):
        records.record("poker", "random")


def card_envs_random(seed):
    from agents.base import RandomAgent

    return RandomAgent(seed)


def test_each_action_is_recorded_with_its_actor_index_and_name_in_order():
    rec = records.record("golf", "random", GOLF2, seed=4)
    env = card_envs.golf_v0.env(**GOLF2)
    env.reset(seed=4)
    for actor, action, name in rec["actions"]:
        assert actor == env.agent_selection
        assert name == env.unwrapped.action_to_string(action)
        env.step(action)
    assert all(env.terminations.values())


# ------------------------------------------------------------------------ intermediate step
@pytest.mark.parametrize("module,config", FIRST_CASES)
def test_replay_at_an_intermediate_step_is_the_table_at_that_step_and_plays_on(module, config):
    rec, seen = play_recorded(module, config, seed=21)
    n = len(rec["actions"])
    for k in (0, 1, n // 2, n - 1, n):
        env = records.replay(rec, step=k)
        assert fingerprint(env) == seen[k]
    env = records.replay(rec, step=n // 2)
    for actor, action, _ in rec["actions"][n // 2:]:  # the env plays on from there as the original did
        assert env.agent_selection == actor
        env.step(action)
    assert fingerprint(env) == seen[n]
    for bad in (-1, n + 1, 1.5):
        with pytest.raises(ValueError, match=rf"step must be an int in 0..{n}"):
            records.replay(rec, step=bad)


# ------------------------------------------------------------------ corrupted and mismatched
def _illegal_action(rec):
    """An edit of ``rec``: one action replaced by an illegal one, named as the game names it."""
    env = records.replay(rec, step=3)
    mask = env.unwrapped._legal_mask()
    bad = int(np.flatnonzero(mask == 0)[0])
    out = copy.deepcopy(rec)
    out["actions"][3] = [env.agent_selection, bad, env.unwrapped.action_to_string(bad)]
    return out


def _edited(rec, **fields):
    out = copy.deepcopy(rec)
    for k, v in fields.items():
        if v is KeyError:
            del out[k]
        else:
            out[k] = v
    return out


def _edit_action(rec, k, i, value):
    out = copy.deepcopy(rec)
    out["actions"][k][i] = value
    return out


@pytest.fixture(scope="module")
def golf_rec():
    return records.record("golf", "random", GOLF2, seed=31)


def _corruptions(rec):
    line = records.dumps(rec)
    other = "player_1" if rec["actions"][2][0] == "player_0" else "player_0"
    return {
        "bad JSON": (line[:-7], r"not a JSON line"),
        "not an object": ("[1, 2, 3]", r"must hold a JSON object, got list"),
        "another format": (_edited(rec, format="something"), r"'format' must be 'card_envs.records'"),
        "a newer format version": (_edited(rec, format_version=3), r"format_version 3 is not supported.*reads format_version 1, 2"),
        "an unknown environment": (_edited(rec, env="poker_v0"), r"unknown environment 'poker_v0'; environments: golf_v0"),
        "another environment version": (_edited(rec, env="golf_v1"), r"'golf_v1' is not in card_envs .* golf_v0"),
        "a missing field": (_edited(rec, seed=KeyError), r"missing field 'seed'"),
        "an unknown field": (_edited(rec, player="me"), r"unknown field 'player'"),
        "a seed of the wrong type": (_edited(rec, seed="31"), r"'seed' must be an int >= 0"),
        "options the game refuses": (_edited(rec, options={"num_players": 99}), r"'options' is not a golf_v0 table: .*num_players"),
        "an unknown option": (_edited(rec, options={"colour": "red"}), r"'options' is not a golf_v0 table: unknown option 'colour'"),
        "agents of the wrong length": (_edited(rec, agents=["random"]), r"'agents' must be null or 2 agent specs"),
        "a malformed action": (_edit_action(rec, 2, 1, "six"), r"action 2 must be \[actor, action, name\]"),
        "an action out of range": (_edit_action(rec, 2, 1, 99), r"action 2 .*99 is not an action of golf_v0 \(0..9\)"),
        "an illegal action": (_illegal_action(rec), r"action 3 .* is illegal at this point; legal: "),
        "a renamed action": (_edit_action(rec, 2, 2, "take discard!"), r"action 2 .*recorded as 'take discard!', but action"),
        "the wrong actor": (_edit_action(rec, 2, 0, other), rf"action 2 .*recorded for {other}, but"),
        "a missing last action": (_edited(rec, actions=rec["actions"][:-1]), r"ends after \d+ actions, but the game is not over"),
        "an extra action": (_edited(rec, actions=rec["actions"] + [rec["actions"][-1]]), r"the game is over after \d+ actions, but the record has"),
        "another end": (_edited(rec, end="truncated"), r"field 'end': the game ended 'terminated', the record says 'truncated'"),
        "an unknown end": (_edited(rec, end="draw"), r"'end' must be one of terminated, truncated, illegal"),
        "other scores": (_edited(rec, scores=[s + 1 for s in rec["scores"]]), r"field 'scores': the replay gives"),
        "other ranks": (_edited(rec, ranks=[r % 2 + 1 for r in rec["ranks"]]), r"field 'ranks': the replay gives"),
        "other rewards": (_edited(rec, rewards=[0.5, -0.5]), r"field 'rewards': the replay gives"),
        "a deck of the wrong size": (_edited(rec, deck=["As", "2s"]), r"field 'deck': stacked deck has 2 cards"),
        "a deck of unknown cards": (_edited(rec, deck=["Xx"] * 52), r"field 'deck': "),
    }


CORRUPTIONS = list(_corruptions(records.record("golf", "random", GOLF2, seed=31)))


@pytest.mark.parametrize("what", CORRUPTIONS)
def test_a_corrupted_or_mismatched_record_is_a_value_error_saying_what_is_wrong(golf_rec, what):
    bad, message = _corruptions(golf_rec)[what]
    with pytest.raises(ValueError, match=message):
        records.replay(bad)


def test_the_unedited_record_replays_negative_control(golf_rec):
    env = records.replay(records.dumps(golf_rec))
    assert all(env.terminations.values())


def test_an_edited_record_is_refused_before_it_is_written(golf_rec, tmp_path):
    with pytest.raises(ValueError, match="missing field 'seed'"):
        records.write(tmp_path / "x.jsonl", [_edited(golf_rec, seed=KeyError)])
    assert not (tmp_path / "x.jsonl").exists(), "nothing half-written"


def test_reading_a_file_names_the_line_of_a_bad_record(golf_rec, tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(records.dumps(golf_rec) + "\n\n" + records.dumps(golf_rec)[:-3] + "\n")
    with pytest.raises(ValueError, match=r"games.jsonl line 3: game record: not a JSON line"):
        records.read(path)
    edited = json.dumps(_edited(golf_rec, ranks=[2, 2]), separators=(",", ":"))
    path.write_text(records.dumps(golf_rec) + "\n" + edited + "\n")
    with pytest.raises(ValueError, match=r"line 2: .*checksum does not match.*field 'ranks'"):
        records.read(path)  # the checksum refuses the edit when the line is read, naming the field
    with pytest.raises(ValueError, match=r"line 2: .*field 'ranks'"):
        records.check_file(path, out=io.StringIO())


def test_a_game_ended_by_an_illegal_move_records_it_and_replays():
    env = card_envs.golf_v0.env(**GOLF2)
    env.reset(seed=3)
    rec = records.Recorder(env, 3, options=GOLF2)
    for _ in range(5):
        action = int(np.flatnonzero(env.action_mask())[0])
        rec.add(action)
        env.step(action)
    actor = env.agent_selection
    bad = int(np.flatnonzero(env.action_mask() == 0)[0])
    rec.add(bad)
    env.step(bad)  # env(): the game ends, -1 for the mover (PettingZoo's logger warns)
    line = rec.finish()
    assert line["end"] == "illegal" and line["scores"] is None and line["ranks"] is None
    replayed = records.replay(line)
    assert replayed._cumulative_rewards[actor] == -1.0
    with pytest.raises(ValueError, match="is illegal at this point"):  # only a record that says so
        records.replay(_edited(line, end="terminated"))


def test_the_recorder_refuses_options_that_are_not_the_envs_and_an_unfinished_game():
    env = card_envs.golf_v0.env(**GOLF2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="do not build this golf_v0 env's table"):
        records.Recorder(env, 1, options={"num_players": 3, "num_rounds": 1})
    with pytest.raises(ValueError, match="int seed >= 0"):
        records.Recorder(env, None, options=GOLF2)
    rec = records.Recorder(env, 1, options=GOLF2)
    with pytest.raises(ValueError, match="before the golf_v0 game is over"):
        rec.finish()


# ----------------------------------------------------------------------------- the viewer
@pytest.fixture(scope="module")
def games_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    recs = [records.record("golf", ["heuristic", "random"], GOLF2, seed=s) for s in (1, 2)]
    recs.append(records.record("collector", "random", {"num_players": 2, "max_rounds": 4}, seed=3))
    records.write(path, recs)
    return path, recs


def test_the_viewer_prints_every_step_of_the_chosen_game_from_the_seat(games_file, capsys):
    path, recs = games_file
    assert records.main(["show", str(path), "--game", "1", "--seat", "player_1", "--all"]) == 0
    out = capsys.readouterr().out
    n = len(recs[1]["actions"])
    assert out.count(f"{path} game 1: golf_v0") == n + 1
    assert "-- step 0\n" in out and f"-- step {n}\n" in out and "the deal, no action yet" in out
    assert f"step 0/{n}" not in out and "seed" not in out, "the game's length and seed depend on hidden cards"
    assert "as player_1 sees it" in out and f"scores {recs[1]['scores']}" in out
    env = records.replay(recs[1], step=7)
    assert env.unwrapped.render_view("player_1") in out, "each screen is the seat's own view"
    actor, action, name = recs[1]["actions"][6]
    assert f"action 6: {actor}: {name}" in out


def test_the_viewer_shows_every_card_with_full_and_says_so(games_file, capsys):
    path, recs = games_file
    assert records.main(["show", str(path), "--full", "--all", "--step", str(len(recs[0]["actions"]) - 1)]) == 0
    out = capsys.readouterr().out
    assert "FULL STATE: every card shown, hidden ones included" in out
    assert records.replay(recs[0]).unwrapped.render_state() in out
    assert out.count("game 0: golf_v0") == 2, "--step starts there"


def test_the_viewer_steps_forward_and_back_with_keys(games_file):
    path, _ = games_file
    keys = iter(["", "n", "b", "5", "zz", "q"])
    out = io.StringIO()
    records.show(path, 0, "seat", "player_0", input_fn=lambda prompt: next(keys), out=out)
    shown = [line.split(" -- step ")[1].split("/")[0] for line in out.getvalue().splitlines() if " -- step " in line]
    assert shown == ["0", "1", "2", "1", "5", "5"]
    assert "keys: Enter or n (next), b (back)" in out.getvalue()


def test_the_viewer_refuses_a_game_or_seat_the_file_does_not_have(games_file, capsys):
    path, _ = games_file
    assert records.main(["show", str(path), "--game", "3", "--all"]) == 2
    assert "holds 3 games: --game must be in 0..2, got 3" in capsys.readouterr().err
    assert records.main(["show", str(path), "--seat", "player_7", "--all"]) == 2
    assert "unknown seat 'player_7'; seats: player_0, player_1" in capsys.readouterr().err
    assert records.main(["show", str(path.parent / "nothing.jsonl")]) == 2


def test_check_replays_every_game_of_a_file(games_file, capsys):
    path, _ = games_file
    assert records.main(["check", str(path)]) == 0
    assert "3 games checked" in capsys.readouterr().out


# ------------------------------------------------------------------------------ the writers
def test_evaluate_save_games_writes_every_game_with_each_seats_spec_and_the_same_results(tmp_path, capsys):
    from training.evaluate import main, tournament

    path = tmp_path / "games.jsonl"
    assert main(["golf", "heuristic", "random", "--games", "6", "--workers", "1", "--config", "num_players=2",
                 "num_rounds=1", "--save-games", str(path)]) == 0
    assert "wrote 6 game records" in capsys.readouterr().out
    saved = records.read(path)
    plain = tournament("golf", ["heuristic", "random"], 6, GOLF2)
    assert len(saved) == len(plain.games) == 6
    names = ["heuristic", "random"]
    for rec, g in zip(saved, plain.games):
        assert rec["agents"] == [names[a] for a in g.lineup]
        assert rec["seed"] == g.seed and rec["meta"]["deal"] == g.deal
        assert (rec["scores"], rec["ranks"], rec["rewards"]) == (g.scores, g.ranks, g.rewards)
        assert len(rec["actions"]) == g.steps
        records.replay(rec)
    with_records = tournament("golf", ["heuristic", "random"], 6, GOLF2, save_games=True)
    assert [dict(vars(g), record=None) for g in with_records.games] == [vars(g) for g in plain.games], \
        "saving the games changes no result"


def test_evaluate_save_games_from_worker_processes_replays(tmp_path):
    from training.evaluate import tournament

    result = tournament("guilders", ["heuristic", "random"], 4, {"num_players": 2}, workers=2, save_games=True)
    assert [g.record["seed"] for g in result.games] == [g.seed for g in result.games]
    for g in result.games:
        records.replay(g.record)


def test_play_save_games_appends_each_finished_game_that_replays(tmp_path):
    from agents.play import play

    path = tmp_path / "mine.jsonl"
    for _ in range(2):
        out = io.StringIO()

        def person(prompt, out=out):  # always the first legal action, by its number
            return out.getvalue().rsplit("your actions: [", 1)[1].split("]", 1)[0]

        play("golf_v0", ["heuristic"], GOLF2, seat=1, input_fn=person, out=out, save_games=path)
        assert f"game saved to {path}" in out.getvalue()
    saved = records.read(path)
    assert len(saved) == 2 and saved[0]["seed"] != saved[1]["seed"], "a fresh seed per game, recorded"
    for rec in saved:
        assert rec["agents"] == ["heuristic", None] and rec["meta"]["person"] == "player_1"
        records.replay(rec)


def test_a_game_the_person_leaves_is_not_saved(tmp_path):
    from agents.play import play

    path = tmp_path / "mine.jsonl"
    play("golf_v0", ["heuristic"], GOLF2, seat=0, seed=1, input_fn=lambda prompt: "quit",
         out=io.StringIO(), save_games=path)
    assert not path.exists()


# ------------------------------------------------------------------------- pictures, hidden moves
def test_frames_are_the_replayed_tables_pictures_one_per_step():
    rec = records.record("collector", "random", {"num_players": 2, "max_rounds": 3}, seed=2)
    n = len(rec["actions"])
    spectator = records.frames(rec)
    assert len(spectator) == n + 1
    assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape == spectator[0].shape for f in spectator)
    assert len({f.tobytes() for f in spectator}) > n // 2, "the pictures follow the game"
    env = records.replay(rec, step=5, render_mode="rgb_array")
    assert np.array_equal(spectator[5], env.render())
    (mine,) = records.frames(rec, "player_1", at=[5])
    assert np.array_equal(mine, env.unwrapped.render_view("player_1", mode="rgb_array"))
    assert not np.array_equal(mine, spectator[5]), "a seat's picture shows its own hand"
    with pytest.raises(ValueError, match=rf"steps must be ints in 0..{n}"):
        records.frames(rec, at=[n + 1])
    with pytest.raises(ValueError, match="unknown seat 'player_2'"):
        records.frames(rec, "player_2")


def test_the_viewer_never_names_a_hidden_commitment_to_whoever_may_not_see_it():
    rec = records.record("collector", "random", {"num_players": 2, "max_rounds": 4}, seed=3)
    plays = {name for _, _, name in rec["actions"]}
    assert any(name.startswith("play ") for name in plays)

    def action_lines(screens):
        return [s.splitlines()[1] for s in screens[1:]]

    spectator = action_lines(records.screens(rec))
    assert all(line.endswith(": commits") for line in spectator), "a spectator sees only that a seat committed"
    mine = action_lines(records.screens(rec, "seat", "player_0"))
    for (actor, _, name), line in zip(rec["actions"], mine):
        assert line.endswith(f": {name}" if actor == "player_0" else ": commits")
    full = action_lines(records.screens(rec, "full"))
    assert [line.rsplit(": ", 1)[1] for line in full] == [name for _, _, name in rec["actions"]]


def test_the_spectator_screen_is_the_spectator_pictures_scene_in_text_and_hides_every_hidden_card():
    from card_envs import pictures

    rec = records.record("golf", "random", GOLF2, seed=8)
    raw = records.replay(rec, step=6).unwrapped
    module = pictures.picture_module(raw)
    text = records.scene_text(module.scene(raw.rules, raw.game_state, 0, False))
    assert text in records.screens(rec)[6] and "##" in text
    rng = np.random.default_rng(0)
    for _ in range(5):  # the cards no seat can see reshuffled: the spectator's text stays the same
        other = resample_hidden(raw.rules, raw.game_state, 0, rng)
        assert records.scene_text(module.scene(raw.rules, other, 0, False)) == text
    # negative control: the full state does show the face-down cards, so reshuffling them shows
    shown = {raw._render_state(resample_hidden(raw.rules, raw.game_state, 0, rng)) for _ in range(5)}
    assert len(shown) > 1
