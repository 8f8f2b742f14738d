"""Say what model server a run talked to, by asking the server itself over HTTP.

A score is only comparable with another when both came from the same engine, build, model file, quantisation and
context size, so the run manifest and the endpoints table keep those next to the results. Servers differ in what
they report and where: llama.cpp answers /props, vLLM answers /version and marks its models, Ollama has its own
/api/*, and anything else may at least name a model and send a Server header. This module asks each in turn and
writes UNKNOWN for whatever no server said, so a missing fact is visible instead of guessed.

Nothing here raises for server trouble: a description is a record, and a dead or odd server must not stop a run.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import struct
import urllib.error
import urllib.request

from sandbox.servers.probe import _root

UNKNOWN = "unknown"
FIELDS = ("engine", "engine_version", "build", "model_id", "model_file", "quant", "n_ctx", "slots",
          "sampling_defaults", "server_header")

# A server is a stranger: cap what we read from it and what we copy into the record.
_MAX_BODY = 4 << 20
_MAX_TEXT = 200
_SAMPLING_KEYS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed")
# llama.cpp and Ollama both spell "a new seed every request" as one of these.
_RANDOM_SEEDS = (4294967295, -1)
_HEADER_ENGINES = (("llama.cpp", "llama.cpp"), ("vllm", "vLLM"), ("ollama", "Ollama"), ("lm studio", "LM Studio"),
                   ("kbench-scripted", "kbench scripted"))


class _Prober:
    """Remembers, across probes, which paths answered and the Server header, and gives up on a server that is
    plainly not there so a dead URL costs one connection attempt rather than one timeout per probe."""

    def __init__(self, url: str, api_key: str | None, timeout: float):
        self.root, self.api_key, self.timeout = _root(url), api_key, timeout
        self.answered: list[str] = []
        self.server_header: str | None = None
        self.heard_back, self.timeouts = False, 0
        # urllib would also open file:// and ftp:// URLs; a model server is only ever reached over HTTP.
        self.gone = not self.root.lower().startswith(("http://", "https://"))

    def ask(self, path: str, body: dict | None = None):
        """The JSON reply to GET (or POST, when there is a body) ROOT+path, or None for anything else."""
        if self.gone:
            return None
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        try:
            req = urllib.request.Request(self.root + path, data=data, headers=headers)  # raises on a malformed URL
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                self._note_server(resp.headers)
                raw = resp.read(_MAX_BODY + 1)
        except urllib.error.HTTPError as exc:
            # An error page still proves the server is there, and often still names it.
            self._note_server(exc.headers)
            exc.close()
            return None
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
            self._note_failure(exc)
            return None
        if len(raw) > _MAX_BODY:
            return None
        try:
            reply = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):  # deeply nested JSON overflows the parser's stack
            return None
        self.answered.append(path)
        return reply

    def _note_server(self, headers) -> None:
        self.heard_back = True
        server = headers.get("Server") if headers is not None else None
        if server and self.server_header is None:
            self.server_header = str(server)[:_MAX_TEXT]

    def _note_failure(self, exc: Exception) -> None:
        if self.heard_back:
            return
        # A refused or unresolvable address will not start answering a moment later; a timeout might just be a
        # busy server, so only a second one before any reply counts as dead.
        timed_out = isinstance(getattr(exc, "reason", exc), TimeoutError)
        self.timeouts += timed_out
        self.gone = not timed_out or self.timeouts >= 2


def _text(value) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()[:_MAX_TEXT]
    return None


def _int(value) -> int | None:
    # JSON true is an int to Python, but a context size of True is nonsense.
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _sampling(source: dict) -> dict:
    """The few sampling settings worth recording, rounded so float32 noise does not read as a different setting."""
    out = {}
    for key in _SAMPLING_KEYS:
        value = source.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            continue
        if key == "seed" and value in _RANDOM_SEEDS:
            out[key] = "random"
        else:
            out[key] = round(value, 4) if isinstance(value, float) else value
    return out


def _first_model(models) -> dict:
    data = models.get("data") if isinstance(models, dict) else None
    first = data[0] if isinstance(data, list) and data else None
    return first if isinstance(first, dict) else {}


def _fill(out: dict, key: str, value) -> None:
    """Set a field only while nothing better is known, so the earlier, more specific probe wins."""
    if value is not None and out.get(key) in (UNKNOWN, None, {}):
        out[key] = value


def _read_llama_cpp(out: dict, props: dict, model: dict) -> None:
    out["engine"] = "llama.cpp"
    build = _text(props.get("build_info"))
    _fill(out, "build", build)
    _fill(out, "engine_version", build)
    settings = props.get("default_generation_settings")
    settings = settings if isinstance(settings, dict) else {}
    meta = model.get("meta") if isinstance(model.get("meta"), dict) else {}
    # Newer builds nest n_ctx and the sampling params; older ones put them a level or two higher.
    _fill(out, "n_ctx", _int(settings.get("n_ctx")) or _int(props.get("n_ctx")) or _int(meta.get("n_ctx")))
    _fill(out, "slots", _int(props.get("total_slots")))
    params = settings.get("params")
    _fill(out, "sampling_defaults", _sampling(params if isinstance(params, dict) else settings) or None)
    _fill(out, "model_id", _text(props.get("model_alias")))
    path = props.get("model_path")
    path = path.strip() if isinstance(path, str) else ""
    # Only the file name: the folder holds the host's user name, and the record may be shared.
    _fill(out, "model_file", _text(re.split(r"[\\/]", path)[-1]))
    quant = normalise_quant(_text(props.get("model_ftype")) or _text(meta.get("ftype")))
    if quant is None and path:
        quant = quant_of_gguf(path)  # None unless that file is here, on this machine
    _fill(out, "quant", quant)


def _read_ollama(out: dict, prober: _Prober, version: dict) -> None:
    out["engine"] = "Ollama"
    _fill(out, "engine_version", _text(version.get("version")))
    if out["model_id"] == UNKNOWN:
        return
    show = prober.ask("/api/show", {"model": out["model_id"]})
    if not isinstance(show, dict):
        return
    details = show.get("details") if isinstance(show.get("details"), dict) else {}
    _fill(out, "quant", normalise_quant(_text(details.get("quantization_level"))))
    # "parameters" is the Modelfile's PARAMETER lines: "name value", some names (stop) repeated.
    params = {}
    raw = show.get("parameters")
    for line in raw.splitlines() if isinstance(raw, str) else ():
        name, _, value = line.strip().partition(" ")
        value = value.strip()
        if re.fullmatch(r"-?\d+", value):
            params[name] = int(value)
        elif re.fullmatch(r"-?\d*\.\d+(e-?\d+)?", value):
            params[name] = float(value)
    info = show.get("model_info") if isinstance(show.get("model_info"), dict) else {}
    trained = next((_int(v) for k, v in info.items() if str(k).endswith(".context_length") and _int(v)), None)
    # num_ctx is what the server will actually use; the trained length is only the ceiling.
    _fill(out, "n_ctx", _int(params.get("num_ctx")) or trained)
    _fill(out, "sampling_defaults", _sampling(params) or None)


def describe_endpoint(url: str, api_key: str | None = None, *, timeout: float = 3.0) -> dict:
    """Every FIELD (what the server does not say is UNKNOWN, or {} for sampling_defaults) plus
    "answered": list of the probe paths that answered (e.g. ["/props", "/v1/models"])."""
    out: dict = {field: UNKNOWN for field in FIELDS}
    out["sampling_defaults"] = {}
    prober = _Prober(url, api_key, timeout)
    # The models list lives under the URL clients use, which is not always ROOT/v1.
    models_path = url.rstrip("/")[len(prober.root):] + "/models"

    props = prober.ask("/props")
    models = prober.ask(models_path)
    model = _first_model(models)
    _fill(out, "model_id", _text(model.get("id")))

    # total_slots alone is no proof: other servers (our scripted one) answer /props with their slots too
    if isinstance(props, dict) and any(k in props for k in ("default_generation_settings", "build_info",
                                                            "model_path")):
        _read_llama_cpp(out, props, model)
    elif model.get("owned_by") == "vllm":
        # /version alone proves nothing (many servers have one); the vllm owner on a model does.
        out["engine"] = "vLLM"
        version = prober.ask("/version")
        _fill(out, "engine_version", _text(version.get("version")) if isinstance(version, dict) else None)
        _fill(out, "n_ctx", _int(model.get("max_model_len")))
    else:
        version = prober.ask("/api/version")
        if isinstance(version, dict) and _text(version.get("version")):
            _read_ollama(out, prober, version)

    if isinstance(props, dict):
        _fill(out, "slots", _int(props.get("total_slots")))
    if prober.server_header:
        out["server_header"] = prober.server_header
        if out["engine"] == UNKNOWN:
            lowered = prober.server_header.lower()
            out["engine"] = next((name for needle, name in _HEADER_ENGINES if needle in lowered), UNKNOWN)
    out["answered"] = prober.answered
    return out


def with_declared(described: dict, declared: dict) -> dict:
    """described with every non-empty declared value put over it (a declared value wins over a guess); adds
    "declared": sorted list of the keys that came from the declaration."""
    out = dict(described)
    keys = set(out.get("declared") or ())
    for key, value in (declared or {}).items():
        # An empty or "unknown" entry in a config is a blank to fill, not a claim that erases what was probed.
        if key in ("answered", "declared") or value is None or value == UNKNOWN or value in ("", {}, []):
            continue
        if key == "quant":
            value = normalise_quant(str(value))
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            # Declaring one sampling setting should not throw away the others the server reported.
            value = {**out[key], **value}
        out[key] = value
        keys.add(key)
    out["declared"] = sorted(keys)
    return out


# llama.cpp's LLAMA_FTYPE numbers, as stored in a GGUF header's general.file_type.
_FTYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
           12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
           19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
           26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16"}
# GGUF value type -> struct format of its fixed-size scalar; 8 (string) and 9 (array) are handled apart.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
# The header is read from a file someone downloaded; these bounds keep a hostile one from costing much.
_MAX_STRING = 1 << 20
_MAX_KEYS = 10_000
_MAX_HEADER = 64 << 20


def _take(f, fmt: str):
    size = struct.calcsize(fmt)
    raw = f.read(size)
    if len(raw) != size or f.tell() > _MAX_HEADER:
        raise ValueError("short or oversized GGUF header")
    return struct.unpack(fmt, raw)[0]


def _skip(f, vtype: int) -> None:
    """Move past one value by seeking, so even a huge array is never held in memory."""
    etype, count = (_take(f, "<I"), _take(f, "<Q")) if vtype == 9 else (vtype, 1)
    if etype in _SCALARS:
        f.seek(struct.calcsize(_SCALARS[etype]) * count, 1)
    elif etype == 8:
        # Strings have no fixed size, so walk them one by one; _take's header bound ends a walk that claims
        # billions of them.
        for _ in range(count):
            length = _take(f, "<Q")
            if length > _MAX_STRING:
                raise ValueError("GGUF string too long")
            f.seek(length, 1)
    else:
        raise ValueError("nested GGUF array")  # llama.cpp neither writes nor reads them
    if f.tell() > _MAX_HEADER:
        raise ValueError("GGUF header too long")


def quant_of_gguf(path) -> str | None:
    """The quantisation named in a local GGUF file's header (general.file_type), e.g. "Q4_K_M"; None when the
    file is missing, unreadable or not GGUF."""
    try:
        if not os.path.isfile(path):
            return None  # also keeps us off FIFOs and devices, which could block or never end
        with open(path, "rb") as f:
            if f.read(4) != b"GGUF" or _take(f, "<I") not in (2, 3):
                return None
            _take(f, "<Q")  # tensor count: not needed
            for _ in range(min(_take(f, "<Q"), _MAX_KEYS)):
                length = _take(f, "<Q")
                if length > _MAX_STRING:
                    return None
                key = f.read(length).decode("utf-8")
                vtype = _take(f, "<I")
                if key == "general.file_type" and vtype in _SCALARS and vtype not in (6, 7, 12):
                    return _FTYPES.get(_take(f, _SCALARS[vtype]))
                _skip(f, vtype)
    except (OSError, TypeError, ValueError, OverflowError):
        return None
    return None


_QUANT_ALIASES = {"ALL F32": "F32", "FP32": "F32", "FP16": "F16", "IQ3_S MIX": "IQ3_M", "MXFP4 MOE": "MXFP4_MOE"}
_SIZES = {"SMALL": "S", "MEDIUM": "M", "LARGE": "L", "EXTRA SMALL": "XS"}


def normalise_quant(text: str | None) -> str | None:
    """Engine spellings to one: "Q4_K - Medium" -> "Q4_K_M", "q4_k_m" -> "Q4_K_M", "Q8_0" -> "Q8_0", "F16" -> "F16",
    "BF16"..., anything unrecognised returned upper-cased as given; None/"" -> None."""
    if not text or not str(text).strip():
        return None
    given = str(text).strip().upper()
    name = given.removesuffix("(GUESSED)").strip().removeprefix("LLAMA_FTYPE_").removeprefix("MOSTLY_")
    head, _, tail = name.partition(" - ")
    head = _QUANT_ALIASES.get(head, head)
    if not re.fullmatch(r"[A-Z0-9_]+", head):
        return given
    if not tail:
        return head
    # llama.cpp writes K-quant sizes as words, and calls plain Q2_K "Medium" although it has no _M suffix.
    if re.fullmatch(r"Q\d_K", head) and tail in _SIZES:
        return head if (head, tail) == ("Q2_K", "MEDIUM") else f"{head}_{_SIZES[tail]}"
    # Importance quants carry their bits per weight after the dash; the name before it is the whole answer.
    return head if "BPW" in tail else given
