"""The user's work on a model kept between runs of the window (UserWork's memory on disk): the clips
added (bone map, Keep as Clip, a baked run), the meshes shown or hidden, the selected bone and the
live mix, one file per model in the user's data folder (``sessions/``), named after the model's first
file and a hash of all its files' full paths (a model inside an archive: the archive's path and the
resref, ``file_key``). File › Open Recent after a restart puts the work back.

A session is an ``.npz`` (numpy's zip of arrays, read without pickles) holding ``session.json`` (the
names, events, choices and mix, as UTF-8 bytes) and each clip's frame times and world matrices (and
its morph weight and alpha keys). It is written whole or not at all (app/atomic_files.py); at most
SESSION_LIMIT sessions are kept (the oldest written go first) and a session holds at most
SESSION_BYTES of clips (the clips past it are named and left out). A session file that cannot be
read raises ``SessionError`` naming it and what is wrong; the state says so and opens the model
without it."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.atomic_files import replacing
from app.errors import InputError, regular_size
from app.formats.nwn.archives import split_member
from app.json_text import JsonError, loads
from app.model import Clip, Model
from app.morph_targets import WeightChannel
from app.pose import frame_worlds

#: The folder of sessions in the user's data folder.
FOLDER = "sessions"
#: Sessions kept; writing one more removes the oldest.
SESSION_LIMIT = 20
#: The most bytes of clip arrays a session holds, and (with room for its JSON) the largest file read.
SESSION_BYTES = 32 << 20
JSON_BYTES = 4 << 20
META = "session.json"
VERSION = 1


class SessionError(InputError):
    """A session file that cannot be used."""


@dataclass
class SavedWork:
    """``clips``: each added clip with the bone names of the skeleton it was made for;
    ``mesh_choices``: mesh name → drawn; ``selected``: the selected bone's name; ``mix``: the live
    mix by names (``live_mix.mix_names``), or None."""

    clips: list[tuple[Clip, tuple[str, ...]]]
    mesh_choices: dict[str, bool]
    selected: str | None
    mix: dict | None

    @property
    def empty(self) -> bool:
        return not (self.clips or self.mesh_choices or self.selected is not None or self.mix)


def file_key(path: str) -> tuple[str, str]:
    """What names the file ``path`` across runs, and a word for the session's file name: its real path
    and stem; for a model inside an archive (``ARCHIVE:RESREF``, ``ARCHIVE/RESREF.mdl``), the archive's
    real path and the resref in lower case (the archive's lookup ignores case), whichever way it
    was named. The reader reads such a model from a scratch copy, whose path changes every run."""
    member = split_member(path)
    if member is None:
        return os.path.realpath(path), Path(path).stem
    archive, resref = member
    return f"{os.path.realpath(archive)}:{resref.lower()}", resref.lower()


def session_path(folder: Path, files: list[str] | tuple[str, ...]) -> Path:
    """Where the session of the model read from ``files`` is kept in ``folder``."""
    keys = [file_key(str(path)) for path in files]
    joined = "\n".join(key for key, _ in keys)
    digest = hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    word = re.sub(r"[^A-Za-z0-9_.-]+", "_", keys[0][1])[:40] if keys else "model"
    return folder / f"{word}-{digest}.npz"


def save(folder: Path, model: Model, work: SavedWork) -> list[str]:
    """Keep ``work`` on ``model`` (read from its files) in ``folder``; an empty work removes the
    model's session. Returns the names of the clips left out (past SESSION_BYTES, or clips of
    vertices). OSError when it cannot be written."""
    path = session_path(folder, model.files)
    if work.empty:
        path.unlink(missing_ok=True)
        return []
    arrays: dict[str, np.ndarray] = {}
    records, left_out, held = [], [], 0
    for clip, bones in work.clips:
        record, clip_arrays = _clip_record(len(records), clip, bones, model)
        size = sum(array.nbytes for array in clip_arrays.values())
        if record is None or held + size > SESSION_BYTES:
            left_out.append(clip.name)
            continue
        held += size
        records.append(record)
        arrays.update(clip_arrays)
    meta = {"version": VERSION, "files": list(model.files), "clips": records,
            "mesh_choices": work.mesh_choices, "selected": work.selected, "mix": work.mix}
    arrays[META] = np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    with replacing(path) as temporary, open(temporary, "wb") as file:
        np.savez(file, **arrays)
    _keep_newest(folder)
    return left_out


def _clip_record(index: int, clip: Clip, bones: tuple[str, ...],
                 model: Model) -> tuple[dict | None, dict[str, np.ndarray]]:
    """A clip's JSON record and arrays (world matrices at its frames); None for a clip of vertices or
    a keyed clip of another skeleton (its matrices cannot be worked out here)."""
    if clip.kind == "vertex" or (clip.world is None and bones != tuple(model.skeleton.names)):
        return None, {}
    key = f"c{index}"
    arrays = {f"{key}.times": np.asarray(clip.frame_times, np.float64),
              f"{key}.world": np.asarray(frame_worlds(model, clip), np.float64)}
    weights = []
    for number, channel in enumerate(clip.weight_channels):
        arrays[f"{key}.w{number}.times"] = channel.times
        arrays[f"{key}.w{number}.values"] = channel.values
        if channel.tangents is not None:
            arrays[f"{key}.w{number}.tangents"] = channel.tangents
        weights.append({"mesh": channel.mesh, "interpolation": channel.interpolation})
    for mesh, (times, opacities) in clip.mesh_alpha.items():
        arrays[f"{key}.a{mesh}.times"], arrays[f"{key}.a{mesh}.values"] = times, opacities
    record = {"name": clip.name, "source": clip.source, "rate": clip.rate, "bones": list(bones),
              "events": [[time, name] for time, name in clip.events], "weights": weights,
              "alpha": sorted(clip.mesh_alpha)}
    return record, arrays


def _keep_newest(folder: Path) -> None:
    sessions = sorted(folder.glob("*.npz"), key=lambda path: path.stat().st_mtime, reverse=True)
    for old in sessions[SESSION_LIMIT:]:
        old.unlink(missing_ok=True)


def forget(folder: Path, files: list[str] | tuple[str, ...]) -> None:
    """Remove the session of the model read from ``files`` (File › Close drops the work)."""
    session_path(folder, files).unlink(missing_ok=True)


def clip_count(folder: Path, files: list[str] | tuple[str, ...]) -> int:
    """How many added clips the session of ``files`` holds (File › Open Recent says so); 0 when there
    is none or it cannot be read."""
    path = session_path(folder, files)
    try:
        with _opened(path) as stored:
            return len(_meta(stored, path)["clips"])
    except (FileNotFoundError, SessionError):
        return 0


def load(folder: Path, files: list[str] | tuple[str, ...]) -> SavedWork | None:
    """The work kept for the model read from ``files`` (None when there is none); SessionError naming
    the file and what is wrong when it cannot be read."""
    path = session_path(folder, files)
    try:
        with _opened(path) as stored:
            meta = _meta(stored, path)
            clips = [_clip(stored, path, index, record) for index, record in enumerate(meta["clips"])]
    except FileNotFoundError:
        return None
    return SavedWork(clips, meta["mesh_choices"], meta["selected"], meta["mix"])


@contextmanager
def _opened(path: Path) -> Iterator:
    """The session at ``path`` opened as an npz (no pickles), its size bounded first."""
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    size = regular_size(path, SessionError)  # a FIFO or a device is never opened
    if size > SESSION_BYTES + JSON_BYTES:
        raise SessionError(path, f"{size} bytes, more than a session holds ({SESSION_BYTES})")
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(member.file_size for member in archive.infolist())
        if unpacked > SESSION_BYTES + JSON_BYTES:
            raise SessionError(path, f"{unpacked} bytes unpacked, more than a session holds")
        stored = np.load(path, allow_pickle=False)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as error:
        raise SessionError(path, f"not a session file: {error}") from None
    with stored:
        yield stored


def _array(stored, path: Path, key: str) -> np.ndarray:
    try:
        return stored[key]
    except KeyError:
        raise SessionError(path, f"{key} is missing") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise SessionError(path, f"{key} cannot be read: {error}") from None


def _meta(stored, path: Path) -> dict:
    """``session.json``, every field checked."""
    raw = _array(stored, path, META)
    if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size > JSON_BYTES:
        raise SessionError(path, f"{META} is not UTF-8 text of at most {JSON_BYTES} bytes")
    try:
        meta = loads(raw.tobytes())
    except JsonError as error:
        raise SessionError(path, f"{META}: {error}") from None
    _expect(path, isinstance(meta, dict) and meta.get("version") == VERSION, f"{META}: version {VERSION}")
    _expect(path, isinstance(meta.get("clips"), list), "clips: a list")
    choices = meta.get("mesh_choices")
    _expect(path, isinstance(choices, dict) and all(isinstance(v, bool) for v in choices.values()),
            "mesh_choices: mesh names to true or false")
    _expect(path, meta.get("selected") is None or isinstance(meta["selected"], str), "selected: a bone name")
    mix = meta.get("mix")
    _expect(path, mix is None or _mix_fields_ok(mix), "mix: clip and bone names and finite amounts")
    return meta


def _mix_fields_ok(mix) -> bool:
    names = ("chosen", "second", "mode")
    amounts = ("fade", "weight", "add_weight")
    return (isinstance(mix, dict) and all(isinstance(mix.get(key), str) for key in names)
            and all(isinstance(mix.get(key), (int, float)) and not isinstance(mix.get(key), bool)
                    and math.isfinite(mix[key]) for key in amounts)
            and (mix.get("mask_bone") is None or isinstance(mix["mask_bone"], str)))


def _clip(stored, path: Path, index: int, record) -> tuple[Clip, tuple[str, ...]]:
    """Clip ``index`` of the session and the bone names it was made for."""
    where = f"clip {index}"
    _expect(path, isinstance(record, dict), f"{where}: an object")
    _expect(path, isinstance(record.get("name"), str) and isinstance(record.get("source"), str),
            f"{where}: name and source")
    rate = record.get("rate")
    _expect(path, rate is None or (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0),
            f"{where}: rate")
    bones = record.get("bones")
    _expect(path, isinstance(bones, list) and all(isinstance(name, str) for name in bones), f"{where}: bones")
    events = record.get("events")
    _expect(path, isinstance(events, list) and all(
        isinstance(event, list) and len(event) == 2 and isinstance(event[0], (int, float))
        and math.isfinite(event[0]) and isinstance(event[1], str) for event in events), f"{where}: events")
    weights, alpha = record.get("weights"), record.get("alpha")
    _expect(path, isinstance(weights, list) and all(
        isinstance(w, dict) and isinstance(w.get("mesh"), int) and isinstance(w.get("interpolation"), str)
        for w in weights), f"{where}: weights")
    _expect(path, isinstance(alpha, list) and all(isinstance(mesh, int) for mesh in alpha), f"{where}: alpha")
    key = f"c{index}"
    world = _array(stored, path, f"{key}.world")
    _expect(path, world.ndim == 4 and world.shape[1] == len(bones), f"{key}.world: (F, {len(bones)}, 4, 4)")
    try:
        channels = [WeightChannel(w["mesh"], _array(stored, path, f"{key}.w{n}.times"),
                                  _array(stored, path, f"{key}.w{n}.values"), w["interpolation"],
                                  _array(stored, path, f"{key}.w{n}.tangents")
                                  if w["interpolation"] == "cubic" else None)
                    for n, w in enumerate(weights)]
        clip = Clip(record["name"], "matrices", times=_array(stored, path, f"{key}.times"), world=world,
                    events=[tuple(event) for event in events], source=record["source"], rate=rate,
                    weight_channels=channels,
                    mesh_alpha={mesh: (_array(stored, path, f"{key}.a{mesh}.times"),
                                       _array(stored, path, f"{key}.a{mesh}.values")) for mesh in alpha})
    except (ValueError, TypeError) as error:
        raise SessionError(path, f"{where}: {error}") from None
    return clip, tuple(bones)


def _expect(path: Path, condition: bool, what: str) -> None:
    if not condition:
        raise SessionError(path, f"expected {what}")
