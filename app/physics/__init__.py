"""The ragdoll (docs/ragdoll.md): Sabino's parts, bone relations and joints on a pybullet multibody.

- ``profile``    RagdollProfile (parts, relations, joints, disabled pairs); JSON load/save; ProfileError
- ``autosetup``  a profile for any skeleton: a humanoid preset by bone names, else a generic one
- ``rig``        a profile bound to a model: indices and bind-time part, bone and joint frames
- ``multibody``  the multibody layout of a rig (links, gimbals, loop joints) and its joint angles
- ``ragdoll``    the pybullet world: building, taking over from a clip, stepping, shooting, dragging
- ``bake``       running a ragdoll for a while and keeping the frames as a clip

Only ``ragdoll`` and ``bake`` import pybullet.
"""
