"""The engine rules ``boneyard check`` holds a Neverwinter Nights model to (docs/formats/nwn-check.md):
each finding a severity, a rule name a modder can look up, the node it names and a message.

Read from the parsed file (names, animations as written) and the loaded model (supermodels and
textures as they resolved).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from app.dangly import FULL_CONSTRAINT
from app.formats.nwn.dangly_params import PARAMETERS, file_vertex_count, number, shown
from app.formats.nwn.nodes import Parsed
from app.model import Model
from app.walkmeshes import SURFACE_MATERIALS

#: Bones one skin mesh may use in NWN:EE (rollnw's skin node keeps 64; 1.69's compiler took 17).
#: Sources for each threshold: docs/formats/nwn-check.md.
MAX_SKIN_BONES = 64
#: Influences per vertex: four (bone, weight) pairs per vertex in the compilers and readers.
MAX_INFLUENCES = 4
#: Characters of a node name: the binary node header's name field is 32 bytes, NUL-terminated, so
#: the model compiler keeps 31 and cuts the rest.
MAX_NODE_NAME = 31
#: Model, supermodel and texture names are resrefs: 16 characters.
MAX_RESREF = 16
#: The values an emitter's settings may take, compared without case: the binary MDL emitter record's
#: description and the Blender exporters list the same ones (``PunchThrough`` is seen beside
#: ``Punch-Through``).
EMITTER_VALUES = {
    "update": ("fountain", "single", "explosion", "lightning"),
    "render": ("normal", "linked", "billboard_to_local_z", "billboard_to_world_z", "aligned_to_world_z",
               "aligned_to_particle_dir", "motion_blur"),
    "blend": ("normal", "punch-through", "punchthrough", "lighten"),
}
#: A tile's resref: the tileset's three letters and two digits, then ``_`` a letter and two digits
#: (the tile's group) and ``_`` two digits (its variant), as in ``ttd01_a04_03``.
TILE_RESREF = re.compile(r"[a-z]{3}\d{2}_[a-z]\d{2}_\d{2}", re.IGNORECASE)
#: Highest surface material id: the last row of the game's surfacemat.2da (app/walkmeshes.py).
MAX_SURFACE_MATERIAL = len(SURFACE_MATERIALS) - 1
#: surfacemat.2da's row 0, NotDefined: a face left at it (a material never assigned, or an ASCII face
#: row without its eighth number) is the usual tile bug (``walkmesh-undefined``).
NOT_DEFINED = 0


#: The emitter numbers checked (``emitter-numbers``): each must be a finite number ≥ 0.
EMITTER_NUMBERS = ("birthrate", "lifeExp", "velocity", "xsize", "ysize", "spread")
#: The widest spread: a full turn (radians) already sends particles every way.
MAX_SPREAD = 2 * math.pi
#: Danglymesh parameters beyond these are flagged (``dangly-extreme``): a swing slower than a minute
#: or faster than 100 a second, a tightness past 1000, a displacement past 10 times the mesh's size.
DANGLY_PERIOD_RANGE = (0.01, 60.0)
MAX_DANGLY_TIGHTNESS = 1000.0
MAX_DISPLACEMENT_SHARE = 10.0


@dataclass(frozen=True)
class Finding:
    severity: str
    rule: str
    node: str
    message: str

    def line(self) -> str:
        return f"{self.severity} {self.rule} {self.node}: {self.message}"

    def as_json(self) -> dict:
        return {"severity": self.severity, "rule": self.rule, "node": self.node, "message": self.message}


def check(parsed: Parsed, model: Model) -> list[Finding]:
    """Every finding for ``parsed`` (the model's own file) loaded as ``model``."""
    return [*_names(parsed), *_skins(parsed), *_emitters(parsed), *_emitter_numbers(parsed),
            *_danglies(parsed), *_animations(parsed), *_resolved(model), *_walkmeshes(parsed, model)]


def _emitter_numbers(parsed: Parsed) -> list[Finding]:
    findings = []
    for node in parsed.nodes:
        if node.kind != "emitter":
            continue
        for key in EMITTER_NUMBERS:
            text = node.settings.get(key)
            if text is None:
                continue
            value = number(text)
            if not (np.isfinite(value) and 0 <= value <= (MAX_SPREAD + 1e-3 if key == "spread" else np.inf)):
                wanted = "a number from 0 to 2π (6.283)" if key == "spread" else "a number ≥ 0"
                findings.append(Finding("warning", "emitter-numbers", node.name,
                                        f"{key} {text!r} is not {wanted}"))
        findings += _long_texture(node.name, node.settings.get("texture", ""))
    return findings


def _long_texture(node: str, texture: str) -> list[Finding]:
    """``resref-length`` for a texture name longer than a resref ('null' names none)."""
    if texture.lower() == "null" or len(texture) <= MAX_RESREF:
        return []
    return [Finding("error", "resref-length", node,
                    f"texture {texture!r} has {len(texture)} characters; a resref holds {MAX_RESREF}")]


def _danglies(parsed: Parsed) -> list[Finding]:
    findings = []
    for node in parsed.nodes:
        if node.kind != "dangly" or node.geometry is None:
            continue
        findings += _dangly_constraints(node) + _dangly_parameters(node)
    return findings


def _dangly_constraints(node) -> list[Finding]:
    vertices = file_vertex_count(node.geometry)
    constraints = node.geometry.get("constraints")
    if constraints is None or len(constraints) != vertices:
        found = "no constraints" if constraints is None else f"{len(constraints)} constraints"
        return [Finding("error", "dangly-constraints", node.name, f"{found} for {vertices} vertices")]
    outside = np.flatnonzero(~((constraints >= 0) & (constraints <= FULL_CONSTRAINT)))
    if outside.size:
        return [Finding("error", "dangly-constraint-range", node.name,
                        f"{outside.size} constraints outside 0..255 (vertex {outside[0]}: "
                        f"{constraints[outside[0]]:g})")]
    return []


def _dangly_parameters(node) -> list[Finding]:
    values = {key: number(node.extras.get(key)) for key in PARAMETERS}
    bad = [f"{key} {shown(node.extras, key)}" for key, value in values.items()
           if not (np.isfinite(value) and value > 0)]
    if bad:
        return [Finding("error", "dangly-parameters", node.name,
                        f"{', '.join(bad)}: each must be a positive number")]
    positions = node.geometry["positions"]
    size = float(np.linalg.norm(np.ptp(positions, axis=0))) if len(positions) else 0.0
    extreme = []
    low, high = DANGLY_PERIOD_RANGE
    if not low <= values["period"] <= high:
        extreme.append(f"period {values['period']:g} s is outside {low:g}..{high:g} s")
    if values["tightness"] > MAX_DANGLY_TIGHTNESS:
        extreme.append(f"tightness {values['tightness']:g} is past {MAX_DANGLY_TIGHTNESS:g}")
    if size > 0 and values["displacement"] > MAX_DISPLACEMENT_SHARE * size:
        extreme.append(f"displacement {values['displacement']:g} is more than {MAX_DISPLACEMENT_SHARE:g} "
                       f"times the mesh's size ({size:.3g})")
    return [Finding("warning", "dangly-extreme", node.name, "; ".join(extreme))] if extreme else []


def is_tile(parsed: Parsed) -> bool:
    """A tile: classified so, holding an AABB node, or named like a tile's resref."""
    return (parsed.classification == "tile" or any(node.kind == "aabb" for node in parsed.nodes)
            or TILE_RESREF.fullmatch(parsed.name) is not None)


def _walkmeshes(parsed: Parsed, model: Model) -> list[Finding]:
    findings = []
    if is_tile(parsed) and not model.walkmeshes:
        findings.append(Finding("error", "tile-walkmesh", parsed.name,
                                "a tile without a walkmesh (no AABB node with faces, no .wok found): "
                                "creatures cannot walk on it"))
    for walkmesh in model.walkmeshes:
        outside = np.flatnonzero((walkmesh.materials < 0) | (walkmesh.materials > MAX_SURFACE_MATERIAL))
        if outside.size:
            first = int(outside[0])
            findings.append(Finding("warning", "walkmesh-material", walkmesh.name,
                                    f"{outside.size} {'face has' if outside.size == 1 else 'faces have'} "
                                    f"a surface material outside "
                                    f"0..{MAX_SURFACE_MATERIAL} (face {first} has "
                                    f"{int(walkmesh.materials[first])})"))
        undefined = np.flatnonzero(walkmesh.materials == NOT_DEFINED)
        if undefined.size:
            findings.append(Finding("warning", "walkmesh-undefined", walkmesh.name,
                                    f"{undefined.size} of {len(walkmesh.materials)} faces are left "
                                    f"NotDefined (surface material {NOT_DEFINED}; face {int(undefined[0])} "
                                    "first): give each a material"))
    return findings


def _emitters(parsed: Parsed) -> list[Finding]:
    findings = []
    for node in parsed.nodes:
        if node.kind != "emitter":
            continue
        for setting, allowed in EMITTER_VALUES.items():
            value = str(node.extras.get(setting, "")).strip()
            if value and value.lower() not in allowed:
                findings.append(Finding("error", "emitter-values", node.name,
                                        f"{setting} {value!r} is not one of {', '.join(allowed)}"))
    return findings


def _names(parsed: Parsed) -> list[Finding]:
    findings = [Finding("error", "node-name-length", node.name,
                        f"{len(node.name)} characters; a node name holds at most {MAX_NODE_NAME}")
                for node in parsed.nodes if len(node.name) > MAX_NODE_NAME]
    for what, name in (("model", parsed.name), ("supermodel", parsed.supermodel_name)):
        if len(name) > MAX_RESREF:
            findings.append(Finding("error", "resref-length", name,
                                    f"the {what} name has {len(name)} characters; a resref holds "
                                    f"{MAX_RESREF}"))
    for node in parsed.nodes:
        findings += _long_texture(node.name, (node.geometry or {}).get("texture") or "")
    return findings


def _skins(parsed: Parsed) -> list[Finding]:
    findings = []
    for node in parsed.nodes:
        geometry = node.geometry or {}
        if "skin_joints" not in geometry:
            continue
        joints, weights = np.asarray(geometry["skin_joints"]), np.asarray(geometry["skin_weights"])
        used = np.unique(joints[(joints >= 0) & (weights > 0)])
        if len(used) > MAX_SKIN_BONES:
            findings.append(Finding("error", "skin-bones", node.name,
                                    f"the skin uses {len(used)} bones; the engine takes {MAX_SKIN_BONES}"))
        influences = ((joints >= 0) & (weights > 0)).sum(axis=1)
        over = np.flatnonzero(influences > MAX_INFLUENCES)
        if over.size:
            findings.append(Finding("error", "skin-influences", node.name,
                                    f"{over.size} {'vertex has' if over.size == 1 else 'vertices have'} "
                                    f"more than {MAX_INFLUENCES} influences "
                                    f"(vertex {over[0]} has {influences[over[0]]})"))
    return findings


def _animations(parsed: Parsed) -> list[Finding]:
    names = {node.name.lower() for node in parsed.nodes}
    findings = []
    for animation in parsed.animations:
        if animation.root and animation.root.lower() not in names:
            findings.append(Finding("error", "animroot", animation.name,
                                    f"animroot {animation.root!r} names no node of the model"))
        if animation.length <= 0:
            findings.append(Finding("warning", "animation-length", animation.name,
                                    f"length {animation.length:g}: the animation does not play"))
            continue
        if animation.transition > animation.length:
            findings.append(Finding("warning", "transition-time", animation.name,
                                    f"transtime {animation.transition:g} s is longer than the animation "
                                    f"({animation.length:g} s)"))
        short = [node.name for node in animation.nodes
                 if node.controllers and max(times[-1] for times, _ in node.controllers.values())
                 < animation.length - 1e-4]
        if short:
            findings.append(Finding("warning", "end-keys", animation.name,
                                    f"{len(short)} nodes have no key at the end ({animation.length:g} s): "
                                    f"{', '.join(short[:3])}{' …' if len(short) > 3 else ''}"))
    return findings


def _resolved(model: Model) -> list[Finding]:
    findings = [Finding("error", "supermodel-unresolved", name, "supermodel not found beside the model or "
                        "in --resources") for name, found in model.supermodels if found is None]
    missing = {mesh.material.texture: mesh.name for mesh in model.meshes
               if mesh.material.texture and mesh.material.image is None}
    findings += [Finding("warning", "texture-unresolved", mesh, f"texture {texture!r} not found")
                 for texture, mesh in missing.items()]
    return findings
