"""The ``boneyard`` command line: the entry point (main), the headless commands, render's animated
outputs, the clip options, progress lines, the window's launch and ``batch``. The top layer: nothing
else in the program imports it."""
