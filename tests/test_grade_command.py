"""The grade command's refusals that come before any work: nothing is made in RESULTS."""

from __future__ import annotations

from autograder.run import grade


def test_a_submissions_folder_that_does_not_exist_is_refused_and_makes_no_results_folder(tmp_path, capsys):
    missing = tmp_path / "no-such-folder"
    code = grade.main([str(missing), "--out", str(tmp_path / "results"), "--unsafe", "--quiet"])
    assert code == 2
    assert f"ERROR: submissions folder {missing} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
