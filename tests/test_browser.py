"""JupyterLab in a real browser: open a student notebook, run all cells, read an output."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from autograder import paths

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NB01 = "01_scaled_dot_product_attention"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"),
]
playwright = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def lab(tmp_path):
    """JupyterLab on loopback with a token, serving a folder holding one learner's notebook."""
    shutil.copyfile(paths.DATA / "submissions" / "ada" / f"{NB01}.ipynb", tmp_path / f"{NB01}.ipynb")
    shutil.copyfile(paths.NOTEBOOKS / "workbook.py", tmp_path / "workbook.py")
    port, token = _free_port(), "browser-test-token"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            f"--ServerApp.token={token}",
            f"--ServerApp.root_dir={tmp_path}",
            "--allow-root",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not start")
    yield url, token
    proc.terminate()
    proc.wait(timeout=30)


def test_run_all_cells_in_jupyterlab(lab, tmp_path):
    url, token = lab
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/lab/tree/{NB01}.ipynb?token={token}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        try:
            output = page.locator(".jp-OutputArea-output", has_text="hand example: ok")
            output.first.wait_for(timeout=400_000)
            table = page.locator(".jp-OutputArea-output", has_text="Visible tests passed")
            table.first.wait_for(timeout=400_000)
            text = table.first.inner_text()
        finally:
            page.screenshot(path=str(tmp_path / "jupyterlab.png"), full_page=False)
            browser.close()
    passed = re.search(r"Visible tests passed: (\d+) / (\d+) parts", text)
    assert passed and passed.group(1) == passed.group(2) != "0", text
    assert (tmp_path / "jupyterlab.png").stat().st_size > 10_000
