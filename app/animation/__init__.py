"""Animation algorithms on models and clips: two clips at once (mix), clips carried between
skeletons (retarget, with the placed map of placed_map; loose skeletons get the core's inferred
hierarchy, app.loose_skeleton), how far a clip carries the model (root_motion), and bone map files
(bone_maps). Imports only the core and the plumbing."""
