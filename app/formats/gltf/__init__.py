"""glTF 2.0: ``container`` reads the file (GLB, JSON, buffers, accessors) and ``schema`` checks the
JSON's shape; ``nodes``, ``meshes``, ``materials`` and ``animations`` say what the content means, each
over one ``reading.Reading``; ``reader`` puts them together into a Model and registers the format.
``key_time_rules`` holds a written file to the Khronos validator's rules on key times."""
