"""nbgrader preprocessors this package adds to autograding."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor


class WarningsAreNotFailures(NbGraderPreprocessor):
    """Turn stderr streams into stdout so that only exceptions fail a test cell.

    Plain nbgrader gives zero to a test cell that wrote anything to stderr, so a PyTorch
    ``UserWarning`` would cost the learner its points. The text is kept, marked.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code":
            for output in cell.outputs:
                if output.output_type == "stream" and output.name == "stderr":
                    output.name = "stdout"
                    output.text = "".join(f"[stderr] {line}" for line in output.text.splitlines(True))
        return cell, resources
