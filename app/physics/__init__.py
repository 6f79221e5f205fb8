"""The ragdoll (docs/ragdoll.md): Sabino's parts, bone relations and joints on a pybullet multibody.

- ``profile``    RagdollProfile (parts, relations, joints, disabled pairs); JSON load/save; ProfileError
- ``autosetup``  a profile for any skeleton: a humanoid preset by bone names, else a generic one
- ``rig``        a profile bound to a model: indices and bind-time part, bone and joint frames
- ``multibody``  the multibody layout of a rig (links, gimbals, loop joints) and its joint angles
- ``world_builder`` a rig's pybullet bodies: multibodies, shapes, inertia, loop joints, collision filters
- ``ragdoll``    the pybullet world: taking over from a clip, stepping, shooting, dragging
- ``resting``    putting resting multibodies to sleep early, and waking them
- ``drive``      joint motors following a clip (``motors``: their strengths and targets; ``box_overlap``:
                 the part pairs the clip passes through each other)
- ``bake``       running a ragdoll for a while and keeping the frames as a clip
- ``trial``      a profile's standard trial and its report (``ragdoll --check``)

Only ``bullet`` imports pybullet; the modules that drive the world take it from there.
"""
