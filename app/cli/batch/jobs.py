"""What a batch worker does for one model: read it, then ``info``, ``render``, ``convert`` or
``check`` it (docs/cli.md, "boneyard batch"). Runs inside a worker process; the OpenGL context and
renderer are kept from one model to the next."""

from __future__ import annotations

import errno
import json
import tempfile
import time
import traceback
from argparse import Namespace
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app import loading
from app.atomic_files import write_atomically
from app.cli.batch.names import shown, shown_all
from app.cli.shared import OutputError, UsageError, describe, load_options, pose_at, render_settings
from app.errors import InputError
from app.model import Model
from app.pose import evaluate, posed_positions

#: A round trip through glTF whose worst vertex error is above this share of the model's size fails.
ROUND_TRIP_TOLERANCE = 1e-3
#: Bytes of images whose textures a render worker keeps after their model, for the next models that
#: share the images (materials.TextureCache.keep_released).
KEPT_TEXTURE_BYTES = 128 << 20
#: Errors that will fail every later output as well: the batch stops on them.
DISK_FULL = {errno.ENOSPC, errno.EDQUOT}


class DiskFull(OutputError):
    """An output could not be written for want of space: no later model would be."""


@dataclass
class Job:
    """One model to do: ``paths`` to open together, the output file (None: ``check`` writes none)."""

    index: int
    paths: list[str]
    output: str | None
    error: str | None = None


class Worker:
    """The state a worker keeps across models: the parsed options and, once a model is rendered, the
    offscreen renderer."""

    def __init__(self, args: Namespace):
        self.args = args
        self.offscreen = None
        self.findings: list[str] | None = None

    def run(self, job: Job) -> dict:
        """The report fields of ``job`` (status, error, warnings, counts, the files read)."""
        start = time.perf_counter()
        result = {"status": "ok", "error": None, "warnings": [], "files": list(job.paths),
                  "vertices": None, "bones": None, "clips": None, "clip_names": []}
        self.findings = None
        try:
            if job.error:
                raise InputError(job.paths[0], job.error)
            model = loading.load(job.paths, load_options(self.args))
            result.update(files=list(model.files) + [file for _, file in model.supermodels
                                                      if file and file not in model.files],
                          vertices=model.vertex_count, bones=len(model.skeleton), clips=len(model.clips),
                          clip_names=[clip.name for clip in model.clips])
            result["warnings"] = list(model.warnings) + ACTIONS[self.args.batch_command](self, model, job)
        except DiskFull as error:
            result.update(status="error", error=_one_line(error), disk_full=True)
        except (InputError, OutputError, UsageError, CheckFailed) as error:
            result.update(status="error", error=_one_line(error))
        except Exception as error:  # noqa: BLE001 - one model's failure must not end the batch
            if getattr(self.args, "debug", False):
                traceback.print_exc()
            result.update(status="error", error=_one_line(f"{type(error).__name__}: {error}"))
        result["seconds"] = round(time.perf_counter() - start, 4)
        if self.findings is not None:
            result["findings"] = self.findings
        return result

    def info(self, model: Model, job: Job) -> list[str]:
        _write_json(Path(job.output), describe(model))
        return []

    def render(self, model: Model, job: Job) -> list[str]:
        from app.render.offscreen import FAST_PNG_LEVEL, NotEnoughMemory, OffscreenRenderer, PictureTooLarge

        args = self.args
        if self.offscreen is None:
            self.offscreen = OffscreenRenderer(antialias=args.antialias)
            self.offscreen.renderer.textures.keep_released(KEPT_TEXTURE_BYTES)
        options = render_settings(model, args)
        output = Path(job.output)
        if args.sheet:
            from app.cli.render_animation import write_sheet

            try:
                write_sheet(model, args, output, self.offscreen, options)
            except (NotEnoughMemory, PictureTooLarge) as error:
                raise OutputError(f"cannot render {output}: {error}") from None
            return self.offscreen.renderer.take_warnings()
        current = pose_at(model, args, default_first_clip=True)
        with writing(output):
            try:
                self.offscreen.save_png(model, current, args.size, output, options, args.view,
                                        level=FAST_PNG_LEVEL)
            except (NotEnoughMemory, PictureTooLarge) as error:
                raise OutputError(f"cannot render {output}: {error}") from None
        return self.offscreen.renderer.take_warnings()

    def convert(self, model: Model, job: Job) -> list[str]:
        from app.export.writers import MODEL_WRITERS

        output = Path(job.output)
        clips = None
        if self.args.clip:
            try:
                clips = [model.clips[model.clip_index(c)] for c in self.args.clip]
            except KeyError as error:
                raise UsageError(error.args[0]) from None
        with writing(output):
            warnings = MODEL_WRITERS[output.suffix.lower()](output, model, clips, self.args.show_hidden)
        if self.args.check:
            from app.export.roundtrip import check_export

            warnings.append(check_export(model, loading.load_written(output), clips,
                                         self.args.show_hidden).line())
        return warnings

    def check(self, model: Model, job: Job) -> list[str]:
        from app.cli.check import findings_for

        rules = findings_for(model)
        self.findings = [finding.line() for finding in rules]
        findings = {"poses": check_poses(model), "round_trip": check_round_trip(model),
                    "ragdoll": check_ragdoll(model) if len(model.skeleton) else None}
        problems = [problem for part in findings.values() if part for problem in part["problems"]]
        problems += [finding.line() for finding in rules if finding.severity == "error"]
        _write_json(Path(job.output), {"files": model.files, **findings,
                                       "findings": [finding.as_json() for finding in rules],
                                       "problems": problems})
        if problems:
            raise CheckFailed("; ".join(problems))
        return []

    def close(self) -> None:
        if self.offscreen is not None:
            self.offscreen.release()
            self.offscreen = None


class CheckFailed(Exception):
    """``check`` found problems: the model is reported as an error with them."""


ACTIONS = {"info": Worker.info, "render": Worker.render, "convert": Worker.convert, "check": Worker.check}


def check_poses(model: Model) -> dict:
    """Every clip posed at its first and last key: the clips whose bones or vertices are not finite."""
    problems = []
    for clip in model.clips:
        for time_ in (float(clip.frame_times[0]), float(clip.frame_times[-1])):
            pose = evaluate(model, clip, time_)
            if not (np.isfinite(pose.world).all() and np.isfinite(posed_positions(model, pose)).all()):
                problems.append(f"clip {clip.name!r} at {time_:g} s: bones or vertices not finite")
                break
    return {"clips": len(model.clips), "problems": problems}


def check_round_trip(model: Model) -> dict:
    """The model written as GLB and read back: ``convert --check``'s worst vertex error."""
    from app.export.roundtrip import check_export
    from app.export.writers import MODEL_WRITERS

    with tempfile.TemporaryDirectory(prefix="boneyard-check-") as folder:
        path = Path(folder) / "round_trip.glb"
        MODEL_WRITERS[".glb"](path, model, None, False)
        result = check_export(model, loading.load_written(path), None, False)
    problems = [] if result.fraction <= ROUND_TRIP_TOLERANCE else [result.line().replace("check: ", "glTF ")]
    return {"worst_error": result.error, "fraction": result.fraction, "clip": result.clip,
            "frame": result.frame, "problems": problems}


def check_ragdoll(model: Model) -> dict:
    """The model's ragdoll profile (the one saved for it, else an automatic setup) through
    ``ragdoll --check``'s standard trial (physics/trial.py): that report, each problem prefixed
    with ``ragdoll:``. A saved profile that cannot be used is a problem too."""
    from app.physics.trial import check_profile
    from app.physics.model_profile import model_profile
    from app.user_files import user_data_dir

    profile, _found, problem = model_profile(model, user_data_dir())
    if problem is not None:
        return {"verdict": "fail", "problems": [f"ragdoll: {_one_line(problem)}"]}
    report = check_profile(model, profile)
    return {**report, "problems": [f"ragdoll: {line}" for line in report["problems"]]}


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """A failed write of ``path`` as the model's one-line error: DiskFull when the disk is full."""
    try:
        yield
    except OSError as error:
        kind = DiskFull if error.errno in DISK_FULL else OutputError
        raise kind(f"cannot write {shown(path)}: {error.strerror or error}") from None


def _write_json(path: Path, data: dict) -> None:
    with writing(path):
        write_atomically(path, json.dumps(shown_all(data), indent=2, default=_plain) + "\n")


def _plain(value):
    """JSON for numpy scalars and arrays."""
    return value.tolist() if hasattr(value, "tolist") else str(value)


def _one_line(error) -> str:
    text = " ".join(str(error).split())
    return text if text else type(error).__name__
