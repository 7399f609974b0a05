"""simindex: the similarity report's candidate pairs, found through an inverted index of shapes.

Only a candidate is compared in full (similarity.compare, the one scoring function); any other
pair provably scores below the threshold. The bound, from the score's definition:

A pair's score is sum(mine) / sum(m) over the cells both answered, where m is the smaller side's
own code (codeshape's `counted`) and `mine` the nodes of the smaller side inside a subtree of
MIN_NODES or more whose shape the other side holds (`codeshape.covered`). Give every node of
MIN_NODES or more (a "token": its shape hash) the weight 1 + the sizes of its children smaller
than MIN_NODES: every node `covered` counts lies under exactly one lowest such node, and when a
covered subtree's shape is in the other side, so is every subtree inside it. So `mine` is at most
U, the weight of the smaller side's tokens found in the other side's subtrees. A ratio of sums at
or over t has one term at or over t: some cell where U >= t * m. Order a cell's tokens rarest
first and cut it after the shortest prefix whose rest weighs less than t * m: a side whose
prefix shares no token with the other has U < t * m. So probing the index with each side's
prefix, against the sides at least as large in that cell, finds every pair over t.

Before a candidate is compared in full, the same bound summed over all its cells (each cell's U
against its m) must reach t. Shapes of code held by many (the reference's, the notebook's
idioms) sort last, so a class of answers written apart costs about linear time. Hash values are
cut to 64 bits here: a collision can only add a candidate, never hide one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from autograder.run import codeshape

SLACK = 1e-9  # bounds are met with this margin: float rounding never turns a pair over t into one under it


@dataclass(frozen=True)
class CellPrint:
    """One answer cell as the index sees it: its own code, its weighted tokens, and every big subtree's shape."""

    counted: int
    tokens: dict[int, int]  # token (64-bit shape hash) -> weight
    big: frozenset[int]


def _h(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "little")


def cell_print(shape: codeshape.Shape) -> CellPrint:
    """A shape's tokens: each node of MIN_NODES or more the learner's code reaches, weighted as the docstring says."""
    tokens: dict[int, int] = {}
    stack = list(shape.roots)
    while stack:
        i = stack.pop()
        kids = shape.children[i]
        if shape.sizes[i] >= codeshape.MIN_NODES:
            small = sum(shape.sizes[k] for k in kids if shape.sizes[k] < codeshape.MIN_NODES)
            h = _h(shape.hashes[i])
            tokens[h] = tokens.get(h, 0) + 1 + small
        stack += [k for k in kids if shape.sizes[k] >= codeshape.MIN_NODES]
    return CellPrint(shape.counted, tokens, frozenset(_h(h) for h in shape.big()))


def shared_weight(mine: CellPrint, other: CellPrint) -> int:
    """U: the weight of `mine`'s tokens whose shape `other` holds (at least the nodes `covered` counts)."""
    return sum(w for h, w in mine.tokens.items() if h in other.big)


def bound(a: dict[str, CellPrint], b: dict[str, CellPrint]) -> float:
    """The highest score the pair can have (similarity.compare never scores it higher)."""
    top, total = 0, 0
    for cell in a.keys() & b.keys():
        x, y = a[cell], b[cell]
        m = min(x.counted, y.counted)
        if x.counted != y.counted:
            u = shared_weight(x, y) if x.counted < y.counted else shared_weight(y, x)
        else:  # a tie: either side is the one compare reads
            u = max(shared_weight(x, y), shared_weight(y, x))
        top += min(m, u)
        total += m
    return top / total if total else 0.0


def prefix(cell: CellPrint, frequency: dict[int, int], threshold: float) -> list[int]:
    """The rarest tokens, until the rest weighs less than threshold * the cell's own code."""
    rest, out = sum(cell.tokens.values()), []
    for h in sorted(cell.tokens, key=lambda h: (frequency.get(h, 0), h)):
        if rest < threshold * cell.counted * (1 - SLACK):
            break
        out.append(h)
        rest -= cell.tokens[h]
    return out


class Index:
    """Per answer cell: each big subtree's shape -> the documents that hold it."""

    def __init__(self, prints: list[dict[str, CellPrint]]) -> None:
        self.prints = prints
        self.postings: dict[str, dict[int, list[int]]] = {}
        for i, doc in enumerate(prints):
            for cell, cp in doc.items():
                postings = self.postings.setdefault(cell, {})
                for h in cp.big:
                    postings.setdefault(h, []).append(i)

    def probe(self, i: int, threshold: float) -> set[int]:
        """Documents that may share t of document i's code in some cell where i is the smaller side."""
        found: set[int] = set()
        for cell, cp in self.prints[i].items():
            postings = self.postings[cell]
            frequency = {h: len(postings.get(h, ())) for h in cp.tokens}
            for h in prefix(cp, frequency, threshold):
                found.update(j for j in postings.get(h, ()) if self.prints[j][cell].counted >= cp.counted)
        found.discard(i)
        return found


def candidates(prints: list[dict[str, CellPrint]], wanted: list[bool], threshold: float) -> Iterator[tuple[int, int]]:
    """Pairs (i < j), one side at least wanted, whose bound reaches `threshold`: each once."""
    index, seen = Index(prints), set()
    for i in range(len(prints)):
        for j in sorted(index.probe(i, threshold)):
            pair = (min(i, j), max(i, j))
            if (wanted[i] or wanted[j]) and pair not in seen and bound(prints[i], prints[j]) >= threshold * (1 - SLACK):
                seen.add(pair)  # a pair both sides' probes find: compared once
                yield pair
