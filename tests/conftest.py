"""Shared fixtures: one headless OpenGL context for the whole session; the demo's ragdoll document and
simulation (Qt-free state) for the ragdoll tests; the ragdoll check's trial cut short (short_trial)."""

from __future__ import annotations

import pytest

from app import loading
from app.resources import demo_paths
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.simulation import Simulation
from tests.helpers import shorten_trial


@pytest.fixture(autouse=True)
def user_folders(tmp_path_factory, monkeypatch):
    """Each test's own user data and config folders: the window's settings, saved profiles and what
    earlier versions left in Qt's folders never touch the real home (app/user_files.py)."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    return home


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


@pytest.fixture(scope="session")
def demo():
    return loading.load(demo_paths())


@pytest.fixture(scope="session")
def profile(demo):
    """The demo's automatic ragdoll profile, shared: tests that edit a profile copy it first."""
    from app.physics.autosetup import auto_setup

    return auto_setup(demo)


@pytest.fixture
def doc(demo, tmp_path):
    """The demo's ragdoll document, its data folder a temporary one; it never writes beside the demo."""
    document = RagdollDocument(tmp_path, builtin_files=tuple(demo_paths()))
    document.set_model(demo)
    document.path = None
    return document


@pytest.fixture
def short_trial(monkeypatch):
    """The ragdoll check's trial cut short for the test (``helpers.shorten_trial``); its step count."""
    return shorten_trial(monkeypatch)


@pytest.fixture
def sim(doc):
    simulation = Simulation(doc)
    yield simulation
    simulation.close()


def pytest_collection_modifyitems(config, items):
    """Run the Qt window tests first: with Mesa, creating Qt's GLX context after a headless EGL
    context already exists in the process aborts, while the other order works."""
    items.sort(key=lambda item: item.get_closest_marker("gui") is None)
