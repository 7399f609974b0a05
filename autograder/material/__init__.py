"""The course material as notebooks: drafts, answer cells, what each notebook asks, Colab links."""
