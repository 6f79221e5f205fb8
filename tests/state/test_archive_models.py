"""File › Open Archive…'s listing without Qt (app/state/archive_models.py, formats/nwn/model_kind.py):
archives built byte by byte from the published layouts (tests/nwn_archive_bytes.py), kinds read from
the models' first bytes, the search, and malformed archives named with their byte offset."""

from __future__ import annotations

import pytest

from app import loading
from app.errors import ReadError
from app.formats.nwn.model_kind import model_kind
from app.state.archive_models import ArchiveModel, archive_models, matching, size_text
from tests.formats.test_nwn_resources import textured_tree
from tests.formats.test_nwn_sets import lender_tree
from tests.nwn_archive_bytes import bif_bytes, erf_bytes, key_bytes
from tests.paths import CORPUS
from tests.writers.nwn_ascii_writer import write_ascii_mdl
from tests.writers.nwn_writer import write_mdl

#: The binary model header's classification byte, after the 12-byte file header (docs 2.2).
CLASSIFICATION_BYTE = 12 + 0x72


def binary_model(name: str, classification: int) -> bytes:
    data = bytearray(write_mdl(name, lender_tree()))
    data[CLASSIFICATION_BYTE] = classification
    return bytes(data)


def test_kinds_from_the_first_bytes():
    assert model_kind(binary_model("a", 2)) == "tile, binary"
    assert model_kind(binary_model("a", 8)) == "door, binary"
    assert model_kind(binary_model("a", 0)) == "binary"
    assert model_kind(write_ascii_mdl("c", textured_tree(), classification="Effect")) == "effect, ASCII"
    assert model_kind(b"newmodel x\nbeginmodelgeom x\n") == "ASCII"
    assert model_kind(b"\0\0\0\0garbage") == "not a model"
    assert model_kind(b"") == "not a model"


def test_an_erfs_models_by_name_with_kind_size_and_the_path_that_opens_them(tmp_path):
    hero = write_ascii_mdl("c_hero", textured_tree())
    door = binary_model("door_a", 8)
    path = tmp_path / "Parts.HAK"
    path.write_bytes(erf_bytes([("door_a", "mdl", door), ("skin01", "tga", b"x"), ("c_hero", "mdl", hero),
                                ("c_hero", "mdl", b"second copy, never opened")]))
    models = archive_models(path)
    where = str(path.resolve())
    assert models == [ArchiveModel("c_hero", "character, ASCII", len(hero), f"{where}:c_hero"),
                      ArchiveModel("door_a", "door, binary", len(door), f"{where}:door_a")]
    assert loading.load([models[0].path]).files == (models[0].path,)


def test_a_keys_models_across_its_bifs(tmp_path):
    (tmp_path / "data").mkdir()
    tile = binary_model("tin01_a01", 2)
    (tmp_path / "data" / "models.bif").write_bytes(bif_bytes([("mdl", tile), ("tga", b"t")]))
    key = tmp_path / "game.key"
    key.write_bytes(key_bytes(["data\\models.bif"], [("tin01_a01", "mdl", 0, 0), ("tex", "tga", 0, 1)]))
    assert archive_models(key) == [ArchiveModel("tin01_a01", "tile, binary", len(tile),
                                                f"{key.resolve()}:tin01_a01")]


def test_real_archives_without_models_list_none():
    assert archive_models(CORPUS / "rollnw" / "transforms.mod") == []
    assert archive_models(CORPUS / "rollnw" / "hak_with_description.hak") == []


@pytest.mark.parametrize("cut, offset", [(100, 0), (170, 160)])
def test_a_malformed_archive_is_one_error_with_file_and_offset(tmp_path, cut, offset):
    path = tmp_path / "cut.hak"
    path.write_bytes(erf_bytes([("c_hero", "mdl", write_ascii_mdl("c_hero", textured_tree()))])[:cut])
    with pytest.raises(ReadError) as caught:
        archive_models(path)
    assert "cut.hak" in str(caught.value) and caught.value.offset == offset


def test_search_words_match_names_and_kinds_in_any_case():
    models = [ArchiveModel("c_hero", "character, ASCII", 1, "a:c_hero"),
              ArchiveModel("tin01_a01", "tile, binary", 1, "a:tin01_a01"),
              ArchiveModel("c_dragon", "character, binary", 1, "a:c_dragon")]
    assert [model.name for model in matching(models, "BINARY c_")] == ["c_dragon"]
    assert [model.name for model in matching(models, "  ")] == ["c_hero", "tin01_a01", "c_dragon"]
    assert matching(models, "door") == []


def test_sizes_read_as_people_read_them():
    assert [size_text(n) for n in (0, 1023, 1024, 81234, 5 * 1024 * 1024)] == [
        "0 B", "1023 B", "1.0 KB", "79.3 KB", "5.0 MB"]
