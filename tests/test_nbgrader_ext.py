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


def test_gradebooks_of_one_database_share_an_engine_and_a_new_file_is_set_up(tmp_path, monkeypatch):
    """One engine per database URL (its compiled SQL kept); a gradebook whose file was removed is created anew."""
    from nbgrader import api

    from autograder.gradebook.course import alembic_head

    monkeypatch.setattr(api, "create_engine", api.create_engine)  # restored after the test
    monkeypatch.setattr(api, "get_alembic_version", alembic_head)  # as the course set-up does: no subprocess
    nbgrader_ext.one_engine_per_database()
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with api.Gradebook(url, "course") as gb:
        gb.add_student("ada")
        first = gb.engine
    with api.Gradebook(url, "course") as gb:
        assert gb.engine is first and [s.id for s in gb.students] == ["ada"]
    with api.Gradebook(f"sqlite:///{tmp_path / 'other.db'}", "course") as gb:
        assert gb.engine is not first and gb.students == []
    (tmp_path / "gradebook.db").unlink()
    with api.Gradebook(url, "course") as gb:
        assert gb.engine is first and gb.students == []
        gb.add_student("ben")
        assert [s.id for s in gb.students] == ["ben"]
