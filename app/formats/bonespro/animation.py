"""BonesPro animation files: the header, the three export modes, and the clips they make.

docs/formats/bonespro.md: Bones mode → a 'matrices' clip (Absolute, or Relative to parent composed
down the structure's hierarchy); Mesh (absolute) → a 'vertex' clip; Mesh (bones c.s) → a 'vertex'
clip rebuilt with the world matrices of a Bones-mode export of the same frames loaded alongside.
Without that partner the clip is a one-frame 'vertex' clip at the bind positions whose ``note``
names the file it needs. Frame ``k`` plays at ``(FirstFrame + k·Step) / fps`` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app import maths
from app.formats.registry import ReadError
from app.formats.textscan import RecordLayout, TextScanner, record_starts, shown
from app.bone_tree import world_from_local
from app.model import Clip, Mesh, Skeleton

#: Frames per second when the user sets none (3ds Max's NTSC default).
DEFAULT_FPS = 30.0
#: b Nvb, then Nvb × (v x y z).
BONE_SPACE_LAYOUT = RecordLayout(head=2, count_at=1, item=4)
#: FirstFrame + (Nf − 1)·Step further than this from LastFrame draws a warning (Nf wins).
FRAME_RANGE_TOLERANCE = 1e-6
#: A Mesh (bones c.s) clip holds Nf × Nv positions rebuilt from the file's vertex entries. A clip of
#: more than BONE_SPACE_DENSE positions must list at least one in BONE_SPACE_SPARSENESS of them (each
#: frame lists the vertices its bones affect), so a few bytes of empty records cannot demand gigabytes,
#: while a smaller clip of a mostly rigid model still loads.
BONE_SPACE_SPARSENESS = 16
BONE_SPACE_DENSE = 1 << 22

EXPORT_MODES = {"bones": "bones", "mesh (absolute)": "mesh absolute", "mesh (bones c.s)": "mesh bones",
                "mesh (bones c.s.)": "mesh bones", "mesh (bones coordinate system)": "mesh bones"}
TRANSFORM_SYSTEMS = {"absolute": False, "relative to parent": True}
REPRESENTATIONS = {"matrix": False, "euler angles": True}
EULER_ORDERS = {order.lower(): order for order in maths.EULER_ORDERS}
ANGLE_UNITS = {"degrees": True, "radians": False}


@dataclass
class Animation:
    """One parsed animation file.

    mode: 'bones', 'mesh absolute' or 'mesh bones'. frame_numbers (F,) in 3ds Max frames.
    bones: (F, B, 4, 4) bone transforms as in the file (world, or relative when ``relative``).
    positions: (F, V, 3) for 'mesh absolute'. bone_space: (frame (E,), bone (E,), vertex (E,),
    point (E, 3)) entries for 'mesh bones'.
    """

    path: Path
    mode: str
    relative: bool
    frame_numbers: np.ndarray
    bones: np.ndarray | None = None
    positions: np.ndarray | None = None
    bone_space: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    warnings: list[str] = field(default_factory=list)


def row_to_column(blocks: np.ndarray) -> np.ndarray:
    """3ds Max ``4 × 3`` row-vector matrices, ``(..., 12)`` in file order → ``(..., 4, 4)`` column form."""
    blocks = np.asarray(blocks, dtype=np.float64)
    matrices = np.zeros(blocks.shape[:-1] + (4, 4))
    matrices[..., :3, :] = np.swapaxes(blocks.reshape(blocks.shape[:-1] + (4, 3)), -1, -2)
    matrices[..., 3, 3] = 1.0
    return matrices


def _choice(scanner: TextScanner, what: str, choices: dict):
    """One header line matched against ``choices`` (quotes dropped, any case, spaces collapsed)."""
    text, line = scanner.line_text(what)
    key = " ".join(text.replace('"', " ").lower().split())
    if key not in choices:
        raise scanner.error(f"{what}: expected one of {', '.join(sorted(choices))}, found {shown(text)}",
                            line)
    return choices[key]


def read_animation(path: Path, bone_count: int, vertex_count: int) -> Animation:
    """Parse an animation file belonging to a structure with ``bone_count`` bones and
    ``vertex_count`` vertices (a mismatch is a ReadError)."""
    with TextScanner(path) as scanner:
        for what, expected in (("Nb (bones)", bone_count), ("Nv (vertices)", vertex_count)):
            line = scanner.peek_line()
            found = scanner.integer(what, 0)
            if found != expected:
                raise scanner.error(f"{what} is {found} but the structure file has {expected}: this "
                                    "animation belongs to another structure file", line)
        frames_line = scanner.peek_line()
        frame_count = scanner.integer("Nf (frames)", 1)
        mode = _choice(scanner, "ExportMode", EXPORT_MODES)
        relative = _choice(scanner, "TransformSystem", TRANSFORM_SYSTEMS)
        euler = _choice(scanner, "TransformRepresentation", REPRESENTATIONS)
        order = _choice(scanner, "EulerOrder", EULER_ORDERS)
        degrees = _choice(scanner, "AngleUnits", ANGLE_UNITS)
        per_frame = {"bones": bone_count * (3 + 2 * (6 if euler else 12)), "mesh absolute": vertex_count * 3,
                     "mesh bones": bone_count * BONE_SPACE_LAYOUT.head}[mode]
        scanner.require(frame_count * max(per_frame, 1), f"{frame_count} frames", frames_line)
        frame_numbers, warnings = _frame_numbers(scanner, frame_count)
        animation = Animation(path, mode, relative, frame_numbers, warnings=warnings)
        if mode == "bones":
            animation.bones = _read_bone_frames(scanner, frame_count, bone_count, euler, order, degrees)
        elif mode == "mesh absolute":
            animation.positions = _fixed_block(scanner, (frame_count, vertex_count, 3), "vertex positions")
        else:
            animation.bone_space = _read_bone_space(scanner, frame_count, bone_count, vertex_count,
                                                    frames_line)
    return animation


def _frame_numbers(scanner: TextScanner, frame_count: int) -> tuple[np.ndarray, list[str]]:
    """FirstFrame, LastFrame, Step → (F,) frame numbers; Nf is authoritative."""
    first = scanner.number("FirstFrame")
    last = scanner.number("LastFrame")
    line = scanner.peek_line()
    step = scanner.number("Step")
    if step <= 0 and frame_count > 1:
        raise scanner.error(f"Step is {step:g}: frames must advance", line)
    numbers = first + step * np.arange(frame_count)
    if frame_count > 1 and not np.all(np.diff(numbers) > 0):
        raise scanner.error(f"Step {step:g} is too small to tell frames apart after frame {first:g}", line)
    warnings = []
    if abs(numbers[-1] - last) > FRAME_RANGE_TOLERANCE * max(1.0, abs(last)):
        warnings.append(f"{scanner.path.name}: LastFrame is {last:g} but {frame_count} frames from "
                        f"{first:g} by {step:g} end at {numbers[-1]:g}; the frame count was used")
    return numbers, warnings


def _fixed_block(scanner: TextScanner, shape: tuple[int, ...], what: str) -> np.ndarray:
    """All remaining values as an array of ``shape``; fewer is a ReadError, more a warning."""
    needed = int(np.prod(shape))
    scanner.require(needed, what)
    values, start, start_line = scanner.rest_floats(what, dtype=np.float64)
    if len(values) < needed:
        raise ReadError(scanner.path, f"{what}: expected {needed} values, the file ends after {len(values)}",
                        line=scanner.token_line(start, start_line, len(values)))
    if len(values) > needed:
        raise ReadError(scanner.path, f"{what}: expected {needed} values, found {len(values)} "
                                      "(Nb, Nv or Nf does not match the data)",
                        line=scanner.token_line(start, start_line, needed))
    return values.reshape(shape)


def _read_bone_frames(scanner: TextScanner, frames: int, bones: int, euler: bool, order: str,
                      degrees: bool) -> np.ndarray:
    """Per frame and bone: box, bone transform, node transform → (F, B, 4, 4) bone transforms."""
    width = 6 if euler else 12
    values = _fixed_block(scanner, (frames, bones, 3 + 2 * width), "bone frames")
    transforms = values[..., 3:3 + width]
    if not euler:
        return row_to_column(transforms)
    angles = np.radians(transforms[..., :3]) if degrees else transforms[..., :3]
    matrices = maths.euler_to_matrix(angles, order)
    matrices[..., :3, 3] = transforms[..., 3:6]
    return matrices


def _read_bone_space(scanner: TextScanner, frames: int, bones: int, vertices: int, frames_line: int):
    """Per frame and bone: ``b Nvb`` then ``Nvb × (v x y z)`` → flat (E,) entries; ``frames_line``:
    the line of Nf, where a file listing too few entries for its frames is refused."""
    scanner.require(frames * bones * BONE_SPACE_LAYOUT.head, "bone-space frames")
    values, start, start_line = scanner.rest_floats("bone-space frames", dtype=np.float64)

    def fail(index: int, message: str):
        raise ReadError(scanner.path, message, line=scanner.token_line(start, start_line, index))

    starts, counts = record_starts(values, frames * bones, BONE_SPACE_LAYOUT, vertices, fail)
    entries = int(counts.sum())
    if frames * vertices > max(BONE_SPACE_DENSE, BONE_SPACE_SPARSENESS * entries + vertices):
        raise scanner.error(f"{frames} frames × {vertices} vertices cannot be rebuilt from {entries} vertex "
                            "entries: each frame lists the vertices its bones affect", frames_line)
    bone_ids = values[starts]
    bad = (bone_ids < 0) | (bone_ids >= bones) | (bone_ids != np.floor(bone_ids))
    if bad.any():
        record = int(np.argmax(bad))
        fail(int(starts[record]), f"bone index {bone_ids[record]:g} is outside 0..{bones - 1}")
    record_of_entry = np.repeat(np.arange(len(starts)), counts)
    first_entry = np.cumsum(counts) - counts
    entry_starts = (starts[record_of_entry] + BONE_SPACE_LAYOUT.head
                    + 4 * (np.arange(len(record_of_entry)) - first_entry[record_of_entry]))
    vertex_ids = values[entry_starts]
    bad = (vertex_ids < 0) | (vertex_ids >= vertices) | (vertex_ids != np.floor(vertex_ids))
    if bad.any():
        entry = int(np.argmax(bad))
        fail(int(entry_starts[entry]), f"vertex index {vertex_ids[entry]:g} is outside 0..{vertices - 1}")
    points = values[entry_starts[:, None] + np.arange(1, 4)]
    return (record_of_entry // max(bones, 1), bone_ids[record_of_entry].astype(np.int64),
            vertex_ids.astype(np.int64), points)


def build_clips(animations: list[Animation], skeleton: Skeleton, mesh: Mesh,
                fps: float | None) -> tuple[list[Clip], list[str]]:
    """One clip per animation file (named by the file's stem), and the warnings it took."""
    rate = fps or DEFAULT_FPS
    warnings = [w for animation in animations for w in animation.warnings]
    bone_worlds = {}
    for animation in animations:
        if animation.mode == "bones":
            world = animation.bones
            if animation.relative:
                local = np.swapaxes(world, 0, 1)
                world = np.swapaxes(world_from_local(local, skeleton.parents, skeleton.levels), 0, 1)
            bone_worlds.setdefault(_frames_key(animation), world)
            animation.bones = world
    clips = []
    for animation in animations:
        times = animation.frame_numbers / rate
        name = animation.path.stem
        if animation.mode == "bones":
            clips.append(Clip(name=name, kind="matrices", times=times, world=animation.bones))
        elif animation.mode == "mesh absolute":
            clips.append(Clip(name=name, kind="vertex", times=times, positions=animation.positions))
        else:
            world = bone_worlds.get(_frames_key(animation))
            clip, note = _bone_space_clip(animation, world, mesh, times)
            clips.append(clip)
            warnings.extend([note] if note else [])
    return clips, warnings


def _frames_key(animation: Animation) -> tuple:
    return tuple(np.round(animation.frame_numbers, 6))


def _bone_space_clip(animation: Animation, world: np.ndarray | None, mesh: Mesh,
                     times: np.ndarray) -> tuple[Clip, str]:
    """A 'vertex' clip from bone-space positions and the partner's world matrices (F, B, 4, 4);
    without a partner, one frame at the bind positions with a note saying what is missing."""
    name = animation.path.stem
    if world is None:
        note = (f"{animation.path.name} holds vertices in bone coordinates (Mesh (bones c.s)); "
                f"open it together with a Bones-mode export of the same {len(times)} frames "
                f"(from frame {animation.frame_numbers[0]:g} by the same step) to play it. "
                "Shown at the bind pose.")
        clip = Clip(name=name, kind="vertex", times=times[:1], positions=mesh.positions[None], note=note)
        return clip, note
    frame, bone, vertex, points = animation.bone_space
    weights = (np.where(mesh.joints[vertex] == bone[:, None], mesh.weights[vertex], 0)).sum(axis=1)
    posed = maths.transform_points(world[frame, bone], points) * weights[:, None]
    slot = frame * mesh.vertex_count + vertex
    size = len(times) * mesh.vertex_count
    totals = np.bincount(slot, weights, minlength=size)
    sums = np.stack([np.bincount(slot, posed[:, axis], minlength=size) for axis in range(3)], axis=1)
    bind = np.broadcast_to(mesh.positions.astype(np.float64), (len(times), mesh.vertex_count, 3))
    positions = np.where(totals[:, None] > 0, sums / np.where(totals > 0, totals, 1)[:, None],
                         bind.reshape(size, 3))
    return Clip(name=name, kind="vertex", times=times,
                positions=positions.reshape(len(times), mesh.vertex_count, 3)), ""
