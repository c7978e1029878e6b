"""The web table over HTTP: a seated person is sent only what their seat may know, every refusal
is a 4xx with one line and changes nothing, tables never mix, and the replay viewer steps records
as a spectator or a seat sees them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
import card_envs  # noqa: E402
from card_envs import records  # noqa: E402
from card_envs.web import Tables, create_app, local_client  # noqa: E402
from card_envs.web.tables import png_data_url  # noqa: E402
from tests import cases  # noqa: E402
from tests.information.test_what_a_person_is_shown import HIDDEN_CHOICES, Scripted, _record, lockstep  # noqa: E402

GAMES = list(card_envs.ENVIRONMENTS)
STEPS = 30  #: the most steps of a game the hidden-card test compares (each is several requests)


@pytest.fixture
def client():
    # the moves released at once: what is sent does not depend on the pacing (tests/web/test_security.py
    # holds the pacing to its promise)
    return local_client(create_app(tables=Tables(paced=False)))


def upload(client, text: str, name: str = "upload"):
    return client.post("/api/records", json={"name": name, "records": text})


def _short(name: str) -> dict:
    from card_envs.web.browser import SHORT_TABLES

    return dict(SHORT_TABLES[name])


def _without_ids(data):
    """A response without the ids that differ between two tables (the table's, the record's)."""
    if isinstance(data, dict):
        return {k: v for k, v in data.items() if k not in ("table", "record")}
    return data


def http_transcript(client, name, config, seed, deck, moves, person, until) -> list:
    """Every response the person's page gets while the game replays ``moves``, with the step it
    was made at, until the first one made after ``until`` actions: the view, the advance or the
    person's action (by index, at the step shown), and the refusals a page may provoke meanwhile
    (the record asked for too early, an action for another seat, a stale action)."""
    seats = card_envs.ENVIRONMENTS[name].raw_env(**config).possible_agents
    at = [0]
    players = {a: Scripted(moves, at) for a in seats if a != person}
    table = client.app.state.tables.open(name, config, seat=seats.index(person), players=players, seed=seed,
                                         deck=deck)
    base = f"/api/tables/{table.id}"
    other = next(a for a in seats if a != person)
    out = []

    def note(step, response):
        body = response.json()
        out.append((body.get("step", step) if response.status_code < 300 else step, response.status_code,
                    _without_ids(body)))

    while True:
        view = client.get(base)
        step = view.json()["step"]
        note(step, view)
        if view.json()["over"] or step >= min(until, STEPS):
            return out
        note(step, client.get(f"{base}/record"))
        note(step, client.post(f"{base}/act", json={"action": 0, "step": step, "seat": other}))
        if view.json()["waiting"]:
            note(step, client.post(f"{base}/advance"))
        else:
            note(step, client.post(f"{base}/act", json={"action": moves[at[0]], "step": step - 1}))  # stale
            action = moves[at[0]]
            at[0] += 1
            note(step, client.post(f"{base}/act", json={"action": action, "step": step}))


@pytest.mark.parametrize("name", GAMES)
def test_every_response_to_a_seated_person_holds_only_what_their_seat_may_know(client, name):
    """Two worlds that differ only in cards (and other seats' choices) the person cannot tell apart
    give the same HTTP responses, byte for byte, up to the point the person's knowledge parts."""
    config = dict(cases.of(name).CONFORMANCE_CONFIGS[0])
    seats = card_envs.ENVIRONMENTS[name].raw_env(**config).possible_agents
    compared = varied_total = 0
    for seed in range(8):  # three deals at least, more where the worlds part early
        if seed >= 3 and compared > 30 and (varied_total or name not in HIDDEN_CHOICES):
            break
        person = seats[seed % len(seats)]
        deck, twin_deck, moves, twin_moves, until, varied = lockstep(name, config, seed, person)
        truth = http_transcript(client, name, config, seed, deck, moves, person, until)
        twin = http_transcript(client, name, config, seed, twin_deck, twin_moves, person, until)
        a = [r for r in truth if r[0] < until]
        b = [r for r in twin if r[0] < until]
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert x == y, (f"seed {seed}, {person}: a response at step {x[0]} differs in a world that differs "
                            f"only in what the seat cannot see:\n{json.dumps(x[2])[:600]}\n--- vs ---\n"
                            f"{json.dumps(y[2])[:600]}")
        compared += len(a)
        varied_total += varied and min(until, STEPS) > 0
        statuses = {status for _, status, _ in a}
        assert {200, 403, 409} <= statuses, "the refusals were not exercised"
    assert compared > 30, "too little was compared: the test proves little"
    if name in HIDDEN_CHOICES:
        assert varied_total > 0, "no other seat's hidden choice was varied"


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_replaying_a_record_is_sent_only_what_it_may_know(client, name):
    config = dict(cases.of(name).CONFORMANCE_CONFIGS[0])
    seats = card_envs.ENVIRONMENTS[name].raw_env(**config).possible_agents
    person = seats[-1]
    deck, twin_deck, moves, twin_moves, until, _ = lockstep(name, config, 1, person)
    ids = []
    for d, m in ((deck, moves), (twin_deck, twin_moves)):
        line = records.dumps(_record(name, config, 1, d, m))
        ids.append(upload(client, line + "\n").json()["added"][0]["record"])
    compared = 0
    for k in range(min(until, 8)):
        x, y = (client.get(f"/api/records/{i}/steps/{k}", params={"seat": person}) for i in ids)
        assert x.status_code == y.status_code == 200
        assert "steps" not in x.json(), "a seat was told how long the game lasts"
        assert _without_ids(x.json()) == _without_ids(y.json()), f"step {k} of {person}'s replay differs"
        compared += 1
    assert compared > 0
    # the spectator of a finished game is told its length
    assert client.get(f"/api/records/{ids[0]}/steps/0").json()["steps"] == len(moves)


def test_a_game_played_over_http_ends_with_the_result_and_a_record_that_replays(client):
    r = client.post("/api/tables", json={"env": "golf", "options": {"num_players": 2, "num_rounds": 1},
                                          "opponents": ["heuristic"], "seed": 5})
    assert r.status_code == 201
    view = r.json()
    tid = view["table"]
    assert view["seats"][1] == {"seat": "player_1", "agent": "heuristic"}
    rng = np.random.default_rng(0)
    while not view["over"]:
        if view["waiting"]:
            view = client.post(f"/api/tables/{tid}/advance").json()
        else:
            names = [a["name"] for a in view["actions"]]
            env = card_envs.golf_v0.env(num_players=2, num_rounds=1)
            assert all(env.unwrapped.string_to_action(n) == a["action"] for n, a in zip(names, view["actions"]))
            choice = view["actions"][int(rng.integers(len(view["actions"])))]["action"]
            view = client.post(f"/api/tables/{tid}/act", json={"action": choice, "step": view["step"]}).json()
    result = view["result"]
    assert sorted(s["rank"] for s in result["seats"]) in ([1, 2], [1, 1])
    assert result["you"]["rank"] == result["seats"][0]["rank"]
    line = client.get(f"/api/tables/{tid}/record").text.strip()
    rec = records.check(line)  # replays bit for bit
    assert rec["seed"] == 5 and rec["agents"] == [None, "heuristic"] and len(rec["actions"]) == view["step"]
    mine = [m["name"] for m in view["moves"] if m["seat"] == "player_0"]
    assert mine == [name for actor, _, name in rec["actions"] if actor == "player_0"]


def _refused(response, status: int, *words: str) -> str:
    """The refusal's one line, checked to be ``status`` and to say each of ``words``."""
    assert response.status_code == status, (response.status_code, response.text[:300])
    text = response.json()["error"]
    assert "\n" not in text and all(w in text for w in words), text
    return text


def play_to_the_end(client, view: dict) -> dict:
    """Play the table of ``view`` to its end over HTTP (the person's first legal action each turn);
    the last view."""
    tid = view["table"]
    while not view["over"]:
        if view["waiting"]:
            view = client.post(f"/api/tables/{tid}/advance").json()
        else:
            view = client.post(f"/api/tables/{tid}/act", json={"action": view["actions"][0]["action"],
                                                                "step": view["step"]}).json()
    return view


def test_bad_input_is_a_4xx_with_one_line_and_changes_nothing(client):
    _refused(client.post("/api/tables", json={"env": "poker"}), 400, "unknown game", "golf")
    _refused(client.post("/api/tables", json={}), 400, "env")
    _refused(client.post("/api/tables", json={"env": "golf", "colour": 1}), 400, "colour")
    _refused(client.post("/api/tables", json={"env": "golf", "options": {"players": 3}}), 400, "players", "num_players")
    _refused(client.post("/api/tables", json={"env": "golf", "options": {"num_players": 99}}), 400, "num_players")
    _refused(client.post("/api/tables", json={"env": "golf", "opponents": ["wizard"]}), 400, "wizard", "not offered")
    # the shipped policy was trained at one table: at another it refuses, and the page says so
    _refused(client.post("/api/tables", json={"env": "golf", "options": {"num_players": 3},
                                              "opponents": ["ppo"]}), 400, "ppo", "cannot play")
    _refused(client.post("/api/tables", json={"env": "golf", "seat": 7}), 400, "seat")
    _refused(client.post("/api/tables", content=b"{not json", headers={"Content-Type": "application/json"}), 400, "JSON")
    assert len(client.app.state.tables) == 0, "a refused table was opened"

    view = client.post("/api/tables", json={"env": "golf", "options": {"num_players": 2, "num_rounds": 1},
                                            "seed": 1}).json()
    tid = view["table"]
    while view["waiting"]:
        view = client.post(f"/api/tables/{tid}/advance").json()
    before = client.get(f"/api/tables/{tid}").json()
    illegal = next(a for a in range(card_envs.golf_v0.env().unwrapped.action_space("player_0").n)
                   if a not in {x["action"] for x in before["actions"]})
    _refused(client.post(f"/api/tables/{tid}/act", json={"action": illegal, "step": before["step"]}), 400, "not legal")
    _refused(client.post(f"/api/tables/{tid}/act", json={"action": "flip", "step": before["step"]}), 400, "int")
    _refused(client.post(f"/api/tables/{tid}/act", json={"step": before["step"]}), 400, "action")
    _refused(client.post(f"/api/tables/{tid}/act", json={"action": before["actions"][0]["action"],
                                                          "step": before["step"], "seat": "player_1"}), 403, "player_0")
    _refused(client.post(f"/api/tables/{tid}/act", json={"action": before["actions"][0]["action"],
                                                          "step": before["step"] + 3}), 409, "stale")
    _refused(client.post(f"/api/tables/{tid}/advance"), 409, "your turn")
    _refused(client.get(f"/api/tables/{tid}/record"), 409, "not over")
    _refused(client.get("/api/tables/nope"), 404, "no open table")
    assert client.get(f"/api/tables/{tid}").json() == before, "a refused request changed the game"
    # a double click: the same action twice at the same step; the second is stale
    action = before["actions"][0]["action"]
    assert client.post(f"/api/tables/{tid}/act", json={"action": action, "step": before["step"]}).status_code == 200
    after = client.get(f"/api/tables/{tid}").json()
    _refused(client.post(f"/api/tables/{tid}/act", json={"action": action, "step": before["step"]}), 409, "stale")
    assert client.get(f"/api/tables/{tid}").json() == after


def test_a_game_that_has_ended_refuses_every_move(client):
    tables = client.app.state.tables
    table = tables.open("golf", {"num_players": 2, "num_rounds": 1}, players={
        "player_1": card_envs_agent("heuristic")}, seed=3)
    tid = table.id
    view = play_to_the_end(client, client.get(f"/api/tables/{tid}").json())
    _refused(client.post(f"/api/tables/{tid}/act", json={"action": 0, "step": view["step"]}), 409, "over")
    _refused(client.post(f"/api/tables/{tid}/advance"), 409, "over")
    assert client.get(f"/api/tables/{tid}").json() == view


def card_envs_agent(spec: str):
    import agents

    return agents.load(spec, 0)


def test_tables_in_several_tabs_do_not_mix_and_abandoned_ones_are_closed():
    tables = Tables(idle_seconds=60, max_tables=3, paced=False)
    client = local_client(create_app(tables=tables))
    a = client.post("/api/tables", json={"env": "hot", "seed": 1}).json()
    b = client.post("/api/tables", json={"env": "golf", "options": {"num_players": 3}, "seed": 1}).json()
    assert a["table"] != b["table"] and a["env"] == "hot_v0" and b["env"] == "golf_v0"
    # acting at one table leaves the other as it was
    b_before = client.get(f"/api/tables/{b['table']}").json()
    view = a
    while view["waiting"]:
        view = client.post(f"/api/tables/{a['table']}/advance").json()
    client.post(f"/api/tables/{a['table']}/act", json={"action": view["actions"][0]["action"], "step": view["step"]})
    assert client.get(f"/api/tables/{b['table']}").json() == b_before
    # closing one table (the page does on leaving) leaves the other
    assert client.post(f"/api/tables/{a['table']}/close").json() == {"closed": True}
    _refused(client.get(f"/api/tables/{a['table']}"), 404, "no open table", "closed")
    assert client.get(f"/api/tables/{b['table']}").status_code == 200
    # a table left alone longer than the idle time is closed at the next request
    tables.get(b["table"]).touched -= 61  # as if left alone for a minute
    client.post("/api/tables", json={"env": "golf", "seed": 2})
    _refused(client.get(f"/api/tables/{b['table']}"), 404, "no open table", "left alone")


def test_the_replay_viewer_steps_a_record_forward_and_back_as_the_records_viewer_does(client, tmp_path):
    import agents

    line = records.dumps(records.record("hot_v0", [agents.load("heuristic", 0), agents.load("random", 1)],
                                        {"single_deal": True}, seed=11))
    path = tmp_path / "games.jsonl"
    path.write_text(line + "\n")
    client = local_client(create_app(records=path))
    listed = client.get("/api/records").json()["records"]
    assert len(listed) == 1 and listed[0]["env"] == "hot_v0" and listed[0]["source"] == "games.jsonl"
    rid = listed[0]["record"]
    rec = records.parse(line)
    n = len(rec["actions"])
    for seat in (None, "player_1"):
        params = {} if seat is None else {"seat": seat}
        steps = [client.get(f"/api/records/{rid}/steps/{k}", params=params).json() for k in (0, 3, 2, 3, n)]
        assert [s["step"] for s in steps] == [0, 3, 2, 3, n]
        assert steps[1] == steps[3], "stepping back and forward again gave another screen"
        screens = records.screens(line, "spectator" if seat is None else "seat", seat)
        for s in steps:
            assert s["text"] in screens[s["step"]]
            assert s["picture"] == png_data_url(records.frames(line, seat, [s["step"]])[0])
            assert [m["seat"] for m in s["moves"]] == [a[0] for a in rec["actions"][:s["step"]]]
        assert steps[-1]["last"] and steps[-1]["result"]["ranks"] == rec["ranks"]
        assert not steps[0]["last"] and steps[0]["result"] is None
    # a seat sees another seat's hidden commitment as the table saw it; the spectator too
    seat_moves = client.get(f"/api/records/{rid}/steps/{n}", params={"seat": "player_1"}).json()["moves"]
    assert any(m["seat"] == "player_0" and m["name"] == "commits" for m in seat_moves)
    assert all(m["name"] != "commits" for m in seat_moves if m["seat"] == "player_1")
    _refused(client.get(f"/api/records/{rid}/steps/{n + 1}"), 400, "step", str(n))
    _refused(client.get(f"/api/records/{rid}/steps/{n + 1}", params={"seat": "player_1"}), 400, "step")
    _refused(client.get(f"/api/records/{rid}/steps/1", params={"seat": "player_9"}), 400, "player_9")
    _refused(client.get("/api/records/nope/steps/0"), 404, "no record")


def test_a_corrupted_record_line_is_refused_with_its_line_and_nothing_is_added(client):
    import agents

    good = records.dumps(records.record("golf_v0", [agents.load("random", 0)] * 2,
                                        {"num_players": 2, "num_rounds": 1}, seed=1))
    edited = good.replace('"seed":1', '"seed":2')
    _refused(upload(client, good + "\n" + edited + "\n", "mine.jsonl"), 400, "mine.jsonl line 2", "checksum")
    _refused(client.post("/api/records", content=b"\xff\xfe", headers={"Content-Type": "application/json"}), 400,
             "not JSON")
    _refused(client.post("/api/records", json={"name": "x", "records": ["a list"]}), 400, "records")
    _refused(upload(client, "\n\n"), 400, "no game records")
    assert client.get("/api/records").json()["records"] == []
    assert upload(client, good).status_code == 201


def test_the_page_and_its_files_are_served_with_nothing_from_the_internet(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    for text in (page.text, client.get("/static/app.js").text, client.get("/static/style.css").text):
        assert "http://" not in text and "https://" not in text and "//cdn" not in text
    games = client.get("/api/games").json()["games"]
    assert [g["env"] for g in games] == GAMES
    golf = games[0]
    assert {"name": "num_players", "default": 4, "table": 2, "type": "int", "max": 8} in golf["options"]
    assert golf["table"] == card_envs.golf_v0.BENCHMARK_CONFIG and golf["seats"] == 2


@pytest.mark.parametrize("name", GAMES)
def test_a_new_table_with_no_options_is_the_benchmark_table_where_every_agent_offered_plays(client, name):
    table = card_envs.ENVIRONMENTS[name].BENCHMARK_CONFIG
    view = client.post("/api/tables", json={"env": name, "opponents": ["ppo"], "seed": 1}).json()
    assert view["options"] == table, "the shipped policy takes the other seats at the benchmark table"
    assert len(view["seats"]) == len(card_envs.ENVIRONMENTS[name].raw_env(**table).possible_agents)
    changed = client.post("/api/tables", json={"env": name, "options": {"reward_mode": "rank"}, "seed": 1}).json()
    assert changed["options"] == {**table, "reward_mode": "rank"}, "the options given are laid over it"
    assert [a["agent"] for a in client.get("/api/games").json()["agents"]] == ["random", "heuristic", "ppo", "pimc",
                                                                            "ismcts"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_command_serves_the_page_and_refuses_a_missing_records_file(tmp_path):
    import httpx2 as httpx

    bad = subprocess.run([sys.executable, "-m", "card_envs.web", "--records", str(tmp_path / "none.jsonl")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "none.jsonl" in bad.stderr
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "card_envs.web", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.3)
        assert page.status_code == 200 and "card_envs" in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("name, config", [("collector_v0", {"num_players": 3}), ("hot_v0", {"num_players": 2}),
                                          ("fiddlesticks_v0", {"num_players": 3})])
def test_the_others_hidden_choices_reach_the_history_once_the_rules_reveal_them(client, name, config):
    """Another seat's commitment shows as "commits" (or "picks a card") when it is made, and by its
    name once the rules make it public (a seat's several picks in action order, never the order
    they were made in)."""
    import agents

    seats = card_envs.ENVIRONMENTS[name].raw_env(**config).possible_agents
    table = client.app.state.tables.open(name, config, players={a: agents.load("random", k)
                                                               for k, a in enumerate(seats) if a != "player_0"},
                                         seed=3)
    truth: dict[str, list[int]] = {}
    env = table.game.env
    revealed = 0
    while not table.game.over and revealed < 2:
        moves_before = len(table.game.moves)
        if table.game.waiting:
            actor = env.agent_selection
            hidden = env.unwrapped.public_action_to_string(0) != env.unwrapped.action_to_string(0)
            table.advance()
            if hidden:
                _, action, action_name = table.recorder.record["actions"][-1]
                truth.setdefault(actor, []).append((action, action_name))
        else:
            table.act(next(iter(table.game.legal)), table.game.steps)
        for step, seat, text in table.game.moves[moves_before:]:
            if text.startswith("revealed: "):
                names = [action_name for _, action_name in sorted(truth.pop(seat))]
                assert text == "revealed: " + ", ".join(names)
                revealed += 1
    assert revealed >= 2
    view = client.get(f"/api/tables/{table.id}").json()
    assert any(m["name"].startswith("revealed: ") for m in view["moves"])
