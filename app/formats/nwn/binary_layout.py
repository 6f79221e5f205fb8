"""Record layouts of the NWN1 binary MDL (docs/formats/nwn-binary-mdl.md, section 2), as
little-endian structured dtypes. Offsets in comments are relative to the record's start; an
``ARRAY`` is the 12-byte ``(pointer, used, allocated)`` definition."""

from __future__ import annotations

import numpy as np

ARRAY = ("<u4", 3)

GEOMETRY = np.dtype([
    ("routines", "<u4", 2), ("name", "S64"), ("root", "<u4"), ("node_count", "<u4"),
    ("runtime1", *ARRAY), ("runtime2", *ARRAY), ("reference_count", "<u4"),
    ("geometry_type", "u1"), ("geometry_pad", "u1", 3),
])                                                                   # 0x70

MODEL_HEADER = np.dtype(GEOMETRY.descr + [
    ("unknown", "u1", 2), ("classification", "u1"), ("fog", "u1"), ("child_models", "<u4"),
    ("animations", *ARRAY), ("parent_model", "<u4"), ("bbox_min", "<f4", 3), ("bbox_max", "<f4", 3),
    ("radius", "<f4"), ("animation_scale", "<f4"), ("supermodel", "S64"),
])                                                                   # 0xE8

ANIMATION_HEADER = np.dtype(GEOMETRY.descr + [
    ("length", "<f4"), ("transition", "<f4"), ("animation_root", "S64"), ("events", *ARRAY),
])                                                                   # 0xC4

EVENT = np.dtype([("time", "<f4"), ("name", "S32")])                 # 0x24

NODE = np.dtype([
    ("routines", "<u4", 6), ("inherit_colour", "<u4"), ("part", "<i4"), ("name", "S32"),
    ("geometry", "<u4"), ("parent", "<u4"), ("children", *ARRAY), ("keys", *ARRAY), ("data", *ARRAY),
    ("flags", "<u4"),
])                                                                   # 0x70

CONTROLLER = np.dtype([("type", "<i4"), ("rows", "<u2"), ("time", "<u2"), ("value", "<u2"),
                       ("columns", "i1"), ("pad", "i1")])            # 12

FACE = np.dtype([("normal", "<f4", 3), ("distance", "<f4"), ("surface", "<u4"),
                 ("adjacent", "<i2", 3), ("vertices", "<u2", 3)])    # 32

LIGHT = np.dtype([
    ("flare_radius", "<f4"), ("unknown", *ARRAY), ("flare_sizes", *ARRAY), ("flare_positions", *ARRAY),
    ("flare_colour_shifts", *ARRAY), ("flare_textures", *ARRAY), ("priority", "<u4"),
    ("ambient_only", "<u4"), ("dynamic_type", "<u4"), ("affect_dynamic", "<u4"), ("shadow", "<u4"),
    ("generate_flare", "<u4"), ("fading", "<u4"),
])                                                                   # 0x5C

EMITTER = np.dtype([
    ("dead_space", "<f4"), ("blast_radius", "<f4"), ("blast_length", "<f4"), ("x_grid", "<u4"),
    ("y_grid", "<u4"), ("spawn_type", "<u4"), ("update", "S32"), ("render", "S32"), ("blend", "S32"),
    ("texture", "S64"), ("chunk_name", "S16"), ("two_sided", "<u4"), ("loop", "<u4"),
    ("render_order", "<u2"), ("pad", "<u2"), ("emitter_flags", "<u4"),
])                                                                   # 0xD8

REFERENCE = np.dtype([("model", "S64"), ("reattachable", "<u4")])    # 0x44

MESH = np.dtype([
    ("routines", "<u4", 2), ("faces", *ARRAY), ("bbox_min", "<f4", 3), ("bbox_max", "<f4", 3),
    ("radius", "<f4"), ("average", "<f4", 3), ("diffuse", "<f4", 3), ("ambient", "<f4", 3),
    ("specular", "<f4", 3), ("shininess", "<f4"), ("shadow", "<u4"), ("beaming", "<u4"), ("render", "<u4"),
    ("transparency_hint", "<u4"), ("render_hint", "<u4"), ("texture0", "S64"), ("texture1", "S64"),
    ("texture2", "S64"), ("texture3", "S64"), ("tile_fade", "<u4"), ("vertex_indices", *ARRAY),
    ("left_over_faces", *ARRAY), ("index_counts", *ARRAY), ("index_lists", *ARRAY), ("strips", "<u4"),
    ("unknown", "<u4"), ("triangle_mode", "u1"), ("mode_pad", "u1", 3), ("compile_only", "<u4"),
    ("vertices", "<u4"), ("vertex_count", "<u2"), ("texture_count", "<u2"), ("uvs", "<u4", 4),
    ("normals", "<u4"), ("colours", "<u4"), ("texture_animation", "<u4", 6), ("light_mapped", "u1"),
    ("rotate_texture", "u1"), ("flag_pad", "<u2"), ("normal_sum", "<f4"), ("unknown2", "<u4"),
])                                                                   # 0x200

SKIN_SLOTS = 17
#: Bone slots of the EE skin layout: the same table at skin +0x40, 64 entries (sub-header 0xC0).
EE_SKIN_SLOTS = 64

SKIN = np.dtype([
    ("compile_weights", *ARRAY), ("weights", "<u4"), ("bone_refs", "<u4"), ("node_to_bone", "<u4"),
    ("node_to_bone_count", "<u4"), ("q_bone_ref_inv", *ARRAY), ("t_bone_ref_inv", *ARRAY),
    ("constant_indices", *ARRAY), ("bone_parts", "<i2", SKIN_SLOTS), ("spare", "<i2"),
])                                                                   # 0x64

ANIMMESH = np.dtype([("sample_period", "<f4"), ("compile_arrays", "<u4", 9), ("vertex_sets", "<u4"),
                     ("uv_sets", "<u4"), ("vertex_set_count", "<u4"), ("uv_set_count", "<u4")])  # 0x38

DANGLY = np.dtype([("constraints", *ARRAY), ("displacement", "<f4"), ("tightness", "<f4"),
                   ("period", "<f4")])                               # 0x18

AABB = np.dtype([("root", "<u4")])                                   # 0x04

AABB_ENTRY = np.dtype([("min", "<f4", 3), ("max", "<f4", 3), ("left", "<u4"), ("right", "<u4"),
                       ("leaf_face", "<i4"), ("plane", "<u4")])      # 40

HEADER, LIGHT_FLAG, EMITTER_FLAG, CAMERA, REFERENCE_FLAG = 0x001, 0x002, 0x004, 0x008, 0x010
MESH_FLAG, SKIN_FLAG, ANIMMESH_FLAG = 0x020, 0x040, 0x080
DANGLY_FLAG, AABB_FLAG, UNKNOWN_FLAG = 0x100, 0x200, 0x400
KNOWN_FLAGS = 0x7FF
#: Nodes with a mesh that is not drawn as one (walk meshes, GUI vertex animation).
UNDRAWN_MESH_FLAGS = AABB_FLAG | ANIMMESH_FLAG
#: Nodes listed in warnings because they are not drawn.
HIDDEN_FLAGS = LIGHT_FLAG | EMITTER_FLAG | REFERENCE_FLAG | AABB_FLAG | ANIMMESH_FLAG

#: Sub-headers in file order after the 0x70-byte node header: (flag, record).
SUB_HEADERS = ((LIGHT_FLAG, LIGHT), (EMITTER_FLAG, EMITTER), (REFERENCE_FLAG, REFERENCE), (MESH_FLAG, MESH),
               (SKIN_FLAG, SKIN), (ANIMMESH_FLAG, ANIMMESH), (DANGLY_FLAG, DANGLY), (AABB_FLAG, AABB))
FLAG_NAMES = {LIGHT_FLAG: "light", EMITTER_FLAG: "emitter", REFERENCE_FLAG: "reference", MESH_FLAG: "mesh",
              SKIN_FLAG: "skin", ANIMMESH_FLAG: "animmesh", DANGLY_FLAG: "dangly", AABB_FLAG: "aabb"}

_TYPES = {0x001: "dummy", 0x003: "light", 0x005: "emitter", 0x011: "reference", 0x021: "trimesh",
          0x061: "skin", 0x0A1: "animmesh", 0x121: "dangly", 0x221: "aabb"}


def node_type(flags: int) -> str:
    """The node kind's name for ``flags`` (docs 2.5), or the flags in hex for other mixes."""
    return _TYPES.get(flags, f"flags 0x{flags:x}")


for _record, _size in ((GEOMETRY, 0x70), (MODEL_HEADER, 0xE8), (ANIMATION_HEADER, 0xC4), (EVENT, 0x24),
                       (NODE, 0x70), (CONTROLLER, 12), (FACE, 32), (LIGHT, 0x5C), (EMITTER, 0xD8),
                       (REFERENCE, 0x44), (MESH, 0x200), (SKIN, 0x64), (ANIMMESH, 0x38), (DANGLY, 0x18),
                       (AABB, 4), (AABB_ENTRY, 40)):
    assert _record.itemsize == _size, (_record, _record.itemsize, _size)
