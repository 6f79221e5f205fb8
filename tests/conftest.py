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


def pytest_collection_modifyitems(config, items):
    """Run the Qt window tests first: with Mesa, creating Qt's GLX context after a headless EGL
    context already exists in the process aborts, while the other order works."""
    items.sort(key=lambda item: item.get_closest_marker("gui") is None)
