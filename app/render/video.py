"""A clip rendered as a sequence of frames and written as a video (PyAV: H.264 MP4, VP9 WebM), an
animated image (Pillow: GIF, WebP) or numbered PNGs (docs/cli.md, "Animation out of ``render``").

The camera is framed once on the bounds of the whole run (so the model does not jump about in the
picture) and, for a turntable, turns once around the model over the run.
"""

from __future__ import annotations

import copy
import ctypes
import math
import queue
import struct
import threading
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np

from app.atomic_files import replacing, replacing_all
from app.model import Clip, Model
from app.pose import Pose, evaluate, rest_pose
from app.render.animation_outputs import FRAME_PATTERN
from app.render.camera import Camera, camera_for
from app.scene.draw_settings import DrawSettings
from app.scene.framed_bounds import framed_bounds

#: A run's onion skins: the (pose, offset) pairs drawn around ``clip`` at ``time``.
Ghosts = Callable[[Clip, float], list]
#: The rate used when a clip's keys give none.
DEFAULT_FPS = 30.0
#: Poses sampled over a run to frame the camera on it.
FRAMING_SAMPLES = 24
#: Seconds a turntable of a model with no clip lasts.
TURNTABLE_SECONDS = 4.0
#: Most frames one animation renders (each is encoded as it is drawn; none is kept): ``render`` and
#: the window's Export Animation alike.
MAX_FRAMES = 36_000
#: Rendered frames waiting for the encoding thread (``write_animation``): enough to keep both busy.
FRAMES_HANDED_OFF = 2
#: Finished frames an encoder may hold at once (x264's look-ahead), with those waiting for it and the
#: one each thread has in hand, counted in the memory check.
ENCODER_FRAMES_HELD = 64 + FRAMES_HANDED_OFF + 2
#: Encoders PyAV streams frames to, by kind: container format, codec, pixel format, codec options,
#: container options and the frames' layout. H.264 at constant quality 20 (visually clean for
#: flat-shaded models), "veryfast" preset, fast start (plays in browsers); VP9 at constant quality 32;
#: lossy WebP at quality 80 with alpha; APNG. The animated images loop for ever.
ENCODERS = {
    "mp4": ("mp4", "libx264", "yuv420p", {"crf": "20", "preset": "veryfast"}, {"movflags": "+faststart"},
            "rgb24"),
    "webm": ("webm", "libvpx-vp9", "yuv420p",
             {"crf": "32", "b": "0", "deadline": "realtime", "cpu-used": "8"}, {}, "rgb24"),
    "webp": ("webp", "libwebp_anim", "yuva420p", {"quality": "80", "compression_level": "4"}, {"loop": "0"},
             "rgba"),
    "apng": ("apng", "apng", "rgba", {}, {"plays": "0"}, "rgba"),
}
#: glibc's mallopt parameter for the size from which allocations are mapped from the system, and the
#: size used while frames are encoded (a 256×256 RGBA frame).
M_MMAP_THRESHOLD = -3
FRAME_MMAP_THRESHOLD = 256 << 10
#: A GIF frame's Graphic Control Extension counts its delay in hundredths of a second; browsers show
#: delays under 20 ms as 100 ms.
GIF_MIN_DELAY_MS = 20


def clip_rate(clip: Clip | None) -> float:
    """A clip's own frame rate: the spacing of its stored keys when they are evenly spaced and at
    least 10 a second, else DEFAULT_FPS."""
    if clip is None or clip.frame_count < 2:
        return DEFAULT_FPS
    steps = np.diff(clip.frame_times)
    step = float(np.median(steps))
    if step <= 0 or not np.allclose(steps, step, rtol=0.01) or 1.0 / step < 10.0:
        return DEFAULT_FPS
    return round(1.0 / step, 3)


def run_times(start: float, end: float, fps: float) -> np.ndarray:
    """(F,) the frames' times: ``start``, ``start + 1/fps``, … up to ``end`` (at least one)."""
    count = int(math.floor((end - start) * fps + 1e-6)) + 1
    return start + np.arange(max(count, 1)) / fps


def check_frame_count(count: int, fps: float) -> None:
    """ValueError for a run of more than MAX_FRAMES frames (``count`` at ``fps`` per second)."""
    if count > MAX_FRAMES:
        raise ValueError(f"{count} frames at {fps:g} per second; at most {MAX_FRAMES} are rendered")


def framing_camera(model: Model, clip: Clip | None, times: np.ndarray, size: tuple[int, int],
                   view: str, options: DrawSettings) -> Camera:
    """A camera from ``view`` that frames what ``options`` draw over the whole run."""
    samples = np.linspace(0, len(times) - 1, min(len(times), FRAMING_SAMPLES)).round().astype(int)
    picks = times[np.unique(samples)]
    corners = [framed_bounds(model, evaluate(model, clip, float(t)) if clip else rest_pose(model), options)
               for t in picks]
    low = np.min([c[0] for c in corners], axis=0)
    high = np.max([c[1] for c in corners], axis=0)
    return camera_for(low, high, up_axis=model.up_axis, view=view, aspect=size[0] / size[1],
                      forward=model.forward)


def render_frames(offscreen, model: Model, clip: Clip | None, times: np.ndarray, size: tuple[int, int],
                  options, view: str, turntable: bool, camera: Camera | None = None,
                  sway: Callable[[Pose, float], Pose] | None = None,
                  ghosts: Ghosts | None = None) -> Iterator[np.ndarray]:
    """Each frame of the run as an (H, W, 4) uint8 RGBA image; ``offscreen`` has OffscreenRenderer's
    ``render_image``. The camera is ``camera`` (the window's view; it is copied) or one from ``view``
    framed on the run. ``sway(pose, seconds)``: the pose drawn, given the clip's and the seconds since
    the frame before (``render --dangly``); ``ghosts(clip, time)``: each frame's onion skins (none
    without)."""
    if camera is None:
        camera = framing_camera(model, clip, times, size, view, options)
    else:
        camera = copy.deepcopy(camera)
    start_yaw = camera.yaw
    for index, time in enumerate(times):
        if turntable:
            camera.yaw = math.remainder(start_yaw + 2.0 * math.pi * index / len(times), 2.0 * math.pi)
        pose = evaluate(model, clip, float(time)) if clip else rest_pose(model)
        if sway is not None:
            pose = sway(pose, float(time - times[index - 1]) if index else 0.0)
        drawn = ghosts(clip, float(time)) if ghosts is not None and clip is not None else []
        yield offscreen.render_image(model, pose, size, options, view, camera=camera, ghosts=drawn)


def even_size(size: tuple[int, int]) -> tuple[int, int]:
    """``size`` with odd sides one pixel larger: yuv420p video halves the colour planes."""
    return size[0] + size[0] % 2, size[1] + size[1] % 2


def write_animation(path: Path, kind: str, frames: Iterator[np.ndarray], fps: float, count: int,
                    progress: Callable[[int], None] = lambda done: None) -> None:
    """Write ``frames`` (``count`` of them) to ``path`` as ``kind`` at ``fps``, one frame at a time
    (none is held once it is encoded), whole or not at all (``atomic_files``); ``progress`` hears how
    many are rendered. The frames are made on the calling thread (it holds the GL context) and encoded
    on another while the next ones render: the encoders (x264, libvpx, libwebp, zlib, Pillow's
    quantizer) release the GIL."""
    def encode(received: Iterator[np.ndarray]) -> None:
        if kind in ENCODERS:
            write_encoded(path, kind, received, fps)
        elif kind == "frames":
            write_sequence(path, received, count)
        else:
            write_gif(path, received, fps)

    _frames_from_the_system()
    consumed_on_another_thread(_counting(frames, progress), encode)


class _Abandoned(Exception):
    """Raised in the encoding thread when the rendering thread stopped early (an error, Ctrl+C, the
    window's Cancel): the encoder unwinds without finishing the file, so its temporary is removed."""


_DONE, _ABANDON = object(), object()


def consumed_on_another_thread(items: Iterator, consume: Callable[[Iterator], None],
                               depth: int = FRAMES_HANDED_OFF) -> None:
    """``consume(items)``, with ``items`` produced on the calling thread and consumed on another, at
    most ``depth`` waiting between them. The consumer's exception is raised here (the producer stops
    at its next item); an exception of the producer's (KeyboardInterrupt included) abandons the
    consumer and is raised once it has unwound."""
    waiting: queue.Queue = queue.Queue(maxsize=depth)
    failures: list[BaseException] = []
    ended = threading.Event()

    def received() -> Iterator:
        while (item := waiting.get()) is not _DONE:
            if item is _ABANDON:
                ended.set()
                raise _Abandoned()
            yield item
        ended.set()

    def work() -> None:
        try:
            consume(received())
        except BaseException as error:  # handed to the producer's thread
            failures.append(error)
        while not ended.is_set():  # a consumer that stopped early: the producer never blocks on it
            item = waiting.get()
            if item is _DONE or item is _ABANDON:
                ended.set()

    worker = threading.Thread(target=work, name="boneyard-encoder", daemon=True)
    worker.start()
    finished = False
    try:
        for item in items:
            if failures:
                break
            waiting.put(item)
        finished = True
    finally:
        waiting.put(_DONE if finished else _ABANDON)
        worker.join()
    if failures:
        raise failures[0]


def _frames_from_the_system() -> None:
    """Have glibc take every allocation of a frame's size straight from the system and give it back
    when freed. By default it serves them from its heap once one has been freed, and the encoders'
    small long-lived allocations between the freed frames fragment that heap until it holds hundreds
    of frames' worth (600 frames of 512×512: 500 MB instead of 70 MB). Elsewhere this does nothing."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, FRAME_MMAP_THRESHOLD)
    except (OSError, AttributeError, TypeError):
        pass


def _counting(frames: Iterator[np.ndarray], progress: Callable[[int], None]) -> Iterator[np.ndarray]:
    for done, frame in enumerate(frames, 1):
        yield frame
        progress(done)


def write_encoded(path: Path, kind: str, frames: Iterator[np.ndarray], fps: float) -> None:
    """An MP4, WebM, WebP or APNG of RGBA ``frames`` through PyAV (``ENCODERS``)."""
    import av

    container_format, codec, pixels, options, container_options, layout = ENCODERS[kind]
    with replacing(path) as temporary, av.open(str(temporary), mode="w", format=container_format,
                                                options=container_options) as container:
        stream = None
        for index, frame in enumerate(frames):
            if stream is None:
                rate = Fraction(fps).limit_denominator(1001)
                stream = container.add_stream(codec, rate=rate, options=options)
                stream.width, stream.height, stream.pix_fmt = frame.shape[1], frame.shape[0], pixels
            channels = frame if layout == "rgba" else frame[..., :3]
            picture = av.VideoFrame.from_ndarray(np.ascontiguousarray(channels), format=layout)
            picture.pts = index
            container.mux(stream.encode(picture))
        if stream is not None:
            container.mux(stream.encode(None))


def write_gif(path: Path, frames: Iterator[np.ndarray], fps: float) -> None:
    """A looping GIF written frame by frame, each with its own 256-colour palette (index 255
    transparent where the picture is mostly transparent) and cleared before the next."""
    from PIL import GifImagePlugin, Image

    delay = max(GIF_MIN_DELAY_MS, round(1000.0 / fps / 10) * 10)
    with replacing(path) as temporary, open(temporary, "wb") as out:
        for index, frame in enumerate(frames):
            if index == 0:
                out.write(_gif_header(frame.shape[1], frame.shape[0]))
            image = _gif_frame(Image.fromarray(frame, "RGBA"), frame[..., 3])
            extra = {"transparency": image.info["transparency"]} if "transparency" in image.info else {}
            out.writelines(GifImagePlugin.getdata(image, duration=delay, disposal=2, include_color_table=True,
                                                  **extra))
        out.write(b";")


def _gif_header(width: int, height: int) -> bytes:
    """GIF89a's header and screen descriptor (no global palette: each frame brings its own) and the
    NETSCAPE2.0 block that loops the animation for ever."""
    screen = struct.pack("<6sHHBBB", b"GIF89a", width, height, 0, 0, 0)
    return screen + b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\x00"


def _gif_frame(image, alpha: np.ndarray):
    """A GIF frame: 256 colours, or 255 and index 255 where the picture is mostly transparent."""
    from PIL import Image

    if alpha.min() == 255:
        return image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
    paletted = image.convert("RGB").quantize(255, method=Image.Quantize.FASTOCTREE)
    indices = np.asarray(paletted).copy()
    indices[alpha < 128] = 255
    result = Image.fromarray(indices, "P")
    result.putpalette(paletted.getpalette()[:255 * 3] + [0, 0, 0])
    result.info["transparency"] = 255
    return result


def write_sequence(path: Path, frames: Iterator[np.ndarray], count: int) -> None:
    """Numbered PNGs: ``path``'s ``%d`` pattern filled with each frame's number from 0 (``count``
    frames). The sequence is written whole or not at all: the frames are renamed into place together
    once the last is written."""
    from app.render.offscreen import encode_png

    with replacing_all([sequence_name(path, index) for index in range(count)]) as temporaries:
        for temporary, frame in zip(temporaries, frames, strict=True):
            encode_png(frame, temporary)

def sequence_name(path: Path, index: int) -> Path:
    """``path`` with its (first) ``%d`` pattern filled with ``index``."""
    return path.with_name(FRAME_PATTERN.sub(lambda match: match.group(0) % index, path.name, count=1))
