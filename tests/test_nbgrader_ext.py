"""nbgrader's cell-metadata check, compiled once: the same verdicts and errors as nbgrader's own."""

from __future__ import annotations

import jsonschema
import nbformat
import pytest
from nbgrader.nbgraderformat import MetadataValidator, ValidationError, common

from autograder import paths
from autograder.gradebook import nbgrader_ext


def _verdict(nb) -> str:
    try:
        MetadataValidator().validate_nb(nb)
    except ValidationError as exc:
        return f"{type(exc).__name__}: {exc.message}"
    return "ok"


@pytest.mark.parametrize(
    "change",
    [
        None,
        lambda meta: meta.update(points="three"),
        lambda meta: meta.update(grade="yes"),
        lambda meta: meta.pop("grade_id"),
        lambda meta: meta.update(locked=None),
    ],
)
def test_the_verdict_and_message_are_nbgraders(change, monkeypatch):
    nb = nbformat.read(paths.source_notebook("01_scaled_dot_product_attention"), as_version=4)
    if change is not None:
        change(next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")).metadata.nbgrader)
    monkeypatch.setattr(common, "jsonschema", jsonschema)
    stock = _verdict(nbformat.from_dict(nb))
    nbgrader_ext.check_metadata_once()
    ours = _verdict(nbformat.from_dict(nb))
    assert ours == stock
    assert (stock == "ok") == (change is None)


def test_the_schema_is_checked_once_per_process(monkeypatch):
    monkeypatch.setattr(common, "jsonschema", jsonschema)  # nbgrader's own again after the test
    nbgrader_ext._validator.cache_clear()
    checked = []
    real = jsonschema.Draft4Validator.check_schema
    monkeypatch.setattr(
        jsonschema.Draft4Validator, "check_schema", classmethod(lambda cls, s: checked.append(1) or real(s))
    )
    monkeypatch.setattr(jsonschema.validators, "validator_for", lambda schema, default=None: jsonschema.Draft4Validator)
    nbgrader_ext.check_metadata_once()
    nb = nbformat.read(paths.source_notebook("01_scaled_dot_product_attention"), as_version=4)
    for _ in range(3):
        assert _verdict(nb) == "ok"
    assert checked == [1]
    nbgrader_ext._validator.cache_clear()
