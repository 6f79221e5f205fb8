"""Shared fixtures: one headless OpenGL context for the whole session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def gl_context():
    """A standalone EGL OpenGL context (Mesa llvmpipe works); skips the test when none can be made."""
    moderngl = pytest.importorskip("moderngl")
    try:
        ctx = moderngl.create_standalone_context(require=330, backend="egl")
    except Exception as error:  # noqa: BLE001 - glcontext raises plain Exceptions
        pytest.skip(f"no headless OpenGL context: {error}")
    yield ctx
    ctx.release()
