"""Work bounded by what the input uses: the automatic ragdoll setup grows near-linearly with bones,
chains longer than one pybullet multibody holds are built, and a glTF's nodes that no skin or clip
uses cost next to nothing in root travel and hierarchy levels."""

from __future__ import annotations

import json
import shutil
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pybullet as pb
import pytest

from app.animation.root_motion import root_travel
from app.bone_tree import BoneTree
from app.export.gltf import export_gltf
from app.bone_tree import hierarchy_levels
from app.physics.autosetup import auto_setup
from app.physics.multibody import MAX_LINKS, build_layout
from app.physics.rig import bind_rig
from tests.helpers import exit_status, read_gltf
from tests.paths import CORPUS
from tests.synthetic import skinned_chain

CESIUM = CORPUS / "CesiumManDraco"


def random_parents(rng: np.random.Generator, count: int) -> np.ndarray:
    """A random forest whose parents come in any order relative to their children."""
    order = rng.permutation(count)
    parents = np.full(count, -1)
    for place in range(1, count):
        if rng.random() < 0.9:
            parents[order[place]] = order[rng.integers(0, place)]
    return parents


def walked_ancestors(parents: np.ndarray, bone: int) -> list[int]:
    result, bone = [], parents[bone]
    while bone >= 0:
        result.append(int(bone))
        bone = parents[bone]
    return result


# --- ancestry ----------------------------------------------------------------------------------

def test_bone_tree_answers_as_parent_walks_do():
    rng = np.random.default_rng(7)
    for _ in range(20):
        parents = random_parents(rng, int(rng.integers(1, 40)))
        tree, count = BoneTree(parents), len(parents)
        ancestry = [walked_ancestors(parents, b) for b in range(count)]
        marked = rng.random(count) < 0.3
        assert list(tree.depth) == [len(a) for a in ancestry]
        for bone in range(count):
            assert tree.ancestors(bone) == ancestry[bone]
            below = [b for b in range(count) if bone in ancestry[b]]
            assert list(tree.descendants(bone)) == below
            assert all(tree.is_above(a, bone) == (a in ancestry[bone]) for a in range(count))
            nearest = next((a for a in ancestry[bone] if marked[a]), -1)
            assert tree.nearest_marked_ancestor(marked)[bone] == nearest
            assert tree.marked_below(marked)[bone] == any(marked[b] for b in below)
            open_path = [b for b in below if not marked[b]
                         and not any(marked[a] for a in ancestry[b][:ancestry[b].index(bone)])]
            assert list(tree.unblocked_descendants(bone, marked)) == open_path


def test_hierarchy_levels_of_a_deep_chain_in_one_pass_per_doubling():
    count = 20_000
    started = time.process_time()
    levels = hierarchy_levels(np.arange(count) - 1)
    assert time.process_time() - started < 1.0, "one vectorised pass per level took seconds here"
    assert [list(level) for level in levels] == [[bone] for bone in range(count)]


def test_hierarchy_levels_still_names_a_bone_on_a_cycle():
    with pytest.raises(ValueError, match="bone 1 is on a parent cycle"):
        hierarchy_levels(np.array([-1, 2, 1, 0]))


# --- the ragdoll -------------------------------------------------------------------------------

def setup_seconds(count: int) -> float:
    model = skinned_chain(count)
    started = time.process_time()
    auto_setup(model)
    return time.process_time() - started


def test_automatic_setup_grows_about_linearly_with_bones():
    """Cubic growth made 500 bones 125 times as slow as 100; linear makes it 5 times."""
    small, large = min(setup_seconds(100) for _ in range(2)), setup_seconds(500)
    assert large / small < 12.0


def test_a_long_chain_gets_a_part_per_bone_sized_to_its_own_vertices():
    """A part takes the vertices of the bones that follow it, not those past the next part."""
    profile = auto_setup(skinned_chain(120))
    sizes = np.array([part.size for part in profile.parts])
    assert len(profile.parts) >= 110
    assert sizes[:, 0].max() < 0.3, "no box spans more than a few bones of 0.1"


def test_pybullet_keeps_at_most_max_links_links_per_multibody():
    """Where MAX_LINKS comes from: links past it are dropped without an error."""
    client = pb.connect(pb.DIRECT)
    try:
        count = MAX_LINKS + 3
        box = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[0.1] * 3, physicsClientId=client)
        body = pb.createMultiBody(
            1.0, box, linkMasses=[1.0] * count, linkCollisionShapeIndices=[box] * count,
            linkVisualShapeIndices=[-1] * count, linkPositions=[[0, 0, 0.2]] * count,
            linkOrientations=[[0, 0, 0, 1]] * count, linkInertialFramePositions=[[0, 0, 0]] * count,
            linkInertialFrameOrientations=[[0, 0, 0, 1]] * count, linkParentIndices=list(range(count)),
            linkJointTypes=[pb.JOINT_REVOLUTE] * count, linkJointAxis=[[1, 0, 0]] * count,
            physicsClientId=client)
        assert pb.getNumJoints(body, physicsClientId=client) == MAX_LINKS
    finally:
        pb.disconnect(client)


def test_a_long_chain_is_split_into_bodies_pybullet_can_hold():
    model = skinned_chain(200)
    rig = bind_rig(model, auto_setup(model))
    layout = build_layout(rig)
    assert max(len(body.links) for body in layout) <= MAX_LINKS
    assert len(layout) > 1
    edges = [edge.joint for body in layout for edge in body.edges]
    cut = [joint for body in layout for joint in body.cut]
    assert sorted(edges + cut) == list(range(len(rig.joint_parts))), "every joint is a link or a constraint"
    assert all(joint in body.loops for body in layout for joint in body.cut)


def run_ragdoll(tmp_path, count: int, seconds: str) -> np.lib.npyio.NpzFile:
    source, output = tmp_path / f"chain{count}.glb", tmp_path / "run.npz"
    export_gltf(skinned_chain(count), source)
    assert exit_status(["ragdoll", str(source), "--seconds", seconds, "-o", str(output)]) == 0
    return np.load(output)


def test_ragdoll_of_a_44_bone_chain_runs(tmp_path):
    """43 cone-twists need 129 links: one body of 127 could not hold them (Joint index out-of-range)."""
    run = run_ragdoll(tmp_path, 44, "0.2")
    assert run["world"].shape[1] >= 44 and np.isfinite(run["world"]).all()


@pytest.mark.slow
def test_ragdoll_of_a_500_bone_chain_runs(tmp_path):
    run = run_ragdoll(tmp_path, 500, "0.2")
    assert run["world"].shape[1] >= 500 and np.isfinite(run["world"]).all()


# --- glTF nodes that nothing uses ----------------------------------------------------------------

def cesium_with_unused_nodes(folder: Path, count: int) -> Path:
    """CesiumMan with ``count`` more nodes at the scene's root that no skin, mesh or clip names."""
    for source in CESIUM.iterdir():
        shutil.copy(source, folder / source.name)
    document = json.loads((CESIUM / "CesiumMan.gltf").read_text())
    first = len(document["nodes"])
    document["nodes"] += [{"name": f"unused{i}"} for i in range(count)]
    document["scenes"][0]["nodes"] += list(range(first, first + count))
    (folder / "CesiumMan.gltf").write_text(json.dumps(document))
    return folder / "CesiumMan.gltf"


def test_root_travel_costs_nothing_per_unused_node(tmp_path):
    plain = read_gltf(CESIUM / "CesiumMan.gltf")
    bloated = read_gltf(cesium_with_unused_nodes(tmp_path, 20_000))
    clip = bloated.clips[0]
    assert len(bloated.skeleton) > 20_000
    tracemalloc.start()
    try:
        travel = root_travel(bloated, clip)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert travel == pytest.approx(root_travel(plain, plain.clips[0]))
    every_bone_every_frame = len(clip.frame_times) * len(bloated.skeleton) * 16 * 8
    assert peak < every_bone_every_frame / 4
