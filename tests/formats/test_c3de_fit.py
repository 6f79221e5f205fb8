"""A C3DE mesh opened with a bones file that does not fit it (another character's, with the same bone
count) loads with a warning naming both files; its own bones give none."""

from __future__ import annotations

import re

import numpy as np

from app import loading
from tests.formats.test_c3de import save, translate
from tests.writers.c3de_writer import write_bones_2009, write_mesh

#: A ladder of three quads up +Z: rows 0-1 on bone 0, rows 2-3 on bone 1 (rigid), so the middle quad
#: spans both bones: 4 of its 6 edge uses join the two rows, 4 of the mesh's 18 (22 %).
POSITIONS = np.array([[x, 0.0, z] for z in range(4) for x in (0.0, 1.0)])
TRIANGLES = np.array([[2 * row + a for a in corners] for row in range(3)
                      for corners in ([0, 1, 3], [0, 3, 2])])
BONE0 = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def _mesh(tmp_path):
    return save(tmp_path, "stand.c3d", write_mesh(POSITIONS, BONE0, -np.ones(8, int), np.ones(8),
                                                  layout="2009", indices=TRIANGLES.ravel()))


def test_its_own_bones_fit(tmp_path):
    """The first frame holds both bones at rest (a 10 % stretch further on is no misfit)."""
    frames = np.array([[np.eye(4), np.eye(4)], [np.eye(4), translate(0, 0, 0.1)]])
    model = loading.load([_mesh(tmp_path), save(tmp_path, "standBones.c3d", write_bones_2009(frames))])
    assert not [w for w in model.warnings if "does not fit" in w]


def test_another_characters_bones_are_named_in_a_warning(tmp_path):
    """Bone 1 ten units up at the first frame: the joining edges stretch from 1 to about 10."""
    frames = np.array([[np.eye(4), translate(0, 0, 10)]])
    model = loading.load([_mesh(tmp_path), save(tmp_path, "ninjaBones.c3d", write_bones_2009(frames))])
    warning = next(w for w in model.warnings if "does not fit" in w)
    assert warning.startswith("stand.c3d does not fit ninjaBones.c3d: at its first frame 22% of the mesh's "
                              "edges stretch or shrink more than 2 times")
    assert len(model.meshes) == 1 and model.clips  # still loaded, as the user asked


def _strip(tmp_path, quads: int, torn_every: int):
    """A strip of ``quads`` unit quads along +X (two triangles each, 3 edges each, so 6 edge uses a
    quad), bottom row on bone 0, top row on bone 1, except every ``torn_every``-th quad, whose top
    corners sit on bone 2; and bones that hold 0 and 1 at rest and lift bone 2 ten units."""
    columns = quads + 1
    positions = np.array([[x, 0.0, z] for z in (0.0, 1.0) for x in range(columns)])
    triangles = np.array([[q, q + 1, columns + q + 1] for q in range(quads)]
                         + [[q, columns + q + 1, columns + q] for q in range(quads)])
    bones = np.array([0] * columns + [1] * columns)
    torn = np.arange(0, quads, torn_every)
    bones[columns + torn] = 2
    written = write_mesh(positions, bones, -np.ones(len(bones), int), np.ones(len(bones)), layout="2009",
                         indices=triangles.ravel())
    mesh = save(tmp_path, "strip.c3d", written)
    frames = np.array([[np.eye(4), np.eye(4), translate(0, 0, 10)]])
    return mesh, save(tmp_path, "liftBones.c3d", write_bones_2009(frames))


def _share(model) -> int:
    """The percentage the fit warning gives."""
    warning = next(w for w in model.warnings if "does not fit" in w)
    return int(re.search(r"at its first frame (\d+)% of the mesh's edges", warning).group(1))


def test_a_large_mesh_is_measured_on_a_sample_of_its_triangles(tmp_path, monkeypatch):
    """Every 10th quad's top-left corner is lifted ten units: in that quad its top edge and side
    stretch (2 of 6 edge uses), in the quad before it its side, top edge and both uses of the diagonal
    (4 of 6): 6 of 60 edge uses, 10 % (9.97 %: the first quad has none before it). A sample of the
    triangles tells the same share (not every 10th triangle, which here would take only the torn
    quads' second triangles: 33 %)."""
    files = _strip(tmp_path, 2000, 10)
    assert _share(loading.load(files)) == 10
    monkeypatch.setattr(loading, "FIT_TRIANGLES", 1000)  # a quarter of the 4000 triangles
    sampled = loading.load(files)
    assert abs(_share(sampled) - 10) <= 2
    assert _share(loading.load(files)) == _share(sampled)  # the same file, the same verdict
