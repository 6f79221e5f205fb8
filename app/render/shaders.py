"""Load one-file GLSL programs from ``shaders/``.

Each ``.glsl`` file holds every stage of one program, selected with ``#if defined VERTEX_SHADER``,
``FRAGMENT_SHADER`` and ``GEOMETRY_SHADER``. The loader inserts the stage's ``#define`` (and any
extra defines) after the ``#version`` line, followed by a ``#line`` directive, so the compiler's
line numbers are the file's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import moderngl
import numpy as np

from app.resources import shader_path

_STAGES = {
    "vertex_shader": "VERTEX_SHADER",
    "geometry_shader": "GEOMETRY_SHADER",
    "fragment_shader": "FRAGMENT_SHADER",
}
_VERSION = re.compile(r"^\s*#version[^\n]*\n", re.MULTILINE)


class ShaderError(RuntimeError):
    """A shader file is missing or does not compile or link; the message names the file."""


def stage_source(source: str, stage_define: str, defines: Mapping[str, object] = ()) -> str:
    """``source`` with ``#define stage_define`` and ``defines`` after ``#version``.

    A ``#line`` directive restores the file's numbering: the line after ``#version`` is line 2
    when ``#version`` is the first line.
    """
    match = _VERSION.search(source)
    if match is None:
        raise ShaderError("no #version line")
    next_line = source.count("\n", 0, match.end()) + 1
    extra = "".join(f"#define {name} {value}\n" for name, value in dict(defines).items())
    header = f"#define {stage_define}\n{extra}#line {next_line}\n"
    return source[: match.end()] + header + source[match.end():]


def load_program(ctx: moderngl.Context, name: str, defines: Mapping[str, object] = (),
                 varyings: Iterable[str] = ()) -> moderngl.Program:
    """Compile ``shaders/<name>`` into a program.

    Stages are those the file mentions (``defined VERTEX_SHADER`` and so on). With ``varyings``
    the program captures those outputs by transform feedback and its fragment stage is left out.
    Raises ``ShaderError`` naming the file and carrying the compiler's log.
    """
    path = shader_path(name)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ShaderError(f"{path}: cannot read shader ({error.strerror})") from error
    varyings = tuple(varyings)
    stages = {
        keyword: stage_source(source, define, defines)
        for keyword, define in _STAGES.items()
        if f"defined {define}" in source and not (varyings and keyword == "fragment_shader")
    }
    if "vertex_shader" not in stages:
        raise ShaderError(f"{path}: no '#if defined VERTEX_SHADER' section")
    try:
        return ctx.program(**stages, varyings=varyings)
    except moderngl.Error as error:
        raise ShaderError(f"{path}: {error}") from error


def set_uniform(program: moderngl.Program, name: str, value) -> None:
    """Set a uniform when the compiler kept it (unused uniforms are optimised away)."""
    if name not in program:
        return
    if isinstance(value, np.ndarray) and value.shape in ((3, 3), (4, 4)):
        # Column-vector numpy matrices are row-major bytes; GLSL matrices read column-major.
        program[name].write(value.T.astype("f4").tobytes())
    else:
        program[name].value = value
