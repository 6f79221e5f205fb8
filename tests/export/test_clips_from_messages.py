"""``--clips-from`` a file that has nothing to carry over says so, naming the file, instead of
blaming the bones' names."""

import dataclasses

import pytest

from app.export.gltf import export_gltf
from tests.helpers import chain_model, exit_status


def one_error_line(capsys, arguments) -> str:
    assert exit_status(arguments) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("names", [["tail_base", "tail_tip"], ["upperarm_l", "lowerarm_l"]])
def test_a_model_with_named_bones_and_no_clips_says_there_are_no_clips(tmp_path, capsys, names):
    """Names the demo lacks (which blamed numbered bones) and names it has (which said 'no skeletal
    clips', as if the file had clips of another kind)."""
    source = tmp_path / "named.glb"
    named = chain_model()
    skeleton = dataclasses.replace(named.skeleton, names=names)
    export_gltf(dataclasses.replace(named, skeleton=skeleton), source)
    line = one_error_line(capsys, ["convert", "--demo", "--clips-from", str(source), "-o",
                                   str(tmp_path / "out.glb")])
    assert line.endswith(f"--clips-from: there are no clips in {source}")
    assert not (tmp_path / "out.glb").exists()


def test_no_clips_is_said_before_a_map_is_read(tmp_path, capsys):
    source = tmp_path / "chain.glb"
    export_gltf(chain_model(), source)
    bone_map = tmp_path / "map.json"
    bone_map.write_text('{"bone0": "pelvis"}')
    line = one_error_line(capsys, ["pose", "--demo", "--clips-from", str(source), "--map", str(bone_map),
                                   "-o", str(tmp_path / "out.npz")])
    assert line.endswith(f"--clips-from: there are no clips in {source}")
