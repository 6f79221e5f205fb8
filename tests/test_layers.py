"""The layer contract (docs/architecture.md), read from the source's import statements.

model, maths, pose, skin_weights, pending, errors, textures, orientation and events sit below formats, render,
physics and export; those four never import one another, nor anything above them (loading, commands,
state, ui); readers import no pose code: what needs the model posed they leave in ``Model.pending``
for loading, which imports only formats and the core; scene (what is drawn, as data: draw settings,
gizmo geometry) imports only the core, and render, state and ui read it; state (the Qt-free
application state) imports neither ui nor render, so importing the state loads neither Qt nor
moderngl; ui never imports commands (the command line is a sibling of the window, not a library of
it); only ui imports Qt; no module imports another module's private names.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "app"
CORE = {"app.model", "app.maths", "app.pose", "app.errors", "app.textures", "app.orientation", "app.events",
        "app.atomic_files", "app.json_text", "app.interrupts", "app.skin_weights", "app.pending"}
SIBLINGS = ("formats", "render", "physics", "export")
READERS = sorted(f"app.formats.{path.stem}" for path in (APP / "formats").glob("*.py"))
QT = ("PySide6", "shiboken6")
STATE_MODULES = sorted(f"app.state.{path.stem}" for path in (APP / "state").glob("*.py")
                       if path.stem != "__init__")


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(imported module, imported names, line) for every import in a file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module_name(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([module] if module else []))
            if module == "app":  # ``from app import maths``: the names are modules
                found += [(f"app.{alias.name}", [], node.lineno) for alias in node.names]
            else:
                found.append((module, [alias.name for alias in node.names], node.lineno))
    return found


SOURCES = sorted(APP.rglob("*.py"))


def _layer(module: str) -> str:
    parts = module.split(".")
    if module in CORE or (len(parts) == 2 and parts[0] == "app" and f"app.{parts[1]}" in CORE):
        return "core"
    return parts[1] if len(parts) > 1 and parts[0] == "app" else "external"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(APP.parent)))
def test_imports_follow_the_layers(path):
    importer = _module_name(path)
    layer = _layer(importer)
    for module, names, line in _imports(path):
        where = f"{path.relative_to(APP.parent)}:{line} imports {module}"
        if module.split(".")[0] in QT:
            assert layer == "ui", f"{where}: Qt is only for app/ui"
        if not module.startswith("app"):
            continue
        target = _layer(module)
        if layer == "core":
            assert target == "core", f"{where}: model, maths and pose import nothing above them"
        if layer in SIBLINGS:
            allowed = ("core", layer, "resources", *(("scene",) if layer == "render" else ()))
            assert target in allowed, f"{where}: {layer}/ imports only itself and the core"
        if layer == "formats":
            assert module != "app.pose", f"{where}: readers do not pose models (leave it in Model.pending)"
        if layer == "loading":
            assert target in ("core", "formats"), f"{where}: loading imports only the readers and the core"
        if layer == "scene":
            assert target in ("core", "scene"), f"{where}: scene/ imports only itself and the core"
        if layer == "state":
            assert target != "ui", f"{where}: the state knows nothing of its views"
            assert target != "render", f"{where}: the state draws nothing (what is drawn is in app/scene)"
        if layer == "ui":
            assert target != "commands", f"{where}: the window does not import the command line"
        private = [name for name in names if name.startswith("_") and not name.startswith("__")]
        assert not private or module == importer, f"{where}: private names {private}"


def test_importing_the_state_loads_neither_qt_nor_gl():
    """Every state module, imported in a fresh interpreter, leaves moderngl and Qt unloaded."""
    heavy = ("moderngl", *QT)
    script = (f"import sys\nimport {', '.join(STATE_MODULES)}\n"
              f"print(' '.join(name for name in {heavy!r} if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], cwd=APP.parent, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "app.state.viewer" in STATE_MODULES and "app.state.ragdoll_gizmos" in STATE_MODULES
    assert done.stdout.split() == [], f"importing app.state loads {done.stdout.split()}"


def test_importing_the_readers_loads_no_pose_code():
    """Every module of app/formats, imported in a fresh interpreter, leaves app.pose unloaded: no reader
    poses a model, directly or through what it imports."""
    script = (f"import sys\nimport {', '.join(READERS)}\n"
              "print('app.pose' in sys.modules, 'app.loading' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=APP.parent, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert {"app.formats.gltf", "app.formats.c3de", "app.formats.nwn_model"} <= set(READERS)
    assert done.stdout.split() == ["False", "False"]
