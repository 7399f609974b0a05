"""The course key: where it lives, who can read it, and what refuses another key (nothing graded here)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import zipfile
from concurrent.futures import ThreadPoolExecutor

import pytest
from test_shard import _fake_shard, _refused

from autograder import paths
from autograder import results_folder as layout
from autograder.checks import coursekey
from autograder.results_folder import ResultsFolder
from autograder.run import grade
from autograder.run import shard as sharding
from autograder.scale import merge
from autograder.scale.gradescope import KEY_IN_ZIP, build_zip, learner_id


def test_a_key_is_made_once_private_and_read_back(tmp_path):
    path = tmp_path / "course" / "course.key"
    key = coursekey.load(path)
    assert len(key) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert coursekey.load(path) == key  # made once: every later run reads the same
    assert coursekey.fingerprint(key) == coursekey.fingerprint(coursekey.load(path))
    assert key.hex() not in coursekey.fingerprint(key) and len(coursekey.fingerprint(key)) == 16
    with pytest.raises(coursekey.CourseKeyError, match="no course key"):
        coursekey.load(tmp_path / "missing.key", create=False)


def test_a_key_others_can_read_or_a_damaged_one_is_refused(tmp_path):
    path = tmp_path / "k"
    coursekey.load(path)
    os.chmod(path, 0o644)
    with pytest.raises(coursekey.CourseKeyError, match="readable by others"):
        coursekey.load(path)
    os.chmod(path, 0o600)
    path.write_text("not hex\n")
    with pytest.raises(coursekey.CourseKeyError, match="not a course key"):
        coursekey.load(path)


def test_shards_starting_at_once_get_one_key(tmp_path):
    path = tmp_path / "shared.key"
    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: coursekey.load(path), range(32)))
    assert len(keys) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["shared.key"]  # no temporary file left behind


def test_where_the_key_is_looked_for(tmp_path, monkeypatch):
    monkeypatch.setenv(coursekey.KEY_ENV, str(tmp_path / "env.key"))
    assert coursekey.locate(tmp_path / "given.key") == tmp_path / "given.key"
    assert coursekey.locate(None) == tmp_path / "env.key" and coursekey.named()
    monkeypatch.delenv(coursekey.KEY_ENV)
    # one place per course, whatever the results folder: grade, gradescope, merge and replay share it
    assert coursekey.locate(None) == paths.ROOT / "build" / "course.key" == coursekey.DEFAULT_KEY
    assert not coursekey.named() and coursekey.named(tmp_path / "given.key")
    ignored = subprocess.run(["git", "check-ignore", "-q", "build/course.key"], cwd=paths.ROOT, check=False)
    assert ignored.returncode == 0, "the default key must never be committed"


def test_a_missing_key_is_named_where_it_is_never_made(tmp_path):
    with pytest.raises(coursekey.CourseKeyError) as info:
        coursekey.load(tmp_path / "nowhere.key", create=False)
    said = str(info.value)
    assert str(tmp_path / "nowhere.key") in said and "build/course.key" in said and coursekey.KEY_ENV in said


def test_a_key_that_cannot_be_made_names_the_place_and_the_way_out(tmp_path):
    (tmp_path / "build").write_text("a file where the folder would be")  # unwritable even for root
    with pytest.raises(coursekey.CourseKeyError) as info:
        coursekey.load(tmp_path / "build" / "course.key")
    said = str(info.value)
    assert "cannot make the course key" in said and "--key FILE" in said and coursekey.KEY_ENV in said


def test_a_results_folder_is_graded_with_one_key(tmp_path):
    one, two = coursekey.load(tmp_path / "one"), coursekey.load(tmp_path / "two")
    out = tmp_path / "R"
    coursekey.claim(ResultsFolder(out), one)
    coursekey.claim(ResultsFolder(out), one)  # a resume with the same key
    assert json.loads((out / "key.json").read_text()) == {"fingerprint": coursekey.fingerprint(one)}
    with pytest.raises(coursekey.CourseKeyError, match="graded with course key"):
        coursekey.claim(ResultsFolder(out), two)


def test_a_folder_graded_with_its_old_key_names_that_file(tmp_path):
    """A folder graded when RESULTS/.key was the default: the refusal says where its key is."""
    out = tmp_path / "R"
    old = coursekey.load(out / ".key")
    coursekey.claim(ResultsFolder(out), old, out / ".key")
    new = coursekey.load(tmp_path / "course.key")
    with pytest.raises(coursekey.CourseKeyError) as info:
        coursekey.claim(ResultsFolder(out), new, tmp_path / "course.key")
    said = str(info.value)
    assert f"not {coursekey.fingerprint(new)} (the key in {tmp_path / 'course.key'})" in said
    assert f"its key is {out / '.key'}, the old default" in said and f"--key {out / '.key'}" in said
    (out / ".key").unlink()  # no old key there: the refusal says what to give
    with pytest.raises(coursekey.CourseKeyError, match="give the key it was graded with"):
        coursekey.claim(ResultsFolder(out), new, tmp_path / "course.key")


def test_a_sharded_run_never_makes_the_default_key(tmp_path, monkeypatch):
    monkeypatch.delenv(coursekey.KEY_ENV)
    monkeypatch.setattr(coursekey, "DEFAULT_KEY", tmp_path / "build" / "course.key")
    opts = grade.Options(submissions=tmp_path, out=tmp_path / "R", shard=sharding.Shard(1, 2))
    with pytest.raises(coursekey.CourseKeyError, match="sharded run needs the course's one key and there is none at"):
        grade._course_key(opts)
    assert not (tmp_path / "build").exists()
    made = coursekey.load(coursekey.DEFAULT_KEY)  # the course's key, copied there: every shard uses it
    assert grade._course_key(opts) == made
    named = tmp_path / "named.key"  # a named file is made on first use when told --new-key (one for every shard)
    opts = grade.Options(submissions=tmp_path, out=tmp_path / "R2", shard=sharding.Shard(1, 2), key_file=named)
    with pytest.raises(coursekey.CourseKeyError, match="--new-key"):
        grade._course_key(opts)
    assert not named.exists()
    opts = grade.Options(
        submissions=tmp_path, out=tmp_path / "R3", shard=sharding.Shard(1, 2), key_file=named, new_key=True
    )
    assert grade._course_key(opts) == coursekey.load(opts.key_file) != made


def test_grade_without_a_named_key_uses_the_course_default(tmp_path, monkeypatch):
    monkeypatch.delenv(coursekey.KEY_ENV)
    monkeypatch.setattr(coursekey, "DEFAULT_KEY", tmp_path / "build" / "course.key")
    key = grade._course_key(grade.Options(submissions=tmp_path, out=tmp_path / "R"))
    assert key == coursekey.load(tmp_path / "build" / "course.key", create=False)
    assert not (tmp_path / "R" / ".key").exists()  # never a key per results folder


def test_merge_refuses_shards_graded_with_different_keys(tmp_path):
    out = tmp_path / "merged"
    shards = [_fake_shard(tmp_path / f"s{k}", k, 2) for k in (1, 2)]
    for folder, fp in zip(shards, ("a" * 16, "b" * 16), strict=True):
        record = json.loads((folder / layout.SHARD).read_text())
        (folder / layout.SHARD).write_text(json.dumps({**record, "key": fp}))
    _refused(shards, out, "different course keys")
    assert merge.main([str(f) for f in shards] + ["--out", str(out), "--quiet"]) == 2


def test_merge_refuses_shards_graded_with_another_key_than_the_courses(tmp_path, capsys):
    out, course = tmp_path / "merged", tmp_path / "course.key"
    shards = [_fake_shard(tmp_path / f"s{k}", k, 2) for k in (1, 2)]
    other = coursekey.fingerprint(coursekey.load(tmp_path / "other.key"))
    for folder in shards:
        record = json.loads((folder / layout.SHARD).read_text())
        (folder / layout.SHARD).write_text(json.dumps({**record, "key": other}))
    with pytest.raises(merge.MergeError, match="no course key there"):
        merge.check_key([ResultsFolder(f) for f in shards], course)  # never made by merge
    mine = coursekey.fingerprint(coursekey.load(course))
    with pytest.raises(merge.MergeError, match=f"graded with course key {other}, the course key in {course} is {mine}"):
        merge.check_key([ResultsFolder(f) for f in shards], course)
    assert merge.main([str(f) for f in shards] + ["--out", str(out), "--quiet", "--key", str(course)]) == 2
    assert "give --key FILE" in capsys.readouterr().err and not out.exists()
    merge.check_key([ResultsFolder(f) for f in shards], tmp_path / "other.key")  # the shards' own key: accepted


def test_shard_records_hold_the_fingerprint_never_the_key(tmp_path):
    key = coursekey.load(tmp_path / "k")
    sharding.record(ResultsFolder(tmp_path / "R"), sharding.Shard(1, 2), "digest", coursekey.fingerprint(key))
    text = (tmp_path / "R" / layout.SHARD).read_text()
    assert json.loads(text)["key"] == coursekey.fingerprint(key) and key.hex() not in text


def test_the_gradescope_zip_carries_the_key_private(tmp_path):
    key = coursekey.load(tmp_path / "k")
    with zipfile.ZipFile(build_zip(tmp_path / "autograder.zip", key=key)) as zf:
        info = zf.getinfo(KEY_IN_ZIP)
        assert zf.read(KEY_IN_ZIP).decode().strip() == key.hex()
        assert stat.S_IMODE(info.external_attr >> 16) == 0o600
        others = [n for n in zf.namelist() if n != KEY_IN_ZIP]
        assert not [n for n in others if key.hex().encode() in zf.read(n)]  # only there


def test_the_gradescope_harness_refuses_a_zip_without_a_key(tmp_path, monkeypatch):
    from autograder.scale import gradescope

    (tmp_path / "source").mkdir()
    monkeypatch.delenv(coursekey.KEY_ENV)  # as on Gradescope: the zip's key or none
    with pytest.raises(coursekey.CourseKeyError, match="carries no course key"):
        gradescope._key_file(tmp_path)
    assert gradescope.run_main(["--root", str(tmp_path)]) == 2
    (tmp_path / "source" / KEY_IN_ZIP).write_text(coursekey.load(tmp_path / "k").hex() + "\n")
    assert gradescope._key_file(tmp_path) == tmp_path / "source" / KEY_IN_ZIP
    assert stat.S_IMODE((tmp_path / "source" / KEY_IN_ZIP).stat().st_mode) == 0o600


def test_gradescope_draws_inputs_per_learner(tmp_path):
    assert learner_id(tmp_path) == ""  # no metadata: the submission's own name
    meta = {"users": [{"email": "b@x.org", "id": 72}, {"email": "a@x.org", "id": 13}], "id": 999}
    (tmp_path / "submission_metadata.json").write_text(json.dumps(meta))
    assert learner_id(tmp_path) == "gradescope:13+72"  # group members in one order, whoever submits
    (tmp_path / "submission_metadata.json").write_text("{not json")
    assert learner_id(tmp_path) == ""


def test_replay_refuses_what_it_cannot_reproduce(tmp_path, capsys):
    from autograder.commands import replay

    nb = "01_scaled_dot_product_attention"
    for args, said in (
        ([str(tmp_path), "ada", "99_nothing", "t"], "no notebook"),
        ([str(tmp_path), "ada", nb, "test_nothing"], "has no test 'test_nothing'"),
        ([str(tmp_path), "ada", nb, "test_mask", "--key", str(tmp_path / "none.key")], "no course key there"),
    ):
        assert replay.main(args) == 2
        assert said in capsys.readouterr().err
    key_file = tmp_path / "other.key"
    coursekey.claim(ResultsFolder(tmp_path), coursekey.load(tmp_path / "graded.key"))
    coursekey.load(key_file)
    assert replay.main([str(tmp_path), "ada", nb, "test_mask", "--key", str(key_file)]) == 2
    assert f"was graded with course key {coursekey.fingerprint(coursekey.load(tmp_path / 'graded.key'))}, not" in (
        said := capsys.readouterr().err
    )
    assert f"(the key in {key_file})" in said
    coursekey.load(tmp_path / "graded.key")
    assert replay.main([str(tmp_path), "ada", nb, "test_mask", "--key", str(tmp_path / "graded.key")]) == 2
    assert "holds no graded" in capsys.readouterr().err


def test_the_deploy_files_default_to_every_commands_key():
    """Issue 64 item 7: Slurm's and Kubernetes' jobs look for the key where grade, merge and replay do."""
    deploy, said = paths.ROOT / "deploy", {}
    for path in [*deploy.glob("slurm/*.sbatch"), *deploy.glob("kubernetes/*.yaml")]:
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.startswith("export AUTOGRADER_KEY_FILE="):
                said[path.name] = line
            elif "name: AUTOGRADER_KEY_FILE" in line:
                said[path.name] = lines[i + 1]  # the env entry's value
    assert set(said) == {"grade.sbatch", "merge.sbatch", "grade-job.yaml", "merge-job.yaml"}, said
    default = coursekey.DEFAULT_KEY.relative_to(paths.ROOT).as_posix()
    assert default == "build/course.key"
    for name, line in said.items():
        value = line.split(":-", 1)[-1] if name.endswith(".sbatch") else line.split("value:", 1)[1]
        assert value.split("#")[0].strip().rstrip("}").endswith(f"/{default}"), (name, line)


def test_no_page_gives_the_deploy_files_another_key_default():
    """Issue 64 item 7: the docs said the deploy files set `$RESULTS/course.key` after they had changed."""
    pages = [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").rglob("*.md")), *paths.ROOT.glob("deploy/**/*")]
    said = [p.name for p in pages if p.is_file() and re.search(r"\$\{?RESULTS\}?/course\.key", p.read_text())]
    assert not said, (
        f"these name $RESULTS/course.key as the key's place; every command's default is build/course.key: {said}"
    )
