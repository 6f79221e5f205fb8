"""What the View menu toggles: how the model is drawn, independent of which model is shown."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from app.events import Events
from app.scene.draw_settings import DrawSettings

SKINNING_METHODS = ("lbs", "dqs")


@dataclass(eq=False)
class DisplayOptions:
    """The display switches of the View menu, each with its own event (napari's evented model).

    Assigning a field checks the value and, when it changed, emits the field's event with the new
    value, then ``changed(name, value)``; views subscribe to what they draw. ``heatmap`` colours the
    selected bone's weights; ``bone_names`` labels the bones; ``bounds`` outlines the box that
    frames what is drawn; ``show_hidden`` also draws the meshes a
    file marks as not rendered; ``vertex_colors`` tints meshes by their vertex colours; ``follow`` keeps
    a clip that travels (root motion) in view while it plays; ``in_place`` takes the root's travel over
    the ground off the clip on screen (a preview: exports keep it); ``root_path`` draws the root's
    path on the ground with a tick per second showing its facing; ``background`` is an sRGB (r, g, b, a)
    in 0..1.
    """

    shaded: bool = True
    wireframe: bool = False
    bones: bool = False
    bone_names: bool = False
    heatmap: bool = False
    normals: bool = False
    grid: bool = True
    bounds: bool = False
    skinning: str = "lbs"
    textures: bool = True
    vertex_colors: bool = True
    show_hidden: bool = False
    follow: bool = True
    in_place: bool = False
    root_path: bool = False
    background: tuple[float, float, float, float] = (0.22, 0.23, 0.25, 1.0)
    events: Events = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "events", Events(*OPTIONS, "changed"))

    def __setattr__(self, name: str, value) -> None:
        if name not in OPTIONS:
            raise AttributeError(f"DisplayOptions has no option {name!r}")
        value = _checked(name, value)
        if "events" in self.__dict__ and getattr(self, name) == value:
            return
        object.__setattr__(self, name, value)
        if "events" in self.__dict__:
            self.events.emit(name, value)
            self.events.emit("changed", name, value)

    def set(self, **changes) -> None:
        """Set several options (each emits as an assignment would)."""
        for name, value in changes.items():
            setattr(self, name, value)


#: The options' names, in menu order.
OPTIONS = tuple(f.name for f in fields(DisplayOptions) if f.init)
#: The options the renderer takes as they are: those both types name.
DRAWN = tuple(name for name in OPTIONS if name in {f.name for f in fields(DrawSettings)})


def draw_settings(display: DisplayOptions, selected_bone: int | None = None,
                  transparent: bool = False) -> DrawSettings:
    """What the renderer draws for ``display`` with ``selected_bone`` selected (the heat map shows that
    bone's weights when it is on); ``transparent``: for a picture with a clear background. The window
    and ``boneyard render`` both draw what this says."""
    settings = DrawSettings(**{name: getattr(display, name) for name in DRAWN}, selected_bone=selected_bone,
                            heatmap_bone=selected_bone if display.heatmap else None)
    return settings.for_picture(transparent)


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
