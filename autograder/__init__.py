"""Attention & Transformers workbook: release, grade and check notebooks on top of nbgrader."""

import sys

__version__ = "0.1.0"

# jsonschema (which nbformat validates notebooks with) imports rfc3987_syntax where it is installed
# (jupyter-events pulls it in) to check the "iri" format, and that module compiles a Lark grammar
# at import: 1.1 s in every process of the grader (command, workers, shards) and of the tests.
# No schema the grader validates against uses the "iri" formats, so its processes go without:
# an import of it fails at once, which jsonschema expects (the check is then not registered).
if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
