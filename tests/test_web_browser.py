"""`cavekit serve` in a real headless Chromium (the operating system's, driven by Playwright).

The server runs in a thread of the test process (uvicorn, with its AI worker process), so each test can hold
what the page shows against the engine's position in the server. Every test saves screenshots of the pages it
visits to `results/screenshots/ci/` (git-ignored; CI keeps the folder). Skipped when /usr/bin/chromium or
Playwright is missing; `.ci/run` installs Chromium (`apt-get install chromium chromium-driver`).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parent.parent / "results" / "screenshots" / "ci"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="browser tests need Chromium at /usr/bin/chromium "
                       "(Debian: apt-get install chromium chromium-driver; .ci/run installs it)"),
]
playwright_api = pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the test extra)")
pytest.importorskip("uvicorn")

from cavekit.analysis.batch import replay  # noqa: E402
from cavekit.analysis.results import load_games  # noqa: E402
from cavekit.analysis.web import create_app  # noqa: E402
from cavekit.core import load_game  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def results_root(tmp_path_factory):
    """A folder with a tiny results folder in it, made by the command line."""
    root = tmp_path_factory.mktemp("served")
    subprocess.run([sys.executable, "-m", "cavekit", "match", "cvc", "--agents", "greedy", "random", "--games", "2",
                    "--seed", "3", "--quiet", "--out", str(root / "run")], check=True, capture_output=True)
    return root


@pytest.fixture(scope="module")
def server(results_root):
    """The application served on a free port of 127.0.0.1 by uvicorn in a thread: (base URL, CavekitWeb)."""
    import uvicorn
    app = create_app(workers=1, results=[results_root])
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uvicorn_server = uvicorn.Server(config)
    thread = threading.Thread(target=uvicorn_server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uvicorn_server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app.state.web
    uvicorn_server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def playwright():
    """Playwright, once per module (its sync API cannot be started twice in one thread)."""
    with playwright_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright, tmp_path_factory):
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM), headless=True,
        args=CHROMIUM_ARGS, viewport={"width": 1500, "height": 1000})
    context.set_default_timeout(30_000)
    yield context
    context.close()


@pytest.fixture
def page(browser):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    page.close()
    assert errors == [], f"the page's script failed: {errors}"


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def start_game(page, base: str, game: str, seats: list[str], seed: int, players: int = 2) -> None:
    page.goto(base + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    for seat, kind in enumerate(seats):
        page.select_option(f"#seat{seat}", kind)
    page.fill("#seed", str(seed))
    screenshot(page, f"home-{game}")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/"))


def wait_until(page, expression: str, timeout: float = 30.0) -> None:
    """Wait until `expression` is true in the page. (Playwright's wait_for_function evaluates a string inside the
    page, which the server's content security policy forbids, as it should; `evaluate` goes through the
    browser's debugging protocol instead.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"the page never showed {expression}"
        time.sleep(0.05)


def session_of(web, page):
    game_id = page.url.split("/play/")[1].split("/")[0]
    return web.store.get(game_id)


def wait_for_my_turn_or_end(page, session) -> bool:
    """Wait until the page shows the server's current position and offers moves (True) or the result (False)."""
    deadline = time.monotonic() + 60
    while True:
        wait_until(page, "document.querySelector('#result h3') !== null || "
                               "(document.querySelector('#actions button.action') !== null && "
                               "document.getElementById('thinking').hidden)")
        with session.lock:
            if int(page.evaluate("document.body.dataset.version")) == session.version and not session.thinking:
                return page.query_selector("#result h3") is None
        assert time.monotonic() < deadline, "the page never caught up with the server"
        time.sleep(0.05)


def wait_for_server(session, version: int) -> None:
    """Wait until the click just made reached the server (the session's version moved past `version`)."""
    deadline = time.monotonic() + 30
    while session.version == version:
        assert time.monotonic() < deadline, "the click did not reach the server"
        time.sleep(0.02)


def shown_legal_moves(page) -> list[int]:
    return [int(b.get_attribute("data-action")) for b in page.query_selector_all("#actions button.action")]


def test_serve_prints_its_address_and_serves_the_home_page(tmp_path):
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "cavekit", "serve", "--port", str(port), "--quiet",
                                "--results", str(tmp_path), "--workers", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = process.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        import urllib.request
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    assert response.status == 200 and b"new-game-form" in response.read()
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.1)
    finally:
        process.terminate()
        process.wait(10)


def test_a_whole_cave_vs_cave_game_against_easy_by_clicking(server, page):
    base, web = server
    start_game(page, base, "cvc", ["human", "easy"], seed=5)
    session = session_of(web, page)
    clicks = board_clicks = 0
    narrowed = False
    while wait_for_my_turn_or_end(page, session):
        state = session.state
        # What the page shows is the engine's position: the legal moves, whose turn, the scores.
        assert shown_legal_moves(page) == state.legal_actions()
        assert state.current_player() == 0 and page.inner_text("#status").startswith("Your move")
        scores = [int(g.get_attribute("data-score")) for g in page.query_selector_all("#board [data-player]")]
        assert scores == state.scores()
        assert page.inner_text("#seats li[data-seat='0']").endswith(f"{state.scores()[0]} points")
        if clicks == 0:
            screenshot(page, "cvc-play")
            page.click("#hint")
            page.wait_for_selector("#hint-table tr[data-action]")
            rows = page.query_selector_all("#hint-table tr[data-action]")
            assert {int(r.get_attribute("data-action")) for r in rows} <= set(state.legal_actions())
            screenshot(page, "cvc-hint")
        version = session.version
        tile = page.query_selector("#board [data-target^='tile:']")
        targets = session.view(session.seats[0])["targets"]
        shared = [name for name, ids in targets.items() if len(ids) > 1 and not name.startswith("tile:")]
        if tile is not None and board_clicks < 3:
            tile.click()                # a tile on the action board: take it
            board_clicks += 1
        elif shared and not narrowed:
            # A space (or good) several moves use: the list narrows to those moves, then one is clicked.
            page.click(f"#board [data-target='{shared[0]}']")
            visible = [int(b.get_attribute("data-action")) for b in page.query_selector_all("#actions button.action")
                       if b.is_visible()]
            assert visible == targets[shared[0]]
            screenshot(page, "cvc-narrowed")
            page.click(f"#actions button.action[data-action='{visible[0]}']")
            narrowed = True
        else:
            page.click("#actions button.action >> nth=0")
        wait_for_server(session, version)
        clicks += 1
    state = session.state
    assert state.is_terminal() and board_clicks == 3 and narrowed and clicks > 10
    final = page.inner_text("#final-scores")
    assert final == "Final scores: " + ", ".join(f"player {p} {s}" for p, s in enumerate(state.scores()))
    totals = [int(row.query_selector_all("td")[2].inner_text()) for row in page.query_selector_all("#breakdown tr.total")]
    assert totals == state.scores()
    screenshot(page, "cvc-finished")


def test_the_page_shows_the_ai_thinking_and_then_its_move(server, page):
    base, web = server
    from test_web_api import ai_starts
    start_game(page, base, "cvc", ["human", "strongest"], seed=ai_starts("cvc"))
    session = session_of(web, page)
    page.wait_for_selector("#thinking:not([hidden])")
    assert "thinking" in page.inner_text("#status")
    screenshot(page, "cvc-thinking")
    assert wait_for_my_turn_or_end(page, session)
    assert page.is_hidden("#thinking") and "last AI move" in page.inner_text("#ai-time")
    assert shown_legal_moves(page) == session.state.legal_actions()
    assert any(entry.player == 1 for entry in session.log)


def test_undo_save_and_load_in_the_browser(server, page):
    base, web = server
    start_game(page, base, "cvc", ["human", "easy"], seed=6)
    session = session_of(web, page)
    wait_for_my_turn_or_end(page, session)
    before = session.state.history()
    page.click("#actions button.action >> nth=0")
    page.wait_for_selector("#undo:not([disabled])")
    wait_for_my_turn_or_end(page, session)
    page.click("#undo")
    wait_until(page, "document.getElementById('message').textContent.startsWith('took back')")
    assert session.state.history() == before
    assert shown_legal_moves(page) == session.state.legal_actions()
    # Save the record, and continue it as a new game from the home page.
    page.click("#actions button.action >> nth=0")
    wait_for_my_turn_or_end(page, session)
    with page.expect_download() as download:
        page.click("#save")
    saved = download.value.path()
    assert Path(saved).read_text() == session.state.serialize() + "\n"
    page.goto(base + "/")
    page.select_option("#seat1", "medium")
    page.set_input_files("#record-file", saved)
    page.click("#load")
    try:
        page.wait_for_url(re.compile(r"/play/"), timeout=15_000)
    except playwright_api.TimeoutError:
        raise AssertionError(f"not loaded: {page.inner_text('#message')}") from None
    loaded = session_of(web, page)
    assert loaded is not session and loaded.state.history()[:len(session.state.history())] == session.state.history()
    assert loaded.seats[1].kind == "medium"


def test_a_round_of_the_cave_against_easy_by_clicking_cards(server, page):
    base, web = server
    start_game(page, base, "pairs", ["human", "easy"], seed=8)
    session = session_of(web, page)
    shot = False
    while wait_for_my_turn_or_end(page, session):
        state = session.state
        if state.to_dict()["round_scores"]:
            break                       # the first round is scored
        hands = state.to_dict()["hands"]
        mine = page.query_selector_all("#board [data-where='hand:0']")
        theirs = page.query_selector_all("#board [data-where='hand:1']")
        assert sorted(int(c.get_attribute("data-card")) for c in mine) == \
            sorted(r + 1 for r in range(10) for _ in range(hands[0][r]))
        assert len(theirs) == sum(hands[1]) and {c.get_attribute("data-card") for c in theirs} <= {"back"}
        totals = [int(s.get_attribute("data-total")) for s in page.query_selector_all("#board [data-seat]")]
        assert totals == state.to_dict()["totals"]
        assert shown_legal_moves(page) == state.legal_actions()
        if not shot:
            screenshot(page, "pairs-play")
            shot = True
        version = session.version
        page.click("#board [data-target^='card:'] >> nth=0")
        wait_for_server(session, version)
    state = session.state
    scored = state.to_dict()["round_scores"]
    assert scored, "the round did not end"
    wait_until(page, "document.querySelector('#board [data-seat]') !== null")
    totals = [int(s.get_attribute("data-total")) for s in page.query_selector_all("#board [data-seat]")]
    assert totals == state.to_dict()["totals"] == [sum(r[p] for r in scored) for p in (0, 1)]
    screenshot(page, "pairs-round-scored")


def test_replay_of_a_stored_game_step_by_step(server, page, results_root):
    base, _ = server
    rows = load_games(results_root / "run")
    game = load_game("cvc")
    history = [int(a) for a in rows["history"][1]]
    page.goto(base + "/")
    page.click("#folders a")
    page.wait_for_selector("#games")
    screenshot(page, "replay-list")
    page.click("text=game 1")
    page.wait_for_selector("#step")

    def check() -> int:
        step = int(page.get_attribute("#step", "data-step"))
        assert int(page.get_attribute("#step", "data-steps")) == len(history)
        state = replay(game, history[:step])
        assert page.get_attribute("#scores", "data-scores") == str(state.scores())
        assert [int(g.get_attribute("data-score")) for g in page.query_selector_all("#board [data-player]")] \
            == state.scores()
        return step

    assert check() == 0
    for expected in (1, 2, 3):
        page.click("#forward")
        page.wait_for_selector(f"#step[data-step='{expected}']")
        check()
    page.click("#back")
    page.wait_for_selector("#step[data-step='2']")
    page.click("#next-turn")
    wait_until(page, "Number(document.getElementById('step').dataset.step) > 2")
    check()
    assert "player" in page.inner_text("#last-action")
    page.fill("#step-input", "60")
    page.click("#jump button")
    page.wait_for_selector("#step[data-step='60']")
    check()
    who = page.inner_text("#last-action")
    assert "greedy" in who or "random" in who or "chance" in who
    screenshot(page, "replay")
    page.keyboard.press("End")
    page.wait_for_selector(f"#step[data-step='{len(history)}']")
    check()
    assert page.inner_text("#next-action") == "Game over."
    assert os.path.exists(SCREENSHOTS / "replay.png")


@pytest.mark.parametrize("game", ["cavum", "caverna"])
def test_cavum_and_caverna_pages_show_the_position_and_play_a_move(server, page, game):
    base, web = server
    start_game(page, base, game, ["human", "easy"], seed=4)
    session = session_of(web, page)
    assert wait_for_my_turn_or_end(page, session)
    assert shown_legal_moves(page) == session.state.legal_actions()
    assert page.is_visible("#text") and page.inner_text("#text").strip()
    screenshot(page, f"{game}-play")
    version = session.version
    page.click("#actions button.action >> nth=0")
    wait_for_server(session, version)
    assert wait_for_my_turn_or_end(page, session)
    assert shown_legal_moves(page) == session.state.legal_actions()


# ---------------------------------------------------------------- two people at one table

@pytest.fixture(scope="module")
def chromium(playwright):
    """The browser, for tests that need several contexts (each its own cookies: one person each)."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def person(chromium):
    """A new browser context (one person's browser) and a page in it that fails the test on a script error or
    a content security policy violation."""
    context = chromium.new_context(viewport={"width": 1500, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: problems.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text else None)
    return context, page, problems


def test_two_people_at_one_table_each_with_their_own_invitation(server, chromium):
    base, web = server
    host_context, host, host_problems = person(chromium)
    guest_context, guest, guest_problems = person(chromium)
    try:
        host.goto(base + "/")
        host.select_option("#game", "pairs")
        host.select_option("#players", "2")
        host.select_option("#seat0", "human")
        host.select_option("#seat1", "human")
        host.fill("#seed", "31")
        host.click("#start")
        host.wait_for_selector("#invitations:not([hidden])")
        invitation = host.input_value("#invitation-list li[data-seat='1'] input")
        screenshot(host, "invitations")
        host.click("#my-seat")
        host.wait_for_url(re.compile(r"/play/[^/]+/0$"))
        session = session_of(web, host)
        keys = {s.index: s.key for s in session.seats}
        assert invitation.endswith(f"#{keys[1]}") and keys[0] not in invitation

        guest.goto(invitation)
        guest.wait_for_url(re.compile(r"/play/[^/]+/1$"))
        assert keys[1] not in guest.url and "#" not in guest.url       # the key left the address at once
        pages = {0: host, 1: guest}
        for seat, page in pages.items():
            html = page.content()
            assert keys[1 - seat] not in html and page.evaluate("document.cookie") == ""   # HttpOnly
            hands = session.state.to_dict()["hands"]
            theirs = page.query_selector_all(f"#board [data-where='hand:{1 - seat}']")
            assert len(theirs) == sum(hands[1 - seat]) and {c.get_attribute("data-card") for c in theirs} <= {"back"}
            assert {int(c.get_attribute("data-card")) for c in page.query_selector_all(
                f"#board [data-where='hand:{seat}']")} <= {r + 1 for r in range(10) if hands[seat][r]}

        # Each plays one move in turn; then the first to have moved asks to undo.
        movers = []
        while not movers or movers[-1] == movers[0]:
            mover = session.state.current_player()
            page = pages[mover]
            assert wait_for_my_turn_or_end(page, session)
            version = session.version
            page.click("#actions button.action >> nth=0")
            wait_for_server(session, version)
            movers.append(mover)
        first = movers[0]
        other_move = [e for e in session.log if e.player == 1 - first]
        before = session.state.serialize()
        undoer = pages[first]
        undoer.wait_for_selector("#undo:not([disabled])")
        undoer.click("#undo")
        wait_until(undoer, "document.getElementById('message').textContent.includes('has moved since')")
        assert session.state.serialize() == before
        assert [e for e in session.log if e.player == 1 - first] == other_move      # still there
        screenshot(undoer, "undo-refused")
        assert host_problems == [] and guest_problems == []
    finally:
        host_context.close()
        guest_context.close()
