"""The ragdoll's application state (plain Python, no Qt): the profile being edited (``document``),
the world running it (``simulation``), what presses and drags in the view do (``tool``), the drag
handles (``handles``) and what the view draws for them (``gizmos``)."""
