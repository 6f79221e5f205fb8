"""``boneyard batch``: a library of models at once (docs/cli.md, "boneyard batch").

``grouping`` finds the files under the PATHs and groups them into models, ``pool`` runs the models on
worker processes that keep their OpenGL context and imports, ``jobs`` is what a worker does for one
model, ``report`` writes the JSONL report and ``index.html``, ``locks`` keeps a second batch off the same
report and OUTDIR, ``names`` shows file names that are not UTF-8, ``command`` ties them together.
"""
