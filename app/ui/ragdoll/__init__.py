"""The ragdoll panel and its parts (Qt views of ``app.state.ragdoll``): the panel, its tabs for parts,
joints and collisions, the profile and simulation boxes, the session that ties them to a window, the
profile check dialog and the small widgets they share."""
