"""Small writers that produce BonesPro, LGW, .bnf/.anm/.prm and OBJ files from arrays, per
docs/formats. Tests build their files with these; numbers are written with full precision."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def number(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))


def numbers(values) -> str:
    return " ".join(number(v) for v in np.asarray(values, dtype=np.float64).ravel())


def max_rows(matrix: np.ndarray) -> str:
    """A column-form (4, 4) matrix as the 3ds Max ``4 × 3`` row-vector block (4 lines)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    rows = np.vstack([matrix[:3, :3].T, matrix[:3, 3]])
    return "\n".join(numbers(row) for row in rows)


# --- BonesPro ----------------------------------------------------------------------------------

def bonespro_structure(path: Path, names, parents, bind, positions, influences, boxes=None, nodes=None,
                       comment: bool = True) -> Path:
    """names (B,); parents (B,) −1 → ``*``; bind, nodes (B, 4, 4) column form; positions (V, 3);
    influences: per vertex a list of (bone, weight)."""
    count = len(names)
    boxes = np.ones((count, 3)) if boxes is None else boxes
    nodes = bind if nodes is None else nodes
    lines = ["// BonesPro structure written by the tests" if comment else "", str(count), str(len(positions))]
    for bone in range(count):
        lines += [f"<{names[bone]}>", "*" if parents[bone] < 0 else str(int(parents[bone])),
                  numbers(boxes[bone]), max_rows(bind[bone]), max_rows(nodes[bone])]
    for position, influence in zip(positions, influences):
        lines += [numbers(position), str(len(influence))]
        lines += [f"{int(b)} {number(w)}" for b, w in influence]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def bonespro_header(bones: int, vertices: int, frames: int, mode: str, system: str = "Absolute",
                    representation: str = "Matrix", order: str = "XYZ", units: str = "Degrees",
                    first: float = 0, step: float = 1, quoted: bool = True) -> list[str]:
    quote = (lambda word: f'"{word}"') if quoted else (lambda word: word)
    return [str(bones), str(vertices), str(frames), quote(mode), quote(system), quote(representation),
            quote(order), quote(units), number(first), number(first + step * (frames - 1)), number(step)]


def bonespro_bones_matrix(path: Path, transforms, vertices: int, **header) -> Path:
    """Bones mode, Matrix: transforms (F, B, 4, 4) column form (world or relative per ``system``)."""
    frames, bones = transforms.shape[:2]
    lines = bonespro_header(bones, vertices, frames, "Bones", representation="Matrix", **header)
    for frame in range(frames):
        for bone in range(bones):
            lines += ["1 1 1", max_rows(transforms[frame, bone]), max_rows(transforms[frame, bone])]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def bonespro_bones_euler(path: Path, angles, translations, vertices: int, **header) -> Path:
    """Bones mode, Euler Angles: angles (F, B, 3) in the header's units, translations (F, B, 3)."""
    frames, bones = angles.shape[:2]
    lines = bonespro_header(bones, vertices, frames, "Bones", representation="Euler Angles", **header)
    for frame in range(frames):
        for bone in range(bones):
            pair = [numbers(angles[frame, bone]), numbers(translations[frame, bone])]
            lines += ["1 1 1", *pair, *pair]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def bonespro_mesh_absolute(path: Path, positions, bones: int, **header) -> Path:
    """Mesh (absolute): positions (F, V, 3)."""
    frames, vertices = positions.shape[:2]
    lines = bonespro_header(bones, vertices, frames, "Mesh (absolute)", **header)
    lines += [numbers(p) for frame in positions for p in frame]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def bonespro_mesh_bones(path: Path, entries, bones: int, vertices: int, **header) -> Path:
    """Mesh (bones c.s): entries[frame][bone] = list of (vertex, point (3,)) in that bone's frame."""
    lines = bonespro_header(bones, vertices, len(entries), "Mesh (bones c.s)", **header)
    for frame in entries:
        for bone, items in enumerate(frame):
            lines.append(f"{bone} {len(items)}")
            lines += [f"{v} {numbers(p)}" for v, p in items]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


# --- LGW ---------------------------------------------------------------------------------------

def pivot(matrix) -> str:
    return "PIVOT\n" + numbers(np.asarray(matrix).ravel())


def lgw_skin_link(bones: dict[str, np.ndarray]) -> list[str]:
    lines = ["LINKINFO", "LINK_TYPE SKIN", f"BONES {len(bones)}"]
    for name, matrix in bones.items():
        lines += [f'BONE "{name}"', pivot(matrix), "END_OF_BONE"]
    return lines + ["END_OF_BONES", "END_OF_LINKINFO"]


def lgw_normal_link(parent: str, matrix) -> list[str]:
    return ["LINKINFO", "LINK_TYPE NORMAL", f'PARENT "{parent}"', pivot(matrix), "END_OF_PARENT",
            "END_OF_LINKINFO"]


def lgw_mesh(name: str, link: list[str], vertices, triangles, influences=None, end_name: str | None = None,
             material: int = 0) -> list[str]:
    """vertices (V, 8): x y z u v nx ny nz; influences: per vertex a list of (weight, bone name)
    (WVERTS), or None (VERTS); triangles (T, 3)."""
    lines = [f'MESH "{name}"', *link, f"MATERIAL_REF {material}", "DEFAULT_COLOR 0.5 0.25 0.125"]
    if influences is None:
        lines.append(f"VERTS {len(vertices)}")
        lines += [numbers(v) for v in vertices]
    else:
        lines.append(f"WVERTS {len(vertices)}")
        for vertex, influence in zip(vertices, influences):
            pairs = " ".join(f'{number(w)} "{bone}"' for w, bone in influence)
            lines.append(f"{numbers(vertex)} {len(influence)} {pairs}")
    flat = np.asarray(triangles).ravel()
    lines += ["PRIMITIVE_GEOMETRY_GROUPS 1", "GROUP 0 TYPE_LIST", f"COUNT {len(flat)}",
              " ".join(str(int(i)) for i in flat), "END_OF_GROUP 0", f'END_OF_MESH "{end_name or name}"']
    return lines


def lgw_helper(name: str, parent: str | None, parent_matrix, matrix) -> list[str]:
    link = lgw_normal_link(parent, parent_matrix) if parent else []
    return [f'HELPER "{name}"', "TYPE POINT", *link, pivot(matrix), f'END_OF_HELPER "{name}"']


def lgw_model(path: Path, blocks: list[list[str]], extra_material_keys: list[str] = ()) -> Path:
    lines = ['MODEL "written"', "EXPORT_VERSION 4", 'SOURCE_FILE "Q:\\tests\\model.max"', "MATERIAL_LIST",
             'MATERIAL 0 "skin"', *extra_material_keys, "DIFFUSE_COLOR 1 0.5 0.25",
             "TEXTURE 0", '"skin.tga"', "END_OF_TEXTURE", "END_OF_MATERIAL", "END_OF_MATERIAL_LIST"]
    for block in blocks:
        lines += block
    Path(path).write_text("\n".join(lines + ["END_OF_MODEL"]) + "\n")
    return Path(path)


# --- .bnf / .anm / .prm ------------------------------------------------------------------------

def bnf(path: Path, parents, centres) -> Path:
    lines = [str(len(parents))]
    lines += [f"{bone} {int(parent)} {numbers(centre)}"
              for bone, (parent, centre) in enumerate(zip(parents, centres))]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def anm(path: Path, times, quaternions) -> Path:
    """times (K,), quaternions (K, N, 4) as (x, y, z, w)."""
    lines = [f"NumBones: {quaternions.shape[1]}"]
    for time, key in zip(times, quaternions):
        lines += [f"Time: {number(time)}", "Quaternions:"] + [numbers(q) for q in key]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def prm(path: Path, rows) -> Path:
    """rows: (bone, mirror, H, R)."""
    Path(path).write_text("\n".join(f"{b} {m} {number(h)} {number(r)}" for b, m, h, r in rows) + "\n")
    return Path(path)


def obj(path: Path, positions, triangles) -> Path:
    lines = ["# faces for a BonesPro mesh"] + [f"v {numbers(p)}" for p in positions]
    lines += ["f " + " ".join(str(int(i) + 1) for i in tri) for tri in triangles]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)
