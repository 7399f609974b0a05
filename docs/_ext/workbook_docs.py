"""The documentation site's own Sphinx pieces: offline math, the CLI reference, the notebooks as a book."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx
from sphinx.config import Config

from autograder.commands import cli
from autograder.gradebook.mathml import safe_mathml
from autograder.material import colab

BOOK = "book/notebooks"  # generated, git-ignored: the student notebooks the book renders
# What only a solution notebook holds: a book page with one of these is refused, never published.
SOLUTION_ONLY = ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS", "**Model answer.**", "**Rubric (")


def _mathml(latex: str, display: str) -> str:
    """TeX as MathML the browser lays out itself: no script, no network (the feedback page's converter)."""
    from latex2mathml.converter import convert

    return safe_mathml(convert(latex.strip(), display=display))


def _visit_inline(self, node: nodes.Element) -> None:
    self.body.append(_mathml(node.astext(), "inline"))
    raise nodes.SkipNode


def _visit_block(self, node: nodes.Element) -> None:
    self.body.append(f'<div class="math-block">{_mathml(node.astext(), "block")}</div>')
    raise nodes.SkipNode


def command_help(name: str) -> str:
    """The `--help` text of one command, as argparse prints it (a fixed width, so the page is stable)."""
    module, _, function = cli.COMMANDS[name][0].partition(":")
    entry = getattr(__import__(module, fromlist=["_"]), function or "main")
    out, columns = io.StringIO(), os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "78"  # argparse wraps to the terminal: fixed here, to the page's width
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            entry(["--help"])
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    return out.getvalue()


class CommandReference(Directive):
    """`{autograder-cli}`: a section per command of autograder/commands/cli.py with its argparse help."""

    def run(self) -> list[nodes.Node]:
        sections = []
        for name, (_, summary) in cli.COMMANDS.items():
            section = nodes.section(ids=[f"cmd-{name}"], names=[f"python -m autograder {name}"])
            section += nodes.title(text=f"{name}")
            section += nodes.paragraph(text=summary)
            section += nodes.literal_block(text=command_help(name), language="text")
            sections.append(section)
        return sections


def _badge(name: str) -> str:
    """The notebook's Open-in-Colab badge, as README's table has it."""
    image = "https://colab.research.google.com/assets/colab-badge.svg"
    return f"[![Open In Colab]({image})]({colab.colab_url(name)})"


def book_notebook(path: Path) -> dict:
    """A student notebook as the book shows it: no outputs, its Colab badge under the title; refused if it holds solutions."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if any(marker in text for marker in SOLUTION_ONLY):
            raise ValueError(
                f"{path} holds solution-only text ({SOLUTION_ONLY}): the book shows student notebooks only"
            )
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    first = nb["cells"][0]
    title, _, rest = "".join(first["source"]).partition("\n")
    first["source"] = f"{title}\n\n{_badge(path.stem)}\n{rest}"
    return nb


def write_book(app: Sphinx, config: Config) -> None:
    """Copy the student notebooks (notebooks/, or `book_notebooks`) into the book's folder, badge added."""
    source = Path(config.book_notebooks)
    target = Path(app.srcdir) / BOOK
    target.mkdir(parents=True, exist_ok=True)
    wanted = {
        path.name: json.dumps(book_notebook(path), indent=1) for path in sorted(source.glob("[0-9][0-9]_*.ipynb"))
    }
    for stale in set(p.name for p in target.glob("*.ipynb")) - set(wanted):
        (target / stale).unlink()
    for name, text in wanted.items():
        page = target / name
        if not page.is_file() or page.read_text(encoding="utf-8") != text:  # unchanged: Sphinx need not re-read it
            page.write_text(text, encoding="utf-8")


def setup(app: Sphinx) -> dict:
    """Register the math renderer, the CLI directive and the book's source folder."""
    app.add_html_math_renderer("mathml", (_visit_inline, None), (_visit_block, None))
    app.add_directive("autograder-cli", CommandReference)
    app.add_config_value("book_notebooks", "", "env", types=[str])
    app.connect("config-inited", write_book)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
