"""Fixtures for the physics tests."""

import pytest

from app.physics import trial


@pytest.fixture
def short_trial(monkeypatch):
    """The standard trial (``ragdoll --check``) cut to about a second of simulation in all (a quarter
    second of settling, two shots, a short pull, a quarter second after): for the tests of what the
    report says from the profile's own numbers (limits too small, mass ratios, rest poses and clips
    outside the limits, bones without a part), which the motion does not decide. The full trial's
    nine seconds stay with the tests of its verdict on motion (overshoot, penetration)."""
    for name, value in (("SETTLE_SECONDS", 0.25), ("SHOTS", 2), ("PULL_SECONDS", 0.25),
                        ("FINAL_SECONDS", 0.25)):
        monkeypatch.setattr(trial, name, value)
    return trial.trial_steps()
