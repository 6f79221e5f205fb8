"""A danglymesh node's sway parameters as the Mesh carries them (app/dangly.py), or a warning saying
why the node is drawn without sway (docs/formats/nwn-dangly-emitters.md)."""

from __future__ import annotations

import numpy as np

from app.dangly import FULL_CONSTRAINT, DanglyParams

#: The node parameters, in the order the Inspector lists them.
PARAMETERS = ("period", "tightness", "displacement")


def number(value) -> float:
    """A parameter as a float (ASCII values are text); NaN when it is no number."""
    try:
        return float(str(value).split()[0])
    except (ValueError, IndexError):
        return float("nan")


def shown(extras: dict, key: str) -> str:
    """A parameter as messages quote it: the number ('0', '-1'), else the text, else '(none)'."""
    if key not in extras:
        return "(none)"
    value = number(extras[key])
    return f"{value:g}" if not np.isnan(value) else repr(str(extras[key]))


def file_vertex_count(geometry: dict) -> int:
    """The vertices the file lists for a mesh node (before the ASCII reader split any)."""
    source = geometry.get("source_vertices")
    if source is None:
        return len(geometry["positions"])
    return int(source.max()) + 1 if len(source) else 0


def dangly_params(name: str, geometry: dict, extras: dict, warnings: list[str]) -> DanglyParams | None:
    """The sway of a drawn dangly node: its parameters (``extras``) and its constraints per file vertex
    (``geometry['constraints']``), carried to the drawn vertices (``geometry['source_vertices']``
    where the reader split them). None, with a warning, when they cannot swing it: no or too few
    constraints, or a parameter that is not a positive number. Constraints outside 0..255 are
    clamped, with a warning."""
    constraints = geometry.get("constraints")
    source = geometry.get("source_vertices")
    vertices = file_vertex_count(geometry)
    values = {key: number(extras.get(key)) for key in PARAMETERS}
    bad = [f"{key} {shown(extras, key)}" for key, value in values.items()
           if not (np.isfinite(value) and value > 0)]
    if constraints is None or len(constraints) != vertices:
        found = 0 if constraints is None else len(constraints)
        warnings.append(f"danglymesh {name!r}: {found} constraints for {vertices} vertices; "
                        "drawn without sway")
        return None
    if bad:
        warnings.append(f"danglymesh {name!r}: {', '.join(bad)} (expected positive numbers); "
                        "drawn without sway")
        return None
    outside = ~((constraints >= 0) & (constraints <= FULL_CONSTRAINT))
    if outside.any():
        warnings.append(f"danglymesh {name!r}: {int(outside.sum())} constraints outside 0..255 "
                        f"(vertex {int(np.flatnonzero(outside)[0])}: {constraints[outside][0]:g}); clamped")
    clamped = np.clip(np.nan_to_num(constraints, nan=0.0), 0.0, FULL_CONSTRAINT)
    drawn = clamped if source is None else clamped[source]
    return DanglyParams(constraints=drawn, **values)


def constraints_text(constraints: np.ndarray) -> str:
    """The Inspector's line for a node's constraints: '120 values, 0–255, 40 pinned (0)'."""
    if not len(constraints):
        return "none"
    pinned = int(np.count_nonzero(constraints == 0))
    return (f"{len(constraints)} values, {np.nanmin(constraints):g}–{np.nanmax(constraints):g}, "
            f"{pinned} pinned (0)")
