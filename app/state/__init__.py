"""The application's state in plain Python: what the window shows and what each user action changes.

Views (``app/ui``) read it and send it commands; it tells them what changed through ``Events``. No Qt
here, so every action can be driven and tested headless.
"""
