"""describe_endpoint against tiny in-process servers shaped like llama.cpp, vLLM, Ollama and the rest, plus the GGUF
header reader and the quantisation spellings. Everything runs on 127.0.0.1 with no real model."""

from __future__ import annotations

import json
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sandbox.servers.describe import FIELDS, UNKNOWN, describe_endpoint, normalise_quant, quant_of_gguf, with_declared

# The folder part of a real model path names the host's user; it must never reach the record.
HOME = "/home/alice-private/.cache/kbench/models"
LLAMA_PROPS = {
    "default_generation_settings": {
        "params": {"seed": 4294967295, "temperature": 0.800000011920929, "top_k": 40, "top_p": 0.949999988079071,
                   "min_p": 0.05000000074505806, "repeat_penalty": 1.0, "n_predict": -1, "mirostat": 0},
        "n_ctx": 16384,
    },
    "total_slots": 1,
    "model_alias": "qwen2.5-coder-1.5b-instruct",
    "model_ftype": "Q4_K - Medium",
    "model_path": f"{HOME}/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "build_info": "b0-unknown",
    "endpoint_slots": True,
}
LLAMA_MODELS = {"data": [{"id": "qwen2.5-coder-1.5b-instruct", "owned_by": "llamacpp",
                          "meta": {"n_ctx": 16384, "n_ctx_train": 32768, "n_params": 1543714304,
                                   "ftype": "Q4_K - Medium"}}]}
LLAMA = {"/props": (200, LLAMA_PROPS, {"Server": "llama.cpp"}),
         "/v1/models": (200, LLAMA_MODELS, {"Server": "llama.cpp"})}


class _Handler(BaseHTTPRequestHandler):
    def send_response(self, code, message=None):
        # The stock handler adds "Server: BaseHTTP/..." to every reply; the tests choose the header themselves.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())

    def log_message(self, *args):
        pass

    def _reply(self, route) -> None:
        status, body, headers = route or (404, {"error": "not found"}, {})
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        self.server.seen.append({"method": "GET", "path": self.path, "auth": self.headers.get("Authorization")})
        self._reply(self.server.routes.get(self.path))

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
        self.server.seen.append({"method": "POST", "path": self.path, "auth": self.headers.get("Authorization"),
                                 "body": body})
        self._reply(self.server.show if self.path == "/api/show" else None)


@pytest.fixture
def fake_server():
    """start(routes, show=None) -> (base URL ending in /v1, list of requests seen). routes maps a GET path to
    (status, JSON body or raw bytes, headers); show is the same triple for POST /api/show."""
    servers = []

    def start(routes: dict, show: tuple | None = None):
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.routes, server.show, server.seen = routes, show, []
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/v1", server.seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_llama_cpp_server_is_described_from_props_and_models(fake_server):
    url, _ = fake_server(LLAMA)
    got = describe_endpoint(url)
    assert got["engine"] == "llama.cpp"
    assert got["build"] == got["engine_version"] == "b0-unknown"
    assert got["model_id"] == "qwen2.5-coder-1.5b-instruct"
    assert got["model_file"] == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert HOME not in json.dumps(got) and "alice-private" not in json.dumps(got)
    assert got["quant"] == "Q4_K_M"
    assert got["n_ctx"] == 16384 and got["slots"] == 1
    assert got["sampling_defaults"] == {"temperature": 0.8, "top_p": 0.95, "top_k": 40, "min_p": 0.05,
                                        "repeat_penalty": 1.0, "seed": "random"}
    assert got["server_header"] == "llama.cpp"
    assert got["answered"] == ["/props", "/v1/models"]
    assert set(got) == set(FIELDS) | {"answered"}


def test_older_llama_cpp_gets_n_ctx_from_the_top_and_quant_from_the_local_file(fake_server, tmp_path):
    model = tmp_path / "private-folder" / "tiny-q5.gguf"
    model.parent.mkdir()
    model.write_bytes(_gguf([("general.file_type", 4, struct.pack("<I", 17))]))
    props = {"n_ctx": 4096, "total_slots": 2, "model_alias": "tiny", "model_path": str(model), "build_info": "b3000",
             "default_generation_settings": {"temperature": 0.7, "seed": 42}}
    url, _ = fake_server({"/props": (200, props, {})})
    got = describe_endpoint(url)
    assert (got["engine"], got["n_ctx"], got["slots"], got["quant"]) == ("llama.cpp", 4096, 2, "Q5_K_M")
    assert got["model_id"] == "tiny" and got["model_file"] == "tiny-q5.gguf"
    assert got["sampling_defaults"] == {"temperature": 0.7, "seed": 42}
    assert str(model.parent) not in json.dumps(got)
    assert got["answered"] == ["/props"] and got["server_header"] == UNKNOWN


def test_vllm_server_is_known_by_its_model_owner(fake_server):
    models = {"data": [{"id": "Qwen/Qwen2.5-Coder-1.5B-Instruct", "owned_by": "vllm", "max_model_len": 32768}]}
    url, _ = fake_server({"/version": (200, {"version": "0.6.3"}, {"Server": "uvicorn"}),
                          "/v1/models": (200, models, {"Server": "uvicorn"})})
    got = describe_endpoint(url)
    assert (got["engine"], got["engine_version"], got["n_ctx"]) == ("vLLM", "0.6.3", 32768)
    assert got["model_id"] == "Qwen/Qwen2.5-Coder-1.5B-Instruct" and got["server_header"] == "uvicorn"
    assert got["answered"] == ["/v1/models", "/version"]


def test_a_version_route_alone_is_not_taken_for_vllm(fake_server):
    url, _ = fake_server({"/version": (200, {"version": "1.2.3"}, {}),
                          "/v1/models": (200, {"data": [{"id": "m", "owned_by": "someone"}]}, {})})
    got = describe_endpoint(url)
    assert got["engine"] == UNKNOWN and got["engine_version"] == UNKNOWN and got["model_id"] == "m"


OLLAMA_MODELS = {"object": "list", "data": [{"id": "qwen2.5-coder:1.5b", "object": "model", "owned_by": "library"}]}


def test_ollama_server_is_described_from_api_version_and_show(fake_server):
    show = {"details": {"quantization_level": "Q4_K_M", "format": "gguf", "family": "qwen2"},
            "model_info": {"qwen2.context_length": 32768, "general.architecture": "qwen2"},
            "parameters": "num_ctx 8192\ntemperature 0.7"}
    url, seen = fake_server({"/api/version": (200, {"version": "0.3.12"}, {}),
                             "/v1/models": (200, OLLAMA_MODELS, {})}, show=(200, show, {}))
    got = describe_endpoint(url)
    assert (got["engine"], got["engine_version"], got["quant"]) == ("Ollama", "0.3.12", "Q4_K_M")
    assert got["n_ctx"] == 8192 and got["sampling_defaults"] == {"temperature": 0.7}
    assert got["model_id"] == "qwen2.5-coder:1.5b"
    assert [r["body"] for r in seen if r["method"] == "POST"] == [{"model": "qwen2.5-coder:1.5b"}]
    assert got["answered"] == ["/v1/models", "/api/version", "/api/show"]


def test_ollama_without_num_ctx_uses_the_trained_length(fake_server):
    # Ollama pads the names in "parameters" and repeats stop; neither may upset the reading.
    show = {"details": {"quantization_level": "q8_0"}, "model_info": {"qwen2.context_length": 32768},
            "parameters": 'stop                           "<|im_start|>"\nstop "<|im_end|>"\n'
                          "top_k                          20\nseed -1"}
    url, _ = fake_server({"/api/version": (200, {"version": "0.5.0"}, {}),
                          "/v1/models": (200, OLLAMA_MODELS, {})}, show=(200, show, {}))
    got = describe_endpoint(url)
    assert (got["quant"], got["n_ctx"]) == ("Q8_0", 32768)
    assert got["sampling_defaults"] == {"top_k": 20, "seed": "random"}


@pytest.mark.parametrize(("header", "engine"), [("LM Studio x", "LM Studio"), ("FooServer/1.0", UNKNOWN)])
def test_other_servers_give_a_model_id_and_maybe_an_engine_from_the_server_header(fake_server, header, engine):
    models = {"data": [{"id": "qwen2.5-coder-7b", "owned_by": "organization_owner"}]}
    url, _ = fake_server({"/v1/models": (200, models, {"Server": header})})
    got = describe_endpoint(url)
    assert (got["engine"], got["model_id"], got["server_header"]) == (engine, "qwen2.5-coder-7b", header)
    assert got["answered"] == ["/v1/models"]
    assert all(got[f] == UNKNOWN for f in ("engine_version", "build", "model_file", "quant", "n_ctx", "slots"))


def test_a_url_without_v1_looks_for_models_right_under_it(fake_server):
    url, _ = fake_server({"/models": (200, {"data": [{"id": "bare"}]}, {})})
    got = describe_endpoint(url.removesuffix("/v1"))
    assert got["model_id"] == "bare" and got["answered"] == ["/models"]


def _all_unknown(got: dict) -> bool:
    return all(got[f] == UNKNOWN for f in FIELDS if f != "sampling_defaults") and got["sampling_defaults"] == {}


def test_a_dead_url_gives_everything_unknown():
    got = describe_endpoint(f"http://127.0.0.1:{_closed_port()}/v1")
    assert _all_unknown(got) and got["answered"] == []


@pytest.mark.parametrize("url", ["", "garbage", "http://[::1", "file:///etc/v1", "ftp://127.0.0.1/v1"])
def test_a_malformed_or_non_http_url_gives_everything_unknown(url, tmp_path):
    assert _all_unknown(describe_endpoint(url))
    (tmp_path / "props").write_text(json.dumps(LLAMA_PROPS))
    got = describe_endpoint(tmp_path.as_uri())  # a local file is never read as if a server had said it
    assert _all_unknown(got) and got["answered"] == []


def test_odd_replies_are_ignored_not_raised(fake_server):
    url, _ = fake_server({"/props": (200, b"<html>hello</html>", {}), "/v1/models": (200, [1, 2], {}),
                          "/api/version": (200, {"version": 5}, {}), "/version": (500, {"error": "x"}, {})})
    got = describe_endpoint(url)
    assert _all_unknown(got) and got["answered"] == ["/v1/models", "/api/version"]


def test_a_server_that_does_not_speak_http_gives_everything_unknown():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(5)

    def babble():
        try:
            while True:
                conn, _ = listener.accept()
                with conn:
                    conn.sendall(b"SSH-2.0-not-http\r\n\r\n")
        except OSError:
            pass

    threading.Thread(target=babble, daemon=True).start()
    try:
        got = describe_endpoint(f"http://127.0.0.1:{listener.getsockname()[1]}/v1", timeout=2.0)
    finally:
        listener.close()
    assert _all_unknown(got) and got["answered"] == []


def test_api_key_goes_in_a_bearer_header_and_nowhere_in_the_result(fake_server):
    url, seen = fake_server(LLAMA)
    got = describe_endpoint(url, api_key="sekret-123")
    assert seen and all(r["auth"] == "Bearer sekret-123" for r in seen)
    assert "sekret-123" not in json.dumps(got)
    url, seen = fake_server(LLAMA)
    describe_endpoint(url)
    assert all(r["auth"] is None for r in seen)


def test_declared_values_win_but_blanks_do_not_erase():
    described = {f: UNKNOWN for f in FIELDS} | {"quant": "Q4_K_M", "n_ctx": 16384, "model_file": "m.gguf",
                                                 "sampling_defaults": {"temperature": 0.8, "top_k": 40},
                                                 "answered": ["/props"]}
    before = json.dumps(described)
    got = with_declared(described, {"quant": "q8_0", "n_ctx": "", "model_file": None, "engine": "llama.cpp",
                                    "slots": UNKNOWN, "sampling_defaults": {"temperature": 0.2}, "build": {}})
    assert got["quant"] == "Q8_0" and got["engine"] == "llama.cpp"
    assert (got["n_ctx"], got["model_file"], got["slots"], got["build"]) == (16384, "m.gguf", UNKNOWN, UNKNOWN)
    assert got["sampling_defaults"] == {"temperature": 0.2, "top_k": 40}
    assert got["declared"] == ["engine", "quant", "sampling_defaults"]
    assert got["answered"] == ["/props"] and json.dumps(described) == before
    assert with_declared(described, {})["declared"] == []


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _gguf(kvs: list[tuple[str, int, bytes]], version: int = 3) -> bytes:
    """A GGUF header (no tensors) holding the given (key, value type, encoded value) pairs."""
    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs))
    for key, vtype, payload in kvs:
        out += _s(key) + struct.pack("<I", vtype) + payload
    return out


GOOD_KVS = [("general.architecture", 8, _s("qwen2")),
            ("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 3) + _s("a") + _s("bb") + _s("ccc")),
            ("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, 2) + struct.pack("<2f", 0.5, -1.0)),
            ("general.quantization_version", 4, struct.pack("<I", 2)),
            ("general.file_type", 4, struct.pack("<I", 15))]


@pytest.mark.parametrize("version", [2, 3])
def test_quant_of_gguf_reads_the_file_type(tmp_path, version):
    path = tmp_path / "m.gguf"
    path.write_bytes(_gguf(GOOD_KVS, version))
    assert quant_of_gguf(path) == "Q4_K_M" and quant_of_gguf(str(path)) == "Q4_K_M"


@pytest.mark.parametrize("content", [
    _gguf(GOOD_KVS)[:-3],                                                     # truncated in the last value
    _gguf(GOOD_KVS)[:40],                                                     # truncated in a key
    b"PK\x03\x04 not a gguf at all",
    b"",
    _gguf(GOOD_KVS, version=1),
    _gguf([("general.name", 8, struct.pack("<Q", 2**40))]),                   # a 1 TiB string
    b"GGUF" + struct.pack("<IQQQ", 3, 0, 1, 2**40),                          # a 1 TiB key
    _gguf([("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 2**62))]),     # endless string array
    _gguf([("tokenizer.ggml.scores", 9, struct.pack("<IQ", 4, 2**62))]),     # endless number array
    _gguf([("nested", 9, struct.pack("<IQ", 9, 1) + struct.pack("<IQ", 4, 0))]),
    _gguf([("general.file_type", 4, struct.pack("<I", 999))]),               # no such quantisation
    _gguf([("general.architecture", 8, _s("qwen2"))]),                        # no file type at all
])
def test_quant_of_gguf_gives_none_for_bad_files(tmp_path, content):
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    assert quant_of_gguf(path) is None


def test_quant_of_gguf_gives_none_for_missing_paths_and_folders(tmp_path):
    assert quant_of_gguf(tmp_path / "missing.gguf") is None
    assert quant_of_gguf(tmp_path) is None
    assert quant_of_gguf(None) is None


@pytest.mark.parametrize(("text", "want"), [
    ("Q4_K - Medium", "Q4_K_M"), ("q4_k_m", "Q4_K_M"), ("Q8_0", "Q8_0"), ("F16", "F16"), ("BF16", "BF16"),
    ("all F32", "F32"), ("Q2_K - Medium", "Q2_K"), ("Q2_K - Small", "Q2_K_S"), ("Q3_K - Large", "Q3_K_L"),
    ("Q5_K - Small", "Q5_K_S"), ("Q4_K - Medium (guessed)", "Q4_K_M"), ("IQ2_XXS - 2.0625 bpw", "IQ2_XXS"),
    ("IQ3_S mix - 3.66 bpw", "IQ3_M"), ("  q6_k ", "Q6_K"), ("fp16", "F16"), ("something odd", "SOMETHING ODD"),
    (None, None), ("", None), ("   ", None),
])
def test_normalise_quant(text, want):
    assert normalise_quant(text) == want
