"""What a clip keys on meshes (morph weight channels, NWN alpha keys), carried to another model
whose meshes are the same: a source mesh goes to the target mesh of its name (the first, each once),
its weights only where both meshes have the same morph targets (count and names). Shared by clips
attached by bone name (formats/animation_sets.py) and clips carried through a bone map (retarget)."""

from __future__ import annotations

from dataclasses import replace

from app.model import Clip, Mesh, Model


def same_meshes(source: Model, target: Model) -> dict[int, int]:
    """Source mesh index → target mesh index, paired by name."""
    free: dict[str, int] = {}
    for index, mesh in reversed(list(enumerate(target.meshes))):
        free[mesh.name] = index
    pairs = {}
    for index, mesh in enumerate(source.meshes):
        partner = free.pop(mesh.name, None)
        if partner is not None:
            pairs[index] = partner
    return pairs


def _same_targets(first: Mesh, second: Mesh) -> bool:
    if first.morphs is None or second.morphs is None:
        return False
    return first.morphs.count == second.morphs.count and first.morphs.names == second.morphs.names


def carried_mesh_keys(source: Model, target: Model, clip: Clip, pairs: dict[int, int]) -> dict:
    """``clip``'s weight channels and alpha keys renumbered for ``target`` (``pairs``: ``same_meshes``),
    as ``Clip`` fields; keys of a mesh without a partner are left behind."""
    channels = [replace(channel, mesh=pairs[channel.mesh]) for channel in clip.weight_channels
                if channel.mesh in pairs
                and _same_targets(source.meshes[channel.mesh], target.meshes[pairs[channel.mesh]])]
    alpha = {pairs[mesh]: keys for mesh, keys in clip.mesh_alpha.items() if mesh in pairs}
    return {"weight_channels": channels, "mesh_alpha": alpha}
