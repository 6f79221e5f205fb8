"""``ragdoll --check``: a profile through a standard trial, as a JSON-ready report with a verdict
(docs/ragdoll.md, *Checking a profile*; the report's shape is fixed in docs/cli.md).

The trial: the ragdoll takes over from the rest pose and falls (SETTLE_SECONDS), is shot from all
around (SHOTS rays at its parts' centres, from eight sides level and from above, at 50, 100 and
200 N·s in turn, SHOT_GAP seconds apart), its heaviest part is pulled up by half the model's height
and let go, and it settles again. Every step it measures each joint's angles past its limits and
each part's depth below the ground. Without motion it reports what the profile's numbers say:
rest poses outside the limits, mass ratios across joints, skin vertices per part, limits under
MIN_LIMIT_DEG, and bones that move vertices but have no part. Notes (not problems) say where the rest
pose or a clip goes past a joint's limits (``clip_outside_deg``) and where a limit passes its role's
anatomical bound because a clip needs it (``clip_limits.clip_notes``).
"""

from __future__ import annotations

import numpy as np

from app.model import Model
from app.physics.body_shape import prop_bones
from app.physics.clip_limits import clip_notes
from app.physics.multibody import gimbal_angles
from app.physics.profile import RagdollProfile, capsule_dimensions
from app.physics.ragdoll import TIME_STEP, UP_AXES, Ragdoll
from app.physics.rig import Rig
from app.pose import rest_extent, rest_pose
from app.skin_weights import dominant_bones

#: The verdict's thresholds (reported with it). Overshoot: degrees past a limit at any step;
#: penetration: a part's deepest point below the ground (cm); mass ratio: heavier over lighter part
#: across a joint; a limit (a hinge's range or a cone-twist's swing or twist) under MIN_LIMIT_DEG;
#: rest: the rest pose's angles outside the limits (degrees); uncovered: a bone without a part that
#: dominates (weight >= DOMINANT_WEIGHT) at least this share of the skin's vertices lying outside every
#: part's box (grown by COVER_MARGIN of the model's size) at the bind pose.
THRESHOLDS = {"overshoot_deg": 10.0, "penetration_cm": 5.0, "mass_ratio": 10.0, "min_limit_deg": 5.0,
              "rest_outside_deg": 1.0, "uncovered_vertex_share": 0.02, "dominant_weight": 0.5,
              "cover_margin": 0.02, "max_impulse_ns": 200.0}
SETTLE_SECONDS = 2.0
SHOTS = 16
SHOT_GAP = 0.25
IMPULSES = (50.0, 100.0, 200.0)
PULL_SECONDS = 1.0
#: The pull rises in this many moves of the drag point.
PULL_STEPS = 10
FINAL_SECONDS = 2.0
#: Steps between progress reports.
PROGRESS_STEPS = 60
#: Decimals kept in the report's numbers.
DIGITS = 2


def check_profile(model: Model, profile: RagdollProfile, progress=None) -> dict:
    """The report of docs/cli.md: verdict, thresholds, joints, parts, uncovered_bones, problems, notes.
    ``progress(share)``, when given, is told the share (0..1) of the trial's steps done, now and then
    (the window's Check Profile runs it on a worker thread behind a progress bar)."""
    with Ragdoll(model, profile) as world:
        world.take_over(rest_pose(model).world)
        overshoot, depth, finite = _trial(world, progress or (lambda _share: None))
        rig = world.rig
    rest = _rest_outside(rig, model)
    clips_past, notes = clip_notes(model, rig)
    ratios = _joint_mass_ratios(rig)
    names = rig.part_names
    joints = [{"name": joint.name, "type": joint.kind, "overshoot_deg": _round(overshoot[index]),
               "rest_outside_deg": _round(rest[index]), "clip_outside_deg": _round(clips_past[index]),
               "mass_ratio": _round(ratios[index]),
               "smallest_limit_deg": _round(_smallest_limit(rig, index))}
              for index, joint in enumerate(profile.joints)]
    covered = _skin_vertices(model, rig)
    parts = [{"name": name, "mass_kg": _round(rig.masses[index]),
              "mass_ratio": _round(max([ratios[j] for j, pair in enumerate(rig.joint_parts) if index in pair],
                                       default=1.0)),
              "penetration_cm": _round(depth[index]), "skin_vertices": int(covered[index])}
             for index, name in enumerate(names)]
    uncovered = uncovered_bones(model, rig)
    problems = _problems(joints, parts, uncovered, finite)
    return {"verdict": "fail" if problems else "pass", "thresholds": THRESHOLDS, "joints": joints,
            "parts": parts, "uncovered_bones": uncovered, "problems": problems, "notes": notes}


def trial_steps() -> int:
    """The steps the standard trial takes (all of them when nothing blows up)."""
    seconds = ((SETTLE_SECONDS,) + (SHOT_GAP,) * SHOTS + (PULL_SECONDS / PULL_STEPS,) * PULL_STEPS
               + (FINAL_SECONDS,))
    return sum(int(round(part / TIME_STEP)) for part in seconds)


def _trial(world: Ragdoll, progress) -> tuple[np.ndarray, np.ndarray, bool]:
    """Run the standard trial; (J,) worst degrees past the limits, (P,) deepest cm, all finite."""
    rig = world.rig
    overshoot = np.zeros(len(rig.joint_parts))
    depth = np.zeros(len(rig.part_bones))
    finite = True
    total, done = trial_steps(), 0

    def run(seconds: float) -> None:
        nonlocal finite, done
        for _ in range(int(round(seconds / TIME_STEP))):
            done += 1
            if done % PROGRESS_STEPS == 0:
                progress(min(done / total, 1.0))
            world.step()
            parts = world.part_world()
            if not np.isfinite(parts).all():
                finite = False
                return
            np.maximum(overshoot, np.degrees(limit_excess(rig, world.joint_angles())), out=overshoot)
            np.maximum(depth, 100.0 * world.scale * part_depths(world, parts), out=depth)

    run(SETTLE_SECONDS)
    up = np.eye(3)[UP_AXES[world.model.up_axis]]
    reach = 2.0 * rest_extent(world.model)
    for shot in range(SHOTS):
        if not finite:
            break
        target = world.part_world()[shot % len(rig.part_bones), :3, 3]
        direction = _shot_direction(shot, up)
        world.shoot(target - reach * direction, direction, IMPULSES[shot % len(IMPULSES)])
        run(SHOT_GAP)
    if finite:
        _pull(world, up, run)
        run(FINAL_SECONDS)
    return overshoot, depth, finite


def _shot_direction(shot: int, up: np.ndarray) -> np.ndarray:
    """Eight sides around the up axis, level then 45° from above, in turn."""
    side = np.roll(up, 1)
    across = np.cross(up, side)
    angle = 2 * np.pi * (shot % 8) / 8
    level = np.cos(angle) * side + np.sin(angle) * across
    direction = level if shot % 2 == 0 else level - up
    return direction / np.linalg.norm(direction)


def _pull(world: Ragdoll, up: np.ndarray, run) -> None:
    """Drag the heaviest part up by half the model's height over PULL_SECONDS, then let go."""
    part = int(np.argmax(world.rig.masses))
    centre = world.part_world()[part, :3, 3]
    hit = world.begin_drag(centre + up * 2.0 * rest_extent(world.model), -up)
    if hit is None:
        return
    for index in range(1, PULL_STEPS + 1):
        world.drag_to(hit.point + up * 0.5 * rest_extent(world.model) * index / PULL_STEPS)
        run(PULL_SECONDS / PULL_STEPS)
    world.end_drag()


def limit_excess(rig: Rig, angles: np.ndarray) -> np.ndarray:
    """(J,) radians each joint's angles (J, 3; ``Ragdoll.joint_angles``) are past its limits (0 within)."""
    limits = rig.joint_limits
    hinge = np.maximum.reduce([limits[:, 0] - angles[:, 0], angles[:, 0] - limits[:, 1],
                               np.abs(angles[:, 1:]).max(axis=1)])
    cone = (np.abs(angles) - limits).max(axis=1)
    return np.maximum(np.where(rig.hinge, hinge, cone), 0.0)


def part_depths(world: Ragdoll, parts: np.ndarray) -> np.ndarray:
    """(P,) how far (model units) each part's shape reaches below the ground (0 above it)."""
    rig = world.rig
    axis = UP_AXES[world.model.up_axis]
    boxes = parts @ rig.box_rotations
    reach = np.einsum("pk,pk->p", np.abs(boxes[:, axis, :3]), rig.half_extents)
    for part in np.flatnonzero(rig.capsules):
        along, radius, length = capsule_dimensions(rig.half_extents[part] * 2)
        reach[part] = abs(boxes[part, axis, along]) * (length / 2 - radius) + radius
    return np.maximum(world.floor - (boxes[:, axis, 3] - reach), 0.0)


def joint_angles_at(rig: Rig, world: np.ndarray) -> np.ndarray:
    """(J, 3) radians: the joint angles (as ``Ragdoll.joint_angles``) with bones at ``world``."""
    frames = rig.joint_world(rig.parts_at(world))
    return gimbal_angles(np.swapaxes(frames[:, 0, :3, :3], -1, -2) @ frames[:, 1, :3, :3])


def _rest_outside(rig: Rig, model: Model) -> np.ndarray:
    """(J,) degrees the rest pose's joint angles lie outside the limits."""
    return np.degrees(limit_excess(rig, joint_angles_at(rig, rest_pose(model).world)))


def _joint_mass_ratios(rig: Rig) -> np.ndarray:
    """(J,) heavier over lighter part across each joint."""
    masses = rig.masses[rig.joint_parts].reshape(-1, 2)
    return masses.max(axis=1) / np.maximum(masses.min(axis=1), 1e-12)


def _smallest_limit(rig: Rig, joint: int) -> float:
    """Degrees: a hinge's range, or a cone-twist's smallest swing or twist."""
    limits = np.degrees(rig.joint_limits[joint])
    return float(limits[1] - limits[0]) if rig.hinge[joint] else float(limits.min())


def _dominant_bones(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """``skin_weights.dominant_bones`` of the drawn meshes at the report's ``dominant_weight``."""
    return dominant_bones(model.meshes, THRESHOLDS["dominant_weight"], drawn_only=True)


def _skin_vertices(model: Model, rig: Rig) -> np.ndarray:
    """(P,) skinned vertices each part carries: those dominated by a bone that follows it."""
    owners, _ = _dominant_bones(model)
    owners = owners[owners >= 0]
    return np.bincount(rig.bone_parts[owners], minlength=len(rig.part_bones))


def uncovered_bones(model: Model, rig: Rig) -> list[str]:
    """Bones without a part that dominate at least THRESHOLDS' share of the skinned vertices lying
    outside every part's box (grown by the cover margin) at the bind pose, as drawn (the rig's model).
    Props and accessories (``body_shape.prop_bones``) are left out on purpose."""
    model = rig.model
    owners, positions = _dominant_bones(model)
    if not len(owners):
        return []
    outside = ~covered_by_boxes(rig, positions, THRESHOLDS["cover_margin"] * rest_extent(model))
    loose = owners[(owners >= 0) & outside]
    counts = np.bincount(loose, minlength=len(model.skeleton))
    enough = counts >= THRESHOLDS["uncovered_vertex_share"] * len(owners)
    enough[rig.part_bones] = False
    enough[prop_bones(model)] = False
    return [model.skeleton.names[bone] for bone in np.flatnonzero(enough)]


def covered_by_boxes(rig: Rig, points: np.ndarray, margin: float) -> np.ndarray:
    """(N,) whether each point (model units, bind pose) lies in some part's box grown by ``margin``."""
    boxes = rig.box_bind
    turns, centres = boxes[:, :3, :3], boxes[:, :3, 3]
    local = np.einsum("nj,pji->pni", points, turns) - np.einsum("pj,pji->pi", centres, turns)[:, None, :]
    inside = np.all(np.abs(local) <= rig.half_extents[:, None, :] + margin, axis=2)
    return inside.any(axis=0)


def _problems(joints: list[dict], parts: list[dict], uncovered: list[str], finite: bool) -> list[str]:
    """One line per threshold a joint or part passes."""
    t = THRESHOLDS
    problems = [] if finite else ["the simulation blew up (a part's position is not finite)"]
    for joint in joints:
        name = joint["name"]
        if joint["overshoot_deg"] > t["overshoot_deg"]:
            problems.append(f"joint {name!r} went {joint['overshoot_deg']:g}° past its limits "
                            f"(at most {t['overshoot_deg']:g}°)")
        if joint["rest_outside_deg"] > t["rest_outside_deg"]:
            problems.append(f"joint {name!r}: the rest pose is {joint['rest_outside_deg']:g}° outside "
                            f"its limits")
        if joint["mass_ratio"] > t["mass_ratio"]:
            problems.append(f"joint {name!r} joins parts whose masses differ {joint['mass_ratio']:g}:1 "
                            f"(at most {t['mass_ratio']:g}:1)")
        if joint["smallest_limit_deg"] < t["min_limit_deg"]:
            problems.append(f"joint {name!r} has a limit of {joint['smallest_limit_deg']:g}° "
                            f"(under {t['min_limit_deg']:g}°)")
    for part in parts:
        if part["penetration_cm"] > t["penetration_cm"]:
            problems.append(f"part {part['name']!r} went {part['penetration_cm']:g} cm into the ground "
                            f"(at most {t['penetration_cm']:g} cm)")
    problems += [f"bone {bone!r} moves vertices but has no part" for bone in uncovered]
    return problems


def _round(value: float) -> float:
    return round(float(value), DIGITS)
