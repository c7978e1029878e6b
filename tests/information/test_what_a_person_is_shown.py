"""What a person at the table is shown depends only on what their seat may know.

The observation tests hold the encoded view to that; these hold every text a seated person reads
to it: the terminal game's transcript (:class:`agents.seated.SeatedGame`, which ``python -m
agents.play`` prints), the records viewer as that seat (``records.screens(view="seat")``) and the
seat's pictures (``records.frames(seat=...)``).

Two worlds are played in lockstep. The twin's deal differs from the truth's only in cards the
person's seat cannot see (swaps of two deck cards that leave the seat's first observation and
rendering unchanged). Both worlds take the same actions, except that where another seat makes a
choice the person cannot tell apart from the truth's (applying either leaves the person's
observation and rendering the same: a Collector or Hot commitment, a Fiddlesticks swap pick), the
twin makes a different one. The comparison runs until the person's observation first differs (the
rules revealed a card, or a choice, that differs) or the twin cannot take the truth's action:
every text made before then must be identical in the two worlds.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import card_envs
from agents.play import play
from agents.seated import SeatedGame
from card_envs import records
from tests import cases

#: configurations per game: the first two of each game's conformance list
CONFIGS = [
    pytest.param(name, dict(cfg), id=f"{name}-{k}")
    for name in card_envs.ENVIRONMENTS
    for k, cfg in enumerate(cases.of(name).CONFORMANCE_CONFIGS[:2])
]
#: games whose other seats make choices hidden from the person
HIDDEN_CHOICES = ("collector_v0", "hot_v0", "fiddlesticks_v0")
SEEDS = range(8)  #: the even seeds vary other seats' hidden choices, the odd ones only cards
STEP_CAP = 50_000


def _seen(env, agent: str, state=None) -> tuple:
    """Everything ``agent`` knows of ``state`` (default: the env's): its observation, its mask
    when it is to act, its rendering, and who acts next."""
    raw = env.unwrapped
    state = raw.game_state if state is None else state
    seat = raw.possible_agents.index(agent)
    mask = raw.rules.legal_mask(state).tobytes() if state.current_player == seat else b""
    return (raw._encode(state, seat).tobytes(), mask, raw._render_view(state, seat), state.current_player,
            bool(state.terminated or state.truncated))


def _twin_deck(module, config: dict, seed: int, deck: list[int], person: str, rng, swaps: int) -> list[int]:
    """``deck`` with ``swaps`` swaps of two cards the person's seat cannot see at the deal."""
    env = module.raw_env(**config)
    env.reset(seed=seed, options={"deck": deck})
    truth = _seen(env, person)
    twin = list(deck)
    done = 0
    for _ in range(60):
        i, j = (int(x) for x in rng.choice(len(deck), 2, replace=False))
        if twin[i] == twin[j]:
            continue
        trial = list(twin)
        trial[i], trial[j] = trial[j], trial[i]
        env.reset(seed=seed, options={"deck": trial})
        if _seen(env, person) == truth:
            twin, done = trial, done + 1
            if done == swaps:
                break
    return twin


def _look_alike(truth, twin, person: str) -> list[int]:
    """The twin's legal actions after which the person's seat knows what it knows after the
    truth's last action (``truth`` has taken it, ``twin`` not yet)."""
    raw = twin.unwrapped
    state = raw.game_state
    seen = _seen(truth, person)
    same = []
    for b in np.flatnonzero(raw.rules.legal_mask(state)):
        trial = state.copy()
        raw.rules.apply(trial, int(b))
        if _seen(twin, person, trial) == seen:
            same.append(int(b))
    return same


def lockstep(name: str, config: dict, seed: int, person: str):
    """The truth's and the twin's decks and actions, and ``until``: how many actions both worlds
    took while the person's knowledge stayed the same (texts made after fewer actions than that
    must be identical), and how many of the twin's choices differed, unseen, from the truth's.

    The truth plays random legal actions. The twin takes the person's own actions as they are,
    and for another seat an action after which the person knows what it knows in the truth: in the
    even seeds a random one of those (a different hidden choice where there is one), in the odd
    seeds the truth's own where it is one."""
    module = card_envs.ENVIRONMENTS[name]
    rng = np.random.default_rng(1000 + seed)
    truth, twin = module.raw_env(**config), module.raw_env(**config)
    deck = [int(c) for c in rng.permutation(truth.rules.deck())]
    twin_deck = _twin_deck(module, config, seed, deck, person, rng, swaps=1 + 2 * (seed // 2 % 2))
    truth.reset(seed=seed, options={"deck": deck})
    twin.reset(seed=seed, options={"deck": twin_deck})
    moves, twin_moves, until, varied = play_on(truth, twin, person, rng, vary=seed % 2 == 0)
    return deck, twin_deck, moves, twin_moves, until, varied


def play_on(truth, twin, person: str, rng, vary: bool):
    """Play the two worlds (raw envs, at the same point of their games) on to their ends; the
    truth's moves, the twin's, ``until`` (counted from here) and the unseen variations (see
    :func:`lockstep`; ``vary``: the twin picks among the look-alike actions at random)."""
    moves, twin_moves = [], []
    until, varied = None, 0

    def random_legal(env) -> int:
        legal = np.flatnonzero(env.unwrapped.rules.legal_mask(env.unwrapped.game_state))
        return int(legal[rng.integers(len(legal))])

    for _ in range(STEP_CAP):
        if truth.unwrapped._done and twin.unwrapped._done:
            break
        if not truth.unwrapped._done:
            moves.append(random_legal(truth))
            truth.step(moves[-1])
        if twin.unwrapped._done:
            continue
        if until is not None:
            twin_moves.append(random_legal(twin))
        elif twin.agent_selection == person:
            twin_moves.append(moves[-1])  # its mask is the truth's: the same knowledge
        else:
            alike = _look_alike(truth, twin, person)
            if not alike:
                until = len(twin_moves)  # the worlds part here, rightly (a hidden card is played)
                twin_moves.append(random_legal(twin))
            elif vary:
                twin_moves.append(alike[int(rng.integers(len(alike)))])
                varied += twin_moves[-1] != moves[-1]
            else:
                twin_moves.append(moves[-1] if moves[-1] in alike else alike[0])
        twin.step(twin_moves[-1])
        if until is None and _seen(truth, person) != _seen(twin, person):
            until = len(moves)
    assert truth.unwrapped._done and twin.unwrapped._done, "a game outlasted the test's step cap"
    return moves, twin_moves, len(moves) if until is None else until, varied


class Scripted:
    """A seat's player replaying a fixed list of the game's actions (shared by all scripted seats)."""

    def __init__(self, moves: list[int], at: list[int]):
        self.moves, self.at = moves, at

    def act(self, observation, agent, env_name):
        a = self.moves[self.at[0]]
        self.at[0] += 1
        return a


def transcript(name: str, config: dict, seed: int, deck, moves, person: str, game_cls=SeatedGame,
               until: int | None = None) -> list:
    """Every text the person is shown while the game replays ``moves`` (the person types its own
    moves by name), as :class:`agents.seated.Shown` (step, text); with ``until``, only until the
    first text made after that many actions."""
    env = card_envs.ENVIRONMENTS[name].env(**config)
    env.reset(seed=seed, options={"deck": deck})
    return seated(env, name, moves, person, game_cls, until)


def seated(env, name: str, moves, person: str, game_cls=SeatedGame, until: int | None = None) -> list:
    """:func:`transcript` of a game already under way in ``env``, from where it stands."""
    at = [0]
    players = {a: Scripted(moves, at) for a in env.possible_agents if a != person}
    game = game_cls(env, person, players, name)
    shown = []
    while True:
        shown += game.advance()
        if game.over or (until is not None and game.steps > until):
            return shown
        action = game.parse(game.legal[moves[at[0]]])  # typed as the person would: by name
        at[0] += 1
        game.act(action)


def _before(shown: list, until: int) -> list[str]:
    return [s.text for s in shown if s.step < until]


def _record(name, config, seed, deck, moves) -> dict:
    """The record of the game that replays ``moves`` (every seat scripted)."""
    return records.record(name, Scripted(moves, [0]), config, seed=seed, deck=deck)


# --------------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("name, config", CONFIGS)
def test_the_terminal_game_shows_a_person_only_what_their_seat_may_know(name, config):
    compared = varied_total = 0
    module = card_envs.ENVIRONMENTS[name]
    seats = module.raw_env(**config).possible_agents
    for seed in SEEDS:
        person = seats[seed % len(seats)]
        deck, twin_deck, moves, twin_moves, until, varied = lockstep(name, config, seed, person)
        truth = transcript(name, config, seed, deck, moves, person, until=until)
        twin = transcript(name, config, seed, twin_deck, twin_moves, person, until=until)
        a, b = _before(truth, until), _before(twin, until)
        for k, (x, y) in enumerate(zip(a, b)):
            assert x == y, (f"seed {seed}, {person}: text {k} differs in a world that differs only in what "
                            f"the seat cannot see:\n{x}\n--- vs ---\n{y}")
        assert len(a) == len(b)
        compared += len(a)
        varied_total += varied
    assert compared > 20, "too little was compared: the test proves little"
    if name in HIDDEN_CHOICES:
        assert varied_total > 0, "no other seat's hidden choice was varied: the test proves nothing of them"


@pytest.mark.parametrize("name, config", CONFIGS)
def test_records_viewed_as_a_seat_show_only_what_it_may_know(name, config):
    module = card_envs.ENVIRONMENTS[name]
    seats = module.raw_env(**config).possible_agents
    compared = 0
    for seed in SEEDS[:2]:
        person = seats[-1 - seed % len(seats)]
        deck, twin_deck, moves, twin_moves, until, _ = lockstep(name, config, seed, person)
        truth = records.screens(_record(name, config, seed, deck, moves), "seat", person)
        twin = records.screens(_record(name, config, seed, twin_deck, twin_moves), "seat", person)
        assert truth[:until] == twin[:until], f"seed {seed}: a screen of {person} differs"
        if until < len(moves):  # the screen after the last compared action names it as the seat saw it
            assert truth[until].splitlines()[1] == twin[until].splitlines()[1]
        compared += until
        frames_at = range(min(until, 6))
        for x, y in zip(records.frames(_record(name, config, seed, deck, moves), person, frames_at),
                        records.frames(_record(name, config, seed, twin_deck, twin_moves), person, frames_at)):
            assert np.array_equal(x, y), f"seed {seed}: a picture of {person}'s view differs"
    assert compared > 5


@pytest.mark.parametrize("name", list(card_envs.ENVIRONMENTS))
def test_from_the_middle_of_a_game_a_person_is_shown_only_what_their_seat_may_know(name):
    """Twin worlds from points inside real games (later rounds and deals, the swap phase's end, a
    Domino run): the twin redraws every card the person's seat cannot see there (the test
    suite's resampler), then both play on as above."""
    import copy

    module = card_envs.ENVIRONMENTS[name]
    config = dict(cases.of(name).CONFORMANCE_CONFIGS[0])
    compared = changed = 0
    for seed in range(3):
        rng = np.random.default_rng(3000 + seed)
        probe = module.raw_env(**config)
        probe.reset(seed=seed)
        moves = []
        while not probe._done:
            legal = np.flatnonzero(probe.rules.legal_mask(probe.game_state))
            moves.append(int(legal[rng.integers(len(legal))]))
            probe.step(moves[-1])
        for k in sorted({int(x) for x in rng.integers(1, len(moves), 4)}):
            truth = module.raw_env(**config)
            truth.reset(seed=seed)
            for a in moves[:k]:
                truth.step(a)
            seats = truth.possible_agents
            person = seats[(seed + k) % len(seats)]
            twin = copy.deepcopy(truth)
            twin.game_state = cases.resample_hidden(truth.rules, truth.game_state, seats.index(person), rng)
            twin._mask = None
            changed += truth.rules.zones(twin.game_state) != truth.rules.zones(truth.game_state)
            start_truth, start_twin = copy.deepcopy(truth), copy.deepcopy(twin)
            t_moves, w_moves, until, _ = play_on(truth, twin, person, rng, vary=k % 2 == 0)
            a = _before(seated(start_truth, name, t_moves, person, until=until), until)
            b = _before(seated(start_twin, name, w_moves, person, until=until), until)
            assert a == b, f"seed {seed}, from action {k}, {person}: the transcripts differ"
            compared += len(a)
    assert compared > 10 and changed > 0, "too little was compared: the test proves little"


class _LeakyGame(SeatedGame):
    """The terminal game as it was: another seat's action printed by its full name."""

    def caption(self, agent: str, action: int) -> str:
        return f"{agent}: {self.raw.action_to_string(action)}"


@pytest.mark.parametrize("name", HIDDEN_CHOICES)
def test_a_planted_leak_of_a_hidden_choice_is_caught(name):
    config = dict(cases.of(name).CONFORMANCE_CONFIGS[0])
    caught = False
    for seed in SEEDS[::2]:
        deck, twin_deck, moves, twin_moves, until, _ = lockstep(name, config, seed, "player_0")
        truth = transcript(name, config, seed, deck, moves, "player_0", _LeakyGame, until)
        twin = transcript(name, config, seed, twin_deck, twin_moves, "player_0", _LeakyGame, until)
        caught |= _before(truth, until) != _before(twin, until)
    assert caught, "the planted leak went unnoticed"


def test_the_terminal_game_prints_what_the_seated_game_shows(monkeypatch):
    """``agents.play`` prints exactly the seated game's texts (so the property above is the
    terminal's), the person typing by name and by number, with '?' and a mistyped line between."""
    name, config, person = "hot_v0", {}, "player_0"
    deck, _, moves, _, _, _ = lockstep(name, config, 0, person)
    shown = transcript(name, config, 0, deck, moves, person)
    at = [0]
    import agents

    monkeypatch.setattr(agents, "load", lambda spec, seed=None: Scripted(moves, at))
    typed = iter(range(10_000))
    pending: list[str] = []

    def person_types(prompt):
        if not pending:
            k = next(typed)
            a = moves[at[0]]
            at[0] += 1
            pending.extend(["?", "no such action", str(a) if k % 2 else card_envs.ENVIRONMENTS[name].raw_env()
                            .rules.action_to_string(None, a)])
        return pending.pop(0)

    out = io.StringIO()
    result = play(name, ["scripted"], config, 0, 0, input_fn=person_types, out=out, deck=deck)
    printed = out.getvalue().splitlines()
    expected = "\n".join(s.text for s in shown).splitlines()
    kept = [line for line in printed[1:] if not line.startswith(("your actions:", "not an action:"))]
    assert kept == [line for line in expected if not line.startswith("your actions:")]
    assert result is not None and "rank" in result
    assert "commits" in out.getvalue() and "player_1: play" not in out.getvalue()
