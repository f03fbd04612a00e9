"""``trappola_env.atomic_file``: a file is replaced whole or left as it was."""
import os

import pytest

from trappola_env.atomic_file import atomic_write, is_temp_name, write_bytes, write_text


def test_write_replaces_the_whole_file(tmp_path):
    p = tmp_path / "a.json"
    write_text(p, "old content that is longer")
    write_text(p, "new")
    assert p.read_text() == "new"
    assert os.listdir(tmp_path) == ["a.json"]


def test_an_error_mid_write_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    p = tmp_path / "a.bin"
    write_bytes(p, b"good")
    with pytest.raises(RuntimeError):
        with atomic_write(p, "wb") as f:
            f.write(b"half")
            raise RuntimeError("disk full")
    assert p.read_bytes() == b"good"
    assert os.listdir(tmp_path) == ["a.bin"]


def test_a_failure_before_any_file_exists_creates_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(tmp_path / "new.txt") as f:
            f.write("x")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_permissions_follow_the_umask_like_open(tmp_path):
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


def test_temp_names_are_recognisable_and_bad_modes_refused(tmp_path):
    with atomic_write(tmp_path / "a.txt") as f:
        names = os.listdir(tmp_path)
        f.write("x")
    assert len(names) == 1 and is_temp_name(names[0]) and not is_temp_name("a.txt")
    with pytest.raises(ValueError, match="mode"):
        with atomic_write(tmp_path / "b.txt", "a"):
            pass
    with pytest.raises(FileNotFoundError):
        write_text(tmp_path / "missing" / "c.txt", "x")
