"""The web table in a real browser: headless Chromium plays a whole game of every game against the
heuristic by clicking the page's buttons, steps a replay forward and back, and shows a refusal.

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
from card_envs.web.browser import (  # noqa: E402
    SHORT_TABLES,
    chromium,
    error_text,
    find_browser,
    play_game,
    serve,
    start_game,
    step_replay,
)

if find_browser() is None and os.environ.get("CARD_ENVS_REQUIRE_BROWSER") != "1":
    pytest.skip("no chromium and chromedriver here (apt-get install chromium chromium-driver)", allow_module_level=True)


@pytest.fixture(scope="module")
def site():
    app = create_app()
    with serve(app) as url, chromium() as driver:
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

    assert "You finished rank" in driver.find_element(By.ID, "result").text
    assert driver.find_element(By.ID, "save-record").is_enabled()
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
