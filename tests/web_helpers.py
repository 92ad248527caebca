"""What the browser tests of the two web pages share (test_web.py, test_web_play.py):
Debian's `chromium` driven by Playwright, a `t42 serve --http-port 0` per module, the
folder of screenshots and the axe-core pass. conftest.py offers the fixtures (each of
module scope: every module has its own browser and server)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from server.launcher import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
#: The axe-core impacts that fail a test.
BLOCKING_IMPACTS = ("serious", "critical")


def chromium() -> str:
    """The chromium to drive ($T42_CHROMIUM, else the one on PATH); skips without one."""
    path = os.environ.get("T42_CHROMIUM") or shutil.which("chromium") or \
        shutil.which("chromium-browser")
    if not path:
        pytest.skip("no chromium on this machine (apt-get install chromium; .ci/run does)")
    return path


def artifacts_dir(name: str, what: str) -> Path:
    """``test-artifacts/<name>`` (or ``$T42_ARTIFACTS/<name>``), made; its path printed."""
    directory = Path(os.environ.get("T42_ARTIFACTS", ROOT / "test-artifacts")) / name
    directory.mkdir(parents=True, exist_ok=True)
    print(f"\n{what} screenshots: {directory}")
    return directory


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module, with a fresh temporary profile of its own."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (pip install -e '.[test]')")
    executable = chromium()
    with sync_api.sync_playwright() as playwright:
        chromium_browser = playwright.chromium.launch(executable_path=executable,
                                                      args=CHROMIUM_FLAGS)
        yield chromium_browser
        chromium_browser.close()


@pytest.fixture(scope="module")
def web_server():
    """A `t42 serve` for the module, its HTTP (Connect JSON and the pages) port open."""
    with ServerProcess("--workers", "2", "--http-port", "0") as proc:
        yield proc


class Axe:
    """axe-core on a page: the violations of serious or critical impact."""

    def __init__(self) -> None:
        module = pytest.importorskip("axe_playwright_python.sync_playwright",
                                     reason="axe-playwright-python is not installed "
                                            "(pip install -e '.[test]')")
        self._axe = module.Axe()

    def blocking(self, page) -> list[tuple[str, str, str, list]]:
        """(rule, impact, help, the first three nodes' targets) of each blocking violation."""
        results = self._axe.run(page)
        return [(v["id"], v["impact"], v.get("help", ""), [n["target"] for n in v["nodes"]][:3])
                for v in results.response["violations"] if v.get("impact") in BLOCKING_IMPACTS]


@pytest.fixture(scope="module")
def axe() -> Axe:
    """axe-core (skips the test when axe-playwright-python is missing)."""
    return Axe()
