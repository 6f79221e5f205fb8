"""Every reader of JSON bounds it before parsing (app.json_text): bone maps (``--map``), ragdoll
profiles, glTF documents, the window's settings and its saved bone map. Deep nesting, an integer too
long and a key given twice are one clear line naming the file and where; a byte-order mark is fine."""

import dataclasses
import json
from pathlib import Path

import pytest

from app import loading
from app.animation.bone_maps import read_map
from app.errors import InputError
from app.formats.gltf.container import parse_json
from app.formats.registry import ReadError
from app.physics.profile import ProfileError
from app.physics.profile_json import load_profile, save_profile, to_dict
from app.resources import demo_paths
from tests.helpers import chain_model, exit_status
from tests.physics.test_physics_profile import three_bone_profile

DEMO = str(demo_paths()[0])
DEEP = "[" * 100_000 + "]" * 100_000
BOM = b"\xef\xbb\xbf"


def one_error_line(capsys, arguments) -> str:
    assert exit_status(arguments) == 3
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    return lines[0]


def map_run(tmp_path, content: bytes) -> list[str]:
    path = tmp_path / "map.json"
    path.write_bytes(content)
    return ["pose", "--demo", "--clips-from", DEMO, "--map", str(path), "-o", str(tmp_path / "x.npz")]


# --- --map ------------------------------------------------------------------------------------------

def test_a_map_nested_100000_levels_is_one_line_naming_the_file_and_where(tmp_path, capsys):
    line = one_error_line(capsys, map_run(tmp_path, DEEP.encode()))
    # the 201st bracket, at column 201 of line 1, is the first past the 200 levels read
    assert line.endswith("map.json:1: not JSON: the JSON nests 100000 levels deep; at most 200 are read "
                         "(column 201)")


def test_an_integer_of_5000_digits_in_a_map_is_too_long_not_pythons_limit(tmp_path, capsys):
    line = one_error_line(capsys, map_run(tmp_path, b'{\n  "pelvis": ' + b"7" * 5000 + b"\n}"))
    assert line.endswith("map.json:2: not JSON: integer too long: 5000 digits, at most 4000 are read "
                         "(column 13)")
    assert "set_int_max_str_digits" not in line


def test_a_key_given_twice_in_a_map_is_named_where_it_repeats(tmp_path):
    path = tmp_path / "map.json"
    path.write_text('{"pelvis": "pelvis",\n   "pelvis": "spine"}')
    with pytest.raises(InputError) as caught:
        read_map(str(path))
    assert str(caught.value) == (f"{path}:2: not JSON: the key 'pelvis' is given twice in one object "
                                 "(column 4)")


def test_a_map_saved_with_a_byte_order_mark_is_read_as_without(tmp_path):
    mapping = {"pelvis": "pelvis", "spine": "spine"}
    path = tmp_path / "map.json"
    path.write_bytes(BOM + json.dumps(mapping).encode())
    assert read_map(str(path)) == mapping


def test_a_map_with_a_byte_order_mark_carries_the_clips(tmp_path):
    names = loading.load([DEMO]).skeleton.names
    assert exit_status(map_run(tmp_path, BOM + json.dumps({name: name for name in names}).encode())) == 0


def test_a_map_that_is_not_json_names_line_and_column(tmp_path):
    path = tmp_path / "map.json"
    path.write_text('{\n  "pelvis": "pelvis",\n  "spine": }')
    with pytest.raises(InputError) as caught:
        read_map(str(path))
    assert str(caught.value) == f"{path}:3: not JSON: Expecting value (column 12)"


# --- ragdoll profiles -------------------------------------------------------------------------------

def test_a_profile_with_a_byte_order_mark_loads_as_without(tmp_path):
    plain = save_profile(three_bone_profile(), tmp_path / "plain.json")
    marked = tmp_path / "marked.json"
    marked.write_bytes(BOM + plain.read_bytes())
    assert to_dict(load_profile(marked)) == to_dict(load_profile(plain))


def test_a_profile_key_given_twice_is_named_with_its_line(tmp_path):
    text = json.dumps(to_dict(three_bone_profile()), indent=2)
    text = text.replace('"version": 1,', '"version": 1,\n  "version": 1,', 1)
    path = tmp_path / "twice.json"
    path.write_text(text)
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value) == (f"{path}: not JSON: the key 'version' is given twice in one object "
                                 "at line 3 column 3")


# --- glTF -------------------------------------------------------------------------------------------

def test_a_gltf_document_nested_100000_levels_is_refused_at_the_first_level_too_deep():
    text = ('{"asset": {"version": "2.0"}, "extras": ' + DEEP + "}").encode()
    with pytest.raises(ReadError) as caught:
        parse_json(Path("deep.gltf"), text, 20)
    # the object is level 1, so the 200th "[" (at 40 + 199) opens level 201; the JSON starts at byte 20
    assert "the JSON nests 100001 levels deep; at most 200 are read" in str(caught.value)
    assert caught.value.offset == 20 + 40 + 199


def test_a_gltf_key_given_twice_keeps_the_last_as_files_in_use_do():
    text = b'{"asset": {"version": "2.0"}, "scene": 5, "scene": 0, "scenes": [{}]}'
    assert parse_json(Path("twice.gltf"), text, 0)["scene"] == 0


def test_info_on_a_glb_nested_100000_levels_is_one_line(tmp_path, capsys):
    body = ('{"asset": {"version": "2.0"}, "extras": ' + DEEP + "}").encode()
    body += b" " * (-len(body) % 4)
    path = tmp_path / "deep.glb"
    path.write_bytes(b"glTF" + (2).to_bytes(4, "little") + (20 + len(body)).to_bytes(4, "little")
                     + len(body).to_bytes(4, "little") + b"JSON" + body)
    line = one_error_line(capsys, ["info", str(path)])
    assert "deep.glb" in line and "nests 100001 levels deep" in line


# --- the window's settings and saved bone map -----------------------------------------------------

@pytest.fixture
def settings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def settings_readers(settings):
    """Each settings reader and what it gives for a value it cannot use."""
    from app.ui.assigned_textures import AssignedTextures
    from app.ui.recent_files import RecentFiles
    from app.ui.texture_folders import TextureFolders
    from app.ui.up_axes import RememberedUpAxes

    model = dataclasses.replace(chain_model(), files=["/m/chain.glb"])
    return [("files/recent", lambda: RecentFiles(settings).entries(), []),
            ("textures/folders", lambda: TextureFolders(settings).folders(), []),
            ("view/up_axes", lambda: RememberedUpAxes(settings).get("/m/chain.glb"), None),
            ("textures/assigned", lambda: AssignedTextures(settings).for_model(model), {})]


@pytest.mark.parametrize("stored", [DEEP, '{"a": ' + "9" * 5000 + "}", "not json", 10 ** 9])
def test_a_stored_setting_that_cannot_be_used_is_ignored(settings, stored):
    for key, read, nothing in settings_readers(settings):
        settings.setValue(key, stored)
        assert read() == nothing, key


def test_stored_settings_are_read_back(settings):
    from app.ui.recent_files import RecentFiles
    from app.ui.texture_folders import TextureFolders
    from app.ui.up_axes import RememberedUpAxes

    RecentFiles(settings).add(["/m/a.glb"])
    TextureFolders(settings).add("/textures")
    RememberedUpAxes(settings).remember("/m/a.glb", "Z")
    assert RecentFiles(settings).entries() == [["/m/a.glb"]]
    assert TextureFolders(settings).folders() == ["/textures"]
    assert RememberedUpAxes(settings).get("/m/a.glb") == "Z"


def saved_map_target(tmp_path, content: bytes, model=None):
    from app.animation.bone_maps import saved_map_path

    target = dataclasses.replace(model or chain_model(), files=[str(tmp_path / "model.glb")])
    saved_map_path(target).write_bytes(content)
    return target


def test_the_saved_bone_map_with_a_byte_order_mark_is_used(tmp_path):
    from app.animation.bone_maps import starting_map

    target = saved_map_target(tmp_path, BOM + b'{"bone0": "bone1"}')
    assert starting_map(chain_model(), target) == {"bone0": "bone1"}


def test_a_saved_bone_map_nested_too_deep_gives_way_to_the_suggestion(tmp_path):
    from app.animation.bone_maps import starting_map

    demo = loading.load([DEMO])
    target = saved_map_target(tmp_path, DEEP.encode(), demo)
    # the same skeleton on both sides: the suggestion pairs each bone with its namesake
    assert starting_map(demo, target) == {name: name for name in demo.skeleton.names}


def test_a_gltf_syntax_error_after_non_ascii_text_is_placed_at_its_byte():
    text = '{"asset": {"version": "2.0", "generator": "Bönes ✓"}, ]'.encode()
    with pytest.raises(ReadError) as caught:
        parse_json(Path("accented.gltf"), text, 20)
    assert caught.value.offset == 20 + text.index(b"]")  # bytes, though ö and ✓ take 2 and 3
