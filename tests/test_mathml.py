"""Math in the feedback page: TeX in the course's markdown becomes MathML, nothing else comes through."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from autograder import paths
from autograder.gradebook import feedback, mathml
from autograder.material import answers
from autograder.results import NotebookResult


def test_inline_and_display_math_become_mathml():
    out = mathml.render_math(r"scores $QK^\top/\sqrt{d_k}$ and $$\mathrm{softmax}(x)_i$$")
    assert out.count("<math") == 2 and "$" not in out
    assert 'display="inline"' in out and 'display="block"' in out
    assert "<msqrt>" in out


@pytest.mark.parametrize(
    "text",
    [
        "costs $5 and $10",  # dollars with spaces inside: money, not math
        r"an escaped \$x\$ dollar",
        "code `$x$` and\n```\n$y$\n```\n",
        "no math at all",
    ],
)
def test_what_is_not_math_stays_as_written(text):
    assert mathml.render_math(text) == text


def test_only_allow_listed_mathml_comes_out():
    """\\text and \\href pass markup through the converter; the rebuild keeps math elements only."""
    out = mathml.render_math(r"$\text{<script>alert(1)</script>}$ $\href{javascript:x}{y}$ $a<b$")
    assert "<script" not in out and "href" not in out and "javascript" not in out
    tags = set(re.findall(r"</?([a-zA-Z]+)", out))
    assert tags and tags <= mathml.ELEMENTS, tags - mathml.ELEMENTS


def test_markdown_characters_inside_math_are_references():
    """Emphasis, table columns and code marks in math must not be read by the markdown renderer."""
    out = mathml.render_math(r"| $|x| * y * z_1$ |")
    inside = out[out.index("<math") : out.rindex("</math>")]
    assert not set("*|_`") & set(re.sub(r"<[^>]*>", "", inside)), inside


def test_tex_the_converter_rejects_is_shown_as_written():
    assert mathml.render_math(r"a $x^$ b") == r"a $x^$ b"


def test_every_formula_in_the_course_converts():
    """All the notebooks' markdown math converts, and nbconvert's markdown renderer keeps every formula."""
    count = 0
    for name in paths.notebook_names():
        for cell in nbformat.read(paths.source_notebook(name), as_version=4).cells:
            if cell.cell_type == "markdown" and not answers.is_written(cell):
                spans = sum(1 for m in mathml._SPANS.finditer(cell.source) if m["block"] or m["inline"])
                out = mathml.render_math(cell.source)
                assert out.count("<math") == spans, (name, cell.source[:80])
                page = markdown2html_mistune(out)  # as the feedback page renders it: headings too
                assert page.count("<math") == spans and "ns0:" not in page, (name, cell.source[:80])
                count += spans
    assert count > 500, count


def test_sanitize_renders_the_course_text_and_leaves_written_answers_as_text():
    nb = nbformat.read(paths.source_notebook("03_multi_head_attention"), as_version=4)
    written = next(c for c in nb.cells if answers.is_written(c))
    written.source = r"my answer: $\sqrt{d}$ <b>bold</b>"
    result = NotebookResult(student_id="s", notebook="03_multi_head_attention", status="graded")
    out = feedback.sanitize(nb, result)
    cell = next(c for c in out.cells if answers.is_written(c))
    assert "<math" not in cell.source and "<b>" not in cell.source
    assert any("<math" in c.source for c in out.cells if c.cell_type == "markdown")


def test_a_learners_url_in_a_message_is_no_link():
    """Red team: mistune's url plugin made a bare https://... in a test's message an <a href>."""
    text = "confirm at https://INJECTED.example/login and www.x.example <https://y.example> [a](https://z.example)"
    page = markdown2html_mistune(feedback.md_text(text))
    assert "<a" not in page and "INJECTED.example/login" in page.replace("&#58;", ":"), page
