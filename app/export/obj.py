"""Wavefront OBJ writer for posed meshes (``boneyard pose -o OUT.obj``, the window's Export Pose).

One ``o`` group per mesh, ``v`` lines for the posed positions, ``vt`` lines for its UVs (OBJ's v runs
up from the image's bottom row, glTF's down from its top: v is flipped), ``vn`` lines with
area-weighted normals of the posed triangles, and ``f v/vt/vn`` faces (``v//vn`` without UVs; 1-based,
offset per mesh). A mesh without faces (a point-only format) writes only its ``v`` lines.

Materials go to ``OUT.mtl`` beside it (``mtllib``, a ``usemtl`` per mesh): the base colour as ``Kd``
(display sRGB) and its alpha as ``d``, and the base-colour image as ``map_Kd`` — the image file the
model read, named relative to the OBJ, or, for an image the model holds only decoded (embedded in a
GLB), a PNG written beside the OBJ (``OUT_MATERIAL.png``). Every file is written whole or not at all,
together.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from app.atomic_files import replacing_all
from app.maths import linear_to_srgb_array
from app.model import Material, Mesh, Model


@dataclass(frozen=True)
class ObjMaterial:
    """One ``newmtl`` of the ``.mtl``: its unique name, the model's material, and the PNG written for
    an image the model holds only decoded (None: the file it read, or no image)."""

    name: str
    material: Material
    png: Path | None


def write_obj(path: str | Path, model: Model, positions: np.ndarray) -> list[Path]:
    """Write every mesh of ``model`` at ``positions`` (N, 3) (meshes in model order) to ``path``, its
    materials to the ``.mtl`` beside it and the images only held decoded as PNGs, all whole or none.
    Returns the files written besides ``path``."""
    path = Path(path)
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape != (model.vertex_count, 3):
        raise ValueError(f"positions: expected shape ({model.vertex_count}, 3), got {positions.shape}")
    materials = _obj_materials(model, path)
    mtl_path = path.with_suffix(".mtl")
    decoded = [entry for entry in materials.values() if entry.png is not None]
    pngs = [entry.png for entry in decoded]
    with replacing_all([path, mtl_path, *pngs]) as (temporary, mtl_temporary, *png_temporaries):
        _write_meshes(temporary, model, positions, materials, mtl_path.name)
        mtl_temporary.write_text(_mtl_text(materials.values(), path.parent), encoding="utf-8")
        for entry, png_temporary in zip(decoded, png_temporaries):
            image = Image.fromarray(np.ascontiguousarray(entry.material.image), "RGBA")
            image.save(png_temporary, format="PNG")
    return [mtl_path, *pngs]


def _write_meshes(target: Path, model: Model, positions: np.ndarray, materials: dict[int, ObjMaterial],
                  mtl_name: str) -> None:
    starts = np.cumsum([0] + [mesh.vertex_count for mesh in model.meshes])
    uv_starts = np.cumsum([0] + [mesh.vertex_count if mesh.uvs is not None else 0 for mesh in model.meshes])
    with open(target, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(f"# Boneyard posed mesh: {model.name}\nmtllib {mtl_name}\n")
        for mesh, start, end, uv_start in zip(model.meshes, starts[:-1], starts[1:], uv_starts):
            handle.write(f"o {_safe_name(mesh.name)}\nusemtl {materials[id(mesh.material)].name}\n")
            posed = positions[start:end]
            np.savetxt(handle, posed, fmt="v %.9g %.9g %.9g")
            if mesh.triangles is None or not mesh.triangle_count:
                continue
            if mesh.uvs is not None:
                flipped = np.column_stack([mesh.uvs[:, 0], 1.0 - mesh.uvs[:, 1]])
                np.savetxt(handle, flipped, fmt="vt %.7g %.7g")
            np.savetxt(handle, _posed_normals(mesh, posed), fmt="vn %.6f %.6f %.6f")
            vertices = mesh.triangles + start + 1
            if mesh.uvs is not None:
                corners = np.stack([vertices, mesh.triangles + uv_start + 1, vertices], axis=2).reshape(-1, 9)
                np.savetxt(handle, corners, fmt="f %d/%d/%d %d/%d/%d %d/%d/%d")
            else:
                np.savetxt(handle, np.repeat(vertices, 2, axis=1), fmt="f %d//%d %d//%d %d//%d")


def _obj_materials(model: Model, path: Path) -> dict[int, ObjMaterial]:
    """Each distinct material of the meshes (by identity), named uniquely as one OBJ token, with the
    PNG to write for an image held only decoded."""
    materials: dict[int, ObjMaterial] = {}
    taken: set[str] = set()
    for index, mesh in enumerate(model.meshes):
        material = mesh.material
        if id(material) in materials:
            continue
        base = _safe_name(material.name or mesh.name or f"material{index}")
        name, number = base, 1
        while name.lower() in taken:
            number += 1
            name = f"{base}_{number}"
        taken.add(name.lower())
        png = None
        if material.image is not None and not _image_file(material):
            png = path.with_name(f"{path.stem}_{name}.png")
        materials[id(material)] = ObjMaterial(name, material, png)
    return materials


def _image_file(material: Material) -> str | None:
    """The image file the material's texture was read from, when it is one on disk."""
    found = material.texture_path
    return found if found and os.path.isfile(found) else None


def _mtl_text(materials, folder: Path) -> str:
    lines = ["# Boneyard materials"]
    for entry in materials:
        material = entry.material
        red, green, blue = linear_to_srgb_array(material.base_color[:3])
        lines += [f"newmtl {entry.name}", f"Kd {red:.6f} {green:.6f} {blue:.6f}",
                  f"d {material.base_color[3]:.6f}"]
        image = entry.png.name if entry.png is not None else _image_file(material)
        if entry.png is None and image is not None:
            image = _relative(image, folder)
        if image is not None:
            lines.append(f"map_Kd {image}")
    return "\n".join(lines) + "\n"


def _relative(image: str, folder: Path) -> str:
    """``image`` named from ``folder`` (forward slashes), or absolute where no relative path exists
    (another drive)."""
    try:
        return Path(os.path.relpath(image, folder)).as_posix()
    except ValueError:
        return Path(image).as_posix()


def _posed_normals(mesh: Mesh, posed: np.ndarray) -> np.ndarray:
    """(V, 3) area-weighted unit normals of the mesh's triangles at ``posed`` (V, 3) positions."""
    return Mesh(name=mesh.name, positions=posed, joints=np.zeros((len(posed), 1)),
                weights=np.zeros((len(posed), 1)), triangles=mesh.triangles).smooth_normals


def _safe_name(name: str) -> str:
    """A mesh or material name as one OBJ token (no whitespace)."""
    return "_".join(name.split()) or "mesh"
