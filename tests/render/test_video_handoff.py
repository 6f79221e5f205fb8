"""Frames rendered on the calling thread and encoded on another (app/render/video.py): order kept,
every frame written, and an error or Ctrl+C on either side ends the write with no file and no
temporary left behind."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.render.video import consumed_on_another_thread, write_animation


def test_items_reach_the_consumer_in_order_on_another_thread():
    seen, threads = [], set()

    def consume(items):
        for item in items:
            seen.append(item)
            threads.add(threading.current_thread().name)

    consumed_on_another_thread(iter(range(500)), consume, depth=2)
    assert seen == list(range(500))
    assert threads == {"boneyard-encoder"}


def test_the_consumers_error_is_raised_and_the_producer_stops():
    produced = []

    def items():
        for index in range(10_000):
            produced.append(index)
            yield index

    def consume(received):
        for item in received:
            if item == 3:
                raise ValueError("encoder refused frame 3")

    with pytest.raises(ValueError, match="encoder refused frame 3"):
        consumed_on_another_thread(items(), consume, depth=2)
    assert len(produced) < 100


def test_a_consumer_that_stops_early_does_not_block_the_producer():
    consumed_on_another_thread(iter(range(1000)), lambda received: next(received), depth=1)
    frames = (np.full((4, 4, 4), index, np.uint8) for index in range(50))  # arrays: compared by identity
    consumed_on_another_thread(frames, lambda received: next(received), depth=1)


def test_a_consumer_failing_on_array_items_does_not_block_the_producer():
    def consume(received):
        next(received)
        raise OSError(28, "No space left on device")

    frames = (np.full((4, 4, 4), index, np.uint8) for index in range(50))
    with pytest.raises(OSError, match="No space left"):
        consumed_on_another_thread(frames, consume, depth=1)


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, RuntimeError])
def test_the_producers_interrupt_abandons_the_consumer(interrupt):
    unwound = []

    def items():
        yield from range(5)
        raise interrupt("stop")

    def consume(received):
        try:
            for _ in received:
                pass
            unwound.append("finished")
        except BaseException as error:
            unwound.append(type(error).__name__)
            raise

    with pytest.raises(interrupt):
        consumed_on_another_thread(items(), consume, depth=2)
    assert unwound == ["_Abandoned"]


def _frames(count: int, fail_at: int | None = None):
    for index in range(count):
        if index == fail_at:
            raise KeyboardInterrupt()
        frame = np.zeros((64, 48, 4), np.uint8)
        frame[..., 3] = 255
        frame[index % 64, :, :3] = 200  # one lit row a frame, so frames differ and their order shows
        yield frame


@pytest.mark.parametrize("suffix", [".mp4", ".gif", ".webp"])
def test_ctrl_c_while_rendering_leaves_no_file_and_no_temporary(tmp_path, suffix):
    out = tmp_path / f"walk{suffix}"
    with pytest.raises(KeyboardInterrupt):
        write_animation(out, suffix[1:], _frames(40, fail_at=20), 30.0, 40)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_leaves_an_earlier_file_in_place(tmp_path):
    out = tmp_path / "walk.gif"
    out.write_bytes(b"the earlier file")
    with pytest.raises(KeyboardInterrupt):
        write_animation(out, "gif", _frames(40, fail_at=20), 30.0, 40)
    assert list(tmp_path.iterdir()) == [out] and out.read_bytes() == b"the earlier file"


def test_every_frame_is_written_in_order(tmp_path):
    out = tmp_path / "walk.gif"
    write_animation(out, "gif", _frames(30), 30.0, 30)
    image = Image.open(out)
    assert image.n_frames == 30
    for index in (0, 7, 29):
        image.seek(index)
        rows = np.asarray(image.convert("RGB"))[..., 0].max(axis=1)
        assert int(np.argmax(rows)) == index


def test_a_numbered_sequence_is_written_whole(tmp_path):
    write_animation(tmp_path / "f_%02d.png", "frames", _frames(5), 30.0, 5)
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"f_{index:02d}.png" for index in range(5)]
    assert int(np.argmax(np.asarray(Image.open(tmp_path / "f_03.png"))[..., 0].max(axis=1))) == 3


def test_progress_counts_rendered_frames_on_the_calling_thread(tmp_path):
    calls = []

    def progress(done: int) -> None:
        calls.append((done, threading.current_thread() is threading.main_thread()))

    write_animation(Path(tmp_path / "walk.mp4"), "mp4", _frames(12), 30.0, 12, progress=progress)
    assert calls == [(done, True) for done in range(1, 13)]
