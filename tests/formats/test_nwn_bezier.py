"""NWN bezier keys: each row is ``time value in-tangent out-tangent``; the tangents are offsets of the
curve's control points from the key's value (docs/formats/nwn-ascii-mdl.md), so key k to k+1 is the
cubic Bezier through value_k, value_k + out_k, value_k+1 + in_k+1, value_k+1, its parameter linear
in time. Expected values are worked out here by hand from the Bernstein weights."""

from __future__ import annotations

import numpy as np
import pytest

from app import formats, loading
from app.pose import evaluate
from tests.formats.test_nwn_mdl import save
from tests.writers.nwn_writer import WAnimation, WNode, write_mdl

#: Bernstein weights at u = 1/2 and u = 1/4.
HALF = (0.125, 0.375, 0.375, 0.125)
QUARTER = (0.421875, 0.421875, 0.140625, 0.015625)

ASCII = """newmodel rig
setsupermodel rig NULL
beginmodelgeom rig
node dummy rig
  parent NULL
endnode
node dummy arm
  parent rig
  position 0 0 0
  orientation 0 0 0 0
endnode
endmodelgeom rig
newanim swing rig
  length 2
  node dummy rig
    parent NULL
  endnode
  node dummy arm
    parent rig
    positionbezierkey 2
      0 0 0 0  0 0 0  1 0 0
      2 3 0 0  0 1 0  0 0 0
    orientationbezierkey
      0 0 0 1 0  0 0 0 0  0 0 0 0.5235987755982988
      2 0 0 1 1.5707963267948966  0 0 0 -0.5235987755982988  0 0 0 0
    endlist
    scalebezierkey 2
      0 1  0 0
      2 2  0 0
  endnode
doneanim swing rig
donemodel rig
"""


def _turn_z(degrees: float) -> np.ndarray:
    angle = np.radians(degrees)
    return np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]])


def _quaternion_z(degrees: float) -> np.ndarray:
    half = np.radians(degrees) / 2
    return np.array([0.0, 0.0, np.sin(half), np.cos(half)])


def test_ascii_bezier_keys_follow_their_tangents(tmp_path):
    """Position control points (0,0,0), (1,0,0), (3,1,0), (3,0,0); rotation about +Z through the
    control quaternions of 0°, 30°, 60°, 90° (axis-angle value + tangent), blended component-wise
    and normalised; scale 1, 1, 2, 2."""
    model = loading.load([save(tmp_path, "rig.mdl", ASCII.encode())])
    clip, arm = model.clips[0], model.skeleton.index("arm")
    assert clip.frame_times.tolist() == [0.0, 2.0]
    world = evaluate(model, clip, 1.0).world[arm]
    np.testing.assert_allclose(world[:3, 3], [1.875, 0.375, 0.0], atol=1e-9)
    # Symmetric control angles: the normalised blend at u = 1/2 is the 45° turn, scaled by 1.5.
    np.testing.assert_allclose(world[:3, :3], 1.5 * _turn_z(45.0), atol=1e-9)
    world = evaluate(model, clip, 0.5).world[arm]
    np.testing.assert_allclose(world[:3, 3], [0.890625, 0.140625, 0.0], atol=1e-9)
    blend = sum(w * _quaternion_z(a) for w, a in zip(QUARTER, (0.0, 30.0, 60.0, 90.0)))
    angle = np.degrees(2 * np.arctan2(blend[2], blend[3]))
    np.testing.assert_allclose(world[:3, :3], 1.15625 * _turn_z(angle), atol=1e-9)
    for time, position in ((0.0, [0, 0, 0]), (2.0, [3, 0, 0])):
        np.testing.assert_allclose(evaluate(model, clip, time).world[arm][:3, 3], position, atol=1e-9)


def test_compiled_position_bezier_keys_follow_their_tangents(tmp_path):
    """The compiled form: columns 9 | 0x10, each row value, in-tangent, out-tangent."""
    rows = [[0, 0, 0, 0, 0, 0, 1, 0, 0], [3, 0, 0, 0, 1, 0, 0, 0, 0]]
    arm = WNode("arm", keys=[(8, [0.0, 2.0], rows, 0x10)])
    animation = WAnimation("swing", 2.0, WNode("rig", children=[arm]))
    model = loading.load([save(tmp_path, "rig.mdl", write_mdl("rig", WNode("rig", children=[WNode("arm")]),
                                                              [animation]))])
    clip, bone = model.clips[0], model.skeleton.index("arm")
    np.testing.assert_allclose(evaluate(model, clip, 1.0).world[bone][:3, 3], [1.875, 0.375, 0.0], atol=1e-6)
    np.testing.assert_allclose(evaluate(model, clip, 0.5).world[bone][:3, 3], [0.890625, 0.140625, 0.0],
                               atol=1e-6)


def test_a_bezier_row_short_of_its_tangents_is_an_error(tmp_path):
    text = ASCII.replace("      2 3 0 0  0 1 0  0 0 0\n", "      2 3 0 0  0 1 0\n")
    with pytest.raises(formats.ReadError, match=r"positionbezierkey \(time and 9 values per row\)"):
        loading.load([save(tmp_path, "rig.mdl", text.encode())])


def test_bezier_keys_export_as_glTF_cubic_splines(tmp_path):
    """The exported CUBICSPLINE samplers replay the curve: the arm relative to the rig after a
    re-read, at times the reader's cubic resampling lands on (u = 1/4, 1/2), matches the hand values
    (1.875, 0.375, 0) and (0.890625, 0.140625, 0) with their 45° turn and 1.5 scale."""
    from app.export.gltf import export_gltf

    model = loading.load([save(tmp_path, "rig.mdl", ASCII.encode())])
    export_gltf(model, tmp_path / "rig.glb")
    again = loading.load([tmp_path / "rig.glb"])
    rig, arm = again.skeleton.index("rig"), again.skeleton.index("arm")
    world = evaluate(again, again.clips[0], 1.0).world
    local = np.linalg.inv(world[rig]) @ world[arm]
    np.testing.assert_allclose(local[:3, 3], [1.875, 0.375, 0.0], atol=1e-5)
    np.testing.assert_allclose(local[:3, :3], 1.5 * _turn_z(45.0), atol=1e-5)
    world = evaluate(again, again.clips[0], 0.5).world
    np.testing.assert_allclose((np.linalg.inv(world[rig]) @ world[arm])[:3, 3], [0.890625, 0.140625, 0.0],
                               atol=1e-5)
