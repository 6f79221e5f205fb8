"""The ragdoll tool without Qt: a press on a handle of the selection drags it while editing, every
other press goes to the simulation; hovering lights the handle under the pointer. Rays are aimed by
hand at a handle's arrow."""

import numpy as np
import pytest

from app import loading
from app.resources import demo_paths
from app.state.ragdoll.handles import handles
from app.state.viewer import ViewerState


@pytest.fixture()
def state(tmp_path):
    state = ViewerState(ragdoll_dir=tmp_path)
    state.set_model(loading.load(demo_paths()))
    state.document.path = None  # never write beside the built-in demo
    yield state
    state.simulation.close()


def ray_onto(handle) -> tuple[np.ndarray, np.ndarray]:
    """A ray from well off to the side of ``handle``'s arrow, through the arrow at 0.8 of its length."""
    side = np.cross(handle.direction, [0.0, 0.0, 1.0] if abs(handle.direction[2]) < 0.9 else [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)
    target = handle.origin + handle.direction * 0.8 * handle.length
    return target + side * 20.0 * handle.length, -side


def test_the_state_builds_the_ragdoll_and_its_tool(state, tmp_path):
    tool = state.ragdoll_tool
    assert tool.document is state.document and tool.simulation is state.simulation
    assert state.document.data_dir == tmp_path
    assert ViewerState().ragdoll_tool is None


def test_a_press_on_a_handle_drags_it_only_while_editing(state):
    tool, changes = state.ragdoll_tool, []
    tool.events.subscribe("changed", lambda: changes.append(tool.handle_drag is not None))
    state.document.select_part(0)
    arrow = next(h for h in handles(state.document, state.simulation) if h.kind == "move" and h.axis == 0)
    origin, direction = ray_onto(arrow)
    forward = np.array([0.0, 1.0, 0.0])
    assert tool.begin_drag_ray(origin, direction, forward) is False  # not editing: the stopped simulation
    assert tool.handle_drag is None and changes == []
    tool.editing = True
    tool.hover_ray(origin, direction)
    assert (tool.hovered.kind, tool.hovered.axis, tool.hovered.target) == ("move", 0, 0)
    assert changes == [False]
    assert tool.begin_drag_ray(origin, direction, forward) is True
    assert tool.handle_drag.handle.kind == "move" and changes == [False, True]
    before = state.document.profile.parts[0].offset
    tool.drag_ray(origin + arrow.direction * 0.5 * arrow.length, direction)
    tool.end_drag()
    assert tool.handle_drag is None and changes == [False, True, False]
    assert state.document.profile.parts[0].offset != before
    tool.hover_away()
    assert tool.hovered is None and len(changes) == 4


def test_selecting_another_part_forgets_the_hovered_handle(state):
    tool = state.ragdoll_tool
    tool.editing = True
    state.document.select_part(0)
    arrow = next(h for h in handles(state.document, state.simulation) if h.kind == "move")
    tool.hover_ray(*ray_onto(arrow))
    assert tool.hovered is not None
    state.document.select_part(1)
    assert tool.hovered is None


def test_marks_are_empty_while_stopped(state):
    marks = state.ragdoll_tool.marks()
    assert marks.shot is None and marks.spring is None
