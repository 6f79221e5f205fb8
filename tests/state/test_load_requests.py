"""What an open, attach, reload, frame-rate change or drop reads: decided by the state (headless),
run by the window. Expected requests are written out by hand."""

from pathlib import Path

import numpy as np
import pytest

from app import formats, loading
from app.model import Model
from app.state.load_requests import ClipsRequest, LoadRequest, TextureDrop
from app.state.viewer import ViewerState
from tests.helpers import chain_model


@pytest.fixture()
def on_screen(tmp_path) -> ViewerState:
    """A state showing a model read from ``hero.glb`` at 5 frames per second, with one texture folder
    from the command line."""
    state = ViewerState(formats.LoadOptions(fps=5.0, texture_dirs=["given"]))
    model = chain_model()
    model.files = [str(tmp_path / "hero.glb")]
    state.set_model(model)
    return state


def test_open_starts_the_new_files_at_their_own_frame_rate(on_screen):
    request = on_screen.open_request([Path("a.bnf"), "b.anm"])
    assert request == LoadRequest(("a.bnf", "b.anm"), formats.LoadOptions(texture_dirs=["given"]), False)


def test_attach_reads_the_model_files_again_with_the_new_ones(on_screen, tmp_path):
    hero = str(tmp_path / "hero.glb")
    request = on_screen.attach_request([hero, "walk.anm"])
    assert request == LoadRequest((hero, "walk.anm"), on_screen.load_options, True)
    assert request.options.fps == 5.0


def test_attach_without_a_model_read_from_files_opens():
    state = ViewerState(formats.LoadOptions(fps=5.0))
    assert state.attach_request(["walk.anm"]) == LoadRequest(("walk.anm",), formats.LoadOptions(), False)
    state.set_model(chain_model())
    assert state.attach_request(["walk.anm"]).keep_state is False
    assert state.reload_request() is None and state.fps_request(10.0) is None


def test_reload_and_a_new_frame_rate_keep_the_state(on_screen, tmp_path):
    hero = (str(tmp_path / "hero.glb"),)
    assert on_screen.reload_request() == LoadRequest(hero, on_screen.load_options, True)
    assert on_screen.fps_request(5.0) is None
    assert on_screen.fps_request(12.0) == LoadRequest(
        hero, formats.LoadOptions(fps=12.0, texture_dirs=["given"]), True)
    assert on_screen.load_options.fps == 5.0  # until the read succeeds


def test_a_drop_is_a_texture_an_attach_or_an_open(on_screen, tmp_path):
    assert on_screen.drop_request(["skin.PNG"]) == TextureDrop("skin.PNG")
    assert on_screen.drop_request(["skin.png", "b.png"]).keep_state is False  # two files: a model
    assert on_screen.drop_request(["other.glb"]).keep_state is False
    forced = on_screen.drop_request(["other.glb"], forced=True)
    assert forced.keep_state and forced.paths == (str(tmp_path / "hero.glb"), "other.glb")
    assert isinstance(ViewerState().drop_request(["skin.png"]), LoadRequest)  # nothing to paint on


def test_remembered_texture_folders_come_after_the_given_ones(on_screen):
    on_screen.use_texture_folders(["kept1", "kept2"])
    assert on_screen.load_options.texture_dirs == ["given", "kept1", "kept2"]
    on_screen.use_texture_folders([])
    assert on_screen.load_options.texture_dirs == ["given"]
    assert on_screen.reload_request().options.texture_dirs == ["given"]


def test_attached_files_of_another_skeleton_are_read_alone_then_need_the_bone_map(tmp_path):
    """The soldier (Mixamo names) on screen: the demo's glTF brings its own skeleton, so it is read
    alone; its clips move pelvis, thigh_l, … which the soldier lacks: the bone map decides."""
    import shutil

    from app.resources import demo_paths
    from app.state.load_requests import ClipsRequest
    from app.state.viewer import ActionError
    from tests.tool_exports import mixamo_character

    soldier = str(mixamo_character(tmp_path))
    demo = shutil.copy(demo_paths()[0], tmp_path / "demo_copy.glb")
    state = ViewerState(formats.LoadOptions(up="Z", textures=[(None, "skin.png")]))
    state.set_model(loading.load([soldier]))
    request = state.attach_request([demo])
    assert request == ClipsRequest((str(demo),), formats.LoadOptions())
    assert state.drop_request([demo], forced=True) == request  # dropped with Shift: attached the same way
    assert state.attach_read(loading.load([demo])) is None
    # the demo on screen: a copy of its own file animates its own bones, so it is read with it
    state.set_model(loading.load(demo_paths()))
    own = state.attach_read(loading.load([demo]))
    assert own == LoadRequest((str(demo_paths()[0]), str(demo)), state.load_options, True)
    with pytest.raises(ActionError, match="soldier has no skeletal clips"):
        state.attach_read(loading.load([soldier]))


def test_animation_files_and_files_that_cannot_be_read_attach_as_before(on_screen, tmp_path):
    """Only files recognised as models of their own are read alone: an animation file (BonesPro's)
    and a name the read will refuse go with the model's files as they always did."""
    from app.resources import demo_paths
    from tests.demo_formats import write_bonespro

    animation = str(write_bonespro(loading.load(demo_paths()), tmp_path)[1])
    for paths in ([animation], [str(tmp_path / "missing.glb")]):
        assert on_screen.attach_request(paths) == LoadRequest(
            (str(tmp_path / "hero.glb"), *paths), on_screen.load_options, True)


def test_clips_of_another_skeleton_are_read_alone_with_the_models_options_less_its_own(on_screen):
    """File › Attach Clips of Another Skeleton: the files alone, without the model's up axis and
    images (the rule ``--clips-from`` reads with too), whatever they hold."""
    from app.state.load_requests import OtherSkeletonRequest

    on_screen.load_options = formats.LoadOptions(fps=5.0, up="Z", textures=[(None, "skin.png")])
    request = on_screen.other_skeleton_request([Path("walk.glb")])
    assert request == OtherSkeletonRequest(("walk.glb",), formats.LoadOptions(fps=5.0))
    assert loading.other_skeleton_options(on_screen.load_options) == request.options


def nwn_creature(tmp_path, supermodel="a_ba") -> ViewerState:
    """A state showing ``c_hero.mdl`` (two bones, bone0 and bone1) whose supermodel ``a_ba`` was not found."""
    state = ViewerState()
    model = chain_model()
    model.files, model.supermodels = [str(tmp_path / "c_hero.mdl")], [(supermodel, None)]
    state.set_model(model)
    return state


def animation_model(name, bones, supermodels=()):
    """A model ``name``.mdl of a chain of ``bones`` with one clip turning each of them."""
    from app.model import Clip, Track
    from tests.helpers import skeleton, translation

    skel = skeleton([translation(index, 0, 0) for index in range(len(bones))],
                    [index - 1 for index in range(len(bones))], list(bones))
    clip = Clip("cast", "keyed", tracks=[Track(bone, translation=(np.array([0.0]), np.zeros((1, 3))))
                                         for bone in range(len(bones))])
    model = Model(name, skel, clips=[clip])
    model.files, model.supermodels = [f"/anims/{name}.mdl"], list(supermodels)
    return model


@pytest.mark.parametrize("name", ["a_ba.mdl", "A_BA_casts.mdl", "a_ba_med_weap.mdl"])
def test_the_supermodel_and_its_animation_sets_attach_at_once(tmp_path, name):
    state = nwn_creature(tmp_path)
    request = state.attach_request([f"/anims/{name}"])
    assert request == LoadRequest((str(tmp_path / "c_hero.mdl"), f"/anims/{name}"), state.load_options, True)


def test_an_unrelated_name_is_read_alone_first(tmp_path):
    state = nwn_creature(tmp_path)
    path = tmp_path / "a_fa.mdl"
    path.write_text("newmodel a_fa\nsetsupermodel a_fa a_ba\n")  # an NWN model, not an animation file
    request = state.attach_request([str(path)])
    assert isinstance(request, ClipsRequest) and request.paths == (str(path),)


@pytest.mark.parametrize("source, together", [
    (animation_model("a_fa", ["bone0", "bone1", "cloak_g", "belt_g"], [("a_ba", "/anims/a_ba.mdl")]), True),
    (animation_model("a_other", ["BONE0", "bone1", "cloak_g"]), True),  # the model's bones by name
    (animation_model("a_cousin", ["bone0", "spine", "cloak_g"]), False),  # half of the model's bones
    (animation_model("a_ba_casts", ["x", "y"]), True),  # an animation set of its supermodel, by name
    (animation_model("mixamo", ["Hips", "Spine"]), False),  # another skeleton: the bone map
])
def test_files_read_alone_attach_together_when_related(tmp_path, source, together):
    state = nwn_creature(tmp_path)
    request = state.attach_read(source)
    if together:
        assert request == LoadRequest((str(tmp_path / "c_hero.mdl"), *source.files), state.load_options, True)
    else:
        assert request is None


def test_an_animation_only_fbx_attaches_by_bone_names_and_a_bvh_take_needs_the_bone_map(tmp_path):
    """Attach Animation on an FBX character: a Mixamo-style animation-only FBX moves only bones the
    model has, so it is read with the model; a BVH take of other names goes through the bone map."""
    from app.state.load_requests import ClipsRequest
    from tests.formats.test_bvh import FRAMES, chain
    from tests.formats.test_fbx import WALK, bones, written
    from tests.writers.fbx_ascii_writer import Stack, write_fbx

    character = written(tmp_path)
    walk = write_fbx(tmp_path / "walk_only.fbx", bones(), None, [Stack("mixamo.com", 1.0, WALK.curves)])
    take = tmp_path / "take.bvh"
    take.write_text(chain("ZXY", FRAMES))
    state = ViewerState()
    state.set_model(loading.load([character]))
    assert state.attach_request([walk]) == ClipsRequest((str(walk),), state.load_options)
    together = state.attach_read(loading.load([walk]))
    assert together == LoadRequest((str(character), str(walk)), state.load_options, True)
    assert [clip.name for clip in loading.load(list(together.paths)).clips][-1] == "mixamo.com"
    assert state.attach_read(loading.load([take])) is None
