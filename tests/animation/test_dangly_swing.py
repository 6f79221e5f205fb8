"""Danglymesh sway (app/animation/dangly_swing.py) held to the spring equation integrated here, by
itself, with small Runge-Kutta steps: a flag node that holds still, slides 0.5 m along X in 0.1 s
and holds again."""

from __future__ import annotations

import numpy as np
import pytest

from app import loading
from app.animation.dangly_swing import DanglySwing, swung_at
from app.pose import evaluate, posed_positions
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WAnimation, WNode

SQUARE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
#: The node's X position keys: still, a slide of 0.5 m in 0.1 s, still.
SLIDE = ((0.0, 0.0), (1.0, 0.0), (1.1, 0.5), (3.0, 0.5))
PERIOD, TIGHTNESS = 0.8, 0.5


def flag_model(tmp_path, displacement: float = 10.0, constraints=(0, 255, 255, 128)):
    flag = WNode("flag", 0x121, (0, 0, 1), None, vertices=SQUARE, faces=[[0, 1, 2], [0, 2, 3]],
                 dangly=(PERIOD, TIGHTNESS, displacement, list(constraints)))
    moving = WNode("flag", keys=[(8, [t for t, _ in SLIDE], [[x, 0, 1] for _, x in SLIDE])])
    text = write_ascii_mdl("pole", WNode("pole", children=[flag]),
                           [WAnimation("slide", 3.0, WNode("pole", children=[moving]))])
    path = tmp_path / "pole.mdl"
    path.write_bytes(text)
    return loading.load([path])


def anchor_x(t: float) -> float:
    times, xs = zip(*SLIDE)
    return float(np.interp(t, times, xs))


def anchor_speed(t: float) -> float:
    return 5.0 if 1.0 <= t < 1.1 else 0.0


def expected_offsets(times: np.ndarray) -> np.ndarray:
    """The X offset p − a of a free vertex at ``times``, by RK4 in steps of 1e-4 s of
    p'' = −ω²(p − a) − 2ζω(p' − a'), starting at rest on its anchor."""
    omega, zeta = 2 * np.pi / PERIOD, TIGHTNESS / (1 + TIGHTNESS)

    def derivative(t, state, speed):
        p, v = state
        return np.array([v, -omega ** 2 * (p - anchor_x(t)) - 2 * zeta * omega * (v - speed)])

    h, t, state, found = 1e-4, 0.0, np.array([0.0, 0.0]), []
    for target in times:
        while t < target - 1e-12:
            step = min(h, target - t)
            speed = anchor_speed(t + step / 2)  # the anchor's speed over this step (no step straddles a key)
            k1 = derivative(t, state, speed)
            k2 = derivative(t + step / 2, state + step / 2 * k1, speed)
            k3 = derivative(t + step / 2, state + step / 2 * k2, speed)
            k4 = derivative(t + step, state + step * k3, speed)
            state = state + step / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += step
        found.append(state[0] - anchor_x(t))
    return np.array(found)


def played(model, times):
    swing = DanglySwing(model)
    clip = model.clips[0]
    offsets, previous = [], None
    for time in times:
        swing.step(evaluate(model, clip, float(time)), 0.0 if previous is None else time - previous)
        previous = time
        offsets.append(swing.offsets[0].copy())
    return swing, np.array(offsets)


def test_free_vertices_follow_the_spring_equation(tmp_path):
    model = flag_model(tmp_path)
    times = np.round(np.arange(0.0, 3.0001, 0.05), 10)
    _, offsets = played(model, times)
    expected = expected_offsets(times)
    np.testing.assert_allclose(offsets[:, 1, 0], expected, atol=1e-6)
    assert abs(expected).max() > 0.05  # it did swing
    np.testing.assert_allclose(offsets[:, :, 1:], 0.0, atol=1e-12)  # the slide is along X only
    np.testing.assert_allclose(offsets[:, 0], 0.0)  # constraint 0: pinned


def test_steps_of_other_lengths_give_the_same_sway(tmp_path):
    """Steps that fall on the keys solve the same motion exactly, however long they are."""
    model = flag_model(tmp_path)
    fine = np.round(np.arange(0.0, 3.0001, 0.05), 10)
    coarse = np.array([0.0, 0.5, 1.0, 1.1, 1.6, 2.2, 3.0])
    _, fine_offsets = played(model, fine)
    _, coarse_offsets = played(model, coarse)
    picked = [int(np.argmin(abs(fine - t))) for t in coarse]
    np.testing.assert_allclose(coarse_offsets, fine_offsets[picked], atol=1e-9)


def test_offsets_stay_within_the_reach(tmp_path):
    displacement = 0.02
    model = flag_model(tmp_path, displacement=displacement)
    _, offsets = played(model, np.round(np.arange(0.0, 3.0001, 0.05), 10))
    lengths = np.linalg.norm(offsets, axis=2)
    reach = displacement * np.array([0, 255, 255, 128]) / 255
    assert np.all(lengths <= reach + 1e-12)
    assert np.isclose(lengths[:, 1].max(), displacement)  # the slide pushes a free vertex to its reach
    assert lengths[:, 3].max() == pytest.approx(displacement * 128 / 255)


def test_the_swung_pose_moves_the_vertices_by_their_offsets(tmp_path):
    model = flag_model(tmp_path)
    clip = model.clips[0]
    swing, offsets = played(model, [0.0, 1.0, 1.1, 1.2])
    pose = evaluate(model, clip, 1.2)
    moved = posed_positions(model, swing.swung(pose))
    np.testing.assert_allclose(moved - posed_positions(model, pose), offsets[-1], atol=1e-5)


def test_reset_and_replay_are_deterministic(tmp_path):
    model = flag_model(tmp_path)
    times = np.round(np.arange(0.0, 2.0001, 0.05), 10)
    swing, first = played(model, times)
    swing.reset()
    assert all(not offsets.any() for offsets in swing.offsets)
    _, second = played(model, times)
    np.testing.assert_array_equal(first, second)


def test_a_still_is_swung_as_if_played_from_the_start(tmp_path):
    model = flag_model(tmp_path)
    pose = swung_at(model, model.clips[0], 1.2)
    expected = expected_offsets(np.array([1.2]))[0]
    rest = posed_positions(model, evaluate(model, model.clips[0], 1.2))
    np.testing.assert_allclose(posed_positions(model, pose)[1] - rest[1], [expected, 0, 0], atol=1e-4)


@pytest.mark.parametrize(("omega", "zeta"),
                         [(2 * np.pi / 1e30, 0.5), (2 * np.pi, 0.999), (2 * np.pi / 1e-6, 0.3)])
def test_extreme_springs_stay_finite(omega, zeta):
    from app.animation.dangly_swing import damped_step

    offsets, rates = damped_step(np.ones((2, 3)), np.ones((2, 3)), omega, zeta, 0.05)
    assert np.isfinite(offsets).all() and np.isfinite(rates).all()


def test_the_closed_form_step_matches_the_oscillator_formula():
    """x(t) = e^(−ζωt)(x₀ cos ω_d t + (v₀ + ζωx₀)/ω_d sin ω_d t) with its derivative, written out here."""
    from app.animation.dangly_swing import damped_step

    omega, zeta, t, x0, v0 = 3.0, 0.2, 0.37, 0.4, -1.1
    damped = omega * np.sqrt(1 - zeta ** 2)

    def position(time):
        return np.exp(-zeta * omega * time) * (x0 * np.cos(damped * time)
                                               + (v0 + zeta * omega * x0) / damped * np.sin(damped * time))

    h = 1e-6
    x, x_later = position(t), position(t + h)
    moved, rate = damped_step(np.full((1, 3), x0), np.full((1, 3), v0), omega, zeta, t)
    np.testing.assert_allclose(moved, x, rtol=1e-12)
    np.testing.assert_allclose(rate, (x_later - x) / h, rtol=1e-5)


def test_a_blended_mesh_is_moved_by_its_offsets_too():
    """Vertices on two bones (not an NWN danglymesh's one): the swung pose still puts each vertex its
    offset away from where the clip skins it."""
    from app.dangly import DanglyParams
    from app.model import Mesh, Model, Skeleton
    from app.pose import pose_from_world

    bind = np.stack([np.eye(4), np.eye(4)])
    bind[1, :3, 3] = [0, 0, 1]
    skeleton = Skeleton(names=["a", "b"], parents=[-1, 0], bind_world=bind, heads=bind[:, :3, 3],
                        tails=bind[:, :3, 3] + 0.1, derived_tails=[True, True])
    mesh = Mesh("m", positions=SQUARE, joints=[[0, 1]] * 4, weights=[[0.25, 0.75]] * 4,
                dangly=DanglyParams(1.0, 0.5, 5.0, [255] * 4))
    model = Model("blend", skeleton, meshes=[mesh])
    world = bind.copy()
    swing = DanglySwing(model)
    for step in range(8):
        world[1, :3, :3] = [[np.cos(step / 5), -np.sin(step / 5), 0], [np.sin(step / 5), np.cos(step / 5), 0],
                            [0, 0, 1]]
        world[1, 0, 3] = 0.2 * step
        pose = pose_from_world(model, world.copy())
        swing.step(pose, 0.05 if step else 0.0)
    assert abs(swing.offsets[0]).max() > 1e-3
    moved = posed_positions(model, swing.swung(pose)) - posed_positions(model, pose)
    np.testing.assert_allclose(moved, swing.offsets[0], atol=1e-5)
