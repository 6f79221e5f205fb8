"""Drag handles of the ragdoll editor in the window (under Xvfb): dragging a part's move arrows and
size knobs and a joint's rings and pivot arrows in the view, undoing a drag whatever has the focus,
and the handle under the pointer lit until it goes. The handles' geometry is tested headless in
tests/state/ragdoll/test_handles.py."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from app.scene import gizmo_scene
from app.scene.gizmo_scene import SELECTED_BOX_COLOR
from tests.gui_helpers import changed_colour_pixels, needs_display, pixel_of, view_image


def _gui(test):
    """Mark a test as a window test (first in the run, skipped without a display)."""
    return pytest.mark.gui(needs_display(test))


def drag_in_view(window, qtbot, press, release, steps: int = 4) -> None:
    """Press the left button at ``press``, move to ``release`` in a few steps, release there."""
    from PySide6.QtGui import QMouseEvent

    viewport = window.viewport
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, press)
    for k in range(1, steps + 1):
        point = QPointF(press) + (QPointF(release) - QPointF(press)) * (k / steps)
        viewport.mouseMoveEvent(QMouseEvent(QMouseEvent.Type.MouseMove, point,
                                            QPointF(viewport.mapToGlobal(point)), Qt.MouseButton.NoButton,
                                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, release)


def colour_bounds(image: np.ndarray, colour, tolerance: int = 30) -> np.ndarray:
    """(left, top, right, bottom) of the pixels near a display colour (0-1 floats)."""
    target = np.array(colour[:3]) * 255
    near = np.abs(image[..., :3].astype(float) - target).max(axis=-1) <= tolerance
    ys, xs = np.nonzero(near)
    assert len(xs) > 20, "the colour should be on screen"
    return np.array([xs.min(), ys.min(), xs.max(), ys.max()])


def projected_bounds(window, part: int) -> np.ndarray:
    """(left, top, right, bottom) of a part's box corners projected to the viewport's pixels."""
    from app.render.camera import project

    rig, viewport = window.ragdoll.document.rig, window.viewport
    box = window.ragdoll.simulation.part_frames()[0, part] @ rig.box_rotations[part]
    corners = gizmo_scene.box_corners(box[None], rig.half_extents[part][None])[0]
    pixels, _ = project(viewport.camera, corners, viewport.width(), viewport.height())
    return np.concatenate([pixels.min(axis=0), pixels.max(axis=0)])


def the_handle(window, kind, axis):
    from app.state.ragdoll.handles import handles

    found = handles(window.ragdoll.document, window.ragdoll.simulation)
    return next(h for h in found if (h.kind, h.axis) == (kind, axis))


def drag_part_handle(window, qtbot, part: int, start, end):
    """Drag in the view from model point ``start`` to ``end`` with ``part`` selected: the view before,
    how the part's orange outline moved on screen (left, top, right, bottom) and how its box's
    projected corners say it should have moved."""
    before = view_image(window, qtbot)
    drawn = projected_bounds(window, part)
    drag_in_view(window, qtbot, pixel_of(window, start), pixel_of(window, end))
    after = view_image(window, qtbot)
    shift = colour_bounds(after, SELECTED_BOX_COLOR) - colour_bounds(before, SELECTED_BOX_COLOR)
    return before, shift, projected_bounds(window, part) - drawn


@_gui
def test_dragging_a_move_arrow_in_the_view_moves_the_part(window, qtbot):
    session = window.ragdoll
    document = session.document
    chest = document.profile.part_index("chest")
    document.select_part(chest)
    arrow = the_handle(window, "move", 0)
    grab = arrow.origin + arrow.direction * 0.75 * arrow.length
    offset = document.profile.parts[chest].offset
    before, shift, expected = drag_part_handle(window, qtbot, chest, grab, grab + arrow.direction * 0.12)
    assert session.handle_drag is None and len(document.steps) == 1
    moved = np.subtract(document.profile.parts[chest].offset, offset)
    assert moved[0] == pytest.approx(0.12, abs=0.012) and abs(moved[1]) < 1e-9 and abs(moved[2]) < 1e-9
    # The selected part's orange outline moved on screen as its box's corners project.
    assert expected[0] > 10 and shift == pytest.approx(expected, abs=3)
    window.menus.undo_action.trigger()
    assert document.profile.parts[chest].offset == offset
    assert changed_colour_pixels(view_image(window, qtbot), before) < 50


@_gui
def test_dragging_a_size_knob_in_the_view_grows_the_part(window, qtbot):
    session = window.ragdoll
    document = session.document
    head = document.profile.part_index("head")
    document.select_part(head)
    knob = the_handle(window, "size", 1)
    size = document.profile.parts[head].size
    top = knob.origin + knob.direction * 0.05
    _, grew, expected = drag_part_handle(window, qtbot, head, knob.origin, top)
    grown = np.subtract(document.profile.parts[head].size, size)
    assert grown[1] == pytest.approx(0.1, abs=0.015) and grown[0] == grown[2] == 0.0
    # The head's outline grew up and down about its centre, as its box's corners project.
    assert expected[1] < -10 and expected[3] > 10 and grew == pytest.approx(expected, abs=3)


@_gui
def test_turning_a_joint_ring_in_the_view_turns_its_limits(window, qtbot):
    from app.scene.gizmo_scene import perpendiculars

    session = window.ragdoll
    document = session.document
    knee = document.profile.joint_index("knee_l")
    document.select_joint(knee)
    forward = window.viewport.camera.axes()[0]
    axis = max(range(3), key=lambda a: abs(the_handle(window, "rotate", a).direction @ forward))
    ring = the_handle(window, "rotate", axis)
    first, second = (v[0] for v in perpendiculars(ring.direction[None]))
    rotation = document.profile.joints[knee].rotation
    before = view_image(window, qtbot)
    press = pixel_of(window, ring.origin + first * ring.length)
    release = pixel_of(window, ring.origin + (np.cos(0.6) * first + np.sin(0.6) * second) * ring.length)
    drag_in_view(window, qtbot, press, release, steps=6)
    assert document.profile.joints[knee].rotation != rotation and len(document.steps) == 1
    assert document.undo_text == "Edit knee_l and knee_r rotation"
    after = view_image(window, qtbot)
    hinge = np.array(gizmo_scene.HINGE_COLOR[:3]) * 255
    arcs = [np.abs(image[..., :3].astype(float) - hinge).max(axis=-1) <= 40 for image in (before, after)]
    assert (arcs[0] != arcs[1]).sum() > 40, "the knee's hinge arcs are drawn turned"


@_gui
def test_dragging_a_joint_pivot_arrow_in_the_view_moves_the_pivot(window, qtbot):
    session = window.ragdoll
    document = session.document
    knee = document.profile.joint_index("knee_l")
    document.select_joint(knee)
    rig = document.rig
    a, b = rig.joint_parts[knee]
    arrow = the_handle(window, "pivot", 0)
    # Near the tip: beyond the rings about the same centre, so the arrow is the nearest handle.
    grab = arrow.origin + arrow.direction * 0.95 * arrow.length
    press, release = pixel_of(window, grab), pixel_of(window, grab + arrow.direction * 0.06)
    pivot_pixels = [pixel_of(window, arrow.origin), pixel_of(window, arrow.origin + arrow.direction * 0.06)]
    pivot = np.array(rig.joint_bind[knee, :3, 3])
    before = view_image(window, qtbot)
    hinge_before = hinge_points(window.viewport.gizmo_scene)
    drag_in_view(window, qtbot, press, release)
    assert session.handle_drag is None and len(document.steps) == 1
    assert document.undo_text == "Edit knee_l and knee_r offset_a, offset_b"
    joint = document.profile.joints[knee]
    # Both parts place the pivot at one point, moved about 0.06 along model X at bind.
    placed = [rig.part_bind[p, :3, :3] @ np.asarray(o) + rig.part_bind[p, :3, 3]
              for p, o in ((a, joint.offset_a), (b, joint.offset_b))]
    np.testing.assert_allclose(placed[0], placed[1], atol=1e-9)
    moved = placed[0] - pivot
    assert moved[0] == pytest.approx(0.06, abs=0.01) and abs(moved[1]) < 1e-6 and abs(moved[2]) < 1e-6
    after = view_image(window, qtbot)
    # The knee's hinge arcs are drawn about the new pivot: moved with it along the arrow in the gizmo
    # scene (its twin's arcs move the mirrored way), and the picture changed about the pivot.
    hinge_after = hinge_points(window.viewport.gizmo_scene)
    assert len(hinge_after) == len(hinge_before)
    shift = arrow.direction * moved[0]
    shifted = np.all(np.isclose(hinge_after - hinge_before, shift, atol=1e-4), axis=1)
    assert shifted.sum() >= 20
    x, y = pivot_pixels[0].x(), pivot_pixels[0].y()
    around = (slice(max(y - 40, 0), y + 40), slice(max(x - 40, 0), x + 40))
    assert (np.abs(after[around][..., :3].astype(int) - before[around][..., :3]).max(axis=-1) > 30).sum() > 50


def hinge_points(scene) -> np.ndarray:
    """The ends of the gizmo scene's lines drawn in the hinge limit colour (model space)."""
    return scene.lines[np.all(np.isclose(scene.line_colors, gizmo_scene.HINGE_COLOR, atol=1e-3), axis=1)]


@_gui
def test_every_tab_shows_its_buttons_once_scrolled_to(window, qtbot):
    """The tabs keep four rows, their buttons and the joint editor's fields (issue 38): in a window
    too small for all that and the boxes above, the panel scrolls to them."""
    from PySide6.QtWidgets import QPushButton

    panel = window.ragdoll_panel
    for index, tab in enumerate((panel.parts_tab, panel.joints_tab, panel.collisions_tab)):
        panel.tabs.setCurrentIndex(index)
        panel.widget().ensureWidgetVisible(panel.tabs, 0, 0)
        qtbot.wait(50)
        buttons = tab.findChildren(QPushButton)
        assert len(buttons) == 2 and all(not button.visibleRegion().isEmpty() for button in buttons)


@_gui
def test_ctrl_z_undoes_a_handle_drag_whatever_widget_has_focus(window, qtbot):
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    document = window.ragdoll.document
    chest = document.profile.part_index("chest")
    document.select_part(chest)
    panel = window.ragdoll_panel
    arrow = the_handle(window, "move", 1)
    grab = arrow.origin + arrow.direction * 0.7 * arrow.length
    widgets = (window.viewport, panel.parts_tab.table, panel.simulation_box.impulse_box,
               panel.profile_box.total_mass_box)
    for widget in widgets:
        offset = document.profile.parts[chest].offset
        drag_in_view(window, qtbot, pixel_of(window, grab), pixel_of(window, grab + arrow.direction * 0.05))
        assert document.profile.parts[chest].offset != offset
        widget.setFocus()
        qtbot.waitUntil(lambda w=widget: QApplication.focusWidget() in (w, w.focusProxy()) or
                        w.isAncestorOf(QApplication.focusWidget()), timeout=5_000)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        assert document.profile.parts[chest].offset == offset, type(widget).__name__


@_gui
@pytest.mark.parametrize("away", ["elsewhere in the view", "out of the view"])
def test_the_handle_under_the_pointer_lights_up_until_the_pointer_goes(window, qtbot, away):
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    document = window.ragdoll.document
    document.select_part(document.profile.part_index("chest"))
    arrow = the_handle(window, "move", 0)
    lit = gizmo_scene.ACTIVE_HANDLE_COLOR

    def lit_lines() -> int:
        return int(np.all(np.isclose(window.viewport.gizmo_scene.line_colors, lit), axis=1).sum())

    assert lit_lines() == 0
    qtbot.mouseMove(window.viewport, pixel_of(window, arrow.origin + arrow.direction * 0.8 * arrow.length))
    qtbot.waitUntil(lambda: lit_lines() == 2, timeout=5_000)  # the X arrow's shaft
    if away == "out of the view":
        QApplication.sendEvent(window.viewport, QEvent(QEvent.Type.Leave))
    else:
        qtbot.mouseMove(window.viewport, QPoint(5, 5))
    qtbot.waitUntil(lambda: lit_lines() == 0, timeout=5_000)
    assert window.ragdoll.hovered is None
