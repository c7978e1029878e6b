"""The built site as a reader sees it in a 1280 x 800 browser window (headless Chromium): no code
block or table runs off the page or scrolls sideways, and every environment page shows its
properties table and the start of its Rewards within its first two screens.

CI installs Debian's chromium and chromium-driver and sets CARD_ENVS_REQUIRE_BROWSER=1, so there
this test runs or fails; elsewhere, without a browser, it is skipped with the reason. It builds the
site (tens of seconds): the slow suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("selenium")

from card_envs.web.browser import chromium, find_browser  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WIDTH, SCREEN = 1280, 800

if find_browser() is None and os.environ.get("CARD_ENVS_REQUIRE_BROWSER") != "1":
    pytest.skip("no chromium and chromedriver here (apt-get install chromium chromium-driver)", allow_module_level=True)

OVERFLOW = """
const out = [];
if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) out.push('the page');
for (const p of document.querySelectorAll('article pre'))
  if (p.scrollWidth > p.clientWidth + 1) out.push('code: ' + p.textContent.slice(0, 60));
for (const t of document.querySelectorAll('article .table-wrapper'))
  if (t.scrollWidth > t.clientWidth + 1) out.push('table: ' + t.textContent.trim().slice(0, 60));
return out;
"""
WHERE = """
const heading = [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Rewards'));
const table = document.querySelector('article table');
return {rewards: heading.getBoundingClientRect().top + window.scrollY,
        properties: table.getBoundingClientRect().bottom + window.scrollY, viewport: window.innerHeight};
"""


@pytest.mark.slow
def test_the_site_fits_a_1280_pixel_window_and_each_environment_page_starts_with_its_basics(tmp_path):
    site = tmp_path / "html"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"),
                           str(site)], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    pages = [p for p in sorted(site.rglob("*.html"))
             if p.relative_to(site).parts[0] not in ("_static", "_sources", "_modules")
             and p.name not in ("genindex.html", "search.html", "py-modindex.html")]
    assert len(pages) > 40
    overflowing, late = {}, {}
    with chromium(WIDTH, SCREEN) as driver:
        driver.get(pages[0].as_uri())  # the window's frame takes some of its size: the viewport is made 1280 x 800
        width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        driver.set_window_size(2 * WIDTH - width, 2 * SCREEN - height)
        for page in pages:
            driver.get(page.as_uri())
            found = driver.execute_script(OVERFLOW)
            if found:
                overflowing[str(page.relative_to(site))] = found
            if page.parent.name == "environments" and page.name != "index.html":
                where = driver.execute_script(WHERE)
                assert where["viewport"] == SCREEN and driver.execute_script("return window.innerWidth") == WIDTH
                # the Rewards heading and its first line (about 60 pixels) within two screens
                if not (where["properties"] < SCREEN and where["rewards"] + 60 < 2 * SCREEN):
                    late[page.stem] = where
    assert not overflowing, f"runs off a 1280-pixel page or scrolls sideways: {overflowing}"
    assert not late, f"the basics are not on the first two screens: {late}"
