"""The host's page in a real headless Chromium (issue 17), driven by Playwright for Python
with Debian's ``chromium`` (never a browser Playwright downloads), against the real server:
waitress on 127.0.0.1 in a thread, over the game polled from the real phpBB 3.3.15 pages.

What a host would see: the count, the chart, the countdown ticking, the moves only after a
click, and moving the deadline from the page changes what ``scraper-mod day list`` shows.
A screenshot is saved with the test's output (its tmp_path).

Skips with a reason when chromium or Playwright is missing; under CI=true that is a failure
(.ci/run installs chromium).
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_web import TOKEN, cli, game, store_move  # noqa: F401 (game is a fixture)

from scraper_mod.clock import FakeClock
from scraper_mod.web import create_app

MSK = ZoneInfo("Europe/Moscow")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _need_browser():
    why = None
    if not Path(CHROMIUM).is_file() and not shutil.which("chromium"):
        why = f"Debian's chromium is not installed ({CHROMIUM}): apt-get install chromium"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            why = "Playwright for Python is not installed: pip install -e '.[test]'"
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(why + "; under CI=true the browser test must run", pytrace=False)
        pytest.skip(why)
    return Path(CHROMIUM) if Path(CHROMIUM).is_file() else Path(shutil.which("chromium"))


@pytest.fixture
def served(game):  # noqa: F811
    """The page on a real waitress server on 127.0.0.1 (a free port), at 12:00 on day 1."""
    from waitress import create_server
    store_move(game, "doc@example.org", "лечу Машу", datetime(2024, 4, 9, 11, 0, tzinfo=MSK), "1")
    app = create_app(game, token=TOKEN, clock=FakeClock(datetime(2024, 4, 9, 12, 0, tzinfo=MSK)))
    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield game, f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()


def test_the_page_in_chromium(served, tmp_path, capsys):
    chromium = _need_browser()
    from playwright.sync_api import expect, sync_playwright
    game, base = served
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            console = _console_errors(page)
            r = page.goto(f"{base}/games/m2")
            assert r.status == 401 and "Алексей" not in page.content()
            page.goto(f"{base}/?token={TOKEN}")               # sets the cookie, drops the token
            assert page.url == f"{base}/"
            page.goto(f"{base}/games/m2")
            assert page.url == f"{base}/games/m2"
            # the countdown ticks (the server's clock says 12:00; the deadline is 20:00)
            cd = page.locator("#countdown")
            expect(cd).to_have_text(re.compile(r"^(8 ч 00 мин 00 с|7 ч 59 мин [0-5]\d с)$"))
            first = cd.inner_text()
            expect(cd).not_to_have_text(first, timeout=4000)
            assert cd.inner_text().startswith("7 ч 59 мин")
            # the count, refreshed by the page's script from the tally API
            count = page.locator("#count")
            expect(count.locator("li").first).to_contain_text("Вася — 2: Ёжик в тумане, Алексей")
            expect(count).to_have_attribute("data-refreshed", "1", timeout=10_000)
            link = count.locator("a", has_text="Алексей").first
            assert link.get_attribute("href").startswith("http://127.0.0.1/viewtopic.php?p=")
            expect(count).to_contain_text("Не голосуют: doc_Holiday, Игрок-7")
            # the chart is drawn: a path per candidate, the deadline marked, with a size
            chart = page.locator("#chart svg.chart")
            expect(chart).to_be_visible()
            assert page.locator("#chart path.series").count() >= 2
            assert chart.bounding_box()["width"] > 400
            assert page.locator("#chart line.deadline").count() == 1
            # the moves: not in the page until the click
            assert "лечу" not in page.content() and "Доктор" not in page.content()
            assert page.locator("#secret").is_hidden()
            page.click("#reveal")
            secret = page.locator("#secret")
            expect(secret).to_be_visible()
            expect(secret.locator("tr.move.counted")).to_contain_text("doc_Holiday")
            expect(secret.locator("tr.move.counted")).to_contain_text("лечение")
            expect(secret.locator("tr.move.counted")).to_contain_text("засчитано")
            expect(secret.locator(".awaiting")).to_contain_text("Маньяк — Игрок-7 (убийство)")
            page.screenshot(path=str(tmp_path / "host-page.png"), full_page=True)
            page.click("#reveal")                             # hidden again, and gone
            expect(secret).to_be_hidden()
            assert "doc_Holiday</td>" not in page.content()
            # an action: move the deadline from the page
            form = page.locator("#action-move-deadline")
            form.locator("input[name=time]").fill("2024-04-09T21:30")
            form.locator("button[type=submit]").click()
            expect(page.locator(".result.done").first).to_contain_text(
                "День 1: срок перенесён")
            expect(page.locator("#deadline")).to_have_text("вторник, 9 апреля, 21:30 МСК")
            expect(cd).to_contain_text("9 ч 29 мин")
            page.screenshot(path=str(tmp_path / "host-page-after-move.png"), full_page=True)
            # the 401 of the first visit is the only error the browser saw
            assert [e for e in console if "401" not in e] == [], console
        finally:
            browser.close()
    assert (tmp_path / "host-page.png").stat().st_size > 10_000
    code, out, err = cli(capsys, "day", "list", game)
    assert code == 0, err
    assert "deadline Tue 2024-04-09 21:30:00 MSK (moved)" in out


def _console_errors(page) -> list[str]:
    """Every console error and page error (a CSP refusal among them) as it happens."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(f"{m.text} ({m.location.get('url')})")
            if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.append(str(e)))
    return seen


def test_the_page_on_a_phone(served, tmp_path, capsys):
    """Issue 27 item 3: at 390x844 nothing is wider than the screen (not even the moves
    after «Показать ходы»), move times read 09.04 11:00, a resolved day shows no awaited
    move, «Выделить всё» selects a [code] block under the page's CSP, and the browser logs
    no error at all."""
    chromium = _need_browser()
    from playwright.sync_api import expect, sync_playwright
    game, base = served
    store_move(game, "stranger@example.net", "убиваю Васю, очень длинное письмо без пробелов"
               "_______________________________________", datetime(2024, 4, 9, 11, 5, tzinfo=MSK),
               "2")

    def fits(page) -> None:
        width = page.evaluate("document.documentElement.scrollWidth")
        wide = page.evaluate("""Array.from(document.querySelectorAll('body *')).filter(
            e => e.getBoundingClientRect().right > 391 && !e.closest('#chart')).slice(0, 6).map(
            e => e.tagName + '.' + getComputedStyle(e).display + '.' + e.textContent.slice(0, 40) + ' ' + Math.round(e.getBoundingClientRect().right))""")
        assert width <= 390, f"{page.url} is {width} px wide on a 390 px screen: {wide}"

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844},
                                    device_scale_factor=2, is_mobile=True, has_touch=True)
            console = _console_errors(page)
            page.goto(f"{base}/?token={TOKEN}")
            fits(page)
            page.goto(f"{base}/games/m2")
            expect(page.locator("#count li").first).to_contain_text("Вася — 2")
            fits(page)
            page.click("#reveal")
            secret = page.locator("#secret")
            expect(secret.locator("tr.move").first).to_be_visible()
            fits(page)
            assert secret.locator("tr.move td").first.inner_text() == "09.04 11:00"
            box = secret.locator("tr.move td").first.bounding_box()
            assert box["height"] < 30                          # the date on one line
            expect(secret.locator(".awaiting")).to_contain_text("Ещё нет хода")
            page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
            # the chart keeps readable labels: not squeezed below its own minimum
            assert page.locator("#chart svg.chart").bounding_box()["width"] >= 500
            assert console == [], console

            code, out, err = cli(capsys, "resolve", game, "--day", 1, "--offline")
            assert code == 0, err
            page.goto(f"{base}/games/m2?day=1")
            fits(page)
            page.click("#reveal")
            expect(secret.locator("tr.move").first).to_be_visible()
            assert secret.locator(".awaiting").count() == 0     # day 1 is resolved
            assert "Ещё нет хода" not in secret.inner_text()
            fits(page)
            page.screenshot(path=str(tmp_path / "phone-day-1.png"), full_page=True)
            assert console == [], console
        finally:
            browser.close()


def test_select_all_in_a_code_block_under_the_pages_csp(served, tmp_path, capsys):
    """«Выделить всё» of a [code] block in a post the page shows (the host report's kind of
    block): the page's own script selects the code; no inline handler, no CSP error."""
    chromium = _need_browser()
    from playwright.sync_api import sync_playwright
    game, base = served
    code, out, err = cli(capsys, "resolve", game, "--day", 1, "--offline")
    assert code == 0, err
    (game / "out" / "day-1" / "newspaper.bbcode").write_text("[b]Итоги[/b]\n[code]Вася   — 2\nМаша_2 — 1[/code]",
                                          encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            console = _console_errors(page)
            page.goto(f"{base}/?token={TOKEN}")
            page.goto(f"{base}/games/m2?day=1")
            assert "onclick" not in page.content()
            link = page.locator(".post .codebox a.select-code").first
            link.click()
            assert page.evaluate("window.getSelection().toString()") == "Вася   — 2\nМаша_2 — 1"
            assert page.url.endswith("/games/m2?day=1")          # href="#" did not navigate
            assert console == [], console
        finally:
            browser.close()
