"""BVH motion capture reader (Biovision Hierarchy: CMU's library, Truebones, MotionBuilder, mocap suits).

The grammar (docs/formats/bvh.md): ``HIERARCHY``, then one or more ``ROOT name { … }`` blocks, each
holding ``OFFSET x y z``, ``CHANNELS n c1 … cn`` (3 or 6 of ``Xposition Yposition Zposition
Xrotation Yrotation Zrotation`` in any order) and child ``JOINT name { … }`` or ``End Site { OFFSET
x y z }`` blocks; then ``MOTION``, ``Frames: F``, ``Frame Time: s`` and F lines of one value per
channel, joints in file order.

Interpretation:

- Every ROOT and JOINT is a bone; an End Site is not, it gives its joint's tail. A bone's rest frame
  is its offset from its parent, unrotated (the file's rest pose has every joint's axes along the
  world's), and its bind frame is that rest frame. Tails point at the End Site, else the one child,
  else the mean of the children away from the head, else a stub (derived).
- Each frame, a joint's rotation is the product of its rotation channels in the order they are
  listed (``Zrotation Xrotation Yrotation`` is ``Rz @ Rx @ Ry``), angles in degrees; its position
  channels are added to its offset. One keyed clip holds every frame, at ``Frame Time`` seconds apart.
- Lengths stay the file's own (CMU's takes are in inches divided by 0.45, others in centimetres or
  metres). The skeleton is Y up, facing +Z, the format's convention.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.formats.animation_sets import add_clips, lent_clips
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, register
from app.formats.textscan import TextScanner, head_tokens, shown
from app.bone_tails import derive_tails
from app.bone_names import numbered_duplicates
from app.model import MAX_MAGNITUDE, Clip, Model, Skeleton, Track

#: The channel names, each as (kind, axis).
CHANNELS = {f"{axis}{kind}": (kind, axis) for axis in "XYZ" for kind in ("position", "rotation")}
#: Deepest joint nesting read (a real skeleton has a few dozen levels).
MAX_DEPTH = 1024
#: Most joints a file may declare.
MAX_JOINTS = 65536


@dataclass
class _Joint:
    name: str
    parent: int
    offset: np.ndarray
    channels: list[tuple[str, str]]
    end_site: np.ndarray | None = None
    children: list[int] = field(default_factory=list)


class _Reader:
    def __init__(self, scanner: TextScanner):
        self.scanner = scanner
        self.joints: list[_Joint] = []

    def hierarchy(self) -> None:
        scanner = self.scanner
        scanner.keyword("HIERARCHY")
        while scanner.peek() is not None and scanner.peek().text == "ROOT":
            scanner.next("ROOT")
            self.tree()
        if not self.joints:
            raise scanner.error("expected ROOT (a BVH hierarchy needs at least one joint)")

    def tree(self) -> None:
        """One ROOT block and every joint in it, its keyword read (a stack of open joints, not
        recursion: a hostile file may nest thousands deep)."""
        scanner = self.scanner
        open_joints = [self.joint(-1)]
        while open_joints:
            name = self.joints[open_joints[-1]].name
            token = scanner.next(f"JOINT, End Site or '}}' closing joint {name!r}")
            if token.text == "}":
                open_joints.pop()
            elif token.text == "JOINT":
                if len(open_joints) >= MAX_DEPTH:
                    raise scanner.error(f"joints nest deeper than {MAX_DEPTH} levels", token.line)
                open_joints.append(self.joint(open_joints[-1]))
            elif token.text == "End":
                scanner.keyword("Site")
                scanner.keyword("{")
                scanner.keyword("OFFSET")
                self.joints[open_joints[-1]].end_site = scanner.floats(3, f"End Site of {name!r} OFFSET")
                scanner.keyword("}")
            else:
                raise scanner.error(f"expected JOINT, End Site or '}}' in joint {name!r}, found "
                                    f"{shown(token.text)}", token.line)

    def joint(self, parent: int) -> int:
        """A joint's name, offset and channels, its ROOT or JOINT keyword read; its index."""
        scanner = self.scanner
        if len(self.joints) >= MAX_JOINTS:
            raise scanner.error(f"more than {MAX_JOINTS} joints")
        name, line = scanner.line_text("a joint name")
        if not name or name == "{":
            raise scanner.error("expected a joint name", line)
        scanner.keyword("{")
        scanner.keyword("OFFSET")
        offset = scanner.floats(3, f"joint {name!r} OFFSET")
        index = len(self.joints)
        self.joints.append(_Joint(name=name, parent=parent, offset=offset, channels=self.channels(name)))
        if parent >= 0:
            self.joints[parent].children.append(index)
        return index

    def channels(self, name: str) -> list[tuple[str, str]]:
        scanner = self.scanner
        scanner.keyword("CHANNELS")
        count = scanner.integer(f"joint {name!r} channel count", 0, 6)
        found = []
        for _ in range(count):
            token = scanner.word(f"a channel of {name!r}")
            if token.text not in CHANNELS:
                raise scanner.error(f"unknown channel {shown(token.text)} (expected one of "
                                    f"{', '.join(CHANNELS)})", token.line)
            found.append(CHANNELS[token.text])
        if len(set(found)) != len(found):
            raise scanner.error(f"joint {name!r} lists a channel twice")
        return found

    def motion(self) -> tuple[np.ndarray, float]:
        """(F, C) channel values per frame and the frame time in seconds."""
        scanner = self.scanner
        scanner.keyword("MOTION")
        scanner.keyword("Frames:")
        frames = scanner.integer("the frame count", 0)
        scanner.keyword("Frame")
        scanner.keyword("Time:")
        line = scanner.peek_line()
        frame_time = scanner.number("the frame time")
        if not frame_time > 0:
            raise scanner.error(f"the frame time is {frame_time:g} s; it must be positive", line)
        width = sum(len(joint.channels) for joint in self.joints)
        scanner.require(frames * width, "the motion data")
        start_line = scanner.peek_line()
        values = _all_numbers(scanner)
        if values.size < frames * width:
            raise ReadError(scanner.path, f"the motion has {values.size} values; {frames} frames of {width} "
                                          f"channels need {frames * width}", line=start_line)
        return values[: frames * width].reshape(frames, width), frame_time


def _all_numbers(scanner: TextScanner) -> np.ndarray:
    """Every remaining token as float64. The motion block is most of a file, so it is read at once:
    as rows of numbers (numpy's loadtxt, faster than ``np.fromstring``), else split into tokens
    (rows of unequal length); anything that fails both ways (a comment, a word, NaN or a huge value)
    is read again by the scanner, which names the line."""
    rest = scanner.data[scanner.position:]
    if not rest.strip():
        return np.zeros(0)
    try:
        values = np.loadtxt(io.BytesIO(rest), dtype=np.float64, comments=None, ndmin=2).ravel()
    except ValueError:
        try:
            values = np.array(rest.split(), dtype=np.float64)
        except ValueError:
            values = None
    if values is None or not np.all(np.abs(values) <= MAX_MAGNITUDE):
        values, _, _ = scanner.rest_floats("a channel value", np.float64)
    return values


def read(path: str | Path) -> Model:
    """One BVH file: a skeleton-only model with one clip of every frame, in the file's units."""
    path = Path(path)
    with TextScanner(path) as scanner:
        reader = _Reader(scanner)
        reader.hierarchy()
        values, frame_time = reader.motion()
    try:
        return _model(path, reader.joints, values, frame_time)
    except ValueError as error:
        raise ReadError(path, str(error)) from None


def _model(path: Path, joints: list[_Joint], values: np.ndarray, frame_time: float) -> Model:
    parents = np.array([joint.parent for joint in joints], np.int64)
    offsets = np.array([joint.offset for joint in joints])
    heads = offsets.copy()
    for index, joint in enumerate(joints):  # parents come before their children in a BVH file
        if joint.parent >= 0:
            heads[index] += heads[joint.parent]
    bind = np.broadcast_to(np.eye(4), (len(joints), 4, 4)).copy()
    bind[:, :3, 3] = heads
    tails, derived = _tails(joints, heads, bind, parents)
    names = numbered_duplicates([joint.name for joint in joints])
    skeleton = Skeleton(names=names, parents=parents, bind_world=bind,
                        heads=heads, tails=tails, derived_tails=derived,
                        extras=[{"channels": " ".join(axis + kind for kind, axis in joint.channels)}
                                for joint in joints])
    clips = [_clip(path, joints, offsets, values, frame_time)] if len(values) else []
    return Model(name=path.stem, skeleton=skeleton, clips=clips, format="bvh", files=[str(path)],
                 up_axis="Y", forward="+Z")


def _tails(joints: list[_Joint], heads: np.ndarray, bind: np.ndarray,
           parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B, 3) tails and (B,) derived flags: the End Site, else the children's mean away from the head
    (one child: its head), else ``derive_tails``' stub."""
    _, tails = derive_tails(bind, parents, [], heads)
    derived = np.ones(len(joints), bool)
    for index, joint in enumerate(joints):
        if joint.end_site is not None and np.linalg.norm(joint.end_site) > 0:
            tails[index], derived[index] = heads[index] + joint.end_site, False
            continue
        ends = heads[joint.children] if joint.children else np.zeros((0, 3))
        ends = ends[np.linalg.norm(ends - heads[index], axis=1) > 1e-9]
        if len(ends):
            tails[index], derived[index] = ends.mean(axis=0), False
    return tails, derived


def _clip(path: Path, joints: list[_Joint], offsets: np.ndarray, values: np.ndarray,
          frame_time: float) -> Clip:
    """One keyed clip of every frame: each joint's translation (offset plus its position channels)
    and rotation (its rotation channels composed in their order), worked out for all joints at once."""
    frames, count = len(values), len(joints)
    times = np.arange(frames) * frame_time
    # Each joint's X, Y, Z position columns and its three turns' columns in ``values``: its rotation
    # channels in order (distinct axes), then 0° about the axes it lacks. A missing channel reads
    # the zero column added past the last.
    zero = values.shape[1]
    position_columns = np.full((count, 3), zero)
    turn_columns = np.full((count, 3), zero)
    axes = np.zeros((count, 3), np.int64)
    column = 0
    for index, joint in enumerate(joints):
        turns = 0
        for kind, axis in joint.channels:
            if kind == "position":
                position_columns[index, "XYZ".index(axis)] = column
            else:
                turn_columns[index, turns], axes[index, turns] = column, "XYZ".index(axis)
                turns += 1
            column += 1
        axes[index, turns:] = [axis for axis in range(3) if axis not in axes[index, :turns]]
    padded = np.zeros((frames, zero + 1))
    padded[:, :zero] = values
    translations = offsets + padded[:, position_columns]
    rotations = _composed_turns(axes, padded[:, turn_columns])
    # Joint-major (J, F, n), so each track's keys are one contiguous block.
    rotations = np.ascontiguousarray(np.moveaxis(rotations, 1, 0))
    translations = np.ascontiguousarray(np.moveaxis(translations, 1, 0))
    tracks = []
    for index, joint in enumerate(joints):
        kinds = {kind for kind, _ in joint.channels}
        if kinds:
            tracks.append(Track(bone=index,
                                translation=(times, translations[index]) if "position" in kinds else None,
                                rotation=(times, rotations[index]) if "rotation" in kinds else None))
    return Clip(name=path.stem, kind="keyed", tracks=tracks, source=path.name, rate=1.0 / frame_time)


def _composed_turns(axes: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """(F, J, 4) quaternions (x, y, z, w) of each joint's three turns composed in channel order:
    ``degrees`` (F, J, 3) about ``axes`` (J, 3), each row a permutation (a, b, c) of 0, 1, 2 for
    X, Y, Z, is Ra @ Rb @ Rc. The product (c1 + s1 e_a)(c2 + s2 e_b)(c3 + s3 e_c) of half-angle
    sines and cosines, expanded with e_a e_b = σ e_c (σ the permutation's sign), is
    (c1c2c3 − σ s1s2s3) + (s1c2c3 + σ c1s2s3) e_a + (c1s2c3 − σ s1c2s3) e_b + (c1c2s3 + σ s1s2c3) e_c."""
    half = np.radians(degrees) / 2
    (s1, s2, s3), (c1, c2, c3) = np.moveaxis(np.sin(half), -1, 0), np.moveaxis(np.cos(half), -1, 0)
    sign = np.where((axes[:, 1] - axes[:, 0]) % 3 == 1, 1.0, -1.0)  # (a, b, c) cyclic: +1
    along = np.stack([s1 * c2 * c3 + sign * c1 * s2 * s3, c1 * s2 * c3 - sign * s1 * c2 * s3,
                      c1 * c2 * s3 + sign * s1 * s2 * c3], axis=-1)
    frames, joints = degrees.shape[:2]
    quaternions = np.empty((frames, joints, 4))
    quaternions[..., 3] = c1 * c2 * c3 - sign * s1 * s2 * s3
    flat = quaternions.reshape(frames, joints * 4)  # a view: columns 4j + axis are joint j's x, y, z
    flat[:, (np.arange(joints)[:, None] * 4 + axes).ravel()] = along.reshape(frames, joints * 3)
    return quaternions


def sniff(head: bytes, path: Path) -> str | None:
    """'model' for a file that starts with HIERARCHY and ROOT."""
    tokens = head_tokens(head, 2)
    return "model" if tokens[:2] == [b"HIERARCHY", b"ROOT"] else None


def _load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """The first file as the model; further BVH files add their clips by bone name."""
    models = [read(sniffed.path) for sniffed in files]
    model = models[0]
    for other in models[1:]:
        add_clips(model.clips, lent_clips(other, model, ReadError), model.warnings)
    return model


register(Format(name="bvh", description="BVH motion capture (.bvh)", sniff=sniff, load=_load,
                extensions=(".bvh",)))
