"""The text tokenizer under hostile input: inputs that made the old patterns backtrack for minutes
(a long digit run, a file cut inside a counted numeric block) end in a one-line ReadError, and
tokens quoted in messages are cut to a readable length."""

from __future__ import annotations

import numpy as np
import pytest

from app.formats import bnf, lgw
from app.formats.bonespro import structure as bonespro
from app.formats.registry import LoadOptions, ReadError, SniffedFile
from app.formats.textscan import TextScanner, is_number
from tests.writers import text_formats as write

#: A digit run this long took the old number pattern about 17 s; a linear scan takes milliseconds.
DIGITS = b"7" * 20_000 + b"x"


def lgw_model(tmp_path, vertex_count=12):
    """An LGW model with one unskinned mesh whose VERTS block has ``vertex_count`` × 8 values."""
    rng = np.random.default_rng(5)
    vertices = np.hstack([rng.uniform(-1, 1, (vertex_count, 3)), rng.uniform(0, 1, (vertex_count, 2)),
                          np.tile([0, 0, 1.0], (vertex_count, 1))])
    mesh = write.lgw_mesh("m", write.lgw_normal_link("root", np.eye(4)), vertices, [[0, 1, 2]])
    return write.lgw_model(tmp_path / "model.lgw", [mesh])


def load_lgw(path):
    return lgw.load([SniffedFile(path, "lgw", "model")], LoadOptions())


def assert_short_error(error: ReadError):
    message = str(error)
    assert "\n" not in message
    assert len(message) < 400, message


def test_number_check_on_a_long_digit_run():
    assert not is_number(DIGITS)
    assert is_number(DIGITS[:-1])
    assert is_number(b"-" + DIGITS[:-1] + b".5e-3")


def test_lgw_digit_run_in_a_number_is_refused_with_a_cut_quote(tmp_path):
    path = lgw_model(tmp_path)
    text = path.read_bytes()
    path.write_bytes(text.replace(b"DEFAULT_COLOR 0.5", b"DEFAULT_COLOR " + DIGITS, 1))
    with pytest.raises(ReadError) as caught:
        load_lgw(path)
    assert_short_error(caught.value)
    assert "DEFAULT_COLOR" in str(caught.value) and "20001 characters" in str(caught.value)


def test_bonespro_digit_run_is_refused(tmp_path):
    rng = np.random.default_rng(1)
    bind = np.tile(np.eye(4), (2, 1, 1))
    write.bonespro_structure(tmp_path / "s", ["a", "b"], [-1, 0], bind, rng.uniform(-1, 1, (3, 3)),
                             [[(0, 1.0)], [(1, 1.0)], []])
    lines = (tmp_path / "s").read_bytes().split(b"\n")
    lines[-2] = DIGITS
    (tmp_path / "s").write_bytes(b"\n".join(lines))
    with pytest.raises(ReadError) as caught:
        bonespro.load([SniffedFile(tmp_path / "s", "bonespro", "structure")], LoadOptions())
    assert_short_error(caught.value)


def test_bnf_digit_run_is_refused(tmp_path):
    write.bnf(tmp_path / "b.bnf", [-1, 0], np.zeros((2, 3)))
    (tmp_path / "b.bnf").write_bytes((tmp_path / "b.bnf").read_bytes().replace(b"0 -1", DIGITS + b" -1", 1))
    with pytest.raises(ReadError) as caught:
        bnf.load([SniffedFile(tmp_path / "b.bnf", "bnf", "bones")], LoadOptions())
    assert_short_error(caught.value)


def test_lgw_cut_two_rows_into_a_counted_block(tmp_path):
    path = lgw_model(tmp_path, vertex_count=40)  # 320 values: the block takes the counted fast path
    lines = path.read_bytes().split(b"\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(b"VERTS"))
    # a trailing comment makes the bytes left enough for 320 values, so the counted scan runs
    path.write_bytes(b"\n".join(lines[:start + 3]) + b"\n// " + b"-" * 4000 + b"\n")
    with pytest.raises(ReadError, match=r"vertices: expected 320 numbers, the file ends after 16") as caught:
        load_lgw(path)
    assert_short_error(caught.value)


def test_anm_cut_inside_a_key(tmp_path):
    rng = np.random.default_rng(3)
    write.bnf(tmp_path / "b.bnf", [-1] + [0] * 39, rng.uniform(-1, 1, (40, 3)))
    write.anm(tmp_path / "a.anm", [0.0, 1.0], rng.normal(size=(2, 40, 4)))
    lines = (tmp_path / "a.anm").read_bytes().split(b"\n")
    (tmp_path / "a.anm").write_bytes(b"\n".join(lines[:65]) + b"\n")  # key 1 cut after 20 of 40 bones
    files = [SniffedFile(tmp_path / "b.bnf", "bnf", "bones"),
             SniffedFile(tmp_path / "a.anm", "bnf", "animation")]
    with pytest.raises(ReadError, match=r"a\.anm:65: 40 quaternions: expected 160 numbers, the file ends "
                                        r"after 80"):
        bnf.load(files, LoadOptions())


def test_counted_block_does_not_split_tokens(tmp_path):
    """"1.0" is one token: a block asking for more values than the file holds never matches by
    reading "1", ".", "0" as three."""
    path = tmp_path / "numbers.txt"
    path.write_bytes(b" ".join([b"1.0"] * 100) + b"\n")
    with TextScanner(path) as scanner, pytest.raises(ReadError, match="expected 120 numbers, the file ends "
                                                                  "after 100"):
        scanner.floats(120, "values")
    with TextScanner(path) as scanner:
        assert scanner.floats(100, "values").tolist() == [1.0] * 100


def test_long_word_is_cut_in_messages(tmp_path):
    path = tmp_path / "word.txt"
    path.write_bytes(b"W" * 1_000_000 + b"\n")
    with TextScanner(path) as scanner, pytest.raises(ReadError) as caught:
        scanner.keyword("BONES")
    assert_short_error(caught.value)
    assert "1000000 characters" in str(caught.value)
