"""LMS bulk downloads as each platform names them, read by the real intake (and one real grade run).

Each layout is built by the platform's own naming rule, as its source documents it:
Canvas's ContentZipper (lib/content_zipper.rb: sortable name, lower case, non-word characters
dropped; `_LATE`; user id; attachment id; display name, `-1` for a re-upload), Moodle's
assign download (mod/assign/locallib.php: full name with `_` as spaces, participant id,
`assignsubmission_file_`), Blackboard's Assignment File Download
(`<assignment>_<username>_attempt_<date>_<file>` and its .txt receipt) and a browser's
`name (1).ipynb`.
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from conftest import grade_options
from support import make_submission

from autograder import paths
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.run import grade
from autograder.submissions import intake, roster

NB01 = "01_scaled_dot_product_attention"
NB02 = "02_masks"
KNOWN = {
    n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4))) for n in paths.notebook_names()
}
ROSTER = (
    "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,blackboard_id,section\n"
    "fay,Fay Lovelace,fay@example.edu,1234,S001,flovelace,88,flovelace,A\n"
    "bo,Bo Chen,bo@example.edu,1240,S002,bchen,89,bchen,B\n"
)


def _nb(name: str, marker: str = "") -> bytes:
    nb = make_submission(name, None)
    nb.metadata["marker"] = marker  # tells copies apart
    return nbformat.writes(nb).encode()


def canvas_name(sortable: str, user_id: int, attachment_id: int, display: str, late: bool = False) -> str:
    """Canvas's ContentZipper: get_filename + '_' + attachment id + '_' + display name."""
    user = re.sub(r"_(\d+)_", r"\1", sortable).lower()
    base = re.sub(r"[^\w]", "", "_".join(p for p in (user, "LATE" if late else None, str(user_id)) if p))
    return f"{base}_{attachment_id}_{display}"


def moodle_folder(fullname: str, participant: int) -> str:
    """Moodle's download_submissions with folders: clean_filename(name with _ as spaces + '_' + id) + plugin."""
    return f"{fullname.replace('_', ' ')}_{participant}_assignsubmission_file_"


def blackboard_name(assignment: str, username: str, when: str, original: str | None) -> str:
    """Blackboard's Assignment File Download: the file, or (original None) its .txt receipt."""
    stem = f"{assignment}_{username}_attempt_{when}"
    return f"{stem}_{original}" if original else f"{stem}.txt"


def _by_key(items) -> dict:
    return {(i.student_id, i.notebook): i for i in items}


@pytest.fixture
def enrolled(tmp_path):
    (tmp_path / "roster.csv").write_text(ROSTER)
    return roster.load(tmp_path / "roster.csv")


def test_canvas_flat_files_late_marker_and_resubmission_suffix_keep_the_latest(tmp_path, enrolled):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / canvas_name("Lovelace, Fay", 1234, 567890, f"{NB01}.ipynb")).write_bytes(_nb(NB01, "first"))
    (subs / canvas_name("Lovelace, Fay", 1234, 567990, f"{NB01}-1.ipynb", late=True)).write_bytes(_nb(NB01, "again"))
    (subs / canvas_name("Chen, Bo", 1240, 567891, f"{NB02}.ipynb")).write_bytes(_nb(NB02, "bo"))
    (subs / canvas_name("Unlisted, Al", 1299, 567892, f"{NB01}.ipynb")).write_bytes(_nb(NB01, "al"))
    assert (subs / f"lovelacefay_LATE_1234_567990_{NB01}-1.ipynb").exists()  # the rule gives the names
    items = _by_key(intake.collect(subs, KNOWN, enrolled))
    fay = items[("fay", NB01)]
    assert isinstance(fay, intake.Submission) and fay.nb.metadata["marker"] == "again" and fay.late
    assert items[("bo", NB02)].nb.metadata["marker"] == "bo" and not items[("bo", NB02)].late
    assert isinstance(items[("unlistedal_1299", NB01)], intake.Submission)  # not in the roster: an id from the name
    assert len(items) == 3, sorted(items)


def test_canvas_anonymous_grading_names(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / f"LATE_anon_Xy12Z_567001_{NB01}.ipynb").write_bytes(_nb(NB01))
    [item] = intake.collect(subs, KNOWN)
    assert (item.student_id, item.notebook, item.late) == ("anon_Xy12Z", NB01, True)


def test_moodle_per_learner_folders_with_spaces_and_flat_files(tmp_path, enrolled):
    subs = tmp_path / "subs"
    (subs / moodle_folder("Fay Lovelace", 88)).mkdir(parents=True)
    (subs / moodle_folder("Fay Lovelace", 88) / f"{NB01}.ipynb").write_bytes(_nb(NB01, "fay"))
    (subs / moodle_folder("Fay Lovelace", 88) / f"{NB02} (1).ipynb").write_bytes(_nb(NB02, "fay2"))
    (subs / moodle_folder("Ana María_Núñez", 301)).mkdir()
    (subs / moodle_folder("Ana María_Núñez", 301) / f"{NB01}.ipynb").write_bytes(_nb(NB01, "ana"))
    (subs / f"Bo Chen_999_assignsubmission_file_{NB01}.ipynb").write_bytes(_nb(NB01, "bo"))  # no folders
    items = _by_key(intake.collect(subs, KNOWN, enrolled))
    assert items[("fay", NB01)].nb.metadata["marker"] == "fay"
    assert items[("fay", NB02)].nb.metadata["marker"] == "fay2"
    assert items[("ana_maria_nunez_301", NB01)].nb.metadata["marker"] == "ana"
    assert items[("bo", NB01)].nb.metadata["marker"] == "bo"  # found by name: the roster's moodle_id is 89
    assert len(items) == 4, sorted(items)


def test_blackboard_files_and_receipts_latest_attempt_with_its_time(tmp_path, enrolled):
    subs = tmp_path / "subs"
    subs.mkdir()
    for when, marker in (("2026-11-30-10-00-00", "first"), ("2026-12-01-09-30-00", "second")):
        (subs / blackboard_name("Attention 01", "flovelace", when, f"{NB01}.ipynb")).write_bytes(_nb(NB01, marker))
        (subs / blackboard_name("Attention 01", "flovelace", when, None)).write_text(
            f"Name: Fay Lovelace (flovelace)\nAssignment: Attention 01\nDate Submitted: {when}\n"
        )
    (subs / blackboard_name("Attention 01", "zed", "2026-11-29-08-00-00", f"{NB01}.ipynb")).write_bytes(_nb(NB01))
    items = _by_key(intake.collect(subs, KNOWN, enrolled))
    fay = items[("fay", NB01)]
    assert fay.nb.metadata["marker"] == "second" and fay.submitted == "2026-12-01T09:30:00"
    assert isinstance(items[("zed", NB01)], intake.Submission)
    assert len(items) == 2, sorted(items)


def test_a_blackboard_username_with_underscores_is_the_rosters_learner(tmp_path):
    """Assignment names and usernames may both hold '_': the roster's username decides the split."""
    (tmp_path / "roster.csv").write_text("id,name,blackboard_id\ncharles,Charles Babbage,c_babbage\n")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / blackboard_name("Home_work 1", "c_babbage", "2026-12-04-11-00-00", f"{NB01}.ipynb")).write_bytes(_nb(NB01))
    (subs / blackboard_name("Home_work 1", "c_other", "2026-12-04-11-00-00", f"{NB01}.ipynb")).write_bytes(_nb(NB01))
    items = _by_key(intake.collect(subs, KNOWN, roster.load(tmp_path / "roster.csv")))
    assert isinstance(items[("charles", NB01)], intake.Submission)
    assert ("other", NB01) in items and len(items) == 2, sorted(items)  # unknown: the part after the last '_'


def test_a_roster_that_is_not_utf8_is_refused_naming_its_line_and_the_fix(tmp_path):
    (tmp_path / "r.csv").write_bytes("id,name\nfay,Fay\njose,Jos\u00e9 N\u00fa\u00f1ez\n".encode("cp1252"))
    with pytest.raises(roster.RosterError, match=r"r\.csv:3: not UTF-8 \(byte 0xe9\); save it as 'CSV UTF-8'"):
        roster.load(tmp_path / "r.csv")


def test_browser_copies_in_a_learners_folder_grade_the_latest(tmp_path):
    folder = tmp_path / "subs" / "ann"
    folder.mkdir(parents=True)
    (folder / f"{NB01}.ipynb").write_bytes(_nb(NB01, "0"))
    (folder / f"{NB01} (1).ipynb").write_bytes(_nb(NB01, "1"))
    (folder / f"{NB01} (2).ipynb").write_bytes(_nb(NB01, "2"))
    (folder / f"{NB02} (1).ipynb").write_bytes(_nb(NB02, "only"))
    items = _by_key(intake.collect(tmp_path / "subs", KNOWN))
    assert items[("ann", NB01)].nb.metadata["marker"] == "2"
    assert items[("ann", NB02)].nb.metadata["marker"] == "only"
    said = items[("ann", f"{NB01}{intake.DUPLICATE}")].errors[0]
    assert said.endswith(f"{NB01} (2).ipynb was graded"), said  # the copy graded is the one named


def test_colabs_copy_of_a_notebook_is_that_notebook(tmp_path):
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "subs" / "ann" / f"Copy of {NB01}.ipynb").write_bytes(_nb(NB01, "colab"))
    (tmp_path / "subs" / "ann" / f"Copy of Copy of {NB02} (1).ipynb").write_bytes(_nb(NB02, "colab twice"))
    items = _by_key(intake.collect(tmp_path / "subs", KNOWN))
    assert items[("ann", NB01)].nb.metadata["marker"] == "colab"
    assert items[("ann", NB02)].nb.metadata["marker"] == "colab twice" and len(items) == 2, sorted(items)


def test_a_file_in_an_lms_download_that_is_no_course_notebook_is_a_row_with_the_reason(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / canvas_name("Lovelace, Fay", 1234, 1, "homework.ipynb")).write_bytes(_nb(NB01))
    [item] = intake.collect(subs, KNOWN)
    assert item.status == "rejected" and "unexpected file 'homework.ipynb'" in item.errors[0]


def test_a_roster_with_a_bad_or_repeated_id_is_refused(tmp_path):
    (tmp_path / "r.csv").write_text("id,name\nfay,Fay\nFAY,Fay again\n")
    with pytest.raises(roster.RosterError, match=":3: student id 'FAY' is listed twice"):
        roster.load(tmp_path / "r.csv")
    (tmp_path / "r.csv").write_text("name\nFay\n")
    with pytest.raises(roster.RosterError, match="no 'id' column"):
        roster.load(tmp_path / "r.csv")


@pytest.mark.slow
def test_grade_reads_a_canvas_download_through_the_roster(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / canvas_name("Lovelace, Fay", 1234, 567890, f"{NB01}.ipynb", late=True)).write_bytes(_nb(NB01))
    (tmp_path / "roster.csv").write_text(ROSTER)
    opts = grade_options(
        submissions=subs,
        out=tmp_path / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
        roster=tmp_path / "roster.csv",
    )
    [result] = grade.grade(opts)
    assert (result.student_id, result.notebook, result.status) == ("fay", NB01, "graded")
    assert result.score == result.auto_max > 0  # every automatic point (written answers await a person)
    saved = json.loads((tmp_path / "out" / "results.json").read_text())["submissions"][0]
    assert saved["student_id"] == "fay"


def test_a_file_name_that_quotes_another_learners_prefix_stays_its_uploaders(tmp_path, enrolled):
    """The platform writes its prefix first; what follows is the learner's own file name, and
    may copy another learner's prefix (with a later attempt) to pass a file off as theirs."""
    subs = tmp_path / "subs"
    subs.mkdir()
    fay_bb = blackboard_name("Attention 01", "flovelace", "2026-11-30-10-00-00", f"{NB01}.ipynb")
    forged_bb = blackboard_name("Attention 01", "flovelace", "2026-12-09-10-00-00", f"{NB01}.ipynb")
    (subs / fay_bb).write_bytes(_nb(NB01, "fay's own"))
    (subs / blackboard_name("Attention 01", "bchen", "2026-12-01-10-00-00", forged_bb)).write_bytes(_nb(NB01, "bo's"))
    fay_cv = canvas_name("Lovelace, Fay", 1234, 567890, f"{NB02}.ipynb")
    (subs / fay_cv).write_bytes(_nb(NB02, "fay's own"))
    (
        subs / canvas_name("Chen, Bo", 1240, 567999, canvas_name("Lovelace, Fay", 1234, 999999, f"{NB02}.ipynb"))
    ).write_bytes(_nb(NB02, "bo's"))
    items = _by_key(intake.collect(subs, KNOWN, enrolled))
    assert items[("fay", NB01)].nb.metadata["marker"] == "fay's own"
    assert items[("fay", NB02)].nb.metadata["marker"] == "fay's own"
    bos = [i for (student, _), i in items.items() if student == "bo"]
    assert bos and all(i.status == "rejected" for i in bos), bos  # bo's, under his own id: named as no notebook


def test_a_moodle_learner_who_takes_an_enrolled_learners_name_does_not_replace_their_work(tmp_path, enrolled):
    """Red team: Moodle names are the learner's own profile text, and a name is looked up when the
    participant number is not the roster's. A learner (participant 555, not enrolled under that number)
    who names themselves "Fay Lovelace", or "Lovelace, Fay", and hands in a later-numbered copy
    ("(9)", "-3") must not be graded as fay in place of the file her own participant number names."""
    subs = tmp_path / "subs"
    (subs / moodle_folder("Fay Lovelace", 88)).mkdir(parents=True)
    (subs / moodle_folder("Fay Lovelace", 88) / f"{NB01}.ipynb").write_bytes(_nb(NB01, "fay's own"))
    (subs / moodle_folder("Fay Lovelace", 88) / f"{NB02}.ipynb").write_bytes(_nb(NB02, "fay's own"))
    (subs / moodle_folder("Fay Lovelace", 555)).mkdir()
    (subs / moodle_folder("Fay Lovelace", 555) / f"{NB01} (9).ipynb").write_bytes(_nb(NB01, "impostor"))
    (subs / f"Lovelace, Fay_556_assignsubmission_file_{NB02}-3.ipynb").write_bytes(_nb(NB02, "impostor"))
    items = _by_key(intake.collect(subs, KNOWN, enrolled))
    assert items[("fay", NB01)].nb.metadata["marker"] == "fay's own"
    assert items[("fay", NB02)].nb.metadata["marker"] == "fay's own"
