"""Boneyard's tests and benchmarks. ``app`` is imported first for its BLAS thread setting."""

import app  # noqa: F401
