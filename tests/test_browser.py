"""JupyterLab in a real browser: open a student notebook, run all cells, read an output."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import run_grade
from support import load_entry, make_submission, reference_of

from autograder import paths
from autograder.gradebook import feedback, mathml
from autograder.material import answers

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NB01 = "01_scaled_dot_product_attention"
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"),
]
playwright = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")


IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"
DIALOG = ".jp-Dialog"
PATIENCE_MS = 300_000  # an upper bound only: every wait ends as soon as its state is reached
ATTEMPTS = 2  # a page whose click was lost (once in CI: kernel idle, nothing run) is loaded again
RUN_ALL_CLICKS, HEARD_S = 3, 30  # Run All is clicked again when the kernel heard nothing for 30 s


def _until(page, target, timeout_ms: int = PATIENCE_MS) -> None:
    """Wait for `target` to show, choosing the notebook's kernel each time JupyterLab asks which ("Select Kernel")."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        if time.monotonic() > deadline:
            raise playwright.TimeoutError(f"waited {timeout_ms / 1000:.0f} s for {target}")
        left = max(1_000, (deadline - time.monotonic()) * 1000)
        dialog = page.locator(DIALOG).filter(visible=True)  # (JupyterLab keeps hidden copies of some elements)
        target.filter(visible=True).or_(dialog).first.wait_for(timeout=left)
        if not dialog.count():
            return
        _accept(dialog, left)


def _accept(dialog, timeout_ms: float) -> None:
    """Click the dialog's accept button ("Select": the kernel it proposes) until it closes; else name it.

    A click can be lost on a loaded machine (the dialog stayed for 300 s once), so it is clicked again."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        with contextlib.suppress(playwright.Error):
            dialog.locator(".jp-Dialog-button.jp-mod-accept").first.click(timeout=10_000)
        with contextlib.suppress(playwright.TimeoutError):
            dialog.first.wait_for(state="detached", timeout=20_000)
            return
        if not dialog.count():
            return
    text = " | ".join(" ".join(t.split()) for t in dialog.all_inner_texts())
    raise playwright.TimeoutError(f"a JupyterLab dialog did not close when accepted: {text[:300]!r}")


def _kernel_activity(api: str) -> list[str]:
    """The server's record of its kernels' last activity (it changes with every message a kernel gets)."""
    with urllib.request.urlopen(api, timeout=10) as reply:
        return sorted(k["last_activity"] for k in json.load(reply))


def _run_all(page, api: str) -> str:
    """Open the notebook's kernel, Run All Cells, and return the self-check table it prints."""
    _until(page, page.locator(".jp-NotebookPanel .jp-Cell"))
    _until(page, page.locator(IDLE))  # the kernel is up (chosen, if JupyterLab asked which)
    _run_all_cells(page, api)
    _until(page, page.locator(".jp-OutputArea-output", has_text="hand example: ok"))
    table = page.locator(".jp-OutputArea-output", has_text="Visible tests passed")
    _until(page, table)
    return table.first.inner_text()


def _click(page, target, timeout_ms: int = PATIENCE_MS) -> None:
    """Click `target` once it shows, first answering any dialog that comes up over it."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        _until(page, target, int(max(1_000, (deadline - time.monotonic()) * 1000)))
        try:
            target.filter(visible=True).first.click(timeout=10_000)
            return
        except playwright.TimeoutError:  # covered (a dialog came up since): answer it and try again
            if time.monotonic() > deadline:
                raise


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _jupyter_lab(folder: Path):
    """JupyterLab on loopback with a token, serving `folder`; yields (url, token)."""
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
            f"--ServerApp.root_dir={folder}",
            "--allow-root",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + PATIENCE_MS / 1000  # up when its API answers, however loaded the machine
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"JupyterLab did not start (exit status {proc.poll()})")
            time.sleep(0.5)
    try:
        yield url, token
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextlib.contextmanager
def _browser_page(shot: Path):
    """A headless Chromium page; a screenshot of it is left at `shot` whatever happens."""
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
        page.set_default_timeout(PATIENCE_MS)  # a bound only: each action waits for its element's state
        try:
            yield page
        finally:
            page.screenshot(path=str(shot), full_page=False)
            browser.close()


@pytest.fixture()
def lab(tmp_path):
    """JupyterLab serving a folder holding one learner's notebook."""
    shutil.copyfile(paths.DATA / "submissions" / "ada" / f"{NB01}.ipynb", tmp_path / f"{NB01}.ipynb")
    shutil.copyfile(paths.NOTEBOOKS / "workbook.py", tmp_path / "workbook.py")
    with _jupyter_lab(tmp_path) as served:
        yield served


def test_run_all_cells_in_jupyterlab(lab, tmp_path):
    url, token = lab
    with _browser_page(tmp_path / "jupyterlab.png") as page:
        text = ""
        for attempt in range(ATTEMPTS):
            try:
                page.goto(f"{url}/lab/tree/{NB01}.ipynb?token={token}")
                text = _run_all(page, f"{url}/api/kernels?token={token}")
                break
            except playwright.TimeoutError:
                if attempt == ATTEMPTS - 1:
                    raise
    passed = re.search(r"Visible tests passed: (\d+) / (\d+) parts", text)
    assert passed and passed.group(1) == passed.group(2) != "0", text
    assert (tmp_path / "jupyterlab.png").stat().st_size > 10_000


# Every active output type a learner's code can display, each with a payload that marks the
# page (its title and the console) if it runs; plus the same in a stream and an error message.
HOSTILE = r"""
from IPython.display import HTML, SVG, Javascript, Latex, Markdown, display

def _hit(tag):
    return f"document.title='PWNED-{tag}';console.log('PWNED-{tag}')"

display(HTML(f'<img src="x" onerror="{_hit("html-img")}"><script>{_hit("html-script")}</script>'))
display(SVG(f'<svg xmlns="http://www.w3.org/2000/svg" onload="{_hit("svg-onload")}"><script>{_hit("svg-script")}</script></svg>'))
display(Markdown(f'<img src="x" onerror="{_hit("md-img")}"> [click](javascript:{_hit("md-link")})'))
display(Javascript(_hit("js")))
display(Latex(f'$x$ <img src="x" onerror="{_hit("latex")}">'))
display({"text/html": f"<script>{_hit('raw-html')}</script>", "text/markdown": f"<script>{_hit('raw-md')}</script>",
         "application/vnd.jupyter.widget-view+json": {"model_id": "m", "version_major": 2, "version_minor": 0}}, raw=True)
display({"image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" onload="{_hit("raw-svg")}"/>'}, raw=True)
display({"image/png": f'x" onerror="{_hit("png-src")}'}, raw=True)
display({"image/png": "iVBORw0KGgo=", "text/plain": "png"}, raw=True,
        metadata={"image/png": {"width": f"1 onerror={_hit('png-width')}"}})
print(f"<script>{_hit('stdout')}</script>")
import sys
print(f'<img src="x" onerror="{_hit("stderr")}">', file=sys.stderr)
"""
RAISE = "\nraise ValueError(\"<script>document.title='PWNED-error';console.log('PWNED-error')</script>\")\n"
MARKED = "PWNED-"


def _hostile_submission(path):
    source = nbformat.read(paths.source_notebook(NB01), as_version=4)
    filled = answers.reference_answers(source)
    filled["sdpa"] = HOSTILE + "\n" + filled["sdpa"]
    filled["attention_numpy"] += RAISE  # defined, then an error whose message is a script
    nbformat.write(make_submission(NB01, None, defaults=filled), path)


def _formulas(name: str) -> int:
    """How many $…$ formulas the course's own markdown of a notebook has."""
    nb = nbformat.read(paths.source_notebook(name), as_version=4)
    text = [c.source for c in nb.cells if c.cell_type == "markdown" and not answers.is_written(c)]
    return sum(1 for t in text for m in mathml._SPANS.finditer(t) if m["block"] or m["inline"])


def _open(browser, url: str) -> dict:
    """Load a page; what a learner's script would have left: the title, console lines, live handlers."""
    page = browser.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(msg.text))
    page.on("pageerror", lambda exc: console.append(str(exc)))
    page.goto(url, wait_until="load")
    page.wait_for_timeout(1500)  # images that fail to load fire onerror after 'load' at the latest
    seen = {
        "title": page.title(),
        "console": [line for line in console if MARKED in line],
        "handlers": page.evaluate(
            """() => [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
                 .filter(a => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value))
                 .map(a => el.tagName + ' ' + a.name + '=' + a.value))"""
        ),
        "scripts": page.evaluate(
            "() => [...document.scripts].map(s => s.textContent).filter(t => t.includes('PWNED'))"
        ),
        "text": page.inner_text("body"),
        "math": page.evaluate(  # formulas the browser laid out (MathML has a box; raw TeX is text)
            """() => [...document.querySelectorAll('math')]
                 .filter(m => m.getBoundingClientRect().width > 0 && m.getBoundingClientRect().height > 0).length"""
        ),
    }
    page.close()
    return seen


def test_feedback_page_runs_no_learner_script(tmp_path):
    (tmp_path / "subs" / "mallory").mkdir(parents=True)
    _hostile_submission(tmp_path / "subs" / "mallory" / f"{NB01}.ipynb")
    result = run_grade(tmp_path / "subs", tmp_path / "out", jobs=1)[f"mallory/{NB01}"]
    assert result.status == "graded" and result.score > 0, (result.status, result.errors)
    page = tmp_path / "out" / "feedback" / "mallory" / f"{NB01}.html"
    text = page.read_text()
    head = re.search(r"<head\b[^>]*>\s*(<meta[^>]*>)", text, re.I)
    assert head and head.group(1) == feedback.CSP_META  # first in the head, before any script
    without_csp = tmp_path / "without-csp.html"  # the sanitizing alone must hold, CSP or not
    without_csp.write_text(text.replace(feedback.CSP_META, ""))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            control = browser.new_page()  # the marker works: the same payload, unsanitized, does run
            control.set_content("<img src=x onerror=\"document.title='PWNED-control'\">")
            control.wait_for_function("document.title === 'PWNED-control'", timeout=10_000)
            control.close()
            pages = {name: _open(browser, f"file://{path}") for name, path in (("csp", page), ("bare", without_csp))}
            shot = browser.new_page(viewport={"width": 1200, "height": 1600})
            shot.goto(f"file://{page}")
            shot.screenshot(path=str(tmp_path / "feedback.png"), full_page=False)
        finally:
            browser.close()
    for name, seen in pages.items():
        assert MARKED not in seen["title"], (name, seen["title"])
        assert seen["console"] == [], (name, seen["console"])
        assert seen["handlers"] == [], (name, seen["handlers"][:5])
        assert seen["scripts"] == [], (name, seen["scripts"][:2])
        for shown in ("PWNED-stdout", "PWNED-stderr", "PWNED-error"):  # shown, as text
            assert shown in seen["text"], (name, shown)
        # the course's formulas render as math, with no script: none is left as raw TeX
        assert seen["math"] >= _formulas(NB01) > 0, (name, seen["math"])
        assert not re.search(r"\$[^$\n]*\\(sqrt|top|frac)", seen["text"]), name


def _study_folder(folder: Path) -> None:
    """The self-study edition of 01 with the learner's first try at `sdpa`: the scores not divided by √d_k."""
    for helper in ("study.py", "study_data.json", "workbook.py", "wb_refusal.py"):
        shutil.copyfile(paths.ROOT / "self-study" / helper, folder / helper)
    filled = reference_of(NB01)
    filled.update(load_entry(paths.ROOT / "tests" / "catalogue" / NB01 / "wrong_no_scale.py"))
    edition = nbformat.read(paths.ROOT / "self-study" / f"{NB01}.ipynb", as_version=4)
    nbformat.write(answers.with_answers(edition, filled), folder / f"{NB01}.ipynb")


def _cell(page, index: int):
    return page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").nth(index)


def _type_cell_below(page, index: int, code: str) -> None:
    """Select cell `index`, insert a code cell below it, type `code` and run it (Shift+Enter)."""
    _cell(page, index).locator(".jp-InputPrompt").first.click()
    page.keyboard.press("Escape")  # command mode
    page.keyboard.press("b")
    page.keyboard.press("Enter")  # edit the new cell
    page.keyboard.insert_text(code)
    page.keyboard.press("Shift+Enter")


def _run_all_cells(page, api: str) -> None:
    """Run > Run All Cells, asked again when the kernel never hears of it (once in CI)."""
    before = _kernel_activity(api)
    for _ in range(RUN_ALL_CLICKS):
        _click(page, page.get_by_role("menuitem", name="Run", exact=True))
        _click(page, page.get_by_text("Run All Cells", exact=True))
        heard = time.monotonic() + HEARD_S
        while _kernel_activity(api) == before and time.monotonic() < heard:
            time.sleep(0.5)
        if _kernel_activity(api) != before:
            return


def _restart_kernel(page) -> None:
    """Kernel > Restart Kernel…, its "Restart" dialog accepted, until the new kernel is idle."""
    _click(page, page.get_by_role("menuitem", name="Kernel", exact=True))
    _click(page, page.get_by_text("Restart Kernel…", exact=True))
    dialog = page.locator(DIALOG).filter(visible=True)
    dialog.first.wait_for(timeout=PATIENCE_MS)  # "Restart Kernel?": accepted
    _accept(dialog, PATIENCE_MS)
    _until(page, page.locator(IDLE))


def _ran(page, index: int) -> None:
    """Wait until cell `index` has run (its prompt shows an execution count)."""
    _until(page, _cell(page, index).locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]")))


def _shown(page, index: int, text: str) -> str:
    """Wait until cell `index` shows `text` in an output; the cell's whole output text."""
    _until(page, _cell(page, index).locator(".jp-OutputArea-output", has_text=text))
    return _cell(page, index).locator(".jp-OutputArea").first.inner_text()


def test_self_study_mistake_hints_fix_and_answer_in_jupyterlab(tmp_path):
    """Issues 49 and 66: a wrong stub named; a hint shown once; the other part's answer opened by its own
    tests; a kernel restart keeping both; the fix typed in; the answer revealed."""
    folder = tmp_path / "study"
    folder.mkdir()
    _study_folder(folder)
    cells = nbformat.read(folder / f"{NB01}.ipynb", as_version=4).cells
    sdpa, numpy_stub, numpy_test = (
        next(i for i, c in enumerate(cells) if answers.grade_id(c) == gid)
        for gid in ("sdpa", "attention_numpy", "test_attention_numpy")
    )
    output = ".jp-OutputArea-output"
    with _jupyter_lab(folder) as (url, token), _browser_page(tmp_path / "study.png") as page:
        api = f"{url}/api/kernels?token={token}"
        page.goto(f"{url}/lab/tree/{NB01}.ipynb?token={token}")
        _until(page, page.locator(".jp-NotebookPanel .jp-Cell"))
        _until(page, page.locator(IDLE))
        _run_all_cells(page, api)  # it stops at sdpa's first failing test
        _until(page, page.locator(output, has_text="the scores are not divided by √d_k"))
        _cell(page, numpy_stub).locator(".jp-InputPrompt").first.click()  # the learner runs on from the next part
        _click(page, page.get_by_role("menuitem", name="Run", exact=True))
        _click(page, page.get_by_text("Run Selected Cell and All Below", exact=True))
        _ran(page, numpy_test)

        _type_cell_below(page, sdpa, 'study.hint("sdpa")')  # the last expression: shown once, not echoed
        first_hint = _shown(page, sdpa + 1, "Hint 1/3 for sdpa")
        shut = 'try:\n    study.answer("sdpa")\nexcept study.StudyError as error:\n    print("still shut:", error)'
        _type_cell_below(page, sdpa + 1, f'study.answer("attention_numpy")\n{shut}')
        opened = _shown(page, sdpa + 2, "still shut")  # attention_numpy's own test passed; sdpa's did not

        _restart_kernel(page)
        fresh = 'print("fresh kernel:", "scaled_dot_product_attention" not in globals())\n'
        _type_cell_below(page, sdpa + 2, f'{fresh}import study\n\nstudy.start("{NB01}")\nstudy.hint("sdpa")\n'
                         'study.answer("attention_numpy")')  # fmt: skip
        after_restart = _shown(page, sdpa + 3, "Reference answer of attention_numpy")

        editor = _cell(page, sdpa).locator(".cm-content").first
        editor.click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(reference_of(NB01)["sdpa"])
        page.keyboard.press("Escape")
        _until(page, page.locator(IDLE))
        _run_all_cells(page, api)
        _until(page, page.locator(output, has_text="Tests passed:"))

        last = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").count() - 1
        _type_cell_below(page, last, 'study.answer("sdpa")')
        revealed = _shown(page, last + 1, "Reference answer of sdpa")
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        errors_text = " ".join(errors.all_inner_texts())
    assert first_hint.count("Hint 1/3 for sdpa") == 1 and "nudge" in first_hint, first_hint
    assert "\\n" not in first_hint and "Out[" not in first_hint, first_hint  # no echoed string
    assert "Reference answer of attention_numpy" in opened and "test_matches_torch" in opened, opened
    assert "fresh kernel: True" in after_restart, after_restart  # the restart happened
    assert "Hint 2/3 for sdpa" in after_restart and "key idea" in after_restart, after_restart
    assert "/ math.sqrt(d_k)" in revealed and revealed.count("Reference answer of sdpa") == 1, revealed
    assert "CheckFailure" not in errors_text, errors_text
    assert (folder / ".study_progress.json").is_file()
