"""Automatic ragdoll setup on hand-built skeletons, with and without weights: which bones get parts,
how big the boxes are, what the body weighs, which limits joints get, and that the joints hold their
limits under hard shots."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app import loading, maths
from app.export.gltf import export_gltf
from app.loose_skeleton import inferred_skeleton
from app.model import Clip, Mesh, Model, Skeleton
from app.physics.autosetup import LIMITS, MASS_RATIO, auto_setup, balance_masses, role_limits
from app.physics.symmetry import mirror_bones
from app.physics.ragdoll import TIME_STEP, Ragdoll
from app.physics.rig import bind_rig, rigid_inverse
from tests import synthetic
from tests.ragdoll_trial import depth_below_ground, limit_excess
from tests.writers import text_formats as write
from tests.writers.nwn_writer import WNode, write_mdl

#: NWN's part names for synthetic.humanoid's bones.
NWN = ["pelvis_g", "torso_g", "head_g", "lbicep_g", "lforearm_g", "rbicep_g", "rforearm_g", "lthigh_g",
       "lshin_g", "rthigh_g", "rshin_g", "lfoot_g", "rfoot_g"]
#: Limits hold within this many degrees through falls and shots (issue: 15°).
LIMIT_SLACK = 15.0


def nwn_creature(folder) -> Model:
    """synthetic.humanoid as an NWN creature: one trimesh per node under a ``rootdummy`` that owns
    no vertices, the torso beside the pelvis (both children of rootdummy), as BioWare's are."""
    model = synthetic.humanoid("Z")
    skeleton, mesh = model.skeleton, model.meshes[0]
    positions, owners, triangles = mesh.positions.astype(float), mesh.joints[:, 0], mesh.triangles
    parents = skeleton.parents.copy()
    parents[skeleton.index("chest")] = -1
    nodes = []
    for bone in range(len(skeleton)):
        mine = np.flatnonzero(owners == bone)
        faces = np.searchsorted(mine, triangles[np.isin(triangles, mine).all(axis=1)])
        origin = skeleton.heads[parents[bone]] if parents[bone] >= 0 else np.zeros(3)
        nodes.append(WNode(NWN[bone], 0x021, tuple(skeleton.heads[bone] - origin), (0, 0, 0, 1),
                           vertices=positions[mine] - skeleton.heads[bone], faces=faces))
    root = WNode("rootdummy", 0x001, (0, 0, 0), (0, 0, 0, 1))
    for bone, parent in enumerate(parents):
        (nodes[parent] if parent >= 0 else root).children.append(nodes[bone])
    path = folder / "c_hero.mdl"
    path.write_bytes(write_mdl("c_hero", WNode("c_hero", 0x001, children=[root])))
    return loading.load([path])


def unweighted(folder) -> Model:
    """synthetic.humanoid's skeleton alone (a .bnf): parts must come from the bones."""
    model = synthetic.humanoid("Y", with_mesh=False)
    return loading.load([write.bnf(folder / "man.bnf", model.skeleton.parents, model.skeleton.heads)])


def vertices_in_boxes(model: Model, profile) -> np.ndarray:
    """(P,) how many bind-pose vertices lie inside each part's box."""
    rig = bind_rig(model, profile)
    points = model.bind_positions.astype(float)
    counts = []
    for frame, half in zip(rig.box_bind, rig.half_extents):
        local = points @ rigid_inverse(frame)[:3, :3].T + rigid_inverse(frame)[:3, 3]
        counts.append(int(np.all(np.abs(local) <= half + 1e-9, axis=1).sum()))
    return np.array(counts)


def owned_bones(model: Model) -> set[str]:
    """Names of the bones that some vertex gives most of its weight to."""
    owners = [mesh.joints[np.arange(mesh.vertex_count), np.argmax(mesh.weights, axis=1)]
              for mesh in model.meshes if mesh.vertex_count]
    return {model.skeleton.names[b] for b in np.unique(np.concatenate(owners))}


def test_nwn_creature_gets_the_humanoid_preset_without_its_root_dummy(tmp_path):
    model = nwn_creature(tmp_path)
    profile = auto_setup(model)
    bones = {part.bone for part in profile.parts}
    assert "rootdummy" not in bones and "c_hero" not in bones
    assert bones <= owned_bones(model)
    assert {"pelvis", "chest", "head", "thigh_l", "forearm_r"} <= {part.name for part in profile.parts}
    counts = vertices_in_boxes(model, profile)
    assert counts.max() <= model.vertex_count / 2
    assert 55.0 <= profile.total_mass <= 95.0, "a 1.78 m body weighs what a person does"
    with Ragdoll(model, profile) as ragdoll:
        assert len(ragdoll.layout) == 1, "pelvis and torso are joined although neither holds the other"


def test_generic_skinned_setup_puts_parts_only_on_bones_that_own_vertices():
    """Names that say nothing and a root bone without vertices above the hips."""
    body = synthetic.humanoid("Z")
    old = body.skeleton
    names = ["root"] + [f"joint{i}" for i in range(len(old))]
    parents = np.concatenate([[-1], np.where(old.parents >= 0, old.parents + 1, 0)])
    bind = np.concatenate([np.eye(4)[None], old.bind_world])
    heads = np.concatenate([[[0.0, 0.0, 0.0]], old.heads])
    tails = np.concatenate([[[0.0, 0.0, 0.95]], old.tails])
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind, heads=heads, tails=tails,
                        derived_tails=np.zeros(len(names), bool))
    mesh = body.meshes[0]
    mesh.joints = mesh.joints + 1
    model = Model(name="anon", skeleton=skeleton, meshes=[mesh], up_axis="Z")
    profile = auto_setup(model)
    bones = {part.bone for part in profile.parts}
    assert "root" not in bones and bones <= owned_bones(model)
    assert vertices_in_boxes(model, profile).max() <= model.vertex_count / 2
    with Ragdoll(model, profile) as ragdoll:
        assert len(ragdoll.layout) == 1


def test_without_weights_parts_follow_the_bones(tmp_path):
    model = unweighted(tmp_path)
    profile = auto_setup(model)
    assert len(profile.parts) >= 8
    assert 45.0 <= profile.total_mass <= 95.0
    with Ragdoll(model, profile) as ragdoll:
        assert len(ragdoll.layout) == 1


def test_mass_scales_with_the_cube_of_size(tmp_path):
    """glTF states metres: the same body 1.5 times as big weighs 1.5³ times as much."""
    small, big = synthetic.humanoid("Y"), synthetic.humanoid("Y")
    bind = big.skeleton.bind_world.copy()
    bind[:, :3, 3] *= 1.5
    big.skeleton = Skeleton(names=big.skeleton.names, parents=big.skeleton.parents, bind_world=bind,
                            heads=big.skeleton.heads * 1.5, tails=big.skeleton.tails * 1.5,
                            derived_tails=big.skeleton.derived_tails)
    big.meshes[0].positions = big.meshes[0].positions * 1.5
    masses = []
    for name, model in (("small", small), ("big", big)):
        export_gltf(model, tmp_path / f"{name}.glb")
        profile = auto_setup(loading.load([tmp_path / f"{name}.glb"]))
        assert profile.meters_per_unit == 1.0
        masses.append(profile.total_mass)
    assert masses[1] / masses[0] == pytest.approx(1.5 ** 3, rel=0.02)


def test_a_format_without_units_is_scaled_to_a_human_size(tmp_path):
    """BonesPro numbers in centimetres, the figure 178 units tall: read as a 1.8 m body."""
    model = synthetic.humanoid("Z")
    bind = model.skeleton.bind_world.copy()
    bind[:, :3, 3] *= 100
    mesh = model.meshes[0]
    path = write.bonespro_structure(tmp_path / "body.txt", model.skeleton.names, model.skeleton.parents, bind,
                                    mesh.positions * 100, [[(int(b), 1.0)] for b in mesh.joints[:, 0]])
    profile = auto_setup(loading.load([path]))
    size = np.ptp(np.concatenate([mesh.positions, model.skeleton.heads, model.skeleton.tails]), axis=0).max()
    assert profile.meters_per_unit == pytest.approx(1.8 / (100 * size), rel=1e-3)
    assert 55.0 <= profile.total_mass <= 95.0


@pytest.mark.parametrize("name, limits", [
    ("b_Tail01_012", (30.0, 30.0, 10.0)), ("Bip01 Ponytail1", (30.0, 30.0, 10.0)),
    ("wing_l", (60.0, 45.0, 20.0)), ("b_Neck_04", LIMITS["neck"]), ("b_Spine01_02", LIMITS["spine"]),
    ("b_LeftLeg01_015", (70.0, 35.0, 20.0)), ("b_LeftLeg02_016", (60.0, 15.0, 10.0)),
    ("b_RightForeArm_07", (60.0, 15.0, 10.0)), ("bone 7", LIMITS["generic"]),
])
def test_generic_limits_by_role(name, limits):
    assert role_limits(name) == limits


# --- limits under fire ---------------------------------------------------------------------------

def shot_run(model: Model, profile, seed: int) -> tuple[np.ndarray, float]:
    """Random shots of 1–200 N·s every 0.2 s for 10 s at random parts, then
    6 s to settle: (J,) the worst overshoot per joint (degrees) and the deepest any box went (m).
    Asserts the run stayed finite and came to rest."""
    rng = np.random.default_rng(seed)
    with Ragdoll(model, profile) as ragdoll:
        worst = np.zeros(len(profile.joints))
        deepest = 0.0
        for step in range(int(16 / TIME_STEP)):
            if step % 48 == 0 and step * TIME_STEP < 10:
                target = ragdoll.part_world()[rng.integers(len(profile.parts)), :3, 3]
                direction = rng.normal(size=3)
                direction /= np.linalg.norm(direction)
                ragdoll.shoot(target - direction, direction, rng.uniform(1.0, 200.0))
            ragdoll.step()
            worst = np.maximum(worst, limit_excess(ragdoll))
            if step % 8 == 0:
                deepest = min(deepest, depth_below_ground(ragdoll))
        assert np.isfinite(ragdoll.part_world()).all()
        speeds = np.linalg.norm(ragdoll.part_velocities(), axis=1) * profile.meters_per_unit
        assert speeds.max() < 0.05, "at rest on the ground"
    return worst, deepest


def test_limits_hold_under_shots_up_to_200_newton_seconds(tmp_path):
    """Every joint stays within LIMIT_SLACK of its limits and nothing sinks through the ground: a box
    driven down by a shot may dip into it for a step or two (discrete collision, 12.8 cm here), less
    than the boxes are thick."""
    model = nwn_creature(tmp_path)
    profile = auto_setup(model)
    worst, deepest = shot_run(model, profile, 18)
    assert worst.max() < LIMIT_SLACK, dict(zip([j.name for j in profile.joints], worst.round(1)))
    assert deepest > -0.15, "no part sinks through the ground"


# --- masses of thin limbs --------------------------------------------------------------------------

def test_balance_masses_by_hand():
    """A 50 kg body, a 1 kg thigh and a 0.1 kg shin in a chain: the share floor (2 % of 51.1 kg)
    lifts both limbs to 1.022 kg, the ratio lifts the thigh to 5 kg (1/10 of the body), the shin
    stays (above 1/10 of 5 kg); then all scale back to 51.1 kg."""
    balanced = balance_masses(np.array([50.0, 1.0, 0.1]), np.array([[0, 1], [1, 2]]), 10.0, 0.02)
    expected = np.array([50.0, 5.0, 1.022]) * 51.1 / 56.022
    np.testing.assert_allclose(balanced, expected, rtol=1e-12)


def test_balance_masses_leaves_a_balanced_body_alone():
    masses = np.array([30.0, 10.0, 8.0, 5.0])
    pairs = np.array([[0, 1], [0, 2], [2, 3]])
    np.testing.assert_array_equal(balance_masses(masses, pairs, 10.0, 0.02), masses)


def thin_limbed(up_axis: str = "Z") -> Model:
    """synthetic.humanoid with arms and legs squeezed to a tenth of their width around the bones,
    so by volume an upper arm weighs 1/50 of the chest (as a spider's or a dog's legs do)."""
    model = synthetic.humanoid(up_axis)
    skeleton, mesh = model.skeleton, model.meshes[0]
    limbs = [skeleton.index(n) for n in skeleton.names
             if n.split(".")[0] in ("arm", "forearm", "thigh", "shin")]
    owner = mesh.joints[:, 0]
    thin = np.isin(owner, limbs)
    head, tail = skeleton.heads[owner[thin]], skeleton.tails[owner[thin]]
    axis = (tail - head) / np.linalg.norm(tail - head, axis=1, keepdims=True)
    offset = mesh.positions[thin] - head
    along = np.einsum("vk,vk->v", offset, axis)[:, None] * axis
    positions = mesh.positions.copy()
    positions[thin] = head + along + 0.1 * (offset - along)
    mesh.positions = positions
    return model


def test_thin_limbs_weigh_at_least_a_tenth_of_their_neighbours():
    profile = auto_setup(thin_limbed())
    masses = {part.name: part.mass for part in profile.parts}
    ratios = [max(masses[j.part_a], masses[j.part_b]) / min(masses[j.part_a], masses[j.part_b])
              for j in profile.joints]
    assert max(ratios) <= MASS_RATIO * (1 + 1e-3)
    assert max(ratios) > 0.9 * MASS_RATIO, "the rule was needed: some limb was far lighter"


def test_limbs_get_capsules_and_the_trunk_boxes():
    from app.resources import demo_paths

    profile = auto_setup(loading.load(demo_paths()))
    shapes = {part.name: part.shape for part in profile.parts}
    limbs = {f"{limb}_{side}" for limb in ("upperarm", "forearm", "thigh", "shin") for side in "lr"}
    assert limbs <= {name for name, shape in shapes.items() if shape == "capsule"}
    assert all(shapes[name] == "box" for name in ("pelvis", "spine", "chest", "head"))
    for part in profile.parts:
        edges = sorted(part.size)
        assert (edges[2] >= 2 * edges[1]) == (part.shape == "capsule")


# --- flat skeletons ------------------------------------------------------------------------------

def solid(low, high, step: float = 0.02) -> np.ndarray:
    """(N, 3) points filling the box from ``low`` to ``high`` on a grid of ``step``."""
    axes = [np.arange(lo, hi + step / 2, step) for lo, hi in zip(low, high)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)


def slanted(top, bottom, half: float = 0.04, step: float = 0.02) -> np.ndarray:
    """(N, 3) points filling a rod from ``top`` to ``bottom`` whose cross-section is a square of half
    width ``half`` in X and Z."""
    top, bottom = np.asarray(top, float), np.asarray(bottom, float)
    along = np.linspace(0.0, 1.0, int(np.linalg.norm(bottom - top) / step) + 1)
    across = np.arange(-half, half + step / 2, step)
    t, x, z = (grid.ravel() for grid in np.meshgrid(along, across, across, indexing="ij"))
    return top + t[:, None] * (bottom - top) + np.stack([x, np.zeros_like(x), z], axis=-1)


#: A dog in metres (Y up, facing −X), one rigid piece per bone as the C3DE dog has it: its chest and
#: its hips are each wider than long (their vertices' principal axes run across the body) and touch
#: at x = 0; each leg's upper piece touches the body above it and its lower piece; the lower legs
#: lean in under the belly, front to back, until the front and rear feet are 4 cm apart.
DOG = {
    "chest": solid((-0.36, 0.5, -0.2), (-0.01, 0.8, 0.2)),
    "hips": solid((0.01, 0.5, -0.2), (0.3, 0.8, 0.2)),
    "front_upper_l": solid((-0.3, 0.28, 0.08), (-0.22, 0.48, 0.16)),
    "front_upper_r": solid((-0.3, 0.28, -0.16), (-0.22, 0.48, -0.08)),
    "rear_upper_l": solid((0.12, 0.28, 0.08), (0.2, 0.48, 0.16)),
    "rear_upper_r": solid((0.12, 0.28, -0.16), (0.2, 0.48, -0.08)),
    "front_lower_l": slanted((-0.26, 0.22, 0.12), (-0.06, 0.04, 0.12)),
    "front_lower_r": slanted((-0.26, 0.22, -0.12), (-0.06, 0.04, -0.12)),
    "rear_lower_l": slanted((0.16, 0.22, 0.12), (0.06, 0.04, 0.12)),
    "rear_lower_r": slanted((0.16, 0.22, -0.12), (0.06, 0.04, -0.12)),
}
DOG_JOINTS = {frozenset(pair) for pair in [
    ("chest", "hips"), ("chest", "front_upper_l"), ("chest", "front_upper_r"), ("hips", "rear_upper_l"),
    ("hips", "rear_upper_r")] + [(f"{end}_upper_{side}", f"{end}_lower_{side}")
                                 for end in ("front", "rear") for side in "lr"]}


def flat_model(pieces: dict[str, np.ndarray], blends: tuple = (), up_axis: str = "Y") -> Model:
    """A flat skeleton (no parents, identity bind frames at each piece's centre, as C3DE 2009 files
    have) over rigid pieces of vertices, and ``blends``: (points, {bone name: weight}) of vertices
    weighted to up to three bones."""
    names = list(pieces)
    centres = np.array([points.mean(axis=0) for points in pieces.values()])
    bind = np.repeat(np.eye(4)[None], len(names), axis=0)
    bind[:, :3, 3] = centres
    skeleton = Skeleton(names=names, parents=np.full(len(names), -1), bind_world=bind, heads=centres,
                        tails=centres + [0.0, 0.1, 0.0], derived_tails=np.ones(len(names), bool))
    positions = [*pieces.values()]
    joints = [np.repeat([[bone, 0, 0]], len(points), axis=0) for bone, points in enumerate(pieces.values())]
    weights = [np.repeat([[1.0, 0.0, 0.0]], len(points), axis=0) for points in pieces.values()]
    for points, shares in blends:
        lanes = [names.index(name) for name in shares] + [0] * (3 - len(shares))
        positions.append(points)
        joints.append(np.repeat([lanes], len(points), axis=0))
        weights.append(np.repeat([list(shares.values()) + [0.0] * (3 - len(shares))], len(points), axis=0))
    mesh = Mesh(name="body", positions=np.concatenate(positions), joints=np.concatenate(joints),
                weights=np.concatenate(weights))
    return Model(name="flat", skeleton=skeleton, meshes=[mesh], up_axis=up_axis)


def walking(model: Model, frames: int = 8, swing: float = 0.35) -> Model:
    """``model`` (the DOG) with a walk, as the C3DE dog has clips: each leg, its upper and lower piece
    together, swings by up to ``swing`` radians about the top of its upper piece (about Z, across the
    body), the front and rear legs a quarter of a stride apart and the two sides opposite; the body
    stays put."""
    skeleton = model.skeleton
    world = np.repeat(skeleton.bind_world[None], frames, axis=0)
    for leg, lag in (("front", 0.0), ("rear", np.pi / 2)):
        for side, sign in (("l", 1.0), ("r", -1.0)):
            upper = DOG[f"{leg}_upper_{side}"]
            pivot = np.array([upper[:, 0].mean(), upper[:, 1].max(), upper[:, 2].mean()])
            for frame in range(frames):
                angle = sign * swing * np.sin(2 * np.pi * frame / frames + lag)
                turn = np.eye(4)
                turn[:2, :2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
                turn[:3, 3] = pivot - turn[:3, :3] @ pivot
                for piece in ("upper", "lower"):
                    bone = skeleton.index(f"{leg}_{piece}_{side}")
                    world[frame, bone] = turn @ skeleton.bind_world[bone]
    clip = Clip("walk", "matrices", times=np.arange(frames) / frames, world=world)
    return dataclasses.replace(model, clips=[clip])


def test_a_flat_skeleton_joins_the_pieces_whose_skins_touch():
    """Bones join where their skins meet and the clips move them alike (``app.loose_skeleton``, the
    tree retargeting uses too): the hips to the chest, each leg to the body above it, not a rear leg
    to the front foot 4 cm beside it, though its own upper piece is 6 cm away: the walk swings the
    two feet apart and each leg's pieces together. (Without clips nothing tells those gaps apart:
    the tree is then the skins' nearest neighbours.)"""
    model = walking(flat_model(DOG))
    joints = {frozenset((j.part_a, j.part_b)) for j in auto_setup(model).joints}
    assert joints == DOG_JOINTS
    names, parents = model.skeleton.names, inferred_skeleton(model).parents
    tree = {frozenset((names[bone], names[parent])) for bone, parent in enumerate(parents) if parent >= 0}
    assert joints == tree


# --- left and right ------------------------------------------------------------------------------

def widened(names: tuple[str, ...], factor: float) -> Model:
    """synthetic.humanoid (Z up, symmetric about x = 0) with the named bones' boxes ``factor`` times
    as wide and deep around their bones."""
    model = synthetic.humanoid("Z")
    skeleton, mesh = model.skeleton, model.meshes[0]
    owner = mesh.joints[:, 0]
    chosen = np.isin(owner, [skeleton.index(name) for name in names])
    head, tail = skeleton.heads[owner[chosen]], skeleton.tails[owner[chosen]]
    axis = (tail - head) / np.linalg.norm(tail - head, axis=1, keepdims=True)
    offset = mesh.positions[chosen] - head
    along = np.einsum("vk,vk->v", offset, axis)[:, None] * axis
    positions = mesh.positions.copy()
    positions[chosen] = head + along + factor * (offset - along)
    mesh.positions = positions
    return model


def test_twins_get_one_mirrored_shape_fitted_to_both():
    """The right forearm 1.6 times as thick as the left (it holds something): both forearms get the
    same box, mirrored about x = 0, fitted to both forearms' vertices (each box-shaped forearm's
    corners: the union is as thick as the thicker, as when both are thick), and weigh the same."""
    model = widened(("forearm.R",), 1.6)
    profile = auto_setup(model)
    parts = {part.name: part for part in profile.parts}
    thin = {part.name: part for part in auto_setup(synthetic.humanoid("Z")).parts}["forearm_l"]
    both = widened(("forearm.L", "forearm.R"), 1.6)
    thick = {part.name: part for part in auto_setup(both).parts}["forearm_l"]
    left, right = parts["forearm_l"], parts["forearm_r"]
    assert left.size == right.size and left.mass == right.mass and left.shape == right.shape
    assert left.size == pytest.approx(thick.size) and thin.size != pytest.approx(thick.size)
    np.testing.assert_allclose(right.offset, np.array(left.offset) * [-1, 1, 1], atol=1e-6)
    rig = bind_rig(model, profile)
    left_box, right_box = (rig.box_bind[rig.part_names.index(name)] for name in ("forearm_l", "forearm_r"))
    mirror = np.diag([-1.0, 1.0, 1.0])
    np.testing.assert_allclose(right_box[:3, 3], mirror @ left_box[:3, 3], atol=1e-6)
    np.testing.assert_allclose(np.abs(right_box[:3, :3]), np.abs(mirror @ left_box[:3, :3]), atol=1e-6)


def test_mirror_bones_by_name_whatever_the_case_and_numbering():
    names = ["Lbicep_g", "Rbicep_g", "b_LeftUpperArm_09", "b_RightUpperArm_06", "EttinLforearm",
             "Ettin_Rforearm", "LwingpieceA", "RwingpieceA", "Bip01 L Thigh", "Bip01 R Thigh", "torso_g",
             "lhand", "rhand", "rib"]
    count = len(names)
    bind = np.repeat(np.eye(4)[None], count, axis=0)
    heads = np.zeros((count, 3))
    skeleton = Skeleton(names=names, parents=np.full(count, -1), bind_world=bind, heads=heads,
                        tails=heads + [0.0, 0.0, 0.1], derived_tails=np.zeros(count, bool))
    twins = mirror_bones(Model(name="names", skeleton=skeleton, meshes=[], up_axis="Z"))
    expected = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, -1, 12, 11, -1]
    assert twins.tolist() == expected


def test_bones_blended_into_each_other_in_the_skin_join_across_the_blend():
    """A swimmer's thighs own no vertex within 14 cm of the hips (the hip vertices are split 45/45/10
    between the hips, the thigh and the chest, so no bone owns them), while a hand hanging at its
    side comes within 7 cm of a thigh: the thighs still join the hips, through the vertices they
    share, not the hand."""
    pieces = {
        "hips": solid((-0.15, -0.1, 0.9), (0.15, 0.1, 1.1)),
        "chest": solid((-0.17, -0.1, 1.12), (0.17, 0.1, 1.42)),
        "upperarm": solid((0.2, -0.04, 1.06), (0.28, 0.04, 1.38)),
        "forearm": solid((0.2, -0.04, 0.76), (0.28, 0.04, 1.04)),
        "hand": solid((0.2, -0.04, 0.6), (0.28, 0.04, 0.74)),
        "thigh_r": solid((0.03, -0.05, 0.4), (0.13, 0.05, 0.76)),
        "thigh_l": solid((-0.13, -0.05, 0.4), (-0.03, 0.05, 0.76)),
    }
    blends = [(solid((x, -0.05, 0.78), (x + 0.1, 0.05, 0.88)), {"hips": 0.45, thigh: 0.45, "chest": 0.1})
              for x, thigh in ((0.03, "thigh_r"), (-0.13, "thigh_l"))]
    profile = auto_setup(flat_model(pieces, blends, up_axis="Z"))
    joints = {frozenset((j.part_a, j.part_b)) for j in profile.joints}
    assert joints == {frozenset(pair) for pair in [("hips", "chest"), ("chest", "upperarm"),
                                                   ("upperarm", "forearm"), ("forearm", "hand"),
                                                   ("hips", "thigh_r"), ("hips", "thigh_l")]}


def _with_extras() -> Model:
    """synthetic.humanoid (Z up) with a left hand and its finger, a shadow-mesh helper bone under the
    hips whose (undrawn) mesh spans the whole body, and an emitter under the head with no vertices."""
    base = synthetic.humanoid("Z")
    extras = [("hand.L", "forearm.L", (0.76, 0, 1.42), (0.86, 0, 1.42), (0.04, 0.02)),
              ("finger.L", "hand.L", (0.86, 0, 1.42), (0.94, 0, 1.42), (0.03, 0.01)),
              ("dress_shadow", "hips", (0, 0, 0.95), (0, 0, 1.05), None),
              ("emitter", "head", (0, 0, 1.78), (0, 0, 1.85), None)]
    skeleton, body = base.skeleton, base.meshes[0]
    names = skeleton.names + [row[0] for row in extras]
    parents = np.concatenate([skeleton.parents, [names.index(row[1]) for row in extras]])
    heads = np.concatenate([skeleton.heads, [row[2] for row in extras]])
    tails = np.concatenate([skeleton.tails, [row[3] for row in extras]])
    bind = synthetic._frames(heads, tails)
    positions, joints = [body.positions], [body.joints[:, 0]]
    for bone in (names.index("hand.L"), names.index("finger.L")):
        across, deep = extras[bone - len(skeleton)][4]
        length = np.linalg.norm(tails[bone] - heads[bone])
        local, _, _ = synthetic.box((-across, 0.0, -deep), (across, length, deep))
        positions.append(maths.transform_points(bind[bone], local))
        joints.append(np.full(len(local), bone))
    positions, joints = np.concatenate(positions), np.concatenate(joints)
    shadow = np.array([[x, y, z] for x in (-0.8, 0.8) for y in (-0.2, 0.2) for z in (0.0, 1.8)])
    meshes = [Mesh(name="body", positions=positions, joints=joints[:, None],
                   weights=np.ones((len(joints), 1))),
              Mesh(name="shadow", positions=shadow, joints=np.full((8, 1), names.index("dress_shadow")),
                   weights=np.ones((8, 1)), visible=False)]
    return Model(name="extras", skeleton=Skeleton(names=names, parents=parents, bind_world=bind, heads=heads,
                                                  tails=tails, derived_tails=np.zeros(len(names), bool)),
                 meshes=meshes, up_axis="Z")


def test_hands_and_feet_get_parts_and_helper_bones_none():
    model = _with_extras()
    profile = auto_setup(model)
    bones = {part.bone: part for part in profile.parts}
    assert {"hand.L", "foot.L", "foot.R"} <= set(bones)
    assert not {"dress_shadow", "emitter", "finger.L"} & set(bones)
    assert {"wrist_l", "ankle_l", "ankle_r"} <= {joint.name for joint in profile.joints}
    # the hand's box reaches over its finger (x from 0.76 to 0.94), not over the shadow's 1.6 m
    hand = bind_rig(model, profile).box_bind[list(bones).index("hand.L")]
    half = np.array(bones["hand.L"].size) / 2
    reach = np.abs(hand[0, :3]) @ half
    assert hand[0, 3] - reach == pytest.approx(0.76, abs=0.01)
    assert hand[0, 3] + reach == pytest.approx(0.94, abs=0.01)
    # and the foot's box stops at the foot's own vertices (0.18 long, 0.1 wide)
    foot = sorted(bones["foot.L"].size)
    assert foot[2] == pytest.approx(np.hypot(0.18, 0.06), abs=0.02)
    assert foot[1] == pytest.approx(0.1, abs=0.01)
