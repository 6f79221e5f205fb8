"""``boneyard batch``: a library of models at once (docs/cli.md, "boneyard batch").

``grouping`` finds the files under the PATHs and groups them into models, ``pool`` runs the models on
worker processes that keep their OpenGL context and imports, ``jobs`` is what a worker does for one
model, ``report`` writes the JSONL report and ``index.html``, ``command`` ties them together.
"""
