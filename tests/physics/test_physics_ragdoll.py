"""The pybullet ragdoll: taking over from a clip, limits under fire, long runs, auto-setups of every
seed format settling on the ground, shooting, dragging, copies and baking."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import numpy as np
import pytest

from app import loading
from app.export.gltf import export_gltf
from app.physics.autosetup import auto_setup
from app.physics.bake import Shot, bake, record
from app.physics.bullet import pb
from app.physics.profile import capsule_dimensions
from app.physics.ragdoll import TIME_STEP, Ragdoll
from app.physics.world_builder import SLEEP_THRESHOLD, principal_moments
from app.pose import evaluate
from app.resources import demo_paths
from tests import synthetic
from tests.ragdoll_trial import limit_excess
from tests.writers import text_formats as write
from tests.writers.c3de_writer import write_bones_2009, write_mesh
from tests.writers.nwn_writer import WNode, write_mdl

#: Fastest a part of a ragdoll knocked about by random shots may move (m/s): far above anything seen.
SANE_SPEED = 50.0
#: Steps of the random-impulse soak: 10,000 under ``make fuzz`` (BONEYARD_SOAK=long), 2,000 in the
#: everyday run.
SOAK_STEPS = 10_000 if os.environ.get("BONEYARD_SOAK") == "long" else 2_000
#: A ragdoll has settled when no part moves faster than this (m/s).
SETTLED_SPEED = 0.05


@pytest.fixture
def ragdoll(demo, profile):
    with Ragdoll(demo, profile) as world:
        yield world


def speeds(ragdoll: Ragdoll, copy: int = 0) -> np.ndarray:
    """(P,) part speeds in m/s."""
    return np.linalg.norm(ragdoll.part_velocities(copy), axis=1) * ragdoll.scale


def random_shot(ragdoll: Ragdoll, rng, impulse: tuple[float, float]):
    """A ray at a random part's centre from a random side."""
    target = ragdoll.part_world()[rng.integers(len(ragdoll.rig.part_bones)), :3, 3]
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    return ragdoll.shoot(target - 2.0 * direction, direction, rng.uniform(*impulse))


# --- taking over ---------------------------------------------------------------------------------

def test_bind_pose_at_rest_until_taken_over(ragdoll, demo):
    np.testing.assert_allclose(ragdoll.bone_world(), demo.skeleton.bind_world, atol=1e-7)
    assert speeds(ragdoll).max() == 0.0


@pytest.mark.parametrize("time_", [0.0, 0.3, 0.55, 0.8])
def test_taking_over_from_the_walk_does_not_jump(ragdoll, demo, time_):
    walk = demo.clips[demo.clip_index("walk")]
    ragdoll.take_over_clip(walk, time_)
    animated = evaluate(demo, walk, time_).world
    np.testing.assert_allclose(ragdoll.bone_world(), animated, atol=1e-4)
    # The parts themselves reached the animated pose (not only the bones' offsets).
    np.testing.assert_allclose(ragdoll.part_world(), ragdoll.rig.parts_at(animated), atol=1e-4)
    # They move on as the clip moved: after 1/60 s they are within a few mm of the clip, where
    # gravity alone accounts for 1.4 mm, while parts at rest would lag by up to the feet's travel.
    ragdoll.step(4)
    later = evaluate(demo, walk, time_ + 4 * TIME_STEP).world
    drift = np.linalg.norm(ragdoll.bone_world()[:, :3, 3] - later[:, :3, 3], axis=1).max()
    travel = np.linalg.norm(later[:, :3, 3] - animated[:, :3, 3], axis=1).max()
    assert drift < 0.004 < travel


def test_reset_returns_to_the_take_over_state(ragdoll, demo):
    walk = demo.clips[demo.clip_index("walk")]
    ragdoll.take_over_clip(walk, 0.25)
    start = ragdoll.bone_world()
    ragdoll.step(120)
    assert ragdoll.time == pytest.approx(0.5)
    ragdoll.reset()
    assert ragdoll.time == 0.0
    np.testing.assert_allclose(ragdoll.bone_world(), start, atol=1e-9)


# --- limits and robustness -----------------------------------------------------------------------

def test_joint_limits_hold_under_ten_seconds_of_random_shots(ragdoll):
    rng = np.random.default_rng(6)
    worst = np.zeros(len(ragdoll.rig.joint_parts))
    hits = 0
    for step in range(int(10 / TIME_STEP)):
        if step % 30 == 0:
            hits += random_shot(ragdoll, rng, (1.0, 200.0)) is not None
        ragdoll.step()
        worst = np.maximum(worst, limit_excess(ragdoll))
    assert hits > 40
    assert ragdoll.rig.hinge.any() and (~ragdoll.rig.hinge).any()
    assert worst.max() < 15.0, dict(zip([j.name for j in ragdoll.profile.joints], worst.round(1)))


@pytest.mark.soak
def test_a_long_run_of_random_impulses_stays_finite_and_sane(ragdoll):
    rng = np.random.default_rng(9)
    fastest = 0.0
    for step in range(SOAK_STEPS):
        if step % 20 == 0:
            random_shot(ragdoll, rng, (1.0, 60.0))
        ragdoll.step()
        if step % 10 == 0:
            fastest = max(fastest, speeds(ragdoll).max())
    world = ragdoll.bone_world()
    assert np.isfinite(world).all() and np.isfinite(ragdoll.part_world()).all()
    assert fastest < SANE_SPEED


# --- every seed format ---------------------------------------------------------------------------

# synthetic.humanoid's bones under the names of a 3ds Max Biped and of an NWN part-based model.
BIPED = ["Bip01 Pelvis", "Bip01 Spine1", "Bip01 Head", "Bip01 L UpperArm", "Bip01 L Forearm",
         "Bip01 R UpperArm", "Bip01 R Forearm", "Bip01 L Thigh", "Bip01 L Calf", "Bip01 R Thigh",
         "Bip01 R Calf", "Bip01 L Foot", "Bip01 R Foot"]
NWN = ["pelvis_g", "torso_g", "head_g", "lbicep_g", "lforearm_g", "rbicep_g", "rforearm_g", "lthigh_g",
       "lshin_g", "rthigh_g", "rshin_g", "lfoot_g", "rfoot_g"]


def _body(up: str = "Z"):
    """synthetic.humanoid's model, vertex positions (V, 3), owning bone (V,) and triangles."""
    model = synthetic.humanoid(up)
    mesh = model.meshes[0]
    return model, mesh.positions.astype(float), mesh.joints[:, 0], mesh.triangles


def bonespro_files(folder):
    """Biped names, in centimetres (so the ragdoll's unit scale is exercised)."""
    model, positions, owners, _ = _body()
    bind = model.skeleton.bind_world.copy()
    bind[:, :3, 3] *= 100
    influences = [[(int(b), 1.0)] for b in owners]
    return [write.bonespro_structure(folder / "body.txt", BIPED, model.skeleton.parents, bind,
                                     positions * 100, influences)]


def lgw_files(folder):
    """A flat skeleton with names that say nothing: the generic setup infers the hierarchy."""
    model, positions, owners, triangles = _body()
    names = [f"Larva-bone{i}" for i in range(len(model.skeleton))]
    count = len(positions)
    vertices = np.hstack([positions, np.zeros((count, 2)), np.tile([0, 0, 1.0], (count, 1))])
    link = write.lgw_skin_link(dict(zip(names, model.skeleton.bind_world)))
    mesh = write.lgw_mesh("body", link, vertices, triangles, [[(1.0, names[b])] for b in owners])
    return [write.lgw_model(folder / "larva.lgw", [mesh])]


def bnf_files(folder):
    """A skeleton without a mesh."""
    model = synthetic.humanoid("Y", with_mesh=False)
    return [write.bnf(folder / "man.bnf", model.skeleton.parents, model.skeleton.heads)]


def nwn_files(folder):
    """A part-based NWN model: one trimesh per node, NWN's bone names."""
    model, positions, owners, triangles = _body()
    skeleton = model.skeleton
    nodes = []
    for bone in range(len(skeleton)):
        mine = np.flatnonzero(owners == bone)
        faces = np.searchsorted(mine, triangles[np.isin(triangles, mine).all(axis=1)])
        parent = skeleton.parents[bone]
        offset = skeleton.heads[bone] - (skeleton.heads[parent] if parent >= 0 else 0)
        nodes.append(WNode(NWN[bone], 0x021, tuple(offset), (0, 0, 0, 1),
                           vertices=positions[mine] - skeleton.heads[bone], faces=faces))
    for bone, parent in enumerate(skeleton.parents):
        if parent >= 0:
            nodes[parent].children.append(nodes[bone])
    path = folder / "hero.mdl"
    root = WNode("rootdummy", 0x001, (0, 0, 0), (0, 0, 0, 1), children=[nodes[0]])
    path.write_bytes(write_mdl("hero", root))
    return [path]


def c3de_files(folder):
    """2009 layout: identity bind frames, heads at vertex centroids, no parents."""
    model, positions, owners, _ = _body()
    mesh, bones = folder / "mesh.c3d", folder / "bones.c3d"
    count = len(positions)
    mesh.write_bytes(write_mesh(positions, owners, np.full(count, -1), np.ones(count), layout="2009"))
    bones.write_bytes(write_bones_2009(np.repeat(np.eye(4)[None, None], len(model.skeleton), axis=1)))
    return [mesh, bones]


def gltf_files(folder):
    path = folder / "humanoid.glb"
    export_gltf(synthetic.humanoid("Y"), path)
    return [path]


SEED_FORMATS = {"demo": None, "bonespro": bonespro_files, "lgw": lgw_files, "bnf": bnf_files,
                "nwn_mdl": nwn_files, "c3de": c3de_files, "gltf": gltf_files}


@pytest.mark.parametrize("make", SEED_FORMATS.values(), ids=SEED_FORMATS.keys())
def test_auto_setup_falls_and_settles_on_the_ground(tmp_path, make):
    model = loading.load(demo_paths() if make is None else make(tmp_path))
    profile = auto_setup(model)
    up = {"Y": 1, "Z": 2}[model.up_axis]
    with Ragdoll(model, profile) as ragdoll:
        assert len(ragdoll.layout) == 1, "every part is joined to the others"
        start = ragdoll.part_world()[:, up, 3].mean()
        fastest = 0.0
        # Eight seconds: a synthetic body standing on its capsule shins balances a while before it tips,
        # and with rounded inertia (INERTIA_SHARE) rocks about a second longer before it rests.
        for _ in range(32):
            ragdoll.step(60)
            fastest = max(fastest, speeds(ragdoll).max())
        parts = ragdoll.part_world()
        assert np.isfinite(parts).all() and fastest < 10.0
        assert speeds(ragdoll).max() < SETTLED_SPEED
        heights = (ragdoll.box_world()[:, up, 3] - ragdoll.floor) * profile.meters_per_unit
        # Lying on the ground, not under it; a limb held by its limits may point up (the generic
        # 40° cone keeps a T-posed arm raised when the body rests on its side).
        assert heights.min() > 0 and np.median(heights) < 0.25 and heights.max() < 0.75
        assert parts[:, up, 3].mean() < start


def motion(ragdoll: Ragdoll) -> float:
    """Bullet's sleep measure of copy 0: its summed squared base velocities and joint speeds."""
    body = ragdoll._bodies[0][0]
    linear, angular = pb.getBaseVelocity(body, physicsClientId=ragdoll.client)
    joints = pb.getJointStates(body, range(pb.getNumJoints(body, physicsClientId=ragdoll.client)),
                               physicsClientId=ragdoll.client)
    return float(np.sum(np.square(linear)) + np.sum(np.square(angular)) + sum(j[1] ** 2 for j in joints))


def test_a_resting_ragdoll_sleeps_soon_after_it_stops_and_wakes_for_a_shot(ragdoll):
    """Bullet puts a multibody to sleep 2 s after its motion drops under the threshold; Boneyard does
    it within a second (a sleeping ragdoll costs almost nothing to step). Sleeping, nothing moves;
    a shot still lands."""
    quiet_since = None
    for _ in range(int(8 / (12 * TIME_STEP))):
        ragdoll.step(12)
        now = motion(ragdoll)
        if now == 0.0:
            break
        quiet_since = None if now >= SLEEP_THRESHOLD else (quiet_since or ragdoll.time)
    assert now == 0.0 and quiet_since is not None, "asleep"
    assert ragdoll.time - quiet_since < 1.0
    resting = ragdoll.part_world().copy()
    ragdoll.step(60)
    assert np.array_equal(ragdoll.part_world(), resting)
    head = ragdoll.rig.part_names.index("head")
    hit = ragdoll.shoot(resting[head, :3, 3] + [0, 0, 2.0], [0, 0, -1.0], 40.0)
    assert hit is not None
    ragdoll.step(12)
    assert np.linalg.norm(ragdoll.part_world()[hit.part, :3, 3] - resting[hit.part, :3, 3]) > 0.01


# --- interaction ---------------------------------------------------------------------------------

def test_shooting_pushes_the_part_it_hits(ragdoll):
    ragdoll.gravity = False
    head = ragdoll.rig.part_names.index("head")
    centre = ragdoll.part_world()[head, :3, 3]
    hit = ragdoll.shoot(centre + [0, 0, 2.0], [0, 0, -1.0], 10.0)
    assert hit is not None and (hit.name, hit.part, hit.copy) == ("head", head, 0)
    assert hit.point[2] == pytest.approx(centre[2] + ragdoll.half_extents[head, 2], abs=0.02)
    ragdoll.step()
    assert np.abs(ragdoll.part_velocities()).max() == 0.0, "the first step wakes the ragdoll"
    ragdoll.step()
    velocities = ragdoll.part_velocities()
    assert np.argmax(np.linalg.norm(velocities, axis=1)) == head and velocities[head, 2] < -0.5
    assert ragdoll.shoot(centre + [0, 3.0, 0], [0, 1.0, 0], 10.0) is None


def _held_point(ragdoll: Ragdoll, picked) -> np.ndarray:
    """Where the picked point of the picked part is now."""
    local = np.linalg.inv(ragdoll.rig.part_bind[picked.part]) @ np.append(picked.point, 1.0)
    return (ragdoll.part_world()[picked.part] @ local)[:3]


def test_dragging_pulls_the_picked_part_toward_the_target(ragdoll):
    ragdoll.gravity = False
    forearm = ragdoll.rig.part_names.index("forearm_l")
    start = ragdoll.part_world()[forearm, :3, 3]
    picked = ragdoll.begin_drag(start + [0, 0, 1.0], [0, 0, -1.0])
    assert picked is not None and picked.name == "forearm_l" and ragdoll.dragging == picked
    target = picked.point + [0.2, 0.3, 0.3]
    for _ in range(120):
        ragdoll.drag_to(target)
        ragdoll.step()
    moved = np.linalg.norm(ragdoll.part_world()[:, :3, 3] - ragdoll.rig.part_bind[:, :3, 3], axis=1)
    # the forearm, or the hand it carries further out
    assert ragdoll.rig.part_names[int(np.argmax(moved))] in ("forearm_l", "hand_l")
    assert moved[forearm] > 0.2
    assert np.linalg.norm(_held_point(ragdoll, picked) - target) < 0.03


def test_dragging_holds_the_ragdoll_up_until_released(ragdoll):
    chest = ragdoll.rig.part_names.index("chest")
    picked = ragdoll.begin_drag(ragdoll.part_world()[chest, :3, 3] + [0, 0, 1.0], [0, 0, -1.0])
    assert picked.name == "chest"
    target = picked.point + [0, 0.3, 0]
    ragdoll.drag_to(target)
    ragdoll.step(480)
    assert np.linalg.norm(_held_point(ragdoll, picked) - target) < 0.02
    assert ragdoll.part_world()[:, 1, 3].min() > ragdoll.floor + 0.1, "hanging clear of the ground"
    ragdoll.end_drag()
    assert ragdoll.dragging is None
    ragdoll.step(240)
    assert _held_point(ragdoll, picked)[1] < target[1] - 0.3, "released, it falls"


def test_gravity_and_ground_switches(ragdoll):
    ragdoll.gravity = False
    ragdoll.step(120)
    np.testing.assert_allclose(ragdoll.part_world(), ragdoll.rig.part_bind, atol=1e-6)
    ragdoll.gravity = True
    ragdoll.ground = False
    ragdoll.step(240)
    assert ragdoll.part_world()[:, 1, 3].max() < ragdoll.floor, "nothing stops the fall"
    ragdoll.ground = True
    assert ragdoll.ground


def test_copies_stand_side_by_side_and_fall(ragdoll, demo):
    ragdoll.set_copies(3)
    assert ragdoll.copies == 3
    for copy in range(3):
        shifted = demo.skeleton.bind_world[:, :3, 3] + [copy * ragdoll.spacing, 0, 0]
        np.testing.assert_allclose(ragdoll.bone_world(copy)[:, :3, 3], shifted, atol=1e-7)
    chest = ragdoll.part_world(2)[ragdoll.rig.part_names.index("chest"), :3, 3]
    hit = ragdoll.shoot(chest + [0, 0, 2.0], [0, 0, -1.0], 5.0)
    assert hit is not None and hit.copy == 2
    ragdoll.step(480)
    assert all(ragdoll.pose(copy).world[:, 1, 3].mean() < 0.6 for copy in range(3))
    ragdoll.set_copies(1)
    assert ragdoll.copies == 1 and ragdoll.all_part_world().shape[0] == 1


def test_advance_keeps_fixed_steps_within_a_budget(ragdoll):
    assert ragdoll.advance(0.01) == 2  # 2.4 steps: the remainder carries over
    assert ragdoll.advance(0.0025) == 1
    assert ragdoll.steps == 3 and ragdoll.time == pytest.approx(3 * TIME_STEP)
    assert ragdoll.advance(10.0, budget=0.0) == 1  # one step, then the budget is spent and the rest dropped
    assert ragdoll.advance(0.0) == 0
    assert 0 < ragdoll.realtime_factor < float("inf")


def test_rebuild_after_an_edit_and_close(demo, profile):
    edited = profile.copy()
    world = Ragdoll(demo, edited)
    client = world.client
    world.take_over_clip(demo.clips[0], 0.4)
    edited.set_part("head", size=(0.3, 0.3, 0.3))
    world.rebuild(edited)
    assert world.half_extents[world.rig.part_names.index("head")] == pytest.approx([0.15] * 3)
    np.testing.assert_allclose(world.bone_world(), evaluate(demo, demo.clips[0], 0.4).world, atol=1e-4)
    world.close()
    assert not pb.isConnected(client)


def test_joint_frames_and_boxes_for_gizmos(ragdoll):
    frames = ragdoll.joint_world()
    assert frames.shape == (len(ragdoll.profile.joints), 2, 4, 4)
    np.testing.assert_allclose(frames[:, 0], frames[:, 1], atol=1e-9)  # both sides agree at bind
    np.testing.assert_allclose(ragdoll.box_world(), ragdoll.rig.box_bind, atol=1e-7)
    assert ragdoll.half_extents.shape == (len(ragdoll.profile.parts), 3)


# --- baking --------------------------------------------------------------------------------------

def test_bake_gives_a_matrices_clip_from_the_start_pose(ragdoll, demo):
    ragdoll.take_over_clip(demo.clips[0], 0.2)
    start = ragdoll.bone_world()
    clip = bake(ragdoll, 1.0, fps=30)
    assert clip.kind == "matrices" and clip.world.shape == (31, len(demo.skeleton), 4, 4)
    np.testing.assert_allclose(clip.times, np.arange(31) / 30)
    np.testing.assert_allclose(clip.world[0], start, atol=1e-12)
    assert ragdoll.time == pytest.approx(1.0)
    np.testing.assert_allclose(evaluate(demo, clip, 1.0).world, ragdoll.bone_world(), atol=1e-12)


def test_record_fires_shots_at_their_times(ragdoll):
    chest = ragdoll.part_world()[ragdoll.rig.part_names.index("chest"), :3, 3]
    front = tuple(chest + [0, -0.1, 2.0])  # the chest has fallen about 0.1 to 0.15 m by 0.25 s
    shots = [Shot(front, (0, 0, -1.0), time=0.25, impulse=30.0), Shot((9.0, 9.0, 9.0), (1.0, 0, 0), time=0.1),
             Shot(front, (0, 0, -1.0), time=5.0)]
    shot = record(ragdoll, 0.5, 60, shots)
    assert [hit.name if hit else None for hit in shot.hits] == ["chest", None, None]
    ragdoll.reset()
    quiet = record(ragdoll, 0.5, 60)
    chest = ragdoll.rig.part_names.index("chest")
    pushed = quiet.part_world[:, chest, 2, 3] - shot.part_world[:, chest, 2, 3]
    assert np.abs(pushed[:15]).max() < 1e-3 and pushed[29] > 0.05, "pushed back from 0.25 s on"


def test_timing_of_one_ragdoll_step(ragdoll):
    """Not a benchmark (benchmarks/ragdoll.py is): a guard against a pathological slowdown."""
    started = time.perf_counter()
    ragdoll.step(240)
    assert time.perf_counter() - started < 2.0


# --- capsules ------------------------------------------------------------------------------------

def test_capsule_parts_collide_as_capsules_along_their_long_edge(demo, profile):
    """Each capsule part's pybullet shape is a capsule of radius half its thinner cross edge and
    straight middle its long edge less the two caps, its Z axis along the box's long edge."""
    with Ragdoll(demo, profile) as world:
        world.step()
        frames = world.box_world()
        for part_index, part in enumerate(profile.parts):
            body, link = world._where(0, part_index)
            (data,) = pb.getCollisionShapeData(body, link, physicsClientId=world.client)
            edges = np.array(part.size) * world.scale
            if part.shape == "box":
                assert data[2] == pb.GEOM_BOX and np.allclose(data[3], edges, atol=1e-6)
                continue
            long_axis = int(np.argmax(edges))
            radius = min(np.delete(edges, long_axis)) / 2
            assert data[2] == pb.GEOM_CAPSULE
            assert data[3][:2] == pytest.approx((edges[long_axis] - 2 * radius, radius), abs=1e-6)
            link_frame = _link_frame(world, body, link)
            turn = np.array(pb.getMatrixFromQuaternion(data[6])).reshape(3, 3)
            capsule_axis = link_frame[:3, :3] @ turn[:, 2]
            assert abs(capsule_axis @ frames[part_index, :3, long_axis]) == pytest.approx(1.0, abs=1e-4)


def _link_frame(world: Ragdoll, body: int, link: int) -> np.ndarray:
    """(4, 4) the world frame of a link (or the base) that collision frames are given in."""
    if link < 0:
        position, orientation = pb.getBasePositionAndOrientation(body, physicsClientId=world.client)
    else:
        state = pb.getLinkState(body, link, computeForwardKinematics=1, physicsClientId=world.client)
        position, orientation = state[4], state[5]
    frame = np.eye(4)
    frame[:3, :3] = np.array(pb.getMatrixFromQuaternion(orientation)).reshape(3, 3)
    frame[:3, 3] = position
    return frame


def test_an_all_capsule_ragdoll_falls_and_rests_on_the_ground(demo, profile):
    capsules = profile.copy()
    capsules.parts = [replace(part, shape="capsule") for part in capsules.parts]
    with Ragdoll(demo, capsules) as world:
        start = world.part_world()[:, :3, 3].copy()
        world.step(240 * 5)
        frames = world.part_world()
        assert np.isfinite(frames).all()
        up = 2 if demo.up_axis == "Z" else 1
        assert frames[:, up, 3].mean() < start[:, up].mean() - 0.1 / world.scale
        assert speeds(world).max() < SETTLED_SPEED
        radii = np.array([capsule_dimensions(part.size)[1] for part in capsules.parts])
        assert (frames[:, up, 3] - radii > world.floor - 0.02 / world.scale).all()


def sampled_moments(size, capsule: bool, step: float = 0.002) -> np.ndarray:
    """(3,) moments of inertia about the box's axes of a 1 kg solid box of edges ``size``, or of the
    capsule along its longest edge (radius half the shortest edge), from points on a grid filling it."""
    size = np.asarray(size, float)
    axes = [np.arange(-edge / 2 + step / 2, edge / 2, step) for edge in size]
    points = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    if capsule:
        long = int(np.argmax(size))
        radius = np.sort(size)[0] / 2
        middle = size[long] / 2 - radius
        along = np.clip(points[:, long], -middle, middle)
        nearest = np.zeros_like(points)
        nearest[:, long] = along
        points = points[np.linalg.norm(points - nearest, axis=1) <= radius]
    squares = points ** 2
    return (squares.sum(axis=1, keepdims=True) - squares).mean(axis=0)


@pytest.mark.parametrize("size, capsule", [((0.1, 0.4, 0.12), False), ((0.1, 0.4, 0.12), True),
                                           ((0.3, 0.1, 0.1), True), ((0.12, 0.2, 0.12), True)])
def test_principal_moments_of_solid_boxes_and_capsules(size, capsule):
    np.testing.assert_allclose(principal_moments(np.array(size), 2.5, capsule),
                               2.5 * sampled_moments(size, capsule), rtol=0.01)


def test_every_part_turns_as_easily_about_each_axis(ragdoll, profile):
    """Each part gets its solid box's or capsule's largest moment of inertia about every axis (the
    principal moments rounded up to the largest): a thin forearm is as hard to spin about its length
    as across it, so a shot cannot whirl it past its limits. Rolling friction stops a capsule rolling
    on the ground for ever; boxes, which do not roll, are spared its cost."""
    for part, size in enumerate(ragdoll.rig.half_extents * 2 * ragdoll.scale):
        body, link = ragdoll._where(0, part)
        info = pb.getDynamicsInfo(body, link, physicsClientId=ragdoll.client)
        capsule = bool(ragdoll.rig.capsules[part])
        assert (info[6] > 0) == capsule and info[7] == 0
        mass = profile.parts[part].mass
        if capsule:
            radius = np.sort(size)[0] / 2
            middle = size.max() - 2 * radius
            rod = mass * middle / (middle + 4 / 3 * radius)
            caps = mass - rod
            largest = (rod * (radius ** 2 / 4 + middle ** 2 / 12)
                       + caps * (0.4 * radius ** 2 + middle ** 2 / 4 + 3 / 8 * middle * radius))
        else:
            largest = mass / 12 * ((size ** 2).sum() - (size ** 2).min())
        np.testing.assert_allclose(info[2], np.full(3, largest), rtol=1e-6)
