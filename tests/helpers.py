"""Small hand-built models shared by tests."""

import numpy as np

from app import loading
from app.formats.gltf import reader as gltf
from app.model import Mesh, Model, Skeleton


def read_gltf(path) -> Model:
    """One glTF file read as the window and the command line get it: the glTF reader's model, with the
    posing it leaves to the load stage (tails at rest, morph clips) done."""
    return loading.finish(gltf.read(path))


def translation(x, y, z):
    matrix = np.eye(4)
    matrix[:3, 3] = (x, y, z)
    return matrix


def rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def skeleton(bind_world, parents, names=None):
    bind_world = np.asarray(bind_world, dtype=float)
    heads = bind_world[:, :3, 3]
    return Skeleton(names=names or [f"bone{i}" for i in range(len(parents))], parents=parents,
                    bind_world=bind_world, heads=heads, tails=heads + [0, 0, 1],
                    derived_tails=np.zeros(len(parents), bool))


def chain_model(clips=(), meshes=None):
    """Two bones along +X: bone0 at the origin, bone1 at (1, 0, 0) parented to bone0."""
    skel = skeleton([np.eye(4), translation(1, 0, 0)], [-1, 0])
    if meshes is None:
        meshes = [Mesh("arm", positions=[[0.5, 0, 0], [2, 0, 0], [1, 1, 0]],
                       joints=[[0, 1], [1, 0], [0, 1]], weights=[[1, 0], [1, 0], [0.5, 0.5]],
                       triangles=[[0, 1, 2]])]
    return Model("chain", skel, meshes=meshes, clips=list(clips))


def exit_status(args: list[str]) -> int:
    """What ``boneyard ARGS`` exits with, run in this process (argparse errors raise SystemExit)."""
    from app.cli.main import main

    try:
        return main(args)
    except SystemExit as exit_:
        return exit_.code


def world_from_relative(relative, parents):
    """(B, 4, 4) world matrices by walking each bone's parent chain (independent of app.pose)."""
    world = np.empty_like(relative)
    for bone in range(len(relative)):
        matrix, current = relative[bone], parents[bone]
        while current >= 0:
            matrix = relative[current] @ matrix
            current = parents[current]
        world[bone] = matrix
    return world


def part(doc, name):
    """The profile part called ``name`` of a ragdoll document."""
    return doc.profile.parts[doc.profile.part_index(name)]


def joint(doc, name):
    """The profile joint called ``name`` of a ragdoll document."""
    return doc.profile.joints[doc.profile.joint_index(name)]


def shorten_trial(monkeypatch) -> int:
    """The standard trial (``ragdoll --check``) cut to about a second of simulation in all (a quarter
    second of settling, two shots, a short pull, a quarter second after), until the test ends: for
    the tests of what the report says from the profile's own numbers (limits too small, mass ratios,
    rest poses and clips outside the limits, bones without a part) or of what surrounds the check,
    which the motion does not decide. The full trial's nine seconds stay with the tests of its
    verdict on motion (overshoot, penetration). Returns the short trial's step count."""
    from app.physics import trial

    for name, value in (("SETTLE_SECONDS", 0.25), ("SHOTS", 2), ("PULL_SECONDS", 0.25),
                        ("FINAL_SECONDS", 0.25)):
        monkeypatch.setattr(trial, name, value)
    return trial.trial_steps()
