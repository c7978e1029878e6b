"""The web table tried as an attacker would: no request runs code or names a file, no other page
can drive it, no request can freeze, fill or crash it, and how long an answer takes says nothing
about the cards or the choices of the agents at the table.

Every refusal must come quickly (within a second), change nothing and run nothing: each code path
a request might reach plants a marker (a file a module or a pickle would create) and the tests
check it never appears.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import card_envs  # noqa: E402
from card_envs import records  # noqa: E402
from card_envs.web import Offer, Replays, Tables, create_app, local_client  # noqa: E402
from card_envs.web import limits  # noqa: E402
from tests.agents.test_policy_files import sb3_style_zip  # noqa: E402
from tests.web.test_web import _free_port, play_to_the_end  # noqa: E402
from tests.web.test_web import _refused as refused  # noqa: E402

GOLF = {"env": "golf", "options": {"num_players": 2, "num_rounds": 1}}


@pytest.fixture
def app():
    return create_app(tables=Tables(paced=False))


@pytest.fixture
def client(app):
    return local_client(app)




def quickly(call, seconds: float = 1.0):
    began = time.monotonic()
    out = call()
    assert time.monotonic() - began < seconds, f"the answer took {time.monotonic() - began:.2f} s"
    return out


# ------------------------------------------------------------------ no request names code or a file
def test_a_request_never_runs_code_from_a_file_a_module_or_a_pickle(client, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    evil = tmp_path / "evil_agent.py"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\nclass X:\n    def act(self, *a):\n        return 0\n")
    (tmp_path / "card_envs_probe_module.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    pickled = sb3_style_zip(tmp_path / "policy.zip", marker)
    for spec in (f"py:{evil}:X", "py:card_envs_probe_module:X", "PY:card_envs_probe_module:X", f"ppo:{pickled}",
                 f"ppo:{pickled},any_table", f"rllib:{tmp_path}", "openspiel:ismcts", "openspiel:random:seed=1",
                 f"heuristic:{evil}", "random,any_table", "ppo:", f" py:{evil}:X "):
        response = quickly(lambda: client.post("/api/tables", json={**GOLF, "opponents": [spec]}))
        refused(response, 400, "not offered", "--agent NAME=SPEC")
    assert not marker.exists(), "a request ran code"
    assert "card_envs_probe_module" not in sys.modules and "_card_envs_agent_evil_agent" not in sys.modules
    assert len(client.app.state.tables) == 0


def test_an_answer_never_says_whether_a_file_exists(client, tmp_path):
    there = tmp_path / "there.zip"
    there.write_bytes(b"not a zip")
    missing = tmp_path / "missing.zip"
    for form in ("ppo:{}", "py:{}:X", "rllib:{}", "ppo:{},sample"):
        a = refused(client.post("/api/tables", json={**GOLF, "opponents": [form.format(there)]}), 400)
        b = refused(client.post("/api/tables", json={**GOLF, "opponents": [form.format(missing)]}), 400)
        assert a.replace(str(there), "PATH") == b.replace(str(missing), "PATH")


def test_the_search_agents_budgets_are_bounded(client):
    for spec, word in (("pimc:ms=8000", "ms"), ("pimc:worlds=100000", "worlds"), ("pimc:batch=1000", "batch"),
                       ("ismcts:iterations=10000000", "iterations"), ("ismcts:ms=5000", "ms"),
                       ("pimc:worlds=4,ms=1001", "ms")):
        refused(quickly(lambda: client.post("/api/tables", json={**GOLF, "opponents": [spec]})), 400, word, "bound")
    refused(client.post("/api/tables", json={**GOLF, "opponents": ["pimc:colour=red"]}), 400, "colour")
    # within the bounds, a search agent is seated with a time budget written into its spec
    view = client.post("/api/tables", json={**GOLF, "opponents": ["pimc:worlds=4"], "seed": 1}).json()
    table = client.app.state.tables.get(view["table"])
    assert view["seats"][1]["agent"] == "pimc:worlds=4"
    assert "worlds=4" in table.recorder.record["agents"][1] and "ms=250" in table.recorder.record["agents"][1]


def test_a_search_around_the_shipped_policy_is_offered_and_no_search_key_takes_a_name(client):
    """``pimc:rollout=ppo,prior=ppo`` plays the game's shipped policy (data) in its rollouts; every
    key a request may give a search agent is a number or one of a fixed set of words, so none
    names a file or a module; at a table the policy cannot read it is refused at the opening."""
    from agents.search import KEYS

    for kind, keys in KEYS.items():
        for key, (kind_of, _, _) in keys.items():
            assert kind_of in (int, float) or isinstance(kind_of, tuple), (kind, key)
    view = client.post("/api/tables", json={**GOLF, "opponents": ["pimc:worlds=2,rollout=ppo,prior=ppo"],
                                            "seed": 3}).json()
    assert view["seats"][1]["agent"] == "pimc:worlds=2,rollout=ppo,prior=ppo"
    refused(client.post("/api/tables", json={"env": "golf", "options": {"num_players": 4},
                                             "opponents": ["pimc:worlds=2,rollout=ppo"]}), 400, "num_players")


def test_a_policy_that_cannot_read_the_table_is_refused_when_the_table_is_opened(client):
    # the shipped Golf policy reads 2-player observations; any_table does not make it read 4-player ones
    refused(client.post("/api/tables", json={"env": "golf", "options": {"num_players": 4},
                                             "opponents": ["ppo,any_table"]}), 400, "cannot play", "size")
    view = client.post("/api/tables", json={**GOLF, "opponents": ["ppo,any_table"], "seed": 2}).json()
    assert view["seats"][1]["agent"] == "ppo,any_table"


def test_agents_named_at_start_up_are_offered_by_name(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text("import numpy as np\nclass First:\n    def act(self, obs, agent, env_name):\n"
                    "        return int(np.flatnonzero(obs['action_mask'])[0])\n")
    app = create_app(tables=Tables(offer=Offer({"mine": f"py:{mine}:First", "quick": "pimc:worlds=2"}), paced=False))
    client = local_client(app)
    assert [a["agent"] for a in client.get("/api/games").json()["agents"]][-2:] == ["mine", "quick"]
    view = client.post("/api/tables", json={**GOLF, "opponents": ["mine"], "seed": 3}).json()
    assert view["seats"][1]["agent"] == "mine"
    table = app.state.tables.get(view["table"])
    assert table.recorder.record["agents"][1] == f"py:{mine}:First"
    assert "ms=250" in json.dumps(app.state.tables.open("golf", GOLF["options"], opponents=["quick"]).recorder.record["agents"])
    with pytest.raises(ValueError, match="taken by a built-in"):
        Offer({"ppo": "random"})


# ------------------------------------------------------------------ only the page drives the table
def test_only_the_tables_own_page_may_change_a_table(app):
    secret = app.state.secret
    plain = TestClient(app, base_url="http://127.0.0.1:8000")
    ok = {"X-Card-Envs-Token": secret}
    for headers, body in (({}, json.dumps(GOLF)),  # no secret: what a page on another site can send
                          ({**ok, "Origin": "http://evil.example"}, json.dumps(GOLF)),
                          ({**ok, "Origin": "http://127.0.0.1:9000"}, json.dumps(GOLF)),  # another local port
                          ({**ok, "Origin": "null"}, json.dumps(GOLF)),
                          ({**ok, "Sec-Fetch-Site": "cross-site"}, json.dumps(GOLF)),
                          ({**ok, "Sec-Fetch-Site": "same-site"}, json.dumps(GOLF)),
                          ({**ok, "X-Card-Envs-Token": secret + "x"}, json.dumps(GOLF))):
        response = quickly(lambda: plain.post("/api/tables", content=body,
                                              headers={"Content-Type": "application/json", **headers}))
        refused(response, 403)
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        refused(plain.post("/api/tables", content=json.dumps(GOLF), headers={**ok, "Content-Type": kind}), 403, "json")
    assert len(app.state.tables) == 0
    made = plain.post("/api/tables", content=json.dumps(GOLF),
                      headers={**ok, "Content-Type": "application/json", "Origin": "http://127.0.0.1:8000"})
    assert made.status_code == 201
    tid = made.json()["table"]
    before = plain.get(f"/api/tables/{tid}").json()
    for path in (f"/api/tables/{tid}/act", f"/api/tables/{tid}/advance", f"/api/tables/{tid}/close"):
        refused(plain.post(path, json={"action": 0, "step": before["step"]}), 403)
    refused(plain.delete(f"/api/tables/{tid}"), 403)
    refused(plain.post("/api/records", json={"name": "x", "records": ""}), 403)
    assert plain.get(f"/api/tables/{tid}").json() == before, "a refused request changed the table"


def test_a_request_to_another_host_name_is_refused(app):
    for base in ("http://rebind.attacker.example:8000", "http://testserver", "http://localhost.evil.example"):
        other = TestClient(app, base_url=base, headers={"X-Card-Envs-Token": app.state.secret})
        for response in (other.get("/"), other.get("/api/games"), other.get("/static/app.js"),
                         other.post("/api/tables", json=GOLF)):
            refused(response, 403, "Host")
    for base in ("http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"):
        assert TestClient(app, base_url=base).get("/api/games").status_code == 200
    assert len(app.state.tables) == 0


def test_every_answer_forbids_framing_and_sniffing(client):
    for response in (client.get("/"), client.get("/api/games"), client.get("/static/app.js"),
                     client.get("/api/tables/nope"), client.get("/nowhere"),
                     TestClient(client.app, base_url="http://evil.example").get("/")):
        assert response.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["content-type"].startswith(("application/json", "text/html", "text/javascript"))
    assert client.get("/nowhere").json() == {"error": "Not Found"}


def test_a_server_other_machines_can_reach_needs_its_access_token():
    app = create_app(tables=Tables(paced=False), host="0.0.0.0", access_token="open-sesame-123")
    anyone = TestClient(app, base_url="http://192.168.1.20:8000", follow_redirects=False)
    refused(anyone.get("/"), 401, "access token")
    refused(anyone.get("/api/games"), 401)
    refused(anyone.get("/?token=guess"), 401)
    opened = anyone.get("/?token=open-sesame-123")
    assert opened.status_code == 303 and "HttpOnly" in opened.headers["set-cookie"] and "SameSite=Strict" in \
        opened.headers["set-cookie"]
    assert anyone.get("/").status_code == 200  # the cookie
    player = local_client(app)  # the bearer token and the page's secret
    assert player.post("/api/tables", json=GOLF).status_code == 201


def test_the_command_on_another_address_requires_a_token_and_says_so(tmp_path):
    short = subprocess.run([sys.executable, "-m", "card_envs.web", "--host", "0.0.0.0", "--token", "abc"],
                           capture_output=True, text=True, timeout=120)
    assert short.returncode == 2 and "--token" in short.stderr
    marker = tmp_path / "ran"
    pickled = sb3_style_zip(tmp_path / "p.zip", marker)
    bad = subprocess.run([sys.executable, "-m", "card_envs.web", "--agent", f"mine=ppo:{pickled}"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "pickle" in bad.stderr and not marker.exists()
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "card_envs.web", "--host", "0.0.0.0", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        lines = [server.stdout.readline() for _ in range(3)]
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert lines[0].startswith("tables: a new table starts at its game's benchmark table"), lines
    assert "golf_v0 num_players=2 num_rounds=1" in lines[0], "the first line names the tables"
    assert "access token" in lines[1] and "?token=" in lines[2], lines


# ------------------------------------------------------------------ nothing freezes, fills or crashes it
def test_tables_past_the_web_bounds_are_refused_before_they_are_built(client):
    for options, word in (({"num_decks": 1000000}, "num_decks"), ({"num_players": 10**6}, "num_players"),
                          ({"max_rounds": 10**9}, "max_rounds"), ({"num_decks": 1e308}, "num_decks"),
                          ({"target_score": 10**100}, "target_score")):
        response = quickly(lambda: client.post("/api/tables", json={"env": "golf", "options": options}))
        refused(response, 400, word, "bound")
    refused(quickly(lambda: client.post("/api/tables", json={"env": "guilders", "options": {"num_decks": 50}})),
            400, "num_decks <= 4")
    refused(client.post("/api/tables", content=b'{"env": "golf", "options": {"num_players": ' + b"9" * 5000 + b"}}",
                        headers={"Content-Type": "application/json"}), 400, "JSON")
    refused(client.post("/api/tables", json={**GOLF, "seed": 2**80}), 400, "seed")
    refused(client.post("/api/tables", json={**GOLF, "opponents": ["random"] * 17}), 400, "at most")
    refused(client.post("/api/tables", json={**GOLF, "opponents": ["r" * 500]}), 400, "characters")
    assert len(client.app.state.tables) == 0


def test_json_nested_too_deeply_is_a_400(client):
    for body in (b"[" * 100000, b'{"env": "golf", "options": {"x": ' + b"[" * 50000 + b"]" * 50000 + b"}}"):
        refused(quickly(lambda: client.post("/api/tables", content=body, headers={"Content-Type": "application/json"})),
                400, "nested too deeply")
    deep = '{"env": "golf_v0", "options": ' + "[" * 50000 + "]" * 50000 + "}"
    refused(client.post("/api/records", json={"name": "deep.jsonl", "records": deep}), 400, "deep.jsonl line 1",
            "nested too deeply")


def test_a_body_too_large_is_refused_before_it_is_read(client):
    big = b"x" * (limits.MAX_BODY + 1)
    refused(quickly(lambda: client.post("/api/records", content=big, headers={"Content-Type": "application/json"})),
            413, str(limits.MAX_BODY))
    refused(client.post("/api/records", headers={"Content-Type": "application/json",
                                                 "Content-Length": str(10**12)}, content=b"{}"), 413)

    def stream():  # no Content-Length: counted while it streams in
        for _ in range(limits.MAX_BODY // 65536 + 2):
            yield b" " * 65536

    refused(client.post("/api/records", content=stream(), headers={"Content-Type": "application/json"}), 413)


def _record_lines(count: int, seed: int = 0) -> list[str]:
    import agents

    return [records.dumps(records.record("golf_v0", [agents.load("random", k)] * 2, {"num_players": 2, "num_rounds": 1},
                                         seed=seed + k)) for k in range(count)]


def test_uploaded_records_are_kept_within_bounds_the_oldest_dropped_and_said():
    client = local_client(create_app(tables=Tables(paced=False), replays=Replays(max_records=3)))
    lines = _record_lines(5)
    first = client.post("/api/records", json={"name": "a.jsonl", "records": "\n".join(lines[:2])}).json()
    assert first["dropped"] == 0 and "note" not in first
    second = client.post("/api/records", json={"name": "b.jsonl", "records": "\n".join(lines[2:4])}).json()
    assert second["dropped"] == 1 and "at most 3" in second["note"]
    kept = client.get("/api/records").json()["records"]
    assert [(r["source"], r["line"]) for r in kept] == [("a.jsonl", 2), ("b.jsonl", 1), ("b.jsonl", 2)]
    dropped = first["added"][0]["record"]
    refused(client.get(f"/api/records/{dropped}/steps/0"), 404, "no record")
    refused(client.post("/api/records", json={"name": "c.jsonl", "records": "\n".join(lines)}), 400, "at most 3")
    assert len(client.get("/api/records").json()["records"]) == 3


def test_a_record_of_a_table_past_the_bounds_is_refused_before_it_is_replayed(client):
    line = json.loads(_record_lines(1)[0])
    line["options"] = {"num_players": 2, "num_decks": 1000000}
    refused(quickly(lambda: client.post("/api/records", json={"name": "big.jsonl", "records": json.dumps(line)})),
            400, "big.jsonl line 1", "num_decks", "bound")


def test_the_table_cap_never_closes_a_game_in_play_without_saying_so():
    tables = Tables(max_tables=2, paced=False)
    client = local_client(create_app(tables=tables))
    a = client.post("/api/tables", json={**GOLF, "seed": 1}).json()
    b = client.post("/api/tables", json={**GOLF, "seed": 2}).json()
    refused(quickly(lambda: client.post("/api/tables", json={**GOLF, "seed": 3})), 503, "at most 2", "in play")
    assert client.get(f"/api/tables/{a['table']}").status_code == 200
    assert client.get(f"/api/tables/{b['table']}").status_code == 200
    play_to_the_end(client, a)  # a finished game makes room
    c = client.post("/api/tables", json={**GOLF, "seed": 3})
    assert c.status_code == 201
    refused(client.get(f"/api/tables/{a['table']}"), 404, "to make room", "its game ended")
    tables.get(b["table"]).touched -= limits.EVICT_IDLE_SECONDS + 1  # a game left alone makes room too
    assert client.post("/api/tables", json={**GOLF, "seed": 4}).status_code == 201
    refused(client.get(f"/api/tables/{b['table']}"), 404, "to make room", "left alone")
    assert client.get(f"/api/tables/{c.json()['table']}").status_code == 200


class Slow:
    """An agent that takes ``seconds`` to choose its first legal action."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def act(self, observation, agent, env_name):
        time.sleep(self.seconds)
        return int(np.flatnonzero(observation["action_mask"])[0])


class Broken:
    def act(self, observation, agent, env_name):
        raise RuntimeError("a bug in an agent")


def test_a_table_busy_with_a_move_answers_at_once_and_holds_up_no_other_table():
    import httpx2 as httpx

    from card_envs.web.browser import serve

    app = create_app(tables=Tables(paced=False))
    tables = app.state.tables
    slow = tables.open("golf", GOLF["options"], seat=1, players={"player_0": Slow(3.0)}, seed=5)
    other = tables.open("golf", GOLF["options"], players={"player_1": Slow(0.0)}, seed=6)
    headers = {"X-Card-Envs-Token": app.state.secret, "Content-Type": "application/json"}
    with serve(app) as url, httpx.Client(base_url=url, headers=headers, timeout=30) as http:
        moved = {}
        mover = threading.Thread(target=lambda: moved.update(r=http.post(f"/api/tables/{slow.id}/advance", json={})))
        mover.start()
        time.sleep(0.3)
        began = time.monotonic()
        answers = [http.get(f"/api/tables/{slow.id}") for _ in range(45)]
        answers.append(http.post(f"/api/tables/{slow.id}/advance", json={}))
        assert {r.status_code for r in answers} == {409} and all("busy" in r.json()["error"] for r in answers)
        assert http.get(f"/api/tables/{other.id}").status_code == 200
        assert http.post("/api/tables", json=GOLF).status_code == 201
        assert time.monotonic() - began < 2.5, "requests waited for the busy table"
        mover.join(timeout=30)
        assert moved["r"].status_code == 200 and moved["r"].json()["step"] == 1
        assert http.get(f"/api/tables/{slow.id}").status_code == 200


def test_an_agents_failure_is_a_json_500_line(client):
    table = client.app.state.tables.open("golf", GOLF["options"], seat=1, players={"player_0": Broken()}, seed=1)
    view = client.get(f"/api/tables/{table.id}").json()
    while not view["waiting"]:
        view = client.post(f"/api/tables/{table.id}/act", json={"action": view["actions"][0]["action"],
                                                                 "step": view["step"]}).json()
    response = client.post(f"/api/tables/{table.id}/advance")
    refused(response, 500, "RuntimeError", "log")
    assert client.get(f"/api/tables/{table.id}").status_code == 200  # the table is free again


# ------------------------------------------------------------------ time tells nothing
TIMED_TABLES = {"fiddlesticks_v0": {"num_players": 2, "max_turns": 400}, "hot_v0": {"num_players": 2}}
SAMPLES = 8  # advances per group, at least, in two groups at least


def advance_times(env_name: str, spec: str, paced: bool, seconds: float = 45.0,
                  among: int | None = None) -> dict[int, list[float]]:
    """The time of each ``/advance`` over HTTP at tables of ``env_name`` against ``spec``, grouped
    by the number of legal actions the agent to move had (1, 2, ..., 6 for six or more), until
    two groups have :data:`SAMPLES` each, group ``among`` one of them if given (or ``seconds``
    pass)."""
    app = create_app(tables=Tables(paced=paced))
    client = local_client(app)
    times: dict[int, list[float]] = {}
    began = time.monotonic()
    seed = 0

    def enough() -> bool:
        full = [k for k, v in times.items() if len(v) >= SAMPLES]
        return (len(full) >= 2 and (among is None or among in full)) or time.monotonic() - began > seconds

    while not enough():
        view = client.post("/api/tables", json={"env": env_name, "options": TIMED_TABLES[env_name],
                                                "opponents": [spec], "seed": seed}).json()
        seed += 1
        table = app.state.tables.get(view["table"])
        while not view["over"] and not enough():
            if view["waiting"]:
                env = table.game.env
                legal = min(6, int(env.observe(env.agent_selection)["action_mask"].sum()))
                t0 = time.perf_counter()
                view = client.post(f"/api/tables/{view['table']}/advance").json()
                times.setdefault(legal, []).append(time.perf_counter() - t0)
            else:
                view = client.post(f"/api/tables/{view['table']}/act",
                                   json={"action": view["actions"][0]["action"], "step": view["step"]}).json()
    groups = {k: v for k, v in times.items() if len(v) >= SAMPLES}
    assert len(groups) >= 2, {k: len(v) for k, v in times.items()}
    return groups


@pytest.mark.parametrize("env_name", list(TIMED_TABLES))
@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
def test_how_long_an_opponents_move_takes_does_not_say_what_it_could_play(env_name, kind):
    times = advance_times(env_name, f"{kind}:ms=40", paced=True)
    medians = {k: statistics.median(v) for k, v in times.items()}
    assert max(medians.values()) - min(medians.values()) < 0.02, medians
    period = limits.search_period(40)
    for group in times.values():  # released on the period, not before
        assert sum(t >= period for t in group) >= 0.9 * len(group)


def test_the_timing_test_sees_the_difference_where_moves_are_not_paced():
    times = advance_times("fiddlesticks_v0", "pimc:ms=40", paced=False, among=1)  # a forced move among them
    medians = {k: statistics.median(v) for k, v in times.items()}
    assert 1 in medians and max(medians.values()) - medians[1] > 0.02, medians
