"""The joint-kind table: each kind's limit fields and ranges, its angles on the multibody's axes and
its mirror rule, with the values written out by hand (docs/ragdoll.md)."""

import numpy as np
import pytest

from app.physics.joint_kinds import CONE_TWIST, HINGE, JOINT_KINDS, KINDS, LIMIT_NAMES
from app.physics.profile import Joint


def joint(kind, **limits) -> Joint:
    return Joint("j", "a", "b", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), kind=kind, **limits)


def test_the_kinds_and_their_fields():
    assert JOINT_KINDS == ("hinge", "cone_twist") and KINDS["hinge"] is HINGE
    assert HINGE.limit_names == ("low", "high") and HINGE.axes == (2,)
    assert CONE_TWIST.limit_names == ("swing1", "swing2", "twist") and CONE_TWIST.axes == (2, 1, 0)
    assert LIMIT_NAMES == ("low", "high", "swing1", "swing2", "twist")
    assert joint("hinge", low=-10.0, high=90.0, swing1=5.0).limits == {"low": -10.0, "high": 90.0}


def test_angle_ranges_on_the_multibody_axes():
    np.testing.assert_array_equal(HINGE.angle_ranges((-30.0, 120.0)), [[-30, 120], [0, 0], [0, 0]])
    np.testing.assert_array_equal(CONE_TWIST.angle_ranges((20.0, 30.0, 40.0)),
                                  [[-20, 20], [-30, 30], [-40, 40]])


@pytest.mark.parametrize("kind, limits, problem", [
    ("hinge", {"low": 10.0, "high": 5.0},
     (".limits", "-180 <= low <= high <= 180 degrees, got low 10.0, high 5.0")),
    ("hinge", {"low": -181.0, "high": 5.0},
     (".limits", "-180 <= low <= high <= 180 degrees, got low -181.0, high 5.0")),
    ("hinge", {"low": -180.0, "high": 180.0}, None),
    ("cone_twist", {"swing1": 30.0, "swing2": 86.0, "twist": 10.0},
     (".limits.swing2", "an angle from 0 to 85 degrees, got 86.0")),
    ("cone_twist", {"swing1": -1.0}, (".limits.swing1", "an angle from 0 to 180 degrees, got -1.0")),
    ("cone_twist", {"swing1": 180.0, "swing2": 85.0, "twist": float("nan")},
     (".limits.twist", "an angle from 0 to 180 degrees, got nan")),
    ("cone_twist", {"swing1": 180.0, "swing2": 85.0, "twist": 180.0}, None),
])
def test_limits_out_of_range_are_named(kind, limits, problem):
    assert KINDS[kind].problem(joint(kind, **limits)) == problem


def test_a_hinge_mirrors_its_limits_only_when_the_twins_axis_is_reversed():
    assert HINGE.mirrored({"low": -10.0, "high": 120.0}, axis_reversed=False) == {"low": -10.0, "high": 120.0}
    assert HINGE.mirrored({"low": -10.0, "high": 120.0}, axis_reversed=True) == {"low": -120.0, "high": 10.0}
    spans = {"swing1": 20.0, "swing2": 30.0, "twist": 40.0}
    assert CONE_TWIST.mirrored(spans, axis_reversed=True) == spans
