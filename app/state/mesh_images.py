"""Images the user gave a model's meshes (Assign Texture…, an image dropped on the view), put on its
meshes' materials, which the state sets in place on a loaded model (docs/architecture.md: what the
user chooses for the model on screen)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from app.formats.textures import TextureError, read_image
from app.model import Model


def put_image(model: Model, indices: list[int], path: str, image: np.ndarray) -> None:
    """Meshes ``indices`` show ``image``; their base colour's RGB turns white so it shows as it is."""
    for index in indices:
        mesh = model.meshes[index]
        mesh.material = replace(mesh.material, texture=path, texture_path=str(Path(path).resolve()),
                                image=image, base_color=(1.0, 1.0, 1.0, mesh.material.base_color[3]))


def restore_images(model: Model, remembered: dict[str, list[int]]) -> list[str]:
    """Put the images ``remembered`` (image path → mesh indices) back on ``model``'s meshes; returns
    the images that could not be read. Meshes that already show one (the model shown again, e.g.
    with a baked clip) keep it: it is not read again, nor uploaded again."""
    failed = []
    for path, indices in remembered.items():
        materials = [model.meshes[index].material for index in indices]
        if all(material.texture == path and material.image is not None for material in materials):
            continue
        try:
            image, _ = read_image(Path(path))
        except TextureError as error:
            failed.append(f"{path}: {error}")
            continue
        put_image(model, indices, path, image)
    return failed
