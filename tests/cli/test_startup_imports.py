"""A fresh ``render``, ``info`` or ``pose`` imports what its own work needs and nothing the other
commands or the window need, and a command given first is parsed by its own sub-parser alone with the
same result, help and messages as by the parser of every command (docs/benchmarks.md, "Start-up near
the floor")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app.cli.main import SUBCOMMANDS, build_parser
from tests.paths import CORPUS

#: Run one command in a fresh interpreter, then print the names of every module it imported.
PROBE = ("import json, sys\nfrom app.cli.main import main\nstatus = main(sys.argv[1:])\n"
         "print(json.dumps({'status': status, 'modules': sorted(sys.modules)}))")

#: Packages no headless command of these three needs: the window's toolkit, physics, the video encoders
#: and the format libraries of other files.
NEVER = ("PySide6", "pybullet", "av", "ufbx", "DracoPy", "pygltflib")
#: The modules of other commands' work: writers, animated outputs, NWN's rules, batch.
OTHER_WORK = ("app.ui", "app.state", "app.physics", "app.export", "app.render.video", "app.render.sheet",
              "app.cli.render_animation", "app.cli.check", "app.cli.batch", "app.cli.archive_info",
              "app.formats.nwn.rules", "app.formats.fbx", "app.formats.bvh", "app.animation.root_motion")


def imported(*args: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["status"] == 0
    return set(report["modules"])


def packages(modules: set[str], names) -> list[str]:
    return sorted(name for name in names if any(m == name or m.startswith(name + ".") for m in modules))


@pytest.mark.gl
@pytest.mark.parametrize("model", [["--demo"], [str(CORPUS / "Fox" / "Fox.glb")]])
def test_a_still_render_imports_no_more_than_it_draws(tmp_path, model):
    modules = imported("render", *model, "-o", str(tmp_path / "still.png"))
    assert packages(modules, NEVER) == []
    assert packages(modules, OTHER_WORK) == []
    assert "moderngl" in modules and "app.render.offscreen" in modules


def test_info_and_pose_import_no_opengl(tmp_path):
    for args in (["info", "--demo"], ["pose", "--demo", "-o", str(tmp_path / "pose.npz")]):
        modules = imported(*args)
        assert packages(modules, (*NEVER, "moderngl", "app.render", "app.ui", "app.physics", "app.state",
                                  "app.cli.batch", "app.cli.check", "app.formats.nwn.rules")) == [], args
    assert "app.export.writers" in modules  # pose writes through the exporters' table
    assert "app.animation.root_motion" in imported("info", "--demo")  # each clip's root travel


#: Command lines that parse, and what each must give whichever parser reads it.
PARSED = [
    ["info", "--demo", "--json"],
    ["pose", "a.mdl", "--clip", "walk", "--time", "-0.5", "-o", "out.npz"],
    ["render", "--demo", "-o", "out.mp4", "--onion", "2", "--dangly", "--walkmesh", "--emitters",
     "--size", "64x48", "--view", "side"],
    ["convert", "a.mdl", "--clip", "0", "--clip", "1", "-o", "out.glb", "--check"],
    ["ragdoll", "--demo", "--fps", "30", "--shoot", "0,1,2:0,0,-1@0.5", "-o", "run.npz"],
    ["check", "a.mdl", "--json"],
    ["batch", "merge", "a.json", "b.json", "-o", "index"],
]


@pytest.mark.parametrize("argv", PARSED, ids=[argv[0] for argv in PARSED])
def test_a_commands_own_parser_reads_what_the_whole_parser_reads(argv):
    alone = build_parser(argv[0]).parse_args(argv)
    assert vars(alone) == vars(build_parser().parse_args(argv))
    assert alone.command == argv[0]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_a_commands_own_parser_has_the_same_help(command, capsys):
    texts = []
    for parser in (build_parser(command), build_parser()):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args([command, "--help"])
        assert stop.value.code == 0
        texts.append(capsys.readouterr().out)
    assert texts[0] == texts[1]
    assert texts[0].startswith(f"usage: boneyard {command} ")


@pytest.mark.parametrize("argv", [["render", "--demo", "-o", "x.png", "--view", "nope"],
                                  ["pose", "--demo"], ["info", "--bogus"], ["batch", "bogus"]])
def test_a_commands_own_parser_fails_alike(argv, capsys):
    results = []
    for parser in (build_parser(argv[0]), build_parser()):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        results.append((stop.value.code, capsys.readouterr().err))
    assert results[0] == results[1]
    assert results[0][0] == 2 and "error:" in results[0][1]
