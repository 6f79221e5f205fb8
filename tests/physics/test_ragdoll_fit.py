"""The automatic ragdoll fitted to the model itself: limits that hold its rest pose and its clips
(within a role's anatomical bound unless a clip needs more), and parts measured as the model is
drawn (a skin bound under a 0.01-scaled, turned armature gets the parts of the same rig in metres)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app import maths
from app.model import Clip, Mesh, Model, Skeleton
from app.physics.autosetup import LIMITS, auto_setup, meters_per_unit
from app.physics.clip_limits import ANATOMICAL_BOUNDS, MARGIN_DEG, fitted_limits, joint_role
from app.physics.drawn_model import armature_transform, as_drawn
from app.physics.trial import check_profile
from app.pose import posed_positions, rest_pose
from tests import synthetic
from tests.synthetic import world_with_turns


def with_rest(model: Model, world: np.ndarray) -> Model:
    """``model`` whose rest pose (not its bind pose) is ``world`` (B, 4, 4)."""
    skeleton = model.skeleton
    local = world.copy()
    children = np.flatnonzero(skeleton.parents >= 0)
    local[children] = np.linalg.inv(world[skeleton.parents[children]]) @ world[children]
    rested = Skeleton(names=list(skeleton.names), parents=skeleton.parents, bind_world=skeleton.bind_world,
                      heads=skeleton.heads, tails=skeleton.tails, derived_tails=skeleton.derived_tails,
                      rest_local=local)
    return dataclasses.replace(model, skeleton=rested)


def with_clip(model: Model, worlds: np.ndarray, name: str = "swing") -> Model:
    """``model`` with one clip of bone world matrices ``worlds`` (F, B, 4, 4), a frame a second."""
    clip = Clip(name, "matrices", times=np.arange(len(worlds), dtype=float), world=worlds)
    return dataclasses.replace(model, clips=[clip])


def joint(profile, name: str):
    return profile.joints[profile.joint_index(name)]


# --- limits from the rest pose and the clips ----------------------------------------------------

def test_a_rest_pose_outside_the_default_limits_is_held_with_a_margin(short_trial):
    """The upper arm twisted 70° about itself at rest: the shoulder's twist limit (45° by default)
    becomes 70° + the margin, and the check finds the rest pose inside."""
    model = synthetic.humanoid("Y")
    model = with_rest(model, world_with_turns(model, {"arm.L": ("Y", np.radians(70.0))}))
    profile = auto_setup(model)
    assert LIMITS["shoulder"][2] == 45.0
    assert joint(profile, "shoulder_l").twist == pytest.approx(70.0 + MARGIN_DEG, abs=0.2)
    assert joint(profile, "shoulder_r").twist == LIMITS["shoulder"][2]
    report = check_profile(model, profile)
    rest = {row["name"]: row["rest_outside_deg"] for row in report["joints"]}
    assert rest["shoulder_l"] == 0.0


def test_a_clip_past_the_limits_widens_them_up_to_the_anatomical_bound():
    """A clip twisting the thigh 50° (hip twist 30° by default, bound 70°): the limit holds 60°."""
    model = synthetic.humanoid("Y")
    frames = [world_with_turns(model, {"thigh.L": ("Y", np.radians(angle))}) for angle in (0.0, 25.0, 50.0)]
    profile = auto_setup(with_clip(model, np.array(frames)))
    assert joint(profile, "hip_l").twist == pytest.approx(50.0 + MARGIN_DEG, abs=0.2)
    assert joint(profile, "hip_l").swing1 == LIMITS["hip"][0]


def test_a_clip_past_the_bound_is_followed_and_noted(short_trial):
    """A clip twisting the thigh 100°, past the hip's 70° bound: the limit follows the clip (100° +
    the margin), and ``--check`` notes that it passes the bound."""
    model = synthetic.humanoid("Y")
    frames = [world_with_turns(model, {"thigh.L": ("Y", np.radians(angle))}) for angle in (0.0, 100.0)]
    model = with_clip(model, np.array(frames))
    profile = auto_setup(model)
    assert joint(profile, "hip_l").twist == pytest.approx(100.0 + MARGIN_DEG, abs=0.2)
    notes = check_profile(model, profile)["notes"]
    assert any("'hip_l'" in note and "bound" in note for note in notes)


def test_a_clip_the_limits_do_not_hold_is_noted_with_its_name():
    """A saved profile narrower than the clip: the check notes the clip and how far past it goes."""
    model = synthetic.humanoid("Y")
    frames = [world_with_turns(model, {"thigh.L": ("Y", np.radians(angle))}) for angle in (0.0, 50.0)]
    model = with_clip(model, np.array(frames), "kick")
    profile = auto_setup(model)
    profile.set_joint("hip_l", twist=30.0)
    report = check_profile(model, profile)
    row = next(row for row in report["joints"] if row["name"] == "hip_l")
    assert row["clip_outside_deg"] == pytest.approx(20.0, abs=0.2)
    assert any("clip 'kick'" in note and "'hip_l'" in note for note in report["notes"])
    assert report["verdict"] == "pass"


def test_fitted_limits_by_hand():
    """Hinge and cone-twist limits from angles (degrees), defaults and bounds worked out by hand."""
    angles = np.array([[-30.0, 0, 0], [100.0, 0, 0]])
    assert fitted_limits("hinge", (-5.0, 135.0), "elbow", angles) == (-40.0, 135.0)
    assert fitted_limits("hinge", (-5.0, 135.0), "elbow", angles * 1.6) == (-58.0, 170.0)
    cone = np.array([[10.0, -50.0, 5.0], [-100.0, 20.0, 95.0]])
    # swing1 110 (bound 160), swing2 60 (bound 85), twist 105 (bound 110)
    assert fitted_limits("cone_twist", (80.0, 60.0, 45.0), "shoulder", cone) == (110.0, 60.0, 105.0)
    # the spine's bound (60, 45, 60) caps the margins ...
    bent = np.array([[55.0, 0, 0], [0, -40.0, 20.0]])
    assert fitted_limits("cone_twist", (30.0, 25.0, 30.0), "spine", bent) == (60.0, 45.0, 30.0)
    # ... but angles past it are followed, margin and all
    assert fitted_limits("cone_twist", (30.0, 25.0, 30.0), "spine", cone) == (110.0, 60.0, 105.0)


@pytest.mark.parametrize(("bone", "kind", "role"), [
    ("mixamorig:LeftForeArm", "hinge", "elbow"), ("mixamorig:LeftArm", "cone_twist", "shoulder"),
    ("lshin_g", "hinge", "knee"), ("Bip01 Head", "cone_twist", "neck"), ("tail_03", "cone_twist", "tail"),
    ("bone 7", "cone_twist", "generic"), ("LowerArm.L", "cone_twist", "lower_limb"),
])
def test_joint_roles_come_from_the_shared_vocabulary(bone, kind, role):
    assert joint_role(bone, kind) == role
    assert role in ANATOMICAL_BOUNDS


# --- a scaled and turned armature ----------------------------------------------------------------

#: Blender's Mixamo export: the skin in centimetres, Z up, under an armature scaled 0.01 and turned
#: to Y up (x, y, z) -> (x, z, -y).
ARMATURE = np.diag([0.01, 0.01, 0.01, 1.0]) @ np.array(
    [[1.0, 0, 0, 0], [0, 0, 1.0, 0], [0, -1.0, 0, 0], [0, 0, 0, 1.0]])


def centimetre_armature(model: Model) -> Model:
    """``model`` (metres, Y up) bound in the armature's space: bind matrices, heads, tails and skin
    positions in centimetres Z up, its rest pose where the armature draws it (the metre model's)."""
    skeleton, undo = model.skeleton, np.linalg.inv(ARMATURE)
    bind = undo @ skeleton.bind_world
    rest = skeleton.bind_local.copy()
    scaled = Skeleton(names=list(skeleton.names), parents=skeleton.parents, bind_world=bind,
                      heads=maths.transform_points(undo, skeleton.heads),
                      tails=maths.transform_points(undo, skeleton.tails),
                      derived_tails=skeleton.derived_tails, rest_local=rest)
    meshes = [Mesh(name=mesh.name, positions=maths.transform_points(undo, mesh.positions.astype(float)),
                   joints=mesh.joints, weights=mesh.weights, triangles=mesh.triangles)
              for mesh in model.meshes]
    return dataclasses.replace(model, skeleton=scaled, meshes=meshes, unit="metre")


def test_the_armature_transform_is_found_and_drawn_positions_are_unchanged():
    metres = dataclasses.replace(synthetic.humanoid("Y"), unit="metre")
    armature = centimetre_armature(metres)
    assert armature_transform(metres) is None
    np.testing.assert_allclose(armature_transform(armature), ARMATURE, atol=1e-9)
    drawn = as_drawn(armature)
    np.testing.assert_allclose(drawn.skeleton.heads, metres.skeleton.heads, atol=1e-9)
    np.testing.assert_allclose(drawn.bind_positions, metres.bind_positions, atol=1e-5)
    np.testing.assert_allclose(posed_positions(drawn, rest_pose(drawn)),
                               posed_positions(armature, rest_pose(armature)), atol=1e-5)
    assert as_drawn(drawn) is drawn


def test_a_centimetre_armature_gets_the_parts_of_the_same_rig_in_metres():
    metres = dataclasses.replace(synthetic.humanoid("Y"), unit="metre")
    armature = centimetre_armature(metres)
    expected, got = auto_setup(metres), auto_setup(armature)
    assert meters_per_unit(armature) == meters_per_unit(metres) == 1.0
    assert [p.name for p in got.parts] == [p.name for p in expected.parts]
    for want, part in zip(expected.parts, got.parts):
        np.testing.assert_allclose(part.size, want.size, atol=1e-5, err_msg=part.name)
        assert part.mass == pytest.approx(want.mass, rel=1e-3)
    report = check_profile(armature, got)
    assert max(row["penetration_cm"] for row in report["parts"]) <= report["thresholds"]["penetration_cm"]
    assert report["verdict"] == "pass", report["problems"]


# --- props and bones that move vertices ----------------------------------------------------------

def with_bone(model: Model, name: str, parent: str, head, tail, half_width: float,
              steal_from: str | None = None) -> Model:
    """``model`` (one mesh) with a bone ``name`` under ``parent`` from ``head`` to ``tail``: a box of
    ``half_width`` along it weighted to it, or (``steal_from``) the vertices of that bone lying
    nearer its tail than its head handed to the new bone (a twist bone)."""
    skeleton, mesh = model.skeleton, model.meshes[0]
    head, tail = np.asarray(head, float), np.asarray(tail, float)
    frame = np.eye(4)
    frame[:3, 3] = head
    bind = np.concatenate([skeleton.bind_world, frame[None]])
    parents = np.append(skeleton.parents, skeleton.index(parent))
    grown = Skeleton(names=[*skeleton.names, name], parents=parents, bind_world=bind,
                     heads=np.vstack([skeleton.heads, head]), tails=np.vstack([skeleton.tails, tail]),
                     derived_tails=np.zeros(len(skeleton) + 1, bool))
    positions, joints, triangles = mesh.positions.astype(float), mesh.joints.copy(), mesh.triangles
    new = len(skeleton)
    if steal_from is None:
        low, high = np.minimum(head, tail) - half_width, np.maximum(head, tail) + half_width
        box, _, faces = synthetic.box(low, high)
        triangles = np.vstack([triangles, faces + len(positions)])
        positions = np.vstack([positions, box])
        joints = np.vstack([joints, np.full((len(box), 1), new)])
    else:
        bone = skeleton.index(steal_from)
        start, end = skeleton.heads[bone], skeleton.tails[bone]
        nearer_tail = np.linalg.norm(positions - end, axis=1) < np.linalg.norm(positions - start, axis=1)
        joints[(joints[:, 0] == bone) & nearer_tail, 0] = new
    body = Mesh(name="body", positions=positions, joints=joints, weights=np.ones((len(positions), 1)),
                triangles=triangles)
    return dataclasses.replace(model, skeleton=grown, meshes=[body])


def test_a_prop_bone_gets_no_part_and_does_not_stretch_the_hand():
    """An axe 0.9 m long hanging from the left forearm to below the feet: no part of its own, the
    forearm's box as without it, nothing in the ground, and the axe's bone not reported uncovered."""
    plain = synthetic.humanoid("Z")
    armed = with_bone(plain, "Axe", "forearm.L", (0.76, 0.0, 1.42), (0.76, 0.0, 0.52), 0.03)
    profile = auto_setup(armed)
    assert "Axe" not in {part.bone for part in profile.parts}
    assert profile.relations["Axe"] == "forearm_l"
    forearm = profile.parts[profile.part_index("forearm_l")]
    expected = auto_setup(plain).parts[auto_setup(plain).part_index("forearm_l")]
    np.testing.assert_allclose(forearm.size, expected.size, atol=1e-6)
    report = check_profile(armed, profile)
    assert report["uncovered_bones"] == []
    assert report["verdict"] == "pass", report["problems"]


def test_a_twist_bone_that_moves_vertices_is_covered_by_its_limb(short_trial):
    """Half the upper arm's skin handed to a twist bone below it: no part of its own (a helper), but
    the upper arm's box still covers its vertices, so the check finds no uncovered bone."""
    model = synthetic.humanoid("Z")
    model = with_bone(model, "upperarm_twist.L", "arm.L", (0.36, 0.0, 1.42), (0.50, 0.0, 1.42), 0.0,
                      steal_from="arm.L")
    profile = auto_setup(model)
    assert "upperarm_twist.L" not in {part.bone for part in profile.parts}
    report = check_profile(model, profile)
    assert report["uncovered_bones"] == []


def test_the_check_reports_its_progress_to_the_end(short_trial, monkeypatch):
    """Progress every 10 of the short trial's steps: from under a tenth to the whole."""
    from app.physics import trial

    monkeypatch.setattr(trial, "PROGRESS_STEPS", 10)
    assert short_trial > 100
    model = synthetic.humanoid("Y")
    shares = []
    check_profile(model, auto_setup(model), shares.append)
    assert shares == sorted(shares) and 0.0 < shares[0] < 0.1 and shares[-1] == pytest.approx(1.0, abs=0.03)


def test_riggedfigure_chest_gets_a_part_and_the_check_passes():
    """The vendored RiggedFigure (CC BY 4.0, tests/corpus): its chest bone, where both arms and the
    neck start, moves vertices that lay outside every box; it now has a part of its own."""
    from app import loading
    from tests.paths import CORPUS

    model = loading.load([CORPUS / "RiggedFigure" / "RiggedFigure.gltf"])
    profile = auto_setup(model)
    assert "torso_joint_3" in {part.bone for part in profile.parts}
    report = check_profile(model, profile)
    assert report["uncovered_bones"] == []
    assert report["verdict"] == "pass", report["problems"]


def with_held_stick(model: Model, bone_name: str, parent: str) -> Model:
    """``model`` with a bone ``bone_name`` under ``parent`` carrying a mesh of its own: a stick 0.9 m
    long and 4 cm thick, every vertex weighted wholly to that bone, hanging from the parent's tail
    (a hand) to below the feet."""
    skeleton = model.skeleton
    hand = skeleton.tails[skeleton.index(parent)]
    head, tail = hand, hand + np.array([0.0, 0.0, -0.9])
    frame = np.eye(4)
    frame[:3, 3] = head
    grown = Skeleton(names=[*skeleton.names, bone_name],
                     parents=np.append(skeleton.parents, skeleton.index(parent)),
                     bind_world=np.concatenate([skeleton.bind_world, frame[None]]),
                     heads=np.vstack([skeleton.heads, head]), tails=np.vstack([skeleton.tails, tail]),
                     derived_tails=np.zeros(len(skeleton) + 1, bool))
    box, _, faces = synthetic.box(np.minimum(head, tail) - 0.02, np.maximum(head, tail) + 0.02)
    stick = Mesh(name="stick", positions=box, joints=np.full((len(box), 1), len(skeleton)),
                 weights=np.ones((len(box), 1)), triangles=faces)
    return dataclasses.replace(model, skeleton=grown, meshes=[*model.meshes, stick])


def anonymous(model: Model) -> Model:
    """``model`` with bone names that say nothing (``bone0`` …): the generic setup, which gives every
    long bone that moves vertices a part."""
    skeleton = model.skeleton
    renamed = Skeleton(names=[f"bone{i}" for i in range(len(skeleton))], parents=skeleton.parents,
                       bind_world=skeleton.bind_world, heads=skeleton.heads, tails=skeleton.tails,
                       derived_tails=skeleton.derived_tails)
    return dataclasses.replace(model, skeleton=renamed)


def test_a_rigid_mesh_of_its_own_off_the_skin_is_a_prop_whatever_its_bone_is_called(tmp_path):
    """A stick on a separate rigid mesh, its bone named ``bone17`` under the left forearm, in a
    generic-setup figure written to glTF and read back: no part of its own (before, a part of its
    own), welded to the forearm's part, nothing of the forearm's box stretched over it, and the check
    passes without calling the bone uncovered."""
    from app import loading
    from app.export.gltf import export_gltf

    plain = anonymous(synthetic.humanoid("Y"))
    forearm = plain.skeleton.names[synthetic.humanoid("Y").skeleton.index("forearm.L")]
    armed = with_held_stick(plain, "bone17", forearm)
    path = tmp_path / "armed.glb"
    export_gltf(armed, path)
    model = loading.load([path])
    bones_per_mesh = [len(np.unique(mesh.joints[mesh.weights > 0])) for mesh in model.meshes]
    assert bones_per_mesh == [len(plain.skeleton), 1]

    profile = auto_setup(model)
    assert "bone17" not in {part.bone for part in profile.parts}
    holder = profile.parts[profile.part_index(profile.relations["bone17"])]
    assert holder.bone == forearm
    expected = auto_setup(plain)
    np.testing.assert_allclose(holder.size, expected.parts[expected.part_index(holder.name)].size, atol=1e-5)
    report = check_profile(model, profile)
    assert report["uncovered_bones"] == []
    assert report["verdict"] == "pass", report["problems"]


def test_a_model_of_rigid_pieces_alone_has_no_rigid_props():
    """Every limb a mesh of its own, wholly on its bone, and no skin (an NWN creature): every limb is
    body, so the parts are those of the one-mesh figure."""
    plain = anonymous(synthetic.humanoid("Z"))
    body = plain.meshes[0]
    pieces = [_sub_mesh(body, np.flatnonzero(body.joints[:, 0] == bone), f"piece{bone}")
              for bone in range(len(plain.skeleton))]
    pieced = dataclasses.replace(plain, meshes=pieces)
    assert sorted(p.bone for p in auto_setup(pieced).parts) == sorted(p.bone for p in auto_setup(plain).parts)


def split_off(model: Model, bones: list[str]) -> Model:
    """``model`` with the vertices of ``bones`` taken out of its skin into a rigid mesh each."""
    body = model.meshes[0]
    meshes, kept = [], np.ones(len(body.positions), bool)
    for name in bones:
        rows = np.flatnonzero(body.joints[:, 0] == model.skeleton.index(name))
        kept[rows] = False
        meshes.append(_sub_mesh(body, rows, name))
    return dataclasses.replace(model, meshes=[_sub_mesh(body, np.flatnonzero(kept), "skin"), *meshes])


def _sub_mesh(body: Mesh, rows: np.ndarray, name: str) -> Mesh:
    remap = np.full(len(body.positions), -1)
    remap[rows] = np.arange(len(rows))
    faces = body.triangles[np.isin(body.triangles, rows).all(axis=1)]
    return Mesh(name=name, positions=body.positions[rows], joints=body.joints[rows],
                weights=body.weights[rows], triangles=remap[faces])


@pytest.mark.parametrize("pieces", [["bone7", "bone8", "bone11"], ["bone2"]], ids=["leg chain", "named head"])
def test_rigid_pieces_of_the_body_under_a_skin_are_not_props(pieces):
    """A left leg (thigh, shin, foot: bones 7, 8, 11) of rigid pieces under a skinned hip keeps its
    parts (bones below the thigh and shin move vertices: a chain, not a prop); so does a rigid head
    named as one under a skinned chest."""
    from app.physics.body_shape import prop_bones

    plain = anonymous(synthetic.humanoid("Z"))
    if pieces == ["bone2"]:
        names = list(plain.skeleton.names)
        names[2] = "Head"
        skeleton = dataclasses.replace(plain.skeleton, names=names)
        plain = dataclasses.replace(plain, skeleton=skeleton)
        pieces = ["Head"]
    model = split_off(plain, pieces)
    assert not prop_bones(model).any()
    assert sorted(p.bone for p in auto_setup(model).parts) == sorted(p.bone for p in auto_setup(plain).parts)
