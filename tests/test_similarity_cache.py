"""The similarity report's kept prints (simcache): the same report, each cell shaped once, carried by merge."""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil

import nbformat
import pytest
from test_shard import NB01, _fake_shard

from autograder import paths
from autograder.material import answers
from autograder.results_folder import ResultsFolder
from autograder.run import codeshape, simcache, similarity, simindex
from autograder.run import shard as sharding
from autograder.scale import merge
from benchmarks.disguise import disguise
from benchmarks.similarity_scale import make_class

NOTEBOOKS = ["01_scaled_dot_product_attention", "02_masks"]


def _key(p: similarity.Pair) -> tuple:
    return p.a.notebook, p.a.owner, p.b.owner, p.score, p.nodes, p.short


def _files(folder) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*.json")}


@pytest.fixture(scope="module")
def klass():
    docs, _ = make_class(30, 10, seed=3, notebooks=NOTEBOOKS)
    return docs, similarity.compare_all(copy.deepcopy(docs))


def test_a_report_from_kept_prints_is_the_report_shaped_afresh(klass, tmp_path):
    docs, fresh = klass
    cold = similarity.compare_all(copy.deepcopy(docs), kept=tmp_path)
    written = _files(tmp_path)
    assert sorted(written) and {p.split("/")[0] for p in written} == set(NOTEBOOKS)
    warm = similarity.compare_all(copy.deepcopy(docs), kept=tmp_path)
    assert _files(tmp_path) == written  # nothing left to shape: no file written
    assert fresh.flagged and sorted(map(_key, cold.pairs)) == sorted(map(_key, warm.pairs)) == sorted(
        map(_key, fresh.pairs)
    )
    assert cold.compared == warm.compared == fresh.compared


def test_a_kept_print_is_the_print_shaping_gives(klass, tmp_path):
    docs, _ = klass
    similarity.compare_all(copy.deepcopy(docs), kept=tmp_path)
    checked = 0
    for notebook in NOTEBOOKS:
        stubs = similarity.boilerplate(notebook)
        store = similarity._store(tmp_path, notebook)
        for doc in [d for d in docs if d.notebook == notebook][:25]:
            for cell, code in similarity.shaped_cells(doc, stubs).items():
                shaped = codeshape.shape(code, stubs.cells[cell], stubs.imported)
                kept = store.get(simcache.key(cell, code))
                assert kept is not None, (doc.owner, cell)
                if shaped and shaped.counted:
                    assert kept == simindex.cell_print(shaped), (doc.owner, cell)
                    checked += 1
                else:
                    assert kept.counted == 0
    assert checked > 60


def test_a_changed_answer_is_shaped_again_and_an_unreadable_file_ignored(klass, tmp_path):
    docs, fresh = klass
    similarity.compare_all(copy.deepcopy(docs), kept=tmp_path)
    before = _files(tmp_path)
    changed = copy.deepcopy(docs)
    doc = next(d for d in changed if d.owner.startswith("run:") and d.notebook == NOTEBOOKS[0] and d.cells)
    cell = next(iter(doc.cells))
    doc.cells[cell] += "\nextra = [len(range(n)) for n in range(3) if n % 2]\n"
    (damaged,) = tmp_path.glob(f"{NOTEBOOKS[1]}/*/*.json")
    damaged.write_text("{not json")  # its cells are shaped again, and written again under the same name
    report = similarity.compare_all(changed, kept=tmp_path)
    added = sorted(set(_files(tmp_path)) - set(before))
    assert len(added) == 1 and added[0].startswith(NOTEBOOKS[0]), added  # the changed cell's, alone
    one = json.loads((tmp_path / added[0]).read_text())
    code = similarity.shaped_cells(doc, similarity.boilerplate(doc.notebook))[cell]
    assert list(one["cells"]) == [simcache.key(cell, code)]
    assert json.loads(damaged.read_text())["cells"]  # whole again
    assert sorted(map(_key, report.pairs)) == sorted(map(_key, similarity.compare_all(copy.deepcopy(changed)).pairs))


def test_the_version_is_all_a_print_depends_on_but_the_code():
    stubs = similarity.boilerplate(NOTEBOOKS[0])
    base = simcache.version(stubs.cells, stubs.imported, similarity.CUT)
    cell = next(iter(stubs.cells))
    assert base == simcache.version(dict(stubs.cells), dict(stubs.imported), similarity.CUT)
    assert base != simcache.version(
        {**stubs.cells, cell: stubs.cells[cell] | {b"x" * 12}}, stubs.imported, similarity.CUT
    )
    assert base != simcache.version(stubs.cells, {**stubs.imported, "jnp": "jax.numpy"}, similarity.CUT)
    assert base != simcache.version(stubs.cells, stubs.imported, similarity.CUT + 1)
    assert simcache.key(cell, "x = 1") != simcache.key(cell + "_", "x = 1")


# --- shards: each shard's report keeps its prints, merge carries them and compares every shard --------


def _executed(folder, student: str, cells: dict[str, str]) -> None:
    """A graded submission's executed notebook in a shard: the student notebook with these answers."""
    nb = nbformat.read(paths.NOTEBOOKS / f"{NB01}.ipynb", as_version=4)
    for c in nb.cells:
        if answers.is_answer(c) and answers.grade_id(c) in cells:
            c.source = cells[answers.grade_id(c)]
    nbformat.write(nb, ResultsFolder(folder).executed_path(student, NB01))


def _rows(folder) -> list[dict]:
    return list(csv.DictReader(io.StringIO((folder / "similarity.csv").read_text())))


def test_merge_compares_every_shard_from_their_kept_prints_and_similarity_reruns(tmp_path):
    students = {s: similarity.notebook_doc(f"run:{s}", NB01, paths.DATA / "submissions" / s / f"{NB01}.ipynb")
                for s in ("ben", "cy", "dee")}  # fmt: skip
    copier = next(s for s in ("gil", "hal", "ivy", "jo") if sharding.shard_of(s, 3) != sharding.shard_of("dee", 3))
    cells = {s: d.cells for s, d in students.items()}
    cells[copier] = {c: disguise(code, ("rename", "reorder"), 5) for c, code in cells["dee"].items()}
    shards = []
    for k in (1, 2, 3):
        held = [s for s in cells if sharding.shard_of(s, 3) == k]
        shard = _fake_shard(tmp_path / f"s{k}", k, 3, held)
        for s in held:
            _executed(shard, s, cells[s])
        folder = ResultsFolder(shard)
        similarity.write(folder, folder.results(), jobs=1)  # what each shard's grade run does at its end
        shards.append(shard)
    alone = {r["b"] for shard in shards for r in _rows(shard) if r["flagged"] == "True"}
    assert f"run:{copier}" not in alone | {r["a"] for shard in shards for r in _rows(shard) if r["flagged"] == "True"}
    out = tmp_path / "merged"
    merge.merge([ResultsFolder(s) for s in shards], ResultsFolder(out), quiet=True)
    kept = {p.relative_to(out) for p in (out / ".shapes").rglob("*.json")}
    assert kept == {p.relative_to(s) for s in shards for p in (s / ".shapes").rglob("*.json")}  # nothing shaped again
    flagged = {frozenset((r["a"], r["b"])) for r in _rows(out) if r["flagged"] == "True"}
    assert frozenset((f"run:{copier}", "run:dee")) in flagged  # across shards
    earlier = tmp_path / "earlier" / "old1"
    earlier.mkdir(parents=True)
    shutil.copy(ResultsFolder(out).executed_path("cy", NB01), earlier / f"{NB01}.ipynb")
    assert similarity.main([str(out), "--earlier", str(tmp_path / "earlier"), "--jobs", "1"]) == 0  # no grading
    again = {frozenset((r["a"], r["b"])) for r in _rows(out) if r["flagged"] == "True"}
    assert again == flagged | {frozenset(("run:cy", "earlier:old1"))}
    marks = {s["student_id"]: s["similarity"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert marks["cy"]["flagged"] and marks["cy"]["with"] == ["earlier:old1"]
