"""Boneyard: a viewer and ragdoll sandbox for legacy skinned meshes and skeletal animation."""

__version__ = "0.1.0"
