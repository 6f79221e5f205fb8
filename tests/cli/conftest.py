"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def forked_batch_workers(monkeypatch):
    """Batch workers forked from this process whatever threads it runs, for tests that patch what a
    worker does into this process (their patched actions take none of the locks a GL context's
    threads hold)."""
    from app.cli.batch import pool

    monkeypatch.setattr(pool, "start_method", lambda: "fork")
