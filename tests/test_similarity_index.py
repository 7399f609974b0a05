"""The indexed similarity report against the full pairwise comparison: the same pairs, the same scores."""

from __future__ import annotations

import copy

import pytest

from autograder.run import similarity, simindex
from benchmarks.similarity_scale import make_class

NOTEBOOKS = ["01_scaled_dot_product_attention", "02_masks"]  # the quickest to shape: the test stays short


def _key(p: similarity.Pair) -> tuple:
    return p.a.notebook, p.a.owner, p.b.owner, p.score, p.nodes, p.short, p.flagged_at


@pytest.fixture(scope="module")
def both():
    """A class of 200 learners with planted copies and an earlier year of 40: full comparison and indexed."""
    docs, planted = make_class(200, 40, seed=7, notebooks=NOTEBOOKS)
    full = similarity.pairs(copy.deepcopy(docs))
    return full, similarity.compare_all(docs), planted


@pytest.mark.slow  # about 15 s of CPU: the full comparison of 241 x 2 notebooks
def test_the_index_finds_every_pair_over_the_threshold_with_the_same_score(both):
    full, report, planted = both
    t = similarity.THRESHOLD
    over = sorted(_key(p) for p in full if p.score >= t)
    assert over and sorted(_key(p) for p in report.pairs if p.score >= t) == over
    assert sorted(map(_key, report.flagged)) == sorted(_key(p) for p in full if p.flagged_at >= t)
    scores = {(p.a.notebook, p.a.owner, p.b.owner): p.score for p in full}
    assert all(scores[(p.a.notebook, p.a.owner, p.b.owner)] == p.score for p in report.pairs)  # below t too
    assert report.compared < len(full) / 20, (report.compared, len(full))  # candidates, not every pair


@pytest.mark.slow  # about 15 s of CPU: the full comparison of 241 x 2 notebooks
def test_every_planted_copy_is_flagged_by_both(both):
    full, report, planted = both
    assert len(planted) >= 5 and any(source.startswith("earlier:") for source in planted.values())
    for found in (report.flagged, [p for p in full if p.flagged_at >= similarity.THRESHOLD]):
        pairs = {(p.a.notebook, *sorted((p.a.owner, p.b.owner))) for p in found}
        assert all((nb, *sorted((copier, source))) in pairs for (copier, nb), source in planted.items())


@pytest.mark.slow  # about 15 s of CPU: the full comparison of 241 x 2 notebooks
def test_the_marks_agree_for_every_flagged_learner(both):
    full, report, _ = both
    t = similarity.THRESHOLD
    marks, indexed = similarity.flags(full, t), similarity.flags(report.pairs, t)
    flagged = {k: m for k, m in marks.items() if m["flagged"]}
    assert flagged and {k: m for k, m in indexed.items() if m["flagged"]} == flagged


@pytest.mark.slow  # about 15 s of CPU: the full comparison of 241 x 2 notebooks
def test_the_bound_is_never_below_the_score(both):
    """The index's bound, for every pair the full comparison scored (the proof's one inequality, measured)."""
    full, _, _ = both
    stubs = {nb: similarity.boilerplate(nb) for nb in NOTEBOOKS}
    prints: dict[str, dict] = {}
    for p in full[:3000]:
        for d in (p.a, p.b):
            if d.owner + d.notebook not in prints:
                shaped = similarity.fingerprint(similarity.Doc(d.owner, d.notebook, d.cells), stubs[d.notebook])
                prints[d.owner + d.notebook] = {c: simindex.cell_print(s) for c, s in shaped.prints.items()}
        a, b = prints[p.a.owner + p.a.notebook], prints[p.b.owner + p.b.notebook]
        assert simindex.bound(a, b) >= p.score - 1e-12, (p.a.owner, p.b.owner, p.score)


def test_a_cell_copied_alone_is_found_by_the_probe_of_its_smaller_side():
    """The prefix filter alone (no bound): a copied cell makes its pair a candidate, an own answer does not."""
    from benchmarks.disguise import disguise

    notebook = NOTEBOOKS[0]
    stubs = similarity.boilerplate(notebook)
    ref = similarity.reference_doc(notebook)
    docs = [ref, similarity.Doc("run:c", notebook, {"sdpa": disguise(ref.cells["sdpa"], ("rename", "reorder"), 3)})]
    prints = []
    for d in docs:
        shaped = similarity.fingerprint(d, stubs)
        prints.append({c: simindex.cell_print(s) for c, s in shaped.prints.items()})
    cp = prints[1]["sdpa"]
    assert cp.tokens and sum(cp.tokens.values()) <= cp.counted  # weights: at most the cell's own code
    index = simindex.Index(prints)
    small = min((0, 1), key=lambda i: prints[i]["sdpa"].counted)
    assert index.probe(small, similarity.THRESHOLD) == {1 - small}
    assert list(simindex.candidates(prints, [False, True], similarity.THRESHOLD)) == [(0, 1)]
    assert list(simindex.candidates(prints, [False, False], similarity.THRESHOLD)) == []  # no learner of the run
