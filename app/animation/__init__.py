"""Animation algorithms on models and clips: two clips at once (mix), clips carried between
skeletons (retarget, with the placed map of placed_map and the inferred hierarchy of loose
skeletons), and how far a clip carries the model (root_motion). Imports only the core."""
