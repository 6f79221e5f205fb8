"""docs/cli.md "Additions": --up, --texture, --texture-dir, --show-hidden on every command and the
window, and info's up / up_source / forward / mesh_list."""

from __future__ import annotations

import json

import pytest

from app.cli.main import SUBCOMMANDS, build_app_parser, build_parser, main
from tests.formats.test_textures import nwn_model, save_image

OPTIONS = ["--up", "y", "--texture", "body=a.png", "--texture", "b.png", "--texture-dir", "t1",
           "--texture-dir", "t2", "--show-hidden"]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_command_takes_the_model_options(command):
    words = {"info": [command, "x.mdl"], "check": [command, "x.mdl"],
             "batch": [command, "render", "models", "-o", "out"]}
    args = build_parser().parse_args([*words.get(command, [command, "x.mdl", "-o", "out.png"]), *OPTIONS])
    assert (args.up, args.texture, args.texture_dir, args.show_hidden) == (
        "Y", [("body", "a.png"), (None, "b.png")], ["t1", "t2"], True)


def test_the_window_takes_the_model_options():
    args = build_app_parser().parse_args(["x.mdl", *OPTIONS])
    assert (args.up, args.texture, args.texture_dir, args.show_hidden) == (
        "Y", [("body", "a.png"), (None, "b.png")], ["t1", "t2"], True)


def test_window_load_options_come_from_the_command_line():
    from app.cli.shared import load_options

    options = load_options(build_app_parser().parse_args(["x.mdl", *OPTIONS]))
    assert options.up == "Y" and options.show_hidden
    assert options.textures == [("body", "a.png"), (None, "b.png")] and options.texture_dirs == ["t1", "t2"]


@pytest.mark.parametrize("bad", [["--up", "x"], ["--texture", "=a.png"], ["--texture", "body="]])
def test_bad_model_options_exit_2(bad, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["info", "x.mdl", *bad])
    assert stop.value.code == 2


def test_info_json_carries_up_forward_and_the_mesh_list(tmp_path, capsys):
    model = nwn_model(tmp_path)
    save_image(tmp_path / "BODY_TEX.TGA")
    assert main(["info", str(model), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert (facts["up"], facts["up_source"], facts["forward"]) == ("Z", "file", "+Y")
    assert facts["mesh_list"] == [
        {"name": "body", "vertices": 3, "triangles": 1, "visible": True, "texture": "Body_Tex",
         "texture_path": str((tmp_path / "BODY_TEX.TGA").resolve()), "colors": False},
        {"name": "part_g", "vertices": 3, "triangles": 1, "visible": False, "texture": "Body_Tex",
         "texture_path": str((tmp_path / "BODY_TEX.TGA").resolve()), "colors": False}]
    assert main(["info", str(model), "--json", "--up", "y"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert (facts["up"], facts["up_source"]) == ("Y", "option")


def test_info_text_says_the_texture_and_whether_it_was_found(tmp_path, capsys):
    model = nwn_model(tmp_path)
    assert main(["info", str(model)]) == 0
    text = capsys.readouterr().out
    assert "body: 3 vertices, 1 triangle, texture Body_Tex (not found)" in text
    assert "part_g: 3 vertices, 1 triangle, hidden, texture Body_Tex (not found)" in text
    assert "up axis:    Z (from the file)  facing: +Y" in text
    folder = tmp_path / "tex"
    folder.mkdir()
    image = save_image(folder / "body_tex.png")
    assert main(["info", str(model), "--texture-dir", str(folder)]) == 0
    assert f"texture Body_Tex (found: {image.resolve()})" in capsys.readouterr().out


def test_texture_option_assigns_an_image(tmp_path, capsys):
    model = nwn_model(tmp_path, texture="")
    image = save_image(tmp_path / "paint.png")
    assert main(["info", str(model), "--json", "--texture", f"part_g={image}"]) == 0
    meshes = json.loads(capsys.readouterr().out)["mesh_list"]
    assert [m["texture_path"] for m in meshes] == [None, str(image.resolve())]

