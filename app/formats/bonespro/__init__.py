"""BonesPro export files (3ds Max plug-in): ``structure`` reads the structure file and loads the model,
``animation`` reads the animation files and makes their clips."""
