"""Claims in the notebooks' text match what the notebook prints, and no written question is answered by it.

A measured figure in markdown (a percentage, a duration, a speed-up) is a claim about the
notebook's own outputs: it must be printed by one of them (the same value to the digits the
text gives: 99.2% matches a printed 99.2% or 0.9920), or be a constant of the notebook's code
(top_p=0.9 makes "90%" a constant). Figures quoted from the literature, in a sentence that
cites its source (Author et al., Author 2020), and the situations that written questions
set are not claims about the outputs.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from conftest import NAMES
from test_content_rules import prose, source, student

from autograder.material import answers

NUMBER = r"(\d+(?:[.,]\d+)*)"
FIGURE = re.compile(NUMBER + r"\s?(%|×|x\b|\s?(?:s|ms|seconds?|minutes?|min)\b)")
CITATION = re.compile(r"et al\.|\b[A-Z][a-z]+,? (?:19|20)\d\d\b|\(\d{4}\)")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*(])|\n\s*\n|\n\s*[*-] ")
OUTPUT_NUMBER = re.compile(r"(?<![\w.])-?(\d+(?:\.\d+)?)(?:e-?\d+)?\s?(%|×|x\b)?")
MODEL_ANSWER = re.compile(r"\*\*Model answer\.\*\*(.*?)(?:\*\*Rubric|### END SOLUTION|$)", re.S)
KEY_PHRASE_WORDS = 6


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def outputs_text(nb) -> str:
    """Everything the notebook's code cells printed (streams and plain-text results)."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            parts.append(out.get("text", "") or out.get("data", {}).get("text/plain", ""))
    return "\n".join(str(p) for p in parts)


def printed_values(nb) -> tuple[set[float], set[float]]:
    """Printed percentages (and fractions in [0, 1] as percentages), and the other printed numbers."""
    percents, plain = set(), set()
    for m in OUTPUT_NUMBER.finditer(outputs_text(nb)):
        value = float(m.group(1))
        (percents if m.group(2) == "%" else plain).add(value)
        if m.group(2) is None and 0 <= value <= 1:
            percents.add(round(100 * value, 6))
    return percents, plain


def code_constants(nb) -> set[float]:
    """Numeric literals of the notebook's code cells, and their percentages."""
    found = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?(?:e-?\d+)?)(?![\w.])", cell.source):
                value = float(m.group(1))
                found |= {value, round(100 * value, 6)}
    return found


def question_cells(nb) -> set[int]:
    """Indices of the markdown cells that set a written question (the cell before each written answer)."""
    return {i - 1 for i, cell in enumerate(nb.cells) if answers.is_written(cell) and i > 0}


def unsupported_figures(nb) -> list[str]:
    """Figures in the markdown that no output prints and no constant of the code gives."""
    percents, plain = printed_values(nb)
    constants = code_constants(nb)
    skip = question_cells(nb) | {i for i, c in enumerate(nb.cells) if answers.is_written(c)}
    bad = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown" or index in skip:
            continue
        for sentence in SENTENCE.split(prose(cell.source)):
            if CITATION.search(sentence):
                continue
            for m in FIGURE.finditer(sentence):
                digits = m.group(1).replace(",", "")
                value, places = float(digits), decimals(digits)
                pool = percents if m.group(2) == "%" else plain
                if any(round(p, places) == value for p in pool) or value in constants:
                    continue
                bad.append(f"cell {index}: {m.group(0)!r} in {' '.join(sentence.split())[:100]!r}")
    return bad


@pytest.mark.parametrize("name", NAMES)
def test_every_measured_figure_in_the_text_is_printed(name):
    """Issue 33: a percentage or a measured figure in the text is printed by the notebook (or is a constant)."""
    assert unsupported_figures(source(name)) == []


def test_a_typed_figure_that_no_output_prints_is_found():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("p = dict(top_p=0.9)"),
        nbformat.v4.new_markdown_cell("The run reached 39.3% exact match in 12.5 s. Top-p keeps 90% of the mass."),
        nbformat.v4.new_markdown_cell("FlashAttention is up to 7.6× faster (Dao et al., 2022)."),
    ]
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="exact match 0.3930\n")]
    assert [b.split(" in ")[0] for b in unsupported_figures(nb)] == ["cell 1: '12.5 s'"]
    nb.cells[1].source = "The run reached 39.4% exact match."
    assert [b.split(" in ")[0] for b in unsupported_figures(nb)] == ["cell 1: '39.4%'"]


# -- no written question is answered by the learner's notebook ---------------------------------


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", prose(text).lower())


def key_phrases(model_answer: str) -> set[tuple[str, ...]]:
    """Every run of KEY_PHRASE_WORDS consecutive words of a model answer."""
    w = words(model_answer)
    return {tuple(w[i : i + KEY_PHRASE_WORDS]) for i in range(len(w) - KEY_PHRASE_WORDS + 1)}


def model_answers(nb) -> dict[str, str]:
    """Each written answer cell's model answer (its solution block), by grade id."""
    found = {}
    for cell in nb.cells:
        if answers.is_written(cell):
            m = MODEL_ANSWER.search(cell.source)
            found[answers.grade_id(cell)] = m.group(1) if m else cell.source
    return found


def answered_in_text(src, learner) -> dict[str, list[str]]:
    """Per written question, the model answer's key phrases found in the learner notebook's own text."""
    learner_cells = [c for c in learner.cells if not answers.is_written(c)]
    text = " ".join(words(" ".join(c.source for c in learner_cells) + " " + outputs_text(learner)))
    return {
        gid: sorted(" ".join(p) for p in key_phrases(answer) if f" {' '.join(p)} " in f" {text} ")
        for gid, answer in model_answers(src).items()
    }


@pytest.mark.parametrize("name", NAMES)
def test_no_written_question_is_answered_in_the_notebook(name):
    """Issue 33: no run of six words of a model answer appears in the learner's notebook (text, code, outputs)."""
    found = {gid: hits for gid, hits in answered_in_text(source(name), student(name)).items() if hits}
    assert found == {}, "model-answer phrases in the learner's notebook"


def test_every_notebook_asks_a_written_question():
    """Issue 33: each notebook has at least one written question, at least ten in all."""
    counts = {name: len(answers.written_ids(source(name))) for name in NAMES}
    assert all(counts.values()), counts
    assert sum(counts.values()) >= 10, counts
