"""The HTTP listener's security headers and its answer to an over-size body, against a
real `t42 serve --http-port 0` (the conftest's ``web_server``); and both web pages
working in Chromium under that Content-Security-Policy (tests/web_helpers.py).

Every answer (pages, their files, JSON) carries a strict Content-Security-Policy,
nosniff, a Referrer-Policy and a frame policy; a body over 4 MiB is HTTP 413 with a
Connect ``resource_exhausted`` error. About 10 s with Chromium.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from importlib import resources

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf import json_format
from grpc_helpers import connect_post, http_post

from server.convert import position_from_json
from texas42.v1 import hint_service_connect
from texas42.v1 import hint_service_pb2 as hs
from texas42.v1 import position_pb2 as pb

LIMIT = 4 * 1024 * 1024
DEAL = {"hands": {"N": ["3-1", "4-3", "2-0", "0-0", "4-1", "6-3", "4-4"],
                  "E": ["4-2", "6-1", "6-6", "6-2", "5-4", "4-0", "6-4"],
                  "S": ["2-1", "6-5", "5-2", "3-2", "6-0", "3-3", "1-1"],
                  "W": ["5-1", "5-0", "3-0", "1-0", "2-2", "5-3", "5-5"]},
        "contract": {"declarer": "E", "trump": "doubles", "bid": 30},
        "plays": ["6-6", "3-3", "2-2", "0-0", "6-1", "6-5", "5-0", "6-3"]}
#: The files of the web pages, as the server lists them (package data).
WEB_FILES = sorted(f.name for f in resources.files("solver.show.web").iterdir()
                   if re.fullmatch(r"[a-z0-9_-]+\.(html|css|js|json|svg)", f.name))


def get(server, path: str) -> tuple[int, dict[str, str]]:
    """GET a path of the HTTP port: (status, headers with lower-case names), errors too."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}{path}",
                                    timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}


def post_headers(server, path: str, body: bytes, content_type: str = "application/json"
                 ) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(f"http://127.0.0.1:{server.http_port}{path}", data=body,
                                     headers={"Content-Type": content_type}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}


def policy(headers: dict[str, str]) -> dict[str, list[str]]:
    """The Content-Security-Policy as {directive: sources}."""
    directives = [d.split() for d in headers["content-security-policy"].split(";") if d.strip()]
    return {d[0]: d[1:] for d in directives}


def check_security_headers(headers: dict[str, str], where: str) -> None:
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("referrer-policy") == "no-referrer", where
    assert headers.get("x-frame-options") == "DENY", where
    csp = policy(headers)
    assert csp["frame-ancestors"] == ["'none'"], where
    assert csp["default-src"] == ["'none'"], where
    # Scripts and styles only as files of the server itself: nothing inline, no eval.
    assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"], where
    assert csp["connect-src"] == ["'self'"], where
    assert csp["base-uri"] == ["'none'"], where
    assert "unsafe" not in headers["content-security-policy"], where


def test_every_page_and_file_carries_the_security_headers(web_server):
    assert "index.html" in WEB_FILES and "play.js" in WEB_FILES
    for path in ["/", *(f"/{name}" for name in WEB_FILES), "/healthz", "/nope.js"]:
        status, headers = get(web_server, path)
        assert status == (404 if path == "/nope.js" else 200), path
        check_security_headers(headers, path)


def test_every_json_answer_carries_the_security_headers(web_server):
    request = json_format.MessageToJson(hs.SolvePositionRequest(
        position=position_from_json(DEAL))).encode()
    answers = {
        "answered by the runtime": ("/texas42.v1.HintService/SolvePosition", request, 200),
        "bad input": ("/texas42.v1.HintService/SolvePosition", b'{"position": {"hands": 7}}',
                      400),
        "unknown method": ("/texas42.v1.HintService/NoSuchMethod", b"{}", 404),
        "document": ("/document", json.dumps(DEAL).encode(), 200),
        "not a POST path": ("/healthz", b"{}", 405),
    }
    for what, (path, body, expected) in answers.items():
        status, headers = post_headers(web_server, path, body)
        assert status == expected, what
        check_security_headers(headers, what)


def test_a_body_over_4_mib_is_413_with_a_connect_error(web_server):
    body = b'{"position": {"plays": ["' + b"x" * LIMIT + b'"]}}'
    for path in ("/texas42.v1.HintService/SolvePosition", "/document"):
        status, answer, content_type = http_post(web_server, path, body)
        assert (status, content_type) == (413, "application/json"), path
        assert json.loads(answer) == {"code": "resource_exhausted",
                                      "message": f"request over the {LIMIT} byte limit"}, path
    # Over the Connect protocol's other content types too (answered by its runtime else).
    status, answer, _ = connect_post(web_server, "SolvePosition", body,
                                     "application/connect+json")
    assert status == 413 and json.loads(answer)["code"] == "resource_exhausted"
    # A Connect client reads the code from the error's body: RESOURCE_EXHAUSTED.
    client = hint_service_connect.HintServiceClientSync(
        f"http://127.0.0.1:{web_server.http_port}")
    try:
        with pytest.raises(ConnectError) as err:
            client.solve_position(hs.SolvePositionRequest(position=pb.Position(
                plays=["x" * LIMIT])))
    finally:
        client.close()
    assert err.value.code == Code.RESOURCE_EXHAUSTED
    assert err.value.message == f"request over the {LIMIT} byte limit"


# ------------------------------------------------------------ the pages in Chromium

#: Records the page's CSP violations from its very start (an init script is the
#: browser's own, not the page's: the policy does not apply to it).
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
    (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


@pytest.fixture
def page(browser, web_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda m: page.errors.append(m.text)
            if "Content Security Policy" in m.text else None)
    page.add_init_script(RECORD_VIOLATIONS)
    page.base = f"http://127.0.0.1:{web_server.http_port}/"
    yield page
    context.close()


def violations(page) -> list[str]:
    return page.evaluate("window.__cspViolations")


def test_both_pages_work_under_their_policy_and_it_is_enforced(page):
    # The viewer: an example loaded, its analysis and deal table fetched from the service.
    response = page.goto(page.base)
    check_security_headers({k.lower(): v for k, v in response.headers.items()}, "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#example", "0")
    page.wait_for_selector("body[data-loaded='1'][data-busy='0']")
    assert page.locator("svg.domino").count() >= 28  # the tiles are drawn (inline SVG)
    assert violations(page) == [] and page.errors == []

    # The game page: a seeded game started, the bots' first calls made.
    response = page.goto(page.base + "play.html")
    check_security_headers({k.lower(): v for k, v in response.headers.items()},
                           "/play.html")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#bot", "rule")
    page.fill("#game-seed", "5")
    page.fill("#pause", "0")
    page.click("#start")
    page.wait_for_selector(",".join(f"body[data-busy='0'][data-state='{s}']"
                                    for s in ("call", "declare", "play", "error")),
                           timeout=120_000)
    assert violations(page) == [] and page.errors == []
    assert page.get_attribute("body", "data-state") != "error", page.inner_text("#status")

    # The policy holds: an inline script or style written into the page does not run.
    ran = page.evaluate("""() => {
        const script = document.createElement("script");
        script.textContent = "window.__inlineRan = true;";
        document.head.append(script);
        const style = document.createElement("style");
        style.textContent = "body { --inline-style-ran: yes; }";
        document.head.append(style);
        return [window.__inlineRan === true,
                getComputedStyle(document.body).getPropertyValue("--inline-style-ran")];
    }""")
    assert ran == [False, ""]
    page.wait_for_function("window.__cspViolations.length >= 2")
    assert sorted(v.split()[0] for v in violations(page)) == ["script-src-elem",
                                                              "style-src-elem"]
