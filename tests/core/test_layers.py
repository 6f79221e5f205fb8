"""The layer contract (docs/architecture.md, "Layers"), read from the source's import statements.

Every module of app/ is in one layer, and each layer imports only itself and the layers its rule
names (``RULES``); a module in no layer fails. The core (model, maths, pose, skin weights, bone
names, bone trees, the loose-skeleton hierarchy, the posing steps, errors, orientation, events)
imports nothing above it; the plumbing (resources, user
files, atomic files, bounded JSON, signals) only the core; formats, render, physics and export never
import one another; readers import no pose code (what needs the model posed they leave in
``Model.pending`` for loading, which imports only formats and the core); scene (what is drawn, as
data) only the core; animation (mixing, retargeting, root motion, bone map files) only the core and
the plumbing; the state (the
Qt-free application state) neither ui nor render nor the command line, so importing it loads neither
Qt nor moderngl; ui everything but the command line; the command line (app/cli) is the top, and only
``python -m app`` imports it. Only ui imports Qt; no module imports another module's private names.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

APP = ROOT / "app"
CORE = {"app.model", "app.maths", "app.pose", "app.errors", "app.orientation", "app.events",
        "app.skin_weights", "app.posing_steps", "app.bone_names", "app.bone_tree", "app.derived",
        "app.bone_tails", "app.loose_skeleton", "app.morph_targets", "app.mesh_keys", "app.dangly",
        "app.emitters", "app.walkmeshes"}
PLUMBING = {"app.resources", "app.user_files", "app.atomic_files", "app.json_text", "app.interrupts"}
BELOW_STATE = {"core", "plumbing", "formats", "loading", "scene", "physics", "export", "animation"}
#: Each layer and the layers it may import besides itself.
RULES = {
    "core": set(),
    "plumbing": {"core"},
    "formats": {"core", "plumbing"},
    "render": {"core", "plumbing", "scene"},
    "physics": {"core", "plumbing"},
    "export": {"core", "plumbing"},
    "scene": {"core"},
    "loading": {"core", "plumbing", "formats"},
    "animation": {"core", "plumbing"},
    "state": BELOW_STATE,
    "ui": BELOW_STATE | {"render", "state"},
    "cli": BELOW_STATE | {"render", "state", "ui"},
    "package": {"cli"},
}
QT = ("PySide6", "shiboken6")


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: Every module of app/formats, its format packages' included.
READERS = sorted(_module_name(path) for path in (APP / "formats").rglob("*.py"))
STATE_MODULES = sorted(_module_name(path) for path in (APP / "state").rglob("*.py"))


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
            if module == "app":  # ``from app import maths``: the names are modules (not __version__)
                found += [("app" if alias.name.startswith("__") else f"app.{alias.name}", [], node.lineno)
                          for alias in node.names]
            else:
                found.append((module, [alias.name for alias in node.names], node.lineno))
    return found


SOURCES = sorted(APP.rglob("*.py"))


def _layer(module: str) -> str:
    """The layer of an app module: core, plumbing, loading, package (app itself and ``python -m app``)
    or its package under app/ (formats, render, …); None outside app."""
    if module in CORE:
        return "core"
    if module in PLUMBING:
        return "plumbing"
    if module in ("app", "app.__main__"):
        return "package"
    parts = module.split(".")
    if parts[0] != "app":
        return "external"
    return "loading" if module == "app.loading" else parts[1]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(APP.parent)))
def test_imports_follow_the_layers(path):
    importer = _module_name(path)
    layer = _layer(importer)
    assert layer in RULES, f"{importer} is in no layer: add it to one (tests/core/test_layers.py, RULES)"
    for module, names, line in _imports(path):
        where = f"{path.relative_to(APP.parent)}:{line} imports {module}"
        if module.split(".")[0] in QT:
            assert layer == "ui", f"{where}: Qt is only for app/ui"
        if module != "app" and not module.startswith("app."):
            continue
        target = _layer(module)
        if module != "app":
            assert target == layer or target in RULES[layer], \
                f"{where}: {layer} imports only {sorted(RULES[layer] | {layer})}"
        if layer == "formats":
            assert module != "app.pose", f"{where}: readers do not pose models (leave it in Model.pending)"
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
    assert "app.state.viewer" in STATE_MODULES and "app.state.ragdoll.gizmos" in STATE_MODULES
    assert done.stdout.split() == [], f"importing app.state loads {done.stdout.split()}"


def test_importing_the_readers_loads_no_pose_code():
    """Every module of app/formats, imported in a fresh interpreter, leaves app.pose unloaded: no reader
    poses a model, directly or through what it imports."""
    script = (f"import sys\nimport {', '.join(READERS)}\n"
              "print('app.pose' in sys.modules, 'app.loading' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=APP.parent, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert {"app.formats.gltf.reader", "app.formats.c3de", "app.formats.nwn.nodes"} <= set(READERS)
    assert done.stdout.split() == ["False", "False"]


def _type_only_lines(path: Path) -> set[int]:
    """The lines of imports under ``if TYPE_CHECKING:`` (for annotations; never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            imports = (inner for inner in ast.walk(node) if isinstance(inner, (ast.Import, ast.ImportFrom)))
            lines |= {inner.lineno for inner in imports}
    return lines


def _import_graph() -> dict[str, set[str]]:
    """Each app module and the app modules it imports when it runs (function-level imports included)."""
    modules = {_module_name(path) for path in SOURCES}
    graph = {}
    for path in SOURCES:
        importer, skipped = _module_name(path), _type_only_lines(path)
        targets = set()
        for module, names, line in _imports(path):
            if line in skipped:
                continue
            submodules = {f"{module}.{name}" for name in names} & modules
            targets |= submodules or ({module} & modules)  # ``from app.formats import textures``
        graph[importer] = targets - {importer}
    return graph


def test_no_module_imports_itself_through_others():
    """No import cycle among app's modules: each one's imports, followed, never lead back to it."""
    graph = _import_graph()
    assert graph["app.cli.commands"] >= {"app.cli.shared"}  # the graph sees real imports
    for start in graph:
        seen, frontier = set(), list(graph[start])
        while frontier:
            module = frontier.pop()
            assert module != start, f"{start} imports itself through {sorted(seen)}"
            if module not in seen:
                seen.add(module)
                frontier.extend(graph.get(module, ()))
