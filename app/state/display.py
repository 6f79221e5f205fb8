"""What the View menu toggles: how the model is drawn, independent of which model is shown."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from app.events import Events
from app.scene.draw_settings import SKINNING_METHODS, DrawSettings

#: The DrawSettings fields the View menu toggles; the others (the selection, the heat map's bone,
#: transparency, point size) are set per picture by ``draw_settings`` or by the renderer.
DRAWN = ("shaded", "wireframe", "bones", "bone_names", "normals", "grid", "bounds", "walkmesh", "skinning",
         "textures", "vertex_colors", "show_hidden", "background", "emitters")


@dataclass(eq=False)
class DisplayOptions:
    """The display switches of the View menu, each with its own event (napari's evented model).

    ``drawn`` holds the options the renderer takes as they are (``DRAWN``, read and set by name like
    the others: ``display.wireframe``); the fields here are the window's own: ``heatmap`` colours the
    selected bone's weights; ``follow`` keeps a clip that travels (root motion) in view while it
    plays; ``in_place`` takes the root's travel over the ground off the clip on screen (a preview:
    exports keep it); ``root_path`` draws the root's path on the ground with a tick per second
    showing its facing; ``onion`` ghosts the clip a few frames before and after (``state.onion``);
    ``bone_axes`` draws each bone's local axes (``state.bone_axes``); ``dangly_motion`` swings
    danglymeshes while the clip plays (``state.dangly_motion``). Skinning is one of the
    methods a user chooses (``SKINNING_METHODS``), never the benchmarks' "none"; ``background`` is
    an sRGB (r, g, b, a) in 0..1.

    Assigning an option checks the value and, when it changed, emits the option's event with the new
    value, then ``changed(name, value)``; views subscribe to what they draw.
    """

    drawn: DrawSettings = field(default_factory=DrawSettings)
    heatmap: bool = False
    follow: bool = True
    in_place: bool = False
    root_path: bool = False
    onion: bool = False
    bone_axes: bool = False
    dangly_motion: bool = False
    events: Events = field(init=False, repr=False)

    def __post_init__(self):
        checked = {name: _checked(name, getattr(self.drawn, name)) for name in DRAWN}
        object.__setattr__(self, "drawn", replace(self.drawn, **checked))
        object.__setattr__(self, "events", Events(*OPTIONS, "changed"))

    def __getattr__(self, name: str):
        if name in DRAWN and "drawn" in self.__dict__:
            return getattr(self.drawn, name)
        raise AttributeError(f"DisplayOptions has no option {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if "events" not in self.__dict__:  # the dataclass's __init__; __post_init__ checks
            object.__setattr__(self, name, value if name == "drawn" else _checked(name, value))
            return
        if name not in OPTIONS:
            raise AttributeError(f"DisplayOptions has no option {name!r}")
        value = _checked(name, value)
        if getattr(self, name) == value:
            return
        if name in DRAWN:
            object.__setattr__(self, "drawn", replace(self.drawn, **{name: value}))
        else:
            object.__setattr__(self, name, value)
        self.events.emit(name, value)
        self.events.emit("changed", name, value)

    def set(self, **changes) -> None:
        """Set several options (each emits as an assignment would)."""
        for name, value in changes.items():
            setattr(self, name, value)


#: The options' names: the drawn ones, then the window's own.
OPTIONS = DRAWN + tuple(f.name for f in fields(DisplayOptions) if f.init and f.name != "drawn")


def _checked(name: str, value):
    """``value`` as the option ``name`` holds it; ValueError for one it cannot hold."""
    if name == "skinning":
        if value not in SKINNING_METHODS:
            raise ValueError(f"skinning must be 'lbs' or 'dqs', got {value!r}")
        return value
    if name == "background":
        colour = tuple(float(channel) for channel in value)
        if len(colour) != 4 or not all(0.0 <= channel <= 1.0 for channel in colour):
            raise ValueError(f"background must be four values in 0..1, got {value!r}")
        return colour
    return bool(value)
