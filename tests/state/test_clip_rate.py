"""A clip's own frame rate (state.clip_measures.frame_rate), as the timeline's fps box shows it:
worked out here from steps written by hand."""

import numpy as np
import pytest

from app.model import Clip, Track
from app.state.clip_measures import frame_rate


def keyed(times):
    return Clip("c", "keyed", tracks=[Track(0, rotation=(times, [[0, 0, 0, 1]] * len(times)))])


@pytest.mark.parametrize("times, rate", [
    (np.arange(25) / 24, 24.0),  # glTF at 24 fps
    ([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0], 2.0),
    ([0.0, 1 / 30, 2 / 30, 0.5], 30.0),  # a held last key: most steps still 1/30 s
    ([0.0, 0.1, 0.35, 1.0], None),  # uneven
    ([0.0], None),  # one frame
])
def test_the_rate_is_the_usual_step_of_the_stored_frames(times, rate):
    found = frame_rate(keyed(times))
    assert found == (None if rate is None else pytest.approx(rate))


def test_a_rate_the_file_states_wins():
    clip = keyed([0.0, 0.1, 0.35, 1.0])
    clip.rate = 120.0  # a BVH's 1/Frame Time, an FBX's time mode
    assert frame_rate(clip) == 120.0
