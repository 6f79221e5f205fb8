"""Shared fixtures: one headless OpenGL context for the whole session; the demo's ragdoll document and
simulation (Qt-free state) for the ragdoll tests; the ragdoll check's trial cut short (short_trial)."""

from __future__ import annotations

import pytest

from app import loading
from app.resources import demo_paths
from app.state.ragdoll.document import RagdollDocument
from app.state.ragdoll.simulation import Simulation


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
    """The standard trial (``ragdoll --check``) cut to about a second of simulation in all (a quarter
    second of settling, two shots, a short pull, a quarter second after): for the tests of what the
    report says from the profile's own numbers (limits too small, mass ratios, rest poses and clips
    outside the limits, bones without a part) or of what surrounds the check, which the motion does
    not decide. The full trial's nine seconds stay with the tests of its verdict on motion (overshoot,
    penetration). Returns the short trial's step count."""
    from app.physics import trial

    for name, value in (("SETTLE_SECONDS", 0.25), ("SHOTS", 2), ("PULL_SECONDS", 0.25),
                        ("FINAL_SECONDS", 0.25)):
        monkeypatch.setattr(trial, name, value)
    return trial.trial_steps()


@pytest.fixture
def sim(doc):
    simulation = Simulation(doc)
    yield simulation
    simulation.close()


def pytest_collection_modifyitems(config, items):
    """Run the Qt window tests first: with Mesa, creating Qt's GLX context after a headless EGL
    context already exists in the process aborts, while the other order works."""
    items.sort(key=lambda item: item.get_closest_marker("gui") is None)
