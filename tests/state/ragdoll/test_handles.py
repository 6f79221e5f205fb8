"""Drag handles of the ragdoll editor, headless: which handles the selection shows, picking one with a
view ray, and a drag's rays turned into profile edits (one undo step a drag, the symmetric twin
following, the joint's frame and limit arcs turning with its ring). Expected values come from the
geometry of the rays the tests build, not from the handle code."""

from __future__ import annotations

import numpy as np
import pytest

from app.scene import gizmo_scene
from app.state.ragdoll import handles as handle_module
from app.state.ragdoll.handles import HandleDrag, handles, pick_handle
from app.state.ragdoll.gizmos import ragdoll_gizmos
from app.pose import rest_extent
from tests.helpers import joint, part


def the(found, kind, axis):
    return next(h for h in found if (h.kind, h.axis) == (kind, axis))


def seen_from(point, side, distance=3.0):
    """A view ray from ``distance`` along ``side`` (unit) of ``point`` straight at it."""
    side = np.asarray(side, np.float64) / np.linalg.norm(side)
    return np.asarray(point, np.float64) + side * distance, -side


def rotation_about(axis, angle):
    """Rodrigues' rotation matrix (3, 3) about a unit ``axis``."""
    x, y, z = axis / np.linalg.norm(axis)
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def test_handles_follow_the_selection_and_hide_while_running(doc, sim):
    assert handles(doc, sim) == []
    doc.select_part(doc.profile.part_index("head"))
    found = handles(doc, sim)
    assert sorted((h.kind, h.axis) for h in found) == [("move", 0), ("move", 1), ("move", 2),
                                                        ("size", 0), ("size", 1), ("size", 2)]
    centre = sim.part_frames()[0, doc.profile.part_index("head"), :3, 3]
    for axis in range(3):
        np.testing.assert_allclose(the(found, "move", axis).origin, centre)
        # The knob sits on the box's face: half the part's size from its centre.
        knob = the(found, "size", axis)
        assert np.linalg.norm(knob.origin - centre) == pytest.approx(part(doc, "head").size[axis] / 2)
    doc.select_joint(doc.profile.joint_index("knee_l"))
    assert len(handles(doc, sim)) == 12  # the part's six, the joint's three rings and three pivot arrows
    sim.go(None, 0.0)
    assert handles(doc, sim) == []


def test_a_ray_picks_the_handle_it_passes(doc, sim):
    doc.select_part(doc.profile.part_index("chest"))
    arrow = the(handles(doc, sim), "move", 0)
    side = np.cross(arrow.direction, [0.0, 1.0, 0.0])
    point = arrow.origin + arrow.direction * 0.8 * arrow.length
    picked = pick_handle(handles(doc, sim), *seen_from(point, side))
    assert (picked.kind, picked.axis) == ("move", 0)
    # Passing a little beside it still picks it; far beside it, nothing.
    near = point + np.array([0.0, 0.5 * handle_module.PICK_SHARE * arrow.length, 0.0])
    again = pick_handle(handles(doc, sim), *seen_from(near, side))
    assert (again.kind, again.axis) == ("move", 0)
    assert pick_handle(handles(doc, sim), *seen_from(point + [0.0, 0.5, 0.0], side)) is None
    # From far away (a zoomed-out view) the reach grows with the distance, as a few pixels on screen do.
    beside = point - np.array([0.0, 0.6 * handle_module.PICK_ANGLE * 40.0, 0.0])  # below: no knob there
    assert pick_handle(handles(doc, sim), *seen_from(beside, side, distance=3.0)) is None
    far = pick_handle(handles(doc, sim), *seen_from(beside, side, distance=40.0))
    assert (far.kind, far.axis) == ("move", 0)
    knob = the(handles(doc, sim), "size", 1)
    picked = pick_handle(handles(doc, sim), *seen_from(knob.origin, [0.3, 0.2, 1.0]))
    assert (picked.kind, picked.axis) == ("size", 1)


def test_dragging_a_move_arrow_moves_the_offset_and_the_twin(doc, sim):
    doc.select_part(doc.profile.part_index("thigh_l"))
    before_l, before_r = part(doc, "thigh_l").offset, part(doc, "thigh_r").offset
    arrow = the(handles(doc, sim), "move", 0)
    side = np.cross(arrow.direction, [0.0, 0.0, 1.0])
    start = arrow.origin + arrow.direction * 0.5 * arrow.length
    drag = HandleDrag(doc, arrow, *seen_from(start, side))
    for moved in (0.01, 0.03, 0.04):  # several mouse moves; the view ray stays parallel
        assert drag.move(*seen_from(start + arrow.direction * moved + [0.0, 0.02, 0.0], side))
    drag.finish()
    # The demo stands in its bind pose: model axis X is the arrow, and the offset moves 0.04 along it.
    np.testing.assert_allclose(part(doc, "thigh_l").offset, np.add(before_l, (0.04, 0.0, 0.0)), atol=1e-9)
    np.testing.assert_allclose(part(doc, "thigh_r").offset, np.add(before_r, (-0.04, 0.0, 0.0)), atol=1e-9)
    assert len(doc.steps) == 1 and doc.undo_text == "Edit thigh_l and thigh_r offset"
    np.testing.assert_allclose(sim.part_frames()[0, doc.profile.part_index("thigh_l"), :3, 3],
                               arrow.origin + arrow.direction * 0.04, atol=1e-9)
    doc.undo()
    assert part(doc, "thigh_l").offset == before_l and part(doc, "thigh_r").offset == before_r


def test_a_drag_is_one_undo_step_however_long_it_takes(doc, sim, monkeypatch):
    from app.state.ragdoll import document as ragdoll_document

    clock = [0.0]
    monkeypatch.setattr(ragdoll_document._time, "monotonic", lambda: clock[0])
    doc.select_part(doc.profile.part_index("head"))
    arrow = the(handles(doc, sim), "move", 1)
    side = np.cross(arrow.direction, [1.0, 0.0, 0.0])
    start = arrow.origin + arrow.direction * 0.5 * arrow.length
    drag = HandleDrag(doc, arrow, *seen_from(start, side))
    for moved in (0.01, 0.02, 0.03):
        clock[0] += 10 * ragdoll_document.MERGE_SECONDS
        drag.move(*seen_from(start + arrow.direction * moved, side))
    drag.finish()
    clock[0] += 0.1
    doc.edit_part("head", offset=part(doc, "head").offset)  # a numeric edit just after: its own step
    assert len(doc.steps) == 2


def test_dragging_a_size_knob_grows_the_box_about_its_centre(doc, sim):
    doc.select_part(doc.profile.part_index("head"))
    size = part(doc, "head").size
    knob = the(handles(doc, sim), "size", 2)
    side = np.cross(knob.direction, [0.0, 1.0, 0.0])
    drag = HandleDrag(doc, knob, *seen_from(knob.origin, side))
    drag.move(*seen_from(knob.origin + knob.direction * 0.025, side))
    np.testing.assert_allclose(part(doc, "head").size, (size[0], size[1], size[2] + 0.05), atol=1e-9)
    drag.move(*seen_from(knob.origin - knob.direction * 10.0, side))  # through the centre: the least size
    assert part(doc, "head").size[2] == pytest.approx(handle_module.MIN_SIZE * rest_extent(doc.model))
    drag.finish()
    assert len(doc.steps) == 1


def test_turning_a_ring_turns_the_joint_frame_and_its_limit_arcs(doc, sim):
    index = doc.profile.joint_index("elbow_l")
    doc.select_joint(index)
    frame_before = doc.rig.joint_world(sim.part_frames()[0])[index, 0].copy()
    scene_before = ragdoll_gizmos(doc, sim, editing=True)
    ring = the(handles(doc, sim), "rotate", 2)
    first, second = gizmo_scene.perpendiculars(ring.direction[None])
    first, second = first[0], second[0]
    angle = np.radians(25.0)
    drag = HandleDrag(doc, ring, *seen_from(ring.origin + first * ring.length, ring.direction + 0.2 * first))
    turned = ring.origin + (np.cos(angle) * first + np.sin(angle) * second) * ring.length
    drag.move(*seen_from(turned, ring.direction + 0.2 * first))
    drag.finish()
    frame_after = doc.rig.joint_world(sim.part_frames()[0])[index, 0]
    # Turned by 25° about the ring's axis (the frame's Z), through the joint's centre.
    expected = rotation_about(ring.direction, angle) @ frame_before[:3, :3]
    np.testing.assert_allclose(frame_after[:3, :3], expected, atol=1e-6)
    np.testing.assert_allclose(frame_after[:3, 3], frame_before[:3, 3], atol=1e-9)
    assert doc.undo_text == "Edit elbow_l and elbow_r rotation"
    scene_after = ragdoll_gizmos(doc, sim, editing=True)
    hinge_before = np.all(np.isclose(scene_before.line_colors, gizmo_scene.HINGE_COLOR), axis=1)
    hinge_after = np.all(np.isclose(scene_after.line_colors, gizmo_scene.HINGE_COLOR), axis=1)
    assert not np.allclose(scene_before.lines[hinge_before], scene_after.lines[hinge_after])


def test_the_dragged_handle_is_drawn_highlighted(doc, sim):
    doc.select_part(doc.profile.part_index("head"))
    found = handles(doc, sim)
    plain = ragdoll_gizmos(doc, sim, editing=True)
    active = ragdoll_gizmos(doc, sim, editing=True, active=the(found, "move", 0))
    highlighted = np.all(np.isclose(active.line_colors, gizmo_scene.ACTIVE_HANDLE_COLOR), axis=1)
    assert not np.all(np.isclose(plain.line_colors, gizmo_scene.ACTIVE_HANDLE_COLOR), axis=1).any()
    assert highlighted.sum() == 2, "the arrow's shaft, two ends"
    arrow_heads = np.all(np.isclose(active.triangle_colors, gizmo_scene.ACTIVE_HANDLE_COLOR), axis=1)
    assert arrow_heads.sum() == 3 * 2 * gizmo_scene.ARROW_SIDES


def test_handle_shapes_sit_where_their_handles_are():
    origins = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.5]])
    directions = np.array([[0.0, 0.0, 1.0], [0.6, 0.8, 0.0]])
    shafts, heads = gizmo_scene.arrow_shapes(origins, directions, np.array([0.5, 2.0]))
    np.testing.assert_allclose(heads[:, 0, 0], origins + directions * [[0.5], [2.0]])  # the cones' tips
    np.testing.assert_allclose(shafts[:, 0], origins)
    rims = heads[:, :gizmo_scene.ARROW_SIDES, 1] - shafts[:, 1][:, None]  # the cones' rims, from their bases
    assert np.allclose(np.einsum("nsi,ni->ns", rims, directions), 0.0)
    rings = gizmo_scene.ring_lines(origins, directions, np.array([0.3, 0.7]))
    offsets = rings[:, :, 0] - origins[:, None]
    np.testing.assert_allclose(np.linalg.norm(offsets, axis=-1)[:, 0], [0.3, 0.7])
    np.testing.assert_allclose(np.ptp(np.linalg.norm(offsets, axis=-1), axis=1), 0.0, atol=1e-12)
    assert np.allclose(np.einsum("nsi,ni->ns", offsets, directions), 0.0)
    knobs = gizmo_scene.knob_triangles(origins, directions, np.array([0.1, 0.1]))
    np.testing.assert_allclose(knobs.reshape(2, -1, 3).mean(axis=1), origins, atol=1e-12)


def pivots(doc, name):
    """The joint's pivot at bind as each of its parts places it (part frame @ offset)."""
    found = joint(doc, name)
    frames = doc.rig.part_bind
    names = doc.rig.part_names
    return [frames[names.index(p)][:3, :3] @ np.asarray(o) + frames[names.index(p)][:3, 3]
            for p, o in ((found.part_a, found.offset_a), (found.part_b, found.offset_b))]


def test_a_pivot_arrow_moves_both_offsets_to_one_new_pivot_and_the_twin(doc, sim):
    index = doc.profile.joint_index("elbow_l")
    doc.select_joint(index)
    before = np.mean(pivots(doc, "elbow_l"), axis=0)
    twin_before = np.mean(pivots(doc, "elbow_r"), axis=0)
    np.testing.assert_allclose(twin_before, before * (-1.0, 1.0, 1.0), atol=1e-6)  # the demo is symmetric
    found = handles(doc, sim)
    assert sorted(h.axis for h in found if h.kind == "pivot") == [0, 1, 2]
    arrow = the(found, "pivot", 0)
    np.testing.assert_allclose(arrow.origin, before, atol=1e-9)  # the demo stands in its bind pose
    # A ray square to the arrow near its tip picks it, not the rings about the same centre.
    side = np.cross(arrow.direction, [0.0, 0.0, 1.0])
    tip = arrow.origin + arrow.direction * 0.95 * arrow.length
    picked = pick_handle(found, *seen_from(tip, side))
    assert (picked.kind, picked.axis) == ("pivot", 0)
    scene_before = ragdoll_gizmos(doc, sim, editing=True)
    drag = HandleDrag(doc, picked, *seen_from(tip, side))
    for moved in (0.01, 0.025):
        assert drag.move(*seen_from(tip + arrow.direction * moved + [0.0, 0.03, 0.0], side))
    drag.finish()
    # Both parts put the pivot at one point, 0.025 along model X; the twin's at its mirror image.
    expected = before + (0.025, 0.0, 0.0)
    for point in pivots(doc, "elbow_l"):
        np.testing.assert_allclose(point, expected, atol=1e-9)
    for point in pivots(doc, "elbow_r"):
        np.testing.assert_allclose(point, expected * (-1.0, 1.0, 1.0), atol=1e-6)
    assert len(doc.steps) == 1 and doc.undo_text == "Edit elbow_l and elbow_r offset_a, offset_b"
    # The joint's frame and its limit arcs moved with it; the arrows now start at the new pivot.
    frame = doc.rig.joint_world(sim.part_frames()[0])[index, 0]
    np.testing.assert_allclose(frame[:3, 3], expected, atol=1e-9)
    np.testing.assert_allclose(the(handles(doc, sim), "pivot", 0).origin, expected, atol=1e-9)
    scene_after = ragdoll_gizmos(doc, sim, editing=True)
    hinge_before = np.all(np.isclose(scene_before.line_colors, gizmo_scene.HINGE_COLOR), axis=1)
    hinge_after = np.all(np.isclose(scene_after.line_colors, gizmo_scene.HINGE_COLOR), axis=1)
    shift = scene_after.lines[hinge_after] - scene_before.lines[hinge_before]
    np.testing.assert_allclose(shift, np.broadcast_to((0.025, 0.0, 0.0), shift.shape), atol=1e-6)
    doc.undo()
    np.testing.assert_allclose(np.mean(pivots(doc, "elbow_l"), axis=0), before, atol=1e-12)


def test_a_pivot_arrow_keeps_apart_the_offsets_the_user_set_apart(doc, sim):
    """Offsets that place the pivot at two points (a gap the user chose) each move by the drag: the
    gap stays, rather than both snapping to one point."""
    index = doc.profile.joint_index("elbow_l")
    elbow = joint(doc, "elbow_l")
    a, b = doc.rig.joint_parts[index]
    gap = np.array([0.0, 0.0, 0.02])  # in the demo's bind pose part b's frame is a translation
    np.testing.assert_allclose(doc.rig.part_bind[b, :3, :3], np.eye(3), atol=1e-9)
    doc.edit_joint("elbow_l", offset_b=np.asarray(elbow.offset_b) + gap)
    doc.select_joint(index)
    placed_before = pivots(doc, "elbow_l")
    np.testing.assert_allclose(placed_before[1] - placed_before[0], gap, atol=1e-6)
    arrow = the(handles(doc, sim), "pivot", 0)
    side = np.cross(arrow.direction, [0.0, 0.0, 1.0])
    tip = arrow.origin + arrow.direction * 0.95 * arrow.length
    drag = HandleDrag(doc, arrow, *seen_from(tip, side))
    assert drag.move(*seen_from(tip + arrow.direction * 0.03, side))
    drag.finish()
    for point, start in zip(pivots(doc, "elbow_l"), placed_before):
        np.testing.assert_allclose(point, start + (0.03, 0.0, 0.0), atol=1e-6)
