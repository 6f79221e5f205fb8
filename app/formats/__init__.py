"""Readers, one module per format, behind a small registry.

Files are recognised by content, never by extension alone. Several files load as one model
(a structure file and its animations, a mesh and its bones, ``.bnf`` + ``.anm`` + ``.prm``).
Each format module calls ``register`` at import; this package imports them all.
"""

from app.formats.registry import (
    Format,
    LoadOptions,
    ReadError,
    SniffedFile,
    formats,
    load,
    register,
    sniff,
)

from app.formats import gltf  # noqa: E402,F401  (registers itself)
from app.formats import bonespro, bnf, lgw, obj_faces  # noqa: E402,F401  (register themselves)
from app.formats import c3de, nwn_ascii, nwn_mdl  # noqa: E402,F401  (register themselves)

__all__ = ["Format", "LoadOptions", "ReadError", "SniffedFile", "formats", "load", "register", "sniff"]
