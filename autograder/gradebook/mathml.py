"""Math in the feedback page, rendered before the page is written: TeX in markdown → MathML.

The page may run no script (its Content-Security-Policy), so MathJax cannot typeset it;
browsers render MathML themselves. Only the course's own markdown is converted (a graded
notebook is the source plus the learner's answer cells, and written answers are shown as
escaped text), and the converter's output is rebuilt from an allow-list of MathML elements
and attributes all the same, so no markup other than math can come out of it (no xmlns:
an HTML page puts <math> in the MathML namespace itself).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from latex2mathml.converter import convert

# Code first, so a dollar inside a code span or block is left as it is; \$ is a dollar.
_SPANS = re.compile(
    r"(?P<code>```.*?```|~~~.*?~~~|`[^`\n]*`)"
    r"|(?P<escaped>\\\$)"
    r"|\$\$(?P<block>.+?)\$\$"
    r"|\$(?P<inline>[^$\s](?:[^$\n]*[^$\s])?)\$",
    re.S,
)

ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt mroot mover munder"
    " munderover mtable mtr mtd mstyle mpadded mphantom menclose merror semantics annotation".split()
)
ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence separator form lspace rspace largeop movablelimits"
    " accent accentunder linethickness width height depth linebreak columnalign rowspacing"
    " columnspacing columnlines displaystyle scriptlevel symmetric minsize maxsize notation".split()
)


class _Rebuild(HTMLParser):
    """Re-emits allowed MathML elements and attributes; text escaped, everything else dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]], close: str = ">") -> None:
        if tag in ELEMENTS:
            kept = "".join(f' {k}="{_entities(v or "")}"' for k, v in attrs if k in ATTRIBUTES)
            self.out.append(f"<{tag}{kept}{close}")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs, close=" />")

    def handle_endtag(self, tag: str) -> None:
        if tag in ELEMENTS:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        self.out.append(_entities(data))


# The markdown renderer still reads the text between tags: characters it would take for
# emphasis, code, links, math or a table's column are written as character references.
_MARKDOWN = {ord(c): f"&#{ord(c)};" for c in "\\`*_{}[]()!|~$+-#<>&\"'"}


def _entities(text: str) -> str:
    return text.translate(_MARKDOWN)


def safe_mathml(markup: str) -> str:
    """The converter's MathML with only allow-listed elements and attributes, text escaped."""
    parser = _Rebuild()
    parser.feed(markup)
    parser.close()
    return "".join(parser.out)


def _render(match: re.Match) -> str:
    if match["code"] or match["escaped"]:
        return match[0]
    display = "block" if match["block"] is not None else "inline"
    try:
        return safe_mathml(convert(match["block"] or match["inline"], display=display))
    except Exception:  # TeX the converter does not know: shown as written, as before
        return match[0]


def render_math(markdown: str) -> str:
    """Markdown with each $…$ and $$…$$ outside code replaced by its MathML."""
    return _SPANS.sub(_render, markdown)
