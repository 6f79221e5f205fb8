"""The package list, found rather than written out (everything else is in pyproject.toml).

pyproject.toml cannot combine a package search with the two packages that come from the top-level
``shaders/`` and ``assets/`` folders (``app.shaders``, ``app.assets``: see its package-dir), so the
search is made here: every package under ``app/`` reaches the wheel without being listed.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["app", "app.*"]), "app.shaders", "app.assets"])
