"""Driving the web table in a real browser (headless Chromium through Selenium), as a person would.

    python -m card_envs.web.browser --screenshots docs/pictures/web   # one picture per game

The browser tests (``tests/web/test_browser.py``) and the documentation's screenshots use these:
:func:`serve` runs the app on a free local port in a thread, :func:`chromium` starts the
browser (Debian's ``chromium`` and ``chromium-driver`` packages), :func:`play_game` plays a whole
game by clicking the page's action buttons and :func:`step_replay` steps a recorded game forward
and back. Needs the ``dev`` extra (selenium) besides the ``web`` extra.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np

#: a short table of every game (a game the browser plays to its end in a few seconds)
SHORT_TABLES: dict[str, dict[str, Any]] = {
    "golf_v0": {"num_players": 2, "num_rounds": 1},
    "fiddlesticks_v0": {"num_players": 2, "max_turns": 120},
    "guillotine_v0": {"mode": "single", "contract": "domino"},
    "collector_v0": {"num_players": 2, "max_rounds": 12},
    "hot_v0": {"num_players": 2, "single_deal": True, "max_rounds_per_deal": 12},
    "guilders_v0": {"num_players": 3, "max_turns": 60},
}
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMEDRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def find_browser() -> tuple[str, str] | None:
    """Chromium's and ChromeDriver's paths, or None where either is missing."""
    browser = next((p for p in CHROMIUM if os.path.exists(p)), shutil.which("chromium"))
    driver = next((p for p in CHROMEDRIVER if os.path.exists(p)), shutil.which("chromedriver"))
    return (browser, driver) if browser and driver else None


@contextlib.contextmanager
def serve(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port of 127.0.0.1 in a thread; yields its URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web table's server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900, downloads: str | Path | None = None) -> Iterator[Any]:
    """A headless Chromium driven by Selenium (the system's chromium and chromedriver: nothing is
    fetched from the internet); ``downloads``: the folder a page's downloads are saved in."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found = find_browser()
    if found is None:
        raise RuntimeError("headless Chromium needs Debian's chromium and chromium-driver packages "
                           "(apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 f"--window-size={width},{height}"):
        options.add_argument(flag)
    if downloads is not None:
        options.add_experimental_option("prefs", {"download.default_directory": str(Path(downloads).resolve()),
                                                  "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(Path(downloads).resolve())})
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: Any, condition, timeout: float = 60.0, what: str = "the page") -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition, message=f"waiting for {what}")


def _body(driver: Any, key: str) -> str:
    return driver.execute_script(f"return document.body.dataset.{key} || ''")


def error_text(driver: Any) -> str:
    """The page's error banner ('' when it is hidden)."""
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "error")
    return box.text if box.is_displayed() else ""


def start_game(driver: Any, url: str, env_name: str, options: dict[str, Any], opponents: str = "heuristic",
               seed: int | None = 0, seat: int = 0) -> None:
    """Open the page (at the instant pace) and start a game through its form."""
    import json

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(f"{url}/?pace=0")
    _wait(driver, lambda d: _body(d, "ready") == "1", what="the page to load")
    Select(driver.find_element(By.ID, "game")).select_by_value(env_name)
    for name, value in options.items():
        field = driver.find_element(By.ID, f"opt-{name}")
        field.clear()
        field.send_keys(value if isinstance(value, str) else json.dumps(value))
    for field_id, text in (("opponents", opponents), ("seed", "" if seed is None else str(seed)), ("seat", str(seat))):
        field = driver.find_element(By.ID, field_id)
        field.clear()
        field.send_keys(text)
    driver.find_element(By.ID, "start").click()
    _wait(driver, lambda d: _body(d, "state") in ("your-turn", "over") or error_text(d), what="the game to start")
    if error_text(driver):
        raise AssertionError(f"the page refused the game: {error_text(driver)}")


def play_game(driver: Any, seed: int = 0, max_clicks: int = 3000, screenshot: str | Path | None = None,
              screenshot_at: int = 4) -> dict[str, Any]:
    """Play the started game to its end by clicking a random one of the action buttons (seeded)
    whenever it is the person's turn; returns ``{"clicks", "step", "table"}``. Fails on an error
    banner. ``screenshot``: save the page after ``screenshot_at`` clicks (or at the end)."""
    from selenium.webdriver.common.by import By

    rng = np.random.default_rng(seed)
    clicks = 0
    shot = screenshot is None
    while _body(driver, "state") != "over":
        if clicks >= max_clicks:
            raise AssertionError(f"the game did not end within {max_clicks} clicks")
        buttons = driver.find_elements(By.CSS_SELECTOR, "#actions button.action")
        if not buttons:
            raise AssertionError("the person's turn shows no action buttons")
        if not shot and clicks >= screenshot_at:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(str(screenshot))
            shot = True
        step = _body(driver, "step")
        buttons[int(rng.integers(len(buttons)))].click()
        clicks += 1
        # the state and the step read at once: the page may redraw between two reads
        done = ("var b = document.body.dataset; return b.state === 'over' || "
                f"(b.state === 'your-turn' && b.step !== '{step}')")
        _wait(driver, lambda d: error_text(d) or d.execute_script(done), what="the others to play")
        if error_text(driver):
            raise AssertionError(f"the page showed an error: {error_text(driver)}")
    if not shot:
        driver.save_screenshot(str(screenshot))
    return {"clicks": clicks, "step": int(_body(driver, "step")), "table": _body(driver, "table")}


def save_record(driver: Any, folder: str | Path, timeout: float = 30.0) -> Path:
    """Click **Save record** on a finished game's page; the file the browser saved in ``folder``
    (the driver's download folder)."""
    from selenium.webdriver.common.by import By

    folder = Path(folder)
    before = set(folder.iterdir())
    driver.find_element(By.ID, "save-record").click()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = [p for p in set(folder.iterdir()) - before if not p.name.endswith((".crdownload", ".tmp"))]
        if new:
            return new[0]
        if error_text(driver):
            raise AssertionError(f"the page showed an error: {error_text(driver)}")
        time.sleep(0.05)
    raise AssertionError("the browser saved no record")


def step_replay(driver: Any, url: str, records_file: str | Path, seat: str | None = None) -> list[int]:
    """Open the replay viewer, upload ``records_file``, pick its first game (as ``seat`` sees it,
    or a spectator), then click forward twice, back once and back to the deal; returns the step
    shown after each click."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(f"{url}/?pace=0&panel=replay")
    _wait(driver, lambda d: _body(d, "ready") == "1", what="the page to load")
    driver.find_element(By.ID, "records-file").send_keys(str(Path(records_file).resolve()))
    _wait(driver, lambda d: _body(d, "replayStep") == "0" or error_text(d), what="the record to load")
    if error_text(driver):
        raise AssertionError(f"the page refused the record: {error_text(driver)}")
    if seat is not None:
        Select(driver.find_element(By.ID, "view")).select_by_value(seat)
    seen = []
    for button, expected in (("forward", 1), ("forward", 2), ("back", 1), ("first", 0)):
        driver.find_element(By.ID, button).click()
        _wait(driver, lambda d: _body(d, "replayStep") == str(expected) or error_text(d), what=f"step {expected}")
        seen.append(int(_body(driver, "replayStep")))
    return seen


def screenshots(out: str | Path) -> list[Path]:
    """One screenshot per game of the table during a game against the heuristic, in ``out``."""
    from card_envs.web import create_app

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with serve(create_app()) as url, chromium(1280, 1250) as driver:
        for env_name, options in SHORT_TABLES.items():
            path = out / f"{env_name.removesuffix('_v0')}.png"
            start_game(driver, url, env_name, options, seed=3)
            play_game(driver, seed=3, screenshot=path)
            written.append(path)
            print(f"wrote {path}", flush=True)
    return written


def main(argv=None) -> int:
    from card_envs import cli

    ap = cli.Parser(prog="python -m card_envs.web.browser", description=__doc__.split("\n\n")[0])
    ap.add_argument("--screenshots", metavar="DIR", required=True, help="write one screenshot per game here")
    args = ap.parse_args(argv)
    screenshots(args.screenshots)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
