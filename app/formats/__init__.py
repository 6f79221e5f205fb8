"""Readers, one module (or package) per format, behind a small registry.

Files are recognised by content, never by extension alone. Several files load as one model
(a structure file and its animations, a mesh and its bones, ``.bnf`` + ``.anm`` + ``.prm``).
Each format module (a format spanning several modules has a package: ``gltf/``, ``nwn/``,
``bonespro/``) calls ``register`` at import; the registry imports a module when its format is
first needed (``registry.READERS`` names them), so a command reading one format imports one reader.
"""

from app.formats.registry import (
    Format,
    LoadOptions,
    ReadError,
    SniffedFile,
    formats,
    read_unposed,
    register,
    sniff,
)

__all__ = ["Format", "LoadOptions", "ReadError", "SniffedFile", "formats", "read_unposed", "register",
           "sniff"]
