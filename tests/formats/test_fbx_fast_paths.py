"""The FBX reader's fast paths give what the plain ways give: ufbx lists copied from memory
(app/formats/fbx/raw_lists.py) against the same lists read item by item, and the vertex order of the
per-point attribute ranks (app/formats/fbx/build.py) against a unique over byte records of every
corner's (control point, normal, UV, colour), worked out here."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from app.formats.fbx import build, raw_lists, reader_process
from app.loading import load
from tests.formats.test_fbx import written
from tests.paths import CORPUS, ROOT

FBX = sorted((CORPUS / "assimp-fbx").glob("*.fbx"))

#: Run in a child interpreter: ufbx objects crash this version's bindings at teardown, so it ends
#: with os._exit. Prints how many lists matched, and any that did not.
COMPARE = """
import os, sys
from pathlib import Path
import numpy as np
import ufbx
from app.formats.fbx import extract, raw_lists

kept, checked, wrong = [], 0, []
def held(item):
    kept.append(item)
    return item
def each(items):
    held(items)
    found = list(items)
    kept.extend(found)
    return found
def compare(label, items, raw, plain):
    global checked
    checked += 1
    if raw is None or any(not np.array_equal(a, b) for a, b in zip(raw, plain)):
        wrong.append(label)

for name in sys.argv[1:]:
    path = Path(name)
    scene = held(ufbx.load_memory(path.read_bytes(), filename=name, **extract.LOAD_OPTIONS))
    for mesh in each(scene.meshes):
        lists = [mesh.vertex_indices, mesh.face_material, held(mesh.vertex_normal).indices,
                 held(mesh.vertex_uv).indices]
        lists += [held(cluster).vertices for skin in each(mesh.skin_deformers)
                  for cluster in each(skin.clusters)]
        for items in lists:
            held(items)
            compare(f"{path.name} uints", items, [raw_lists.uints(items, kept)],
                    [np.array([int(value) for value in each(items)], np.int64)])
    for stack in each(scene.anim_stacks):
        baked = held(ufbx.bake_anim(scene, held(stack.anim), resample_rate=30.0))
        for node in each(baked.nodes):
            for keys, width in ((node.translation_keys, 3), (node.rotation_keys, 4), (node.scale_keys, 3)):
                held(keys)
                plain = each(keys)
                compare(f"{path.name} keys", keys, raw_lists.baked_keys(keys, width, kept),
                        [np.array([key.time for key in plain]),
                         np.array([tuple(key.value) for key in plain]).reshape(-1, width)])
print(checked, wrong, flush=True)
os._exit(0)
"""


def test_lists_copied_from_memory_equal_the_lists_read_item_by_item(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    paths = [str(path) for path in FBX] + [str(written(tmp_path))]
    done = subprocess.run([sys.executable, "-c", COMPARE, *paths], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    checked, wrong = done.stdout.split(" ", 1)
    assert int(checked) > 100 and wrong.strip() == "[]"


def test_what_is_not_a_ufbx_list_is_left_to_the_plain_way():
    held: list = []
    assert raw_lists.uints([1, 2, 3], held) is None
    assert raw_lists.baked_keys((0.0, 1.0), 3, held) is None


def _reference_rows(values: np.ndarray) -> np.ndarray:
    """Each row's rank among the distinct rows, rows compared as byte records (numpy's void unique)."""
    values = np.ascontiguousarray(values)
    _, ranks = np.unique(values.view(np.dtype((np.void, values.dtype.itemsize * values.shape[1]))),
                         return_inverse=True)
    return ranks.reshape(-1)


@pytest.mark.parametrize("width", [2, 3, 4])
def test_distinct_rows_rank_as_byte_records_do(width):
    rng = np.random.default_rng(width)
    table = rng.normal(size=(40, width))
    table[1], table[2] = 0.0, -0.0  # equal as numbers, not as bytes
    table[3, 0] = np.nan
    table[4] = table[5] + np.finfo(float).eps * table[5]  # one bit apart
    values = table[rng.integers(0, len(table), 500)]
    np.testing.assert_array_equal(build._distinct_rows(values), _reference_rows(values))


def _reference_vertices(data, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (control point, attribute rows' byte ranks) among ``corners``, ordered, with the
    first corner of each: one unique over the whole table of each attribute."""
    key = data.corners[corners].astype(np.int64)
    for attribute in (data.normals, data.uvs, data.colors):
        if attribute is not None:
            key = key * len(attribute.values) + _reference_rows(attribute.values)[attribute.indices[corners]]
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return corners[first], inverse.reshape(-1)


@pytest.mark.parametrize("path", FBX, ids=lambda path: path.name)
def test_vertices_come_in_the_order_a_unique_over_every_corner_gives(path):
    """The corpus meshes have seams and hard edges (points whose corners disagree) and smooth points."""
    contents, _ = reader_process.read_isolated(path)
    model = load([path])
    assert len(model.meshes) == len(contents.meshes)  # one material each
    for data, mesh in zip(contents.meshes, model.meshes):
        corners = build._triangles(data.faces).ravel()
        representative, vertex_of_corner = _reference_vertices(data, corners)
        np.testing.assert_array_equal(np.sort(mesh.triangles, axis=1),
                                      np.sort(vertex_of_corner.reshape(-1, 3), axis=1))
        if data.uvs is not None:
            uvs = data.uvs.per_corner(representative)
            expected = np.stack([uvs[:, 0], 1.0 - uvs[:, 1]], axis=1).astype(mesh.uvs.dtype)  # as stored
            np.testing.assert_array_equal(mesh.uvs, expected)
