"""Bone-info (.bnf), quaternion animation (.anm) and skinning parameters (.prm) — a Direct3D tool.

docs/formats/bnf-anm-prm.md. A bone's bind frame is ``T(R_b)`` (its rotation centre, no rotation).
The page's recursion ``M[b] = M[p] @ T(R_b) @ Rot(q_b) @ T(−R_b)`` with ``W_b = M[b] @ T(R_b)``
gives ``W_b = W_p @ T(R_b − R_p) @ Rot(q_b)``: each .anm key is a local transform with the fixed
bind-local translation ``R_b − R_p`` (roots: ``R_b``) and the key's rotation — a 'keyed' clip with
rotation tracks only. Up axis Y (Direct3D). Times are the file's numbers, played as seconds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app import maths
from app.formats.registry import Format, LoadOptions, ReadError, SniffedFile, register
from app.formats.textscan import (
    TextScanner,
    first_unrooted,
    head_lines,
    head_tokens,
    is_integer,
    is_number,
    shown,
)
from app.bone_tails import derive_tails
from app.bone_tree import hierarchy_levels
from app.model import Clip, Model, Skeleton, Track

#: Values per .bnf bone row: ID ParentID Rx Ry Rz.
BONE_VALUES = 5
#: Values per .prm row: index, mirror index, H, R.
PARAMETER_VALUES = 4
#: Key quaternions further than this from unit length draw a warning (they are normalised).
UNIT_TOLERANCE = 1e-3


def sniff(head: bytes, path: Path) -> str | None:
    """'animation' (NumBones:), 'bones' (N then rows of 5 numbers), 'parameters' (rows of 4)."""
    tokens = head_tokens(head, 12)
    if tokens and tokens[0].lower().startswith(b"numbones"):
        return "animation"
    lines = head_lines(head, 8)
    rows = [line.split() for line in lines]
    if not rows or not all(is_number(word) for row in rows for word in row):
        return None
    if (len(rows[0]) == 1 and is_integer(rows[0][0]) and len(rows) > 1
            and all(len(r) == BONE_VALUES for r in rows[1:])):
        return "bones"
    if all(len(r) == PARAMETER_VALUES and is_integer(r[0]) and is_integer(r[1]) for r in rows):
        return "parameters"
    return None


def read_bones(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """A .bnf file → parents (N,) (−1 for roots) and rotation centres (N, 3), in ID order."""
    with TextScanner(path) as scanner:
        count = scanner.integer("the bone count", 0)
        scanner.require(count * BONE_VALUES, f"{count} bones")
        parents = np.full(count, -1)
        centres = np.zeros((count, 3))
        seen = np.zeros(count, bool)
        parent_lines = np.zeros(count, int)
        for _ in range(count):
            line = scanner.peek_line()
            bone = scanner.integer("a bone ID", 0, count - 1)
            if seen[bone]:
                raise scanner.error(f"bone ID {bone} appears twice", line)
            parent = scanner.integer(f"bone {bone}'s ParentID", -1, count - 1)
            seen[bone], parent_lines[bone] = True, line
            parents[bone] = -1 if parent == bone else parent
            centres[bone] = scanner.floats(3, f"bone {bone}'s rotation centre")
        if not scanner.at_end():
            raise scanner.error(f"expected the end of the file after {count} bones")
        try:
            hierarchy_levels(parents)
        except ValueError:
            bone = first_unrooted(parents)
            raise scanner.error(f"bone {bone} is on a parent cycle", int(parent_lines[bone])) from None
    return parents, centres


def _label(scanner: TextScanner, label: str) -> None:
    """``Label:`` as one token, or ``Label`` then ``:`` (any case)."""
    token = scanner.word(f"{label}:")
    text = token.text.lower()
    if text == f"{label.lower()}:":
        return
    if text == label.lower() and scanner.peek() is not None and scanner.peek().text == ":":
        scanner.next(":")
        return
    raise scanner.error(f"expected {label}:, found {shown(token.text)}", token.line)


def read_animation(path: Path, bone_count: int, conjugate: bool) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A .anm file → key times (K,), quaternions (K, N, 4) ``(x, y, z, w)``, warnings."""
    warnings = []
    with TextScanner(path) as scanner:
        _label(scanner, "NumBones")
        line = scanner.peek_line()
        count = scanner.integer("the bone count", 0)
        if count != bone_count:
            raise scanner.error(f"NumBones is {count} but the .bnf file has {bone_count} bones", line)
        times, keys = [], []
        while not scanner.at_end():
            _label(scanner, "Time")
            line = scanner.peek_line()
            time = scanner.number("the key time")
            if times and time <= times[-1]:
                raise scanner.error(f"key time {time:g} does not come after {times[-1]:g}", line)
            _label(scanner, "Quaternions")
            keys.append(scanner.floats(4 * count, f"{count} quaternions").reshape(count, 4))
            times.append(time)
        if not times:
            raise scanner.error("expected at least one key (Time: …)")
    quaternions = np.array(keys).reshape(len(times), count, 4)
    lengths = np.linalg.norm(quaternions, axis=-1)
    if np.any(np.abs(lengths - 1) > UNIT_TOLERANCE):
        warnings.append(f"{path.name}: some quaternions were not unit length and were normalised")
    if conjugate:
        quaternions = maths.quat_conjugate(quaternions)
    return np.array(times), quaternions, warnings


def read_parameters(path: Path, bone_count: int) -> list[dict]:
    """A .prm file → per bone ``{"mirror": int, "H": float, "R": float}`` (bones not listed: {}); a
    mirror of −1 (a bone without a twin) is left out."""
    extras = [{} for _ in range(bone_count)]
    with TextScanner(path) as scanner:
        while not scanner.at_end():
            bone = scanner.integer("a bone index", 0, bone_count - 1)
            mirror = scanner.integer(f"bone {bone}'s mirror bone (or -1 for none)", -1, bone_count - 1)
            parameters = {"H": scanner.number("H"), "R": scanner.number("R")}
            extras[bone] = parameters if mirror < 0 else {"mirror": mirror, **parameters}
    return extras


def keyed_clip(name: str, times: np.ndarray, quaternions: np.ndarray) -> Clip:
    """Rotation tracks, one per bone, over the bind-local translations ``R_b − R_parent``."""
    tracks = [Track(bone=bone, rotation=(times, quaternions[:, bone]))
              for bone in range(quaternions.shape[1])]
    return Clip(name=name, kind="keyed", tracks=tracks)


def build_skeleton(parents: np.ndarray, centres: np.ndarray, extras: list[dict]) -> Skeleton:
    """Bind frames ``T(R_b)``, heads at the rotation centres, tails derived."""
    bind = maths.translation(centres)
    heads, tails = derive_tails(bind, parents, [], heads=centres)
    return Skeleton(names=[f"bone{bone}" for bone in range(len(parents))], parents=parents, bind_world=bind,
                    heads=heads, tails=tails, derived_tails=np.ones(len(parents), bool), extras=extras)


def load(files: list[SniffedFile], options: LoadOptions) -> Model:
    """One .bnf, any .anm files (one keyed clip each) and at most one .prm."""
    by_role = {role: [f.path for f in files if f.role == role]
               for role in ("bones", "animation", "parameters")}
    if not by_role["bones"]:
        raise ReadError(files[0].path, "needs its .bnf bone-info file (bone parents and rotation centres): "
                                       "open it together with the .bnf")
    for role in ("bones", "parameters"):
        if len(by_role[role]) > 1:
            raise ReadError(by_role[role][1], f"only one {role} file can be opened at a time")
    path = by_role["bones"][0]
    parents, centres = read_bones(path)
    extras = read_parameters(by_role["parameters"][0], len(parents)) if by_role["parameters"] else []
    clips, warnings = [], []
    for animation in by_role["animation"]:
        times, quaternions, clip_warnings = read_animation(animation, len(parents),
                                                           options.conjugate_quaternions)
        clips.append(keyed_clip(animation.stem, times, quaternions))
        warnings.extend(clip_warnings)
    return Model(name=path.stem, skeleton=build_skeleton(parents, centres, extras), clips=clips,
                 format="bnf", up_axis="Y", forward="+Z", warnings=warnings)


register(Format(
    name="bnf",
    description="bone info / quaternion animation / parameters (.bnf/.anm/.prm)",
    sniff=sniff,
    load=load,
    extensions=(".bnf", ".anm", ".prm"),
))
