"""Pictures of the table: ``render_mode="rgb_array"`` for every game and
configuration, a seat's picture (``render_view(agent, mode="rgb_array")``), PettingZoo's
``render_test``, video files, and the hidden-information promise for pictures:

* a spectator's picture shows only what every seat sees: built from any seat's view it is the
  same, and reshuffling the cards any one seat cannot see never changes it;
* a seat's picture does not change when only cards hidden from that seat change;
* the picture changes when the table does (every step changes something public: a card, a
  count, whose turn it is, who has committed).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from PIL import Image

import card_envs
from card_envs import pictures
from card_envs.base import RENDER_MODES
from tests.cases import resample_hidden
from tests.conformance.cases import CASES, FIRST_CASES, random_action


def _scene(env, state, observer, private):
    return pictures.picture_module(env).scene(env.rules, state, observer, private)


def _spectator(env, state=None):
    return _scene(env, env.game_state if state is None else state, 0, False)


def _random_steps(env, seed, cap):
    """Yield (step, agent) along a random game of ``env`` (already built), acting after each."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for step, agent in enumerate(env.agent_iter(cap)):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield step, agent
        env.step(random_action(obs, rng))


# --------------------------------------------------------------------------- shape and change
#: what a picture whose size changes must keep fixed per configuration
ONE_SIZE = ("the picture's size changed during a game: keep the scene's structure fixed per configuration (its "
            "status lines, rows, each group's slots and columns; card_envs.pictures)")


@pytest.mark.parametrize("module, config", CASES)
def test_frames_along_a_random_game_are_images_of_one_size_that_follow_the_table(module, config):
    env = module.env(render_mode="rgb_array", **config)
    env.reset(seed=1)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[0] >= 200 and first.shape[1] >= 300
    assert (first.reshape(-1, 3).std(axis=0) > 10).all(), "a blank image"
    before = _spectator(env)
    changed = 0
    for step, agent in _random_steps(env, seed=1, cap=60):
        if step % 10 == 0:
            frame = env.render()
            assert frame.shape == first.shape and frame.dtype == np.uint8, ONE_SIZE
            seat = env.render_view(agent, mode="rgb_array")
            assert seat.shape == first.shape and seat.dtype == np.uint8, ONE_SIZE
        if step:
            now = _spectator(env)
            assert now != before, f"step {step}: the table changed but the picture did not"
            before = now
            changed += 1
    assert changed >= 10 or env.game_state.terminated or env.game_state.truncated
    last = env.render()  # the finished (or 60-step) table draws at the same size
    assert last.shape == first.shape, ONE_SIZE
    assert not np.array_equal(last, first)


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_a_whole_game_draws_at_one_size(module, config):
    env = module.env(render_mode="rgb_array", **config)
    shapes = set()
    for step, agent in _random_steps(env, seed=2, cap=5000):
        if step % 40 == 0:
            shapes.add(env.render().shape)
    shapes.add(env.render().shape)
    assert len(shapes) == 1, f"{ONE_SIZE}: {sorted(shapes)}"


def test_a_public_action_changes_the_picture_and_names_itself():
    env = card_envs.golf_v0.env(render_mode="rgb_array", num_players=2, initial_flips=0, dealer=1)
    env.reset(seed=4)
    before = env.render()
    env.step(env.unwrapped.string_to_action("draw stock"))
    after = env.render()
    assert after.shape == before.shape and not np.array_equal(after, before)
    assert env._last_action == ("player_0", "draw stock")
    again = env.render()
    assert np.array_equal(again, after), "rendering twice gives the same picture"


# --------------------------------------------------------------------------- hidden information
def _check_hidden(env, rules, rng, stats):
    state = env.game_state
    n = len(env.possible_agents)
    spectator = _spectator(env, state)
    for s in range(1, n):
        assert _scene(env, state, s, False) == spectator, f"the spectator picture built from seat {s}'s view differs"
    for s in range(n):
        other = resample_hidden(rules, state, s, rng)
        if rules.zones(other) != rules.zones(state):
            stats["resampled"] += 1
        assert _spectator(env, other) == spectator, f"cards hidden from seat {s} changed the spectator's picture"
        own = _scene(env, state, s, True)
        assert _scene(env, other, s, True) == own, f"cards hidden from seat {s} changed its own picture"
        stats["private_differs"] += own != _scene(env, state, s, False)
        # negative control: seat 0's private picture used as a spectator's would leak its cards
        stats["leak_caught"] += s > 0 and _scene(env, other, 0, True) != _scene(env, state, 0, True)


@pytest.mark.parametrize("module, config", CASES)
def test_a_spectator_sees_only_what_every_seat_sees_and_a_seat_only_its_own(module, config):
    env = module.raw_env(**config)
    rules = env.rules
    rng = np.random.default_rng(11)
    stats = dict.fromkeys(("resampled", "private_differs", "leak_caught"), 0)
    for game in range(2):
        for step, agent in _random_steps(env, seed=40 + game, cap=100):
            if step % 6 == 0:
                _check_hidden(env, rules, rng, stats)
    assert stats["resampled"] > 0, "resample_hidden never changed anything: the test proves nothing"
    assert stats["private_differs"] > 0, "a seat's picture never showed anything the spectator's does not"
    if any(name in module.__name__ for name in ("collector", "hot", "guillotine", "fiddlesticks")):
        # every seat holds a hidden hand there: a picture that shows one must be caught
        assert stats["leak_caught"] > 0, "the negative control never leaked: the check could not catch a leak"


@pytest.mark.parametrize("module, config", FIRST_CASES)
def test_hidden_cards_give_byte_identical_images(module, config):
    env = module.raw_env(**config)
    rules = env.rules
    rng = np.random.default_rng(3)
    checked = 0
    for step, agent in _random_steps(env, seed=5, cap=40):
        if step % 8 == 4:
            state = env.game_state
            picture = env.render_view(agent, mode="rgb_array")
            spectator = pictures.render_picture(env)
            for s in range(len(env.possible_agents)):
                env.game_state = resample_hidden(rules, state, s, rng)
                assert np.array_equal(pictures.render_picture(env), spectator)
                if env.possible_agents[s] == agent:
                    assert np.array_equal(env.render_view(agent, mode="rgb_array"), picture)
                env.game_state = state
            checked += 1
    assert checked


def test_the_seat_picture_shows_its_own_hand_and_the_spectator_picture_does_not():
    env = card_envs.guillotine_v0.raw_env(mode="single")
    env.reset(seed=0)
    mine = _scene(env, env.game_state, 0, True)
    public = _scene(env, env.game_state, 0, False)
    hand = lambda table: table.seats[0].groups[0].cards  # noqa: E731
    assert len(hand(mine)) == 8 and all(isinstance(c, pictures.Face) for c in hand(mine))
    assert hand(public) == [pictures.BACK] * 8
    assert [c.suit for c in hand(mine)] == sorted(c.suit for c in hand(mine))


# --------------------------------------------------------------------------- PettingZoo render_test
@pytest.mark.parametrize("module, config", CASES)
def test_pettingzoo_render_test_passes_with_every_mode(module, config, capsys):
    from pettingzoo.test import render_test

    env = module.env(**config)
    assert set(env.metadata["render_modes"]) == set(RENDER_MODES) == {"human", "ansi", "rgb_array"}
    assert env.metadata["render_fps"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(lambda render_mode=None: module.env(render_mode=render_mode, **config))
    assert capsys.readouterr().out, "human mode prints the table"


@pytest.mark.parametrize("name", ["collector_v0", "hot_v0"])
def test_the_parallel_env_renders_the_spectators_picture(name):
    module = card_envs.ENVIRONMENTS[name]
    par = module.parallel_env(render_mode="rgb_array")
    assert "rgb_array" in par.metadata["render_modes"]
    obs, _ = par.reset(seed=3)
    frame = par.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3
    assert np.array_equal(frame, par.aec.render())
    view = par.render_view("player_1", mode="rgb_array")
    assert view.shape == frame.shape and not np.array_equal(view, frame)
    assert isinstance(par.render_view("player_1"), str)


def test_bad_render_arguments_are_value_errors():
    with pytest.raises(ValueError, match="rgb_array"):
        card_envs.golf_v0.env(render_mode="rgb")
    env = card_envs.golf_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="'ansi' or 'rgb_array'"):
        env.render_view("player_0", mode="png")
    with pytest.raises(ValueError, match="unknown agent"):
        env.render_view("player_9", mode="rgb_array")
    with pytest.raises(ValueError, match="rgb_array"):
        next(pictures.play_frames(env, seed=0))
    with pytest.raises(ValueError, match="Face, BACK or GAP"):
        pictures.draw(pictures.Table("x", rows=[pictures.Row(["x"], [pictures.Group("g", ["As"])])]))
    with pytest.raises(ValueError, match="suit"):
        pictures.Face("A", 4)


# --------------------------------------------------------------------------- video
def _frames(name="golf_v0", n=6, **config):
    env = card_envs.ENVIRONMENTS[name].env(render_mode="rgb_array", **config)
    frames = pictures.play_frames(env, seed=9)
    return [next(frames) for _ in range(n)]


def test_a_gif_of_a_game_is_written_and_reads_back(tmp_path):
    frames = _frames()
    path = pictures.save_video(frames, tmp_path / "golf.gif", fps=2)
    with Image.open(path) as im:
        assert im.n_frames == len(frames)
        assert im.size == (frames[0].shape[1], frames[0].shape[0])
        im.seek(3)
        back = np.array(im.convert("RGB")).astype(int)
        # a GIF holds 256 colours: the anti-aliased edges are quantised, nothing else moves
        assert np.abs(back - frames[3]).mean() < 2
        assert np.abs(back - frames[0]).mean() > np.abs(back - frames[3]).mean()


def test_save_video_rejects_frames_it_cannot_write(tmp_path):
    frames = _frames(n=2)
    with pytest.raises(ValueError, match="at least one frame"):
        pictures.save_video([], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="one size"):
        pictures.save_video([frames[0], frames[0][:-1]], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="uint8"):
        pictures.save_video([frames[0].astype(np.float32)], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="unknown video format"):
        pictures.save_video(frames, tmp_path / "x.png")
    with pytest.raises(ValueError, match="fps"):
        pictures.save_video(frames, tmp_path / "x.gif", fps=0)


def test_an_mp4_of_a_whole_game_is_written(tmp_path):
    pytest.importorskip("moviepy")
    env = card_envs.guillotine_v0.env(render_mode="rgb_array", mode="single")
    path = pictures.record_video(env, tmp_path / "deal.mp4", seed=1)
    data = open(path, "rb").read()
    assert len(data) > 1000 and data[4:8] == b"ftyp"  # an MP4 container
    import imageio.v3 as iio

    first = iio.imread(path, index=0)
    assert first.shape[:2] == env.render().shape[:2]


def test_gymnasium_save_video_records_the_frames(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.utils.save_video import save_video

    frames = _frames("hot_v0", n=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save_video(frames, str(tmp_path), fps=2, name_prefix="hot")
    files = list(tmp_path.glob("hot*.mp4"))
    assert files and files[0].stat().st_size > 1000


# --------------------------------------------------------------------------- docs
def test_the_docs_pictures_script_writes_a_png_and_a_gif_per_game(tmp_path, capsys):
    pictures.main(["--out", str(tmp_path), "guilders_v0", "golf_v0"])
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["golf.gif", "golf.png", "guilders.gif", "guilders.png"]
    with Image.open(tmp_path / "golf.png") as im:
        assert im.mode == "RGB" and im.size[0] > 300
    with Image.open(tmp_path / "golf.gif") as im:
        assert im.n_frames > 1
    with pytest.raises(SystemExit):
        pictures.main(["--out", str(tmp_path), "poker_v0"])


def test_the_places_that_actions_name_are_numbered_on_the_picture():
    """Golf's ``flip N``/``replace N`` and Fiddlesticks' ``blind N`` name places: each is numbered
    on the picture; Collector's and Hot's ``take K`` name the seat K places on: a seat's own
    picture names each other seat by that offset."""
    golf = card_envs.golf_v0.raw_env(num_players=3)
    golf.reset(seed=1)
    for row in _scene(golf, golf.game_state, 1, True).seats:
        assert list(row.groups[0].numbers) == [str(i) for i in range(6)]
        assert len(row.groups[0].cards) == 6
    fiddle = card_envs.fiddlesticks_v0.raw_env(num_players=2)
    fiddle.reset(seed=1)
    for row in _scene(fiddle, fiddle.game_state, 0, True).seats:
        face_down = next(g for g in row.groups if g.caption == "face down")
        assert list(face_down.numbers) == ["0", "1", "2"]
    hot = card_envs.hot_v0.raw_env(num_players=3)
    hot.reset(seed=1)
    labels = [row.label[0] for row in _scene(hot, hot.game_state, 1, True).seats]
    assert labels == ["player_0  (+2)", "player_1 (you)", "player_2  (+1)"]
    # the spectator's picture names no offsets (it is nobody's)
    assert [row.label[0] for row in _spectator(hot).seats] == ["player_0", "player_1", "player_2"]
    # the numbers are drawn: the picture differs from the same table without them
    table = _scene(golf, golf.game_state, 1, True)
    drawn = pictures.draw(table)
    for row in table.seats:
        row.groups[0].numbers = None
    assert not np.array_equal(drawn, pictures.draw(table))
