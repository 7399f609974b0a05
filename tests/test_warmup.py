"""The fork server's optimizer warm-up is asked for only when the submissions' names show a notebook that trains."""

from __future__ import annotations

from pathlib import Path

from autograder.kernel import preload
from autograder.run import warmup

NB01, NB02, NB08 = "01_scaled_dot_product_attention", "02_masks", "08_efficient_attention"  # 01 and 08 train nothing


def _folder(tmp: Path, files: list[str]) -> Path:
    for rel in files:
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp / rel).write_text("{}")
    return tmp


def test_training_notebooks_are_those_that_build_an_optimizer():
    trains = warmup.training_notebooks()
    assert NB02 in trains and "09_language_model" in trains
    assert NB01 not in trains and NB08 not in trains


def test_a_run_of_notebooks_that_train_nothing_skips_the_warm_up(tmp_path):
    assert not warmup.run_trains(_folder(tmp_path, [f"ada/{NB01}.ipynb", f"ben/{NB08}.ipynb", "ben/notes.txt"]))


def test_one_notebook_that_trains_asks_for_it(tmp_path):
    assert warmup.run_trains(_folder(tmp_path, [f"ada/{NB01}.ipynb", f"cy/{NB02}.ipynb"]))


def test_an_lms_download_of_flat_files_is_read_by_name(tmp_path):
    assert warmup.run_trains(_folder(tmp_path, [f"ada_123_456_{NB02}.ipynb"]))
    assert not warmup.run_trains(_folder(tmp_path / "b", [f"ada_123_456_{NB01}.ipynb"]))


def test_names_that_say_nothing_count_as_training(tmp_path):
    assert warmup.run_trains(_folder(tmp_path, ["ada/submission.zip"]))
    assert warmup.run_trains(tmp_path / "missing")


def test_a_linked_folder_is_not_followed(tmp_path):
    elsewhere = _folder(tmp_path / "elsewhere", [f"x/{NB02}.ipynb"])
    subs = _folder(tmp_path / "subs", [f"ada/{NB01}.ipynb"])
    (subs / "link").symlink_to(elsewhere / "x")
    assert not warmup.run_trains(subs)


def test_the_server_command_carries_the_request(tmp_path):
    plain = preload.server_command(tmp_path, tmp_path, tmp_path)
    warm = preload.server_command(tmp_path, tmp_path, tmp_path, optimizers=True)
    assert warm == [*plain, "optimizers"]
    assert 'OPTIMIZERS = "optimizers"' in preload.SERVER.read_text()  # the word the server reads (shipped: no import)
