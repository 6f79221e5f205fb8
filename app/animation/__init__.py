"""Animation algorithms on models and clips: two clips at once (mix), clips carried between
skeletons (retarget, with the placed map of placed_map and the inferred hierarchy of loose
skeletons), how far a clip carries the model (root_motion), and bone map files (bone_maps).
Imports only the core and the plumbing."""
