"""Folders the tests read, named once: test modules sit in subfolders by what they test, so a path
worked out from a test file's own place would depend on how deep it sits."""

from pathlib import Path

#: The tests/ folder.
TESTS = Path(__file__).resolve().parent
#: The checkout's root (pyproject.toml, app/, shaders/).
ROOT = TESTS.parent
#: Real files from public sample repositories (tests/corpus/README.md).
CORPUS = TESTS / "corpus"
