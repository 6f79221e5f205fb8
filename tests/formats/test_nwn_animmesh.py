"""NWN animmesh nodes: drawn in both forms, and their animated vertices (``animverts``, one sample
of the whole vertex list every ``sampleperiod`` seconds) played as a vertex clip; a sample list that
does not fit the mesh is a warning naming the file, the animation and the node."""

from __future__ import annotations

import numpy as np
import pytest

from app import formats, loading
from app.pose import evaluate, posed_positions
from tests.formats.test_nwn_mdl import save
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import WNode, write_mdl

SQUARE = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)

SAMPLES = """\
      0 0 0
      1 0 0
      0 1 0
      0 0 0.5
      1 0 0
      0 1 0
      0 0 2
      1 0 0.5
      0 1 0
"""


def water(samples: str = SAMPLES, count: int = 9) -> str:
    """A triangle on node 'sea' at (0, 0, 1) turned 90° about +Z, with three samples one second apart."""
    return f"""newmodel water
setsupermodel water NULL
classification tile
beginmodelgeom water
node dummy water
  parent NULL
endnode
node animmesh sea
  parent water
  position 0 0 1
  orientation 0 0 1 1.5707963267948966
  bitmap NULL
  verts 3
    0 0 0
    1 0 0
    0 1 0
  tverts 3
    0 0 0
    1 0 0
    0 1 0
  faces 1
    0 1 2 1 0 1 2 1
endnode
endmodelgeom water
newanim ripple water
  length 2
  node dummy water
    parent NULL
  endnode
  node animmesh sea
    parent water
    sampleperiod 1
    animverts {count}
{samples}  endnode
doneanim ripple water
donemodel water
"""


def test_animated_vertices_play_between_their_samples(tmp_path):
    """Node space → model space by hand: Rz(90°) takes (x, y, z) to (−y, x, z), then +1 in z.
    Vertex 0 rises 0 → 0.5 → 2 over samples at 0, 1, 2 s; vertex 1 (1, 0, z) goes to (0, 1, z + 1)."""
    model = loading.load([save(tmp_path, "water.mdl", water().encode())])
    assert [mesh.name for mesh in model.meshes] == ["sea"] and model.meshes[0].triangle_count == 1
    clip = model.clips[0]
    assert clip.kind == "vertex" and clip.frame_times.tolist() == [0.0, 1.0, 2.0] and clip.duration == 2.0
    expected = {0.0: [[0, 0, 1], [0, 1, 1], [-1, 0, 1]],
                0.5: [[0, 0, 1.25], [0, 1, 1], [-1, 0, 1]],
                1.5: [[0, 0, 2.25], [0, 1, 1.25], [-1, 0, 1]],
                2.0: [[0, 0, 3], [0, 1, 1.5], [-1, 0, 1]]}
    for time, corners in expected.items():
        np.testing.assert_allclose(posed_positions(model, evaluate(model, clip, time)), corners, atol=1e-6)
    np.testing.assert_allclose(posed_positions(model, evaluate(model, None, 0.0)), expected[0.0], atol=1e-6)


def test_a_sample_list_that_does_not_fit_the_mesh_is_a_warning(tmp_path):
    samples = "\n".join(SAMPLES.splitlines()[:8]) + "\n"
    path = save(tmp_path, "water.mdl", water(samples, 8).encode())
    model = loading.load([path])
    warning = next(w for w in model.warnings if "animated vertices" in w)
    assert warning.startswith("water.mdl line ") and "animation 'ripple' node 'sea'" in warning
    assert "8 animated vertices is not a whole number of samples of its mesh's 3 vertices" in warning
    assert model.clips[0].kind == "keyed"
    np.testing.assert_allclose(posed_positions(model, evaluate(model, model.clips[0], 1.0)),
                               [[0, 0, 1], [0, 1, 1], [-1, 0, 1]], atol=1e-6)


def test_a_short_sample_list_is_an_error_naming_the_line(tmp_path):
    """``animverts 9`` with the file ending after 4 rows: the counted list runs past the end."""
    text = water().split("      0 0 0.5")[0]
    with pytest.raises(formats.ReadError, match=r"animverts 9: expected 9 rows"):
        loading.load([save(tmp_path, "water.mdl", text.encode())])


@pytest.mark.parametrize("form", ["binary", "ascii"])
def test_animmesh_nodes_are_drawn_in_both_forms(tmp_path, form):
    tree = WNode("kinds", children=[WNode("anim01", 0x0A1, (0, 0, 0.5), None, vertices=SQUARE,
                                          faces=[[0, 1, 2], [0, 2, 3]])])
    data = write_mdl("kinds", tree) if form == "binary" else write_ascii_mdl("kinds", tree)
    model = loading.load([save(tmp_path, "kinds.mdl", data)])
    anim = next(mesh for mesh in model.meshes if mesh.name == "anim01")
    assert anim.triangle_count == 2 and anim.visible
    np.testing.assert_allclose(anim.positions, SQUARE + [0, 0, 0.5], atol=1e-6)
