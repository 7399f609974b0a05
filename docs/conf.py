"""Sphinx configuration: the documentation site, built offline (python -m autograder docs)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent / "_ext")]

import autograder  # noqa: E402

project = "Attention & Transformers workbook"
author = "the workbook's authors"
copyright = "the workbook's authors, MIT licence"
version = release = autograder.__version__

extensions = ["myst_nb", "workbook_docs"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 4
nb_execution_mode = "off"  # the book shows the student notebooks as released: nothing is run
book_notebooks = str(ROOT / "notebooks")
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

html_theme = "alabaster"  # ships with Sphinx: nothing downloaded
html_math_renderer = "mathml"  # TeX to MathML at build time (workbook_docs): no MathJax, no network
html_title = f"{project} {release}"
html_theme_options = {
    "description": f"version {release}",
    "fixed_sidebar": True,
    "show_relbars": True,
    "sidebar_includehidden": False,  # index.md's hidden catch-all toctree (every page) stays out of the sidebar
}
html_sidebars = {"**": ["about.html", "searchfield.html", "navigation.html"]}
html_static_path: list[str] = []
