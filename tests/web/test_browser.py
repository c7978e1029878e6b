"""The web table in a real browser: headless Chromium plays a whole game of every game against the
heuristic by clicking the page's buttons, saves its record and replays it, steps a replay forward
and back, rejoins a game after a reload, shows a refusal, and a page served from another local
port fails to drive the table.

CI installs Debian's chromium and chromium-driver and sets CARD_ENVS_REQUIRE_BROWSER=1, so there
these tests run or fail; elsewhere, without a browser, they are skipped with the reason.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("starlette")
pytest.importorskip("selenium")

from card_envs import records  # noqa: E402
from card_envs.web import create_app  # noqa: E402
from card_envs.web import Tables  # noqa: E402
from card_envs.web.browser import (  # noqa: E402
    SHORT_TABLES,
    chromium,
    error_text,
    find_browser,
    play_game,
    save_record,
    serve,
    start_game,
    step_replay,
)

if find_browser() is None and os.environ.get("CARD_ENVS_REQUIRE_BROWSER") != "1":
    pytest.skip("no chromium and chromedriver here (apt-get install chromium chromium-driver)", allow_module_level=True)


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def site(downloads):
    app = create_app()
    with serve(app) as url, chromium(downloads=downloads) as driver:
        yield app, url, driver


@pytest.mark.parametrize("name", list(SHORT_TABLES))
def test_a_person_plays_a_whole_game_in_the_browser(site, name):
    app, url, driver = site
    start_game(driver, url, name, SHORT_TABLES[name], opponents="heuristic", seed=7)
    played = play_game(driver, seed=7)
    assert played["clicks"] > 0
    table = app.state.tables.get(played["table"])
    assert table.game.over and table.specs.count("heuristic") == len(table.specs) - 1
    # the page shows the game's end: the result, and the record can be saved
    from selenium.webdriver.common.by import By

    result = driver.find_element(By.ID, "result").text
    if table.game.end == "truncated":  # a game cut short by its turn limit says so
        assert "cut short" in result and "finished rank" not in result
    else:
        assert "You finished rank" in result
    assert driver.find_element(By.ID, "save-record").is_enabled()
    if name in ("collector_v0", "hot_v0", "fiddlesticks_v0"):  # the others' hidden choices, once revealed
        moves = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#moves li.revealed")]
        assert moves and all(" revealed: " in m for m in moves), moves
    # every one of the person's clicks is in the record, with the name its button showed
    rec = records.check(table.record_line())
    assert len([a for a in rec["actions"] if a[0] == table.person]) == played["clicks"]


def test_the_replay_viewer_steps_a_record_forward_and_back_in_the_browser(site, tmp_path):
    import agents

    app, url, driver = site
    path = tmp_path / "games.jsonl"
    records.write(path, [records.record("guillotine_v0", [agents.load("heuristic", 0)] * 4,
                                        {"mode": "single", "contract": "queens"}, seed=2)])
    assert step_replay(driver, url, path) == [1, 2, 1, 0]
    assert step_replay(driver, url, path, seat="player_2") == [1, 2, 1, 0]


def test_a_refusal_is_shown_on_the_page(site):
    from selenium.webdriver.common.by import By

    app, url, driver = site
    with pytest.raises(AssertionError, match="wizard"):
        start_game(driver, url, "golf_v0", {"num_players": 2}, opponents="wizard")
    assert "wizard" in error_text(driver)
    assert driver.find_element(By.ID, "setup").is_displayed()


def test_save_record_downloads_the_exact_line_and_the_replay_viewer_plays_it_back(site, downloads):
    app, url, driver = site
    start_game(driver, url, "golf_v0", SHORT_TABLES["golf_v0"], opponents="heuristic", seed=11)
    played = play_game(driver, seed=11)
    saved = save_record(driver, downloads)
    line = app.state.tables.get(played["table"]).record_line()
    assert saved.read_text() == line + "\n", "the saved file is not the record line"
    records.check(saved.read_text())  # it replays bit for bit
    assert step_replay(driver, url, saved) == [1, 2, 1, 0]
    assert step_replay(driver, url, saved, seat="player_1") == [1, 2, 1, 0]


def test_a_reload_rejoins_the_game_in_play(site):
    from selenium.webdriver.common.by import By

    app, url, driver = site
    start_game(driver, url, "golf_v0", {"num_players": 3, "num_rounds": 1}, opponents="random\nheuristic", seed=4)
    table = driver.execute_script("return document.body.dataset.table")
    seats = driver.find_element(By.ID, "status").text
    assert "player_1: random" in seats and "player_2: heuristic" in seats  # one spec per line
    driver.find_elements(By.CSS_SELECTOR, "#actions button.action")[0].click()
    driver.refresh()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "return document.body.dataset.ready === '1' && document.body.dataset.table") == table)
    assert driver.find_element(By.ID, "table").is_displayed() and not driver.find_element(By.ID, "setup").is_displayed()
    assert play_game(driver, seed=4)["table"] == table
    driver.find_element(By.ID, "new-game").click()


EVIL_PAGE = """<!doctype html><html><body><script>
const target = "TARGET";
const game = JSON.stringify({env: "golf", options: {num_players: 2, num_rounds: 1}});
const tries = [
  fetch(target + "/api/tables", {method: "POST", mode: "no-cors", body: game, headers: {"Content-Type": "text/plain"}}),
  fetch(target + "/api/tables", {method: "POST", mode: "no-cors", body: game}),
  fetch(target + "/api/tables", {method: "POST", body: game, headers: {"Content-Type": "application/json"}}),
  fetch(target + "/api/tables", {method: "POST", body: game, headers: {"Content-Type": "application/json",
                                                                       "X-Card-Envs-Token": "guess"}}),
  fetch(target + "/api/games").then((r) => r.text()),
];
Promise.allSettled(tries).then((results) => {
  const form = document.createElement("form");
  form.method = "POST"; form.action = target + "/api/tables"; form.enctype = "text/plain";
  const input = document.createElement("input"); input.name = game.slice(0, -1); input.value = "}";
  form.appendChild(input); document.body.appendChild(form);
  document.body.dataset.results = JSON.stringify(results.map((r) => r.status + ":" + (r.value && r.value.slice ? r.value.slice(0, 40) : "")));
  document.body.dataset.done = "1";
  window.submitForm = () => form.submit();
});
</script></body></html>"""


def test_a_page_from_another_local_port_cannot_drive_the_table(tmp_path):
    """Another page the person opens (here served from a second local port) tries every way a
    page can send a request: none creates a table, and it reads nothing."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route
    from selenium.webdriver.support.ui import WebDriverWait

    app = create_app(tables=Tables(paced=False))
    with serve(app) as url:
        evil = Starlette(routes=[Route("/", lambda request: HTMLResponse(EVIL_PAGE.replace("TARGET", url)))])
        with serve(evil) as evil_url, chromium() as driver:
            driver.get(evil_url.replace("127.0.0.1", "localhost") + "/")
            WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body && "
                                                                       "document.body.dataset.done === '1'"))
            results = driver.execute_script("return document.body.dataset.results")
            driver.execute_script("window.submitForm()")  # a plain form, which needs no script on the target
            WebDriverWait(driver, 30).until(lambda d: d.current_url.startswith(url))
            assert "not this page's" in driver.page_source
    assert len(app.state.tables) == 0, "another page created a table"
    assert "card_envs" not in results and "golf" not in results, results  # it read nothing
