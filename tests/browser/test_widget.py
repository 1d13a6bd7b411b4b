"""The widget in a real browser: Debian's Chromium driving a page that embeds it with one script tag,
against a real `lectern serve` (see conftest.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import PUBLISHABLE_KEY, SECRET_KEY, Stack

pytestmark = pytest.mark.integration

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
ROOT = "document.querySelector('lectern-chat').shadowRoot"
EXPECTED_PAGE = "/module-1-ros2/ch1-basics#what-is-ros-2"


def open_page(
    browser: Any, stack: Stack, *, origin: str | None = None, **context: Any
) -> tuple[Any, list[str]]:
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 800}, **context})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{origin or stack.site}/index.html")
    page.wait_for_function(f"!!document.querySelector('lectern-chat') && !!{ROOT}")
    return page, errors


def stream_bodies(page: Any) -> list[dict[str, Any]]:
    bodies: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            bodies.append(json.loads(r.post_data))
            if r.url.endswith("/chat/stream") and r.method == "POST"
            else None
        ),
    )
    return bodies


def ask(page: Any, question: str) -> None:
    box = page.locator("lectern-chat textarea#lectern-input")
    box.fill(question)
    box.press("Enter")


def wait_answer(page: Any, count: int) -> None:
    page.wait_for_function(f"{ROOT}.querySelectorAll('.bot .badge').length >= {count}", timeout=30_000)


def serious(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context="lectern-chat")
    return [
        f"{v['id']}: {v['help']}"
        for v in results.response["violations"]
        if v.get("impact") in {"serious", "critical"}
    ]


def test_keyboard_ask_stream_cite_follow_up_reload_accessible(browser: Any, stack: Stack) -> None:
    page, errors = open_page(browser, stack)
    bodies = stream_bodies(page)
    page.keyboard.press("Control+/")
    assert page.evaluate(f"{ROOT}.activeElement.id") == "lectern-input"
    assert page.locator("lectern-chat .launcher").get_attribute("aria-expanded") == "true"
    page.evaluate(
        f"""() => {{ const r = {ROOT}; window.__t = {{}};
        new MutationObserver(() => {{
          const b = r.querySelector('.bot .body');
          if (b && b.textContent && !__t.first) __t.first = performance.now();
          if (r.querySelector('.bot .badge') && !__t.done) __t.done = performance.now();
        }}).observe(r, {{subtree: true, childList: true, characterData: true}}); }}"""
    )
    page.locator("lectern-chat textarea#lectern-input").fill("What is ROS 2?")
    page.evaluate("window.__t.sent = performance.now()")
    page.keyboard.press("Enter")
    wait_answer(page, 1)
    timings = page.evaluate("window.__t")
    print(f"\ntime to first token in the browser: {timings['first'] - timings['sent']:.0f} ms")
    assert timings["first"] <= timings["done"]

    # Sources link to the site's sections (resolved against the page), in the same tab.
    state = page.evaluate("Object.entries(localStorage).find(([k]) => k.startsWith('lectern-chat:'))[1]")
    meta = json.loads(state)["messages"][-1]["meta"]
    links = page.locator("lectern-chat .sources a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert hrefs == [stack.site + s["url"] for s in meta["sources"]]
    assert stack.site + EXPECTED_PAGE in hrefs
    assert all(links.nth(i).get_attribute("target") is None for i in range(links.count()))
    cites = page.locator("lectern-chat a.cite")
    for i in range(cites.count()):
        n = int(cites.nth(i).inner_text().strip("[]"))
        assert cites.nth(i).get_attribute("href") == hrefs[n - 1]
    assert page.locator("lectern-chat .badge").first.inner_text() in {"High confidence", "Medium confidence"}
    # The live region announces the whole answer; a browser collapses its line breaks into spaces.
    announced = page.locator("lectern-chat [aria-live=polite]").inner_text()
    assert announced.split() == meta["response"].split()

    # A follow-up continues the same session and is answered in context.
    ask(page, "Is it an operating system?")
    wait_answer(page, 2)
    assert bodies[0]["session_id"] == bodies[1]["session_id"]
    assert "operating system" in page.locator("lectern-chat .bot .body").nth(1).inner_text()

    assert serious(page) == []

    # A reload keeps the conversation; "New conversation" ends it.
    page.reload()
    page.wait_for_function(f"!!{ROOT} && {ROOT}.querySelectorAll('.bot').length === 2")
    page.locator("lectern-chat .launcher").click()
    assert page.locator("lectern-chat .user").count() == 2
    ask(page, "Which distribution is end-of-life?")
    wait_answer(page, 3)
    assert bodies[2]["session_id"] == bodies[0]["session_id"]
    page.locator("lectern-chat button", has_text="New conversation").click()
    assert page.locator("lectern-chat .bot").count() == 0
    page.keyboard.press("Escape")
    assert page.locator("lectern-chat .panel").is_hidden()
    assert page.evaluate(f"{ROOT}.activeElement.className") == "launcher"
    assert errors == []

    # Citations open in the same tab.
    page.locator("lectern-chat .launcher").click()
    ask(page, "What is ROS 2?")
    wait_answer(page, 1)
    page.locator("lectern-chat .sources a").first.click()
    page.wait_for_url(stack.site + EXPECTED_PAGE)


def test_stop_ends_the_answer_fast_and_keeps_partial_text(browser: Any, stack: Stack) -> None:
    page, errors = open_page(browser, stack)
    # A slow network (about 250 bytes a second) so that the stream is still running when Stop is pressed.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": 250, "uploadThroughput": -1},
    )
    page.keyboard.press("Control+/")
    ask(page, "How do I launch a simulation in Gazebo?")
    # Tokens arrive before the done event: text shows while there is no badge yet.
    page.wait_for_function(
        f"{ROOT}.querySelector('.bot .body')?.textContent.length > 0 && !{ROOT}.querySelector('.badge')",
        timeout=30_000,
    )
    partial = page.locator("lectern-chat .bot .body").inner_text()
    elapsed = page.evaluate(
        f"""async () => {{ const r = {ROOT}; const t0 = performance.now();
        [...r.querySelectorAll('button')].find(b => b.textContent === 'Stop').click();
        while (!r.querySelector('.stopped')) await new Promise(res => setTimeout(res, 2));
        return performance.now() - t0; }}"""
    )
    print(f"\nStop to stopped: {elapsed:.1f} ms")
    assert elapsed < 200
    kept = page.locator("lectern-chat .bot .body").inner_text()
    assert kept
    assert kept.startswith(partial[:20])
    assert page.locator("lectern-chat .badge").count() == 0
    assert page.locator("lectern-chat button", has_text="Stop").is_hidden()
    assert errors == []


def _sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_refusal_shows_related_and_markup_stays_inert(browser: Any, stack: Stack) -> None:
    page, errors = open_page(browser, stack)
    page.keyboard.press("Control+/")
    # A real refusal from the server: the "not in the documents" badge and no sources.
    ask(page, "How do I bake sourdough bread?")
    wait_answer(page, 1)
    assert page.locator("lectern-chat .badge").inner_text() == "Not in the documents"
    assert page.locator("lectern-chat .sources-title").count() == 0

    # Scripted answers (the widget's rendering, whatever the server says): related sections on a
    # refusal, and hostile markup.
    evil = (
        'See <img src=x onerror="window.__pwned=1"> and [click](javascript:window.__pwned=2) '
        "or [the guide](https://example.com/guide) [1]."
    )
    related = [
        {
            "chunk_text": "x",
            "similarity_score": 0.4,
            "chapter": "Gazebo",
            "section": "Worlds",
            "url": "/module-2-simulation/ch3-gazebo#worlds",
            "chunk_index": 0,
        },
    ]
    answers = [
        {
            "response": "I don't have information about that in the documents.",
            "sources": [],
            "related": related,
            "should_answer": False,
            "confidence_level": "insufficient",
        },
        {
            "response": evil,
            "sources": [{**related[0], "url": "javascript:alert(1)"}],
            "related": [],
            "should_answer": True,
            "confidence_level": "medium",
        },
    ]

    def fulfil(route: Any) -> None:
        answer = answers.pop(0)
        body = json.loads(route.request.post_data)
        meta = {
            "confidence": 0.5,
            "session_id": body["session_id"],
            "timestamp": "2025-01-01T00:00:00.000Z",
            "message_seq": 1,
            **answer,
        }
        events = [{"type": "token", "content": w + " "} for w in answer["response"].split(" ")]
        route.fulfill(
            status=200,
            headers={"content-type": "text/event-stream", "access-control-allow-origin": stack.site},
            body=_sse([*events, {"type": "done", "metadata": meta}]),
        )

    page.route(f"{stack.api}/chat/stream", fulfil)
    ask(page, "Tell me about worlds")
    wait_answer(page, 2)
    assert page.locator("lectern-chat .related-title").nth(0).inner_text() == "Related sections"
    link = page.locator("lectern-chat .related a")
    assert link.get_attribute("href") == stack.site + "/module-2-simulation/ch3-gazebo#worlds"

    ask(page, "Show me markup")
    wait_answer(page, 3)
    bot = page.locator("lectern-chat .bot .body").nth(2)
    assert "<img" in bot.inner_text()
    assert page.evaluate(f"{ROOT}.querySelectorAll('img').length") == 0
    assert (
        page.evaluate(f"[...{ROOT}.querySelectorAll('a')].filter(a => !/^https?:|^#/.test(a.href)).length")
        == 0
    )
    assert bot.locator("a", has_text="the guide").get_attribute("href") == "https://example.com/guide"
    assert page.evaluate("window.__pwned") is None
    assert errors == []


def test_a_real_refusal_links_the_related_sections(browser: Any, stack: Stack) -> None:
    # Off the corpus's subject (it covers ROS 2 and Gazebo, not MATLAB), yet close to some sections:
    # the server refuses and offers them as further reading.
    question = "How do I program a robot arm in MATLAB?"
    served = httpx.post(
        f"{stack.api}/chat/run", json={"message": question}, headers={"X-API-Key": SECRET_KEY}, timeout=60
    ).json()
    assert served["should_answer"] is False
    assert served["sources"] == []
    urls = [r["url"] for r in served["related"]]
    assert 1 <= len(urls) <= 3

    page, errors = open_page(browser, stack)
    page.keyboard.press("Control+/")
    ask(page, question)
    wait_answer(page, 1)
    assert page.locator("lectern-chat .badge").inner_text() == "Not in the documents"
    assert page.locator("lectern-chat .related-title").inner_text() == "Related sections"
    links = page.locator("lectern-chat .related a")
    assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [
        stack.site + url for url in urls
    ]
    assert errors == []
    links.nth(0).click()  # a link to the site's section, in the same tab
    page.wait_for_url(stack.site + urls[0])


def test_ask_about_a_selection(browser: Any, stack: Stack) -> None:
    page, errors = open_page(browser, stack)
    bodies = stream_bodies(page)
    page.locator("#selectable").select_text()
    button = page.locator("lectern-chat .ask-sel")
    button.wait_for(state="visible")
    button.click()
    assert "Gazebo simulates rigid body physics" in page.locator("lectern-chat .chip q").inner_text()
    page.locator("lectern-chat .only input").check()
    ask(page, "Which physics engines does it use?")
    wait_answer(page, 1)
    assert bodies[0]["user_context"].startswith("Gazebo simulates rigid body physics")
    assert bodies[0]["selected_text_only"] is True
    assert "ODE" in page.locator("lectern-chat .bot .body").inner_text()
    assert page.locator("lectern-chat .user .ctx").count() == 1

    # Feedback: thumbs down with a comment is stored with the turn and shows in the report.
    with page.expect_response(lambda r: r.url.endswith("/feedback")) as first:
        page.locator("lectern-chat button[aria-label='Not helpful']").click()
    assert first.value.status == 204
    assert (
        page.locator("lectern-chat button[aria-label='Not helpful']").get_attribute("aria-pressed") == "true"
    )
    page.locator("lectern-chat .fb textarea").fill("Which version of Gazebo?")
    with page.expect_response(lambda r: r.url.endswith("/feedback")) as second:
        page.locator("lectern-chat .fb button").click()
    assert second.value.status == 204
    report = httpx.get(f"{stack.api}/report", headers={"X-API-Key": SECRET_KEY}, timeout=60).json()
    assert any(f["comment"] == "Which version of Gazebo?" for f in report["negative_feedback"])
    assert errors == []


def test_publishable_key_only_from_its_origins(browser: Any, stack: Stack) -> None:
    page, _ = open_page(browser, stack, origin=stack.other_site)  # the browser logs the CORS refusal
    page.keyboard.press("Control+/")
    ask(page, "What is ROS 2?")
    alert = page.locator("lectern-chat .error[role=alert]")
    alert.wait_for(timeout=15_000)
    assert "Could not reach" in alert.inner_text() or "refused" in alert.inner_text()
    assert page.locator("lectern-chat .error button", has_text="Retry").is_visible()

    body = {"message": "What is ROS 2?"}
    pk = {"X-API-Key": PUBLISHABLE_KEY}
    with httpx.Client(base_url=stack.api, timeout=30) as http:
        assert (
            http.post("/chat/run", json=body, headers={**pk, "Origin": stack.other_site}).status_code == 403
        )
        assert http.post("/chat/run", json=body, headers=pk).status_code == 403  # no Origin at all
        assert http.get("/report", headers={**pk, "Origin": stack.site}).status_code == 403
        ok = http.post("/chat/run", json=body, headers={**pk, "Origin": stack.site})
        assert ok.status_code == 200, ok.text
        assert ok.headers["access-control-allow-origin"] == stack.site
        fb = {
            "session_id": ok.json()["session_id"],
            "message_seq": ok.json()["message_seq"],
            "rating": "down",
            "comment": "Too short",
        }
        assert http.post("/feedback", json=fb, headers={**pk, "Origin": stack.site}).status_code == 204
        report = http.get("/report", headers={"X-API-Key": SECRET_KEY})
        assert report.status_code == 200
        assert report.json()["totals"]["questions"] >= 1
        assert any(f["comment"] == "Too short" for f in report.json()["negative_feedback"])


SHOTS = [("light", 1280, 800), ("dark", 1280, 800), ("light", 360, 740), ("dark", 360, 740)]


@pytest.mark.parametrize(("theme", "width", "height"), SHOTS)
def test_themes_narrow_screens_and_screenshots(
    browser: Any, stack: Stack, tmp_path: Path, theme: str, width: int, height: int
) -> None:
    page, errors = open_page(browser, stack, viewport={"width": width, "height": height}, color_scheme=theme)
    if theme == "dark":
        page.locator("#toggle").click()  # the site's own theme switch (html[data-theme]) is followed
    assert page.evaluate("document.querySelector('lectern-chat').hasAttribute('data-dark')") == (
        theme == "dark"
    )
    page.locator("lectern-chat .launcher").click()
    ask(page, "What is ROS 2?")
    wait_answer(page, 1)
    panel = page.locator("lectern-chat .panel").bounding_box()
    assert panel is not None
    assert panel["x"] >= 0
    assert panel["x"] + panel["width"] <= width
    assert page.evaluate(
        f"{ROOT}.querySelector('.log').scrollWidth <= {ROOT}.querySelector('.log').clientWidth"
    )
    if width < 400:
        page.set_viewport_size({"width": 320, "height": height})
        assert page.evaluate(
            f"{ROOT}.querySelector('.log').scrollWidth <= {ROOT}.querySelector('.log').clientWidth"
        )
        page.set_viewport_size({"width": width, "height": height})
    out = DOCS_IMAGES if os.environ.get("LECTERN_UPDATE_SCREENSHOTS") else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"widget-{theme}-{width}.png"))
    assert errors == []
