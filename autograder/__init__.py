"""Attention & Transformers workbook: release, grade and check notebooks on top of nbgrader."""

__version__ = "0.1.0"
