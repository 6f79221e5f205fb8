"""What is drawn, as data (numpy, no GL): the renderer's draw settings and the gizmo geometry. Both the
state and the renderer read it; it imports only the core."""
