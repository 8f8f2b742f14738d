"""The pi coding agent (npm, pinned), run inside the sandbox in JSON mode; its event stream is the record."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from sandbox.agents.builtin import SYSTEM_PROMPT
from sandbox.agents.record import EventLog, SessionStats, parse_event, shows_reasoning
from sandbox.agents.serverproxy import ServerProxy
from sandbox.agents.textcalls import parse_text_calls
from sandbox.engine.conditions import CONDITIONS, Condition
from sandbox.isolation.bwrap import CONTAINED, SYSTEM_PATH, IsolationConfig, sandbox_python
from sandbox.isolation.limits import MB, Limits
from sandbox.isolation.session import run_session
from sandbox.isolation.trees import remove_tree
from sandbox.isolation.workdirs import REPO_ROOT, private_copy

PI_PACKAGE = "@mariozechner/pi-coding-agent"
DEFAULT_NODE_MODULES = REPO_ROOT / "node_modules"
INSIDE_NODE_MODULES = "/opt/kbench/node_modules"
INSIDE_AGENT_DIR = "/opt/kbench/pi-agent"
INSIDE_EXTENSIONS = "/opt/kbench/extensions"
INSIDE_RELAY = "/opt/kbench/netrelay.py"
INSIDE_GUARD = "/opt/kbench/pi_guard.cjs"
INSIDE_NODE = "/opt/kbench/bin/node"  # the exec-only copy (exec_only_node)
INSIDE_PROXY_DIR = "/opt/kbench/proxy"
INSIDE_PROXY_PORT = 18080  # in the session's own network namespace: nothing else listens there
# undici parses every HTTP reply with llhttp compiled to WebAssembly. Its parser function runs hot enough in the
# first reply for V8 to recompile it with TurboFan in the background (~250 ms of a core, 40 MB), and node waits for
# that job before it exits: each session ended 0.25-0.5 s after pi's last event. Baseline code parses a reply fast.
NODE_FLAGS = ["--liftoff-only"]
RELAY = Path(__file__).resolve().parent / "netrelay.py"
GUARD = Path(__file__).resolve().parent / "pi_guard.cjs"
# Flags for llama.cpp-style servers: system role, no reasoning_effort, Qwen's template switch for thinking. pi
# then never sends a reasoning_effort; a run's --reasoning-effort is added by the proxy instead (PiAgent.run).
COMPAT = {"supportsDeveloperRole": False, "supportsReasoningEffort": False, "supportsStore": False,
          "maxTokensField": "max_tokens", "thinkingFormat": "qwen-chat-template"}
_INFRA = re.compile(r"connect|ECONN|socket|fetch failed|network|timed? ?out|terminated|premature|aborted|"
                    r"\b5\d\d\b|JSON|Unexpected (token|end)|stream|EPIPE|ENOTFOUND|overloaded|unavailable", re.I)
_PI_OWN_FILES = re.compile(r"^(~/\.pi/.*|/tmp/pi-bash-[0-9a-f]+\.log)$")  # pi's own files, not the model's
_FORMAT = re.compile(r"validation|invalid (argument|input|tool)|tool .*not found|unknown tool|must have required|"
                     r"expected (string|object|array|number)", re.I)


def node_modules_of(pi: str | Path | None) -> Path:
    """The node_modules folder holding pi: the repo's own (npm ci), or the one around --pi PATH."""
    if not pi:
        root = DEFAULT_NODE_MODULES
    else:
        p = Path(pi).resolve()
        root = next((a for a in [p, *p.parents] if a.name == "node_modules"), None)
        if root is None:
            raise ValueError(f"--pi {pi}: expected a path inside a node_modules folder that holds {PI_PACKAGE}")
    if not (root / PI_PACKAGE / "dist" / "cli.js").is_file():
        raise ValueError(f"pi is not installed in {root} (run `make setup`, which runs `npm ci`)")
    return root


def pi_version(node_modules: Path) -> str:
    return json.loads((node_modules / PI_PACKAGE / "package.json").read_text())["version"]


def write_pi_config(agent_dir: Path, url: str, model: str, conds: list[Condition], context_window: int = 32768) -> Path:
    """runs/RUNID/pi-agent/: a provider kb-COND per condition, settings without compaction or retries, our prompt.

    Every condition without an extension gets its provider whatever the run selected, so runs of other cells
    that share the RUNID (Dagster partitions, at once) write the very same files.
    """
    agent_dir.mkdir(parents=True, exist_ok=True)
    conds = list({c.name: c for c in [*CONDITIONS.values(), *conds] if not c.needs_extension or c.extension}.values())
    providers = {
        f"kb-{c.name}": {
            "baseUrl": url, "api": "openai-completions", "apiKey": "KBENCH_PI_KEY", "compat": COMPAT,
            "models": [{"id": model, "name": model, "contextWindow": context_window, "maxTokens": c.max_tokens,
                        "reasoning": c.thinking != "off", "input": ["text"]}],
        }
        for c in conds
    }
    for name, text in (("models.json", json.dumps({"providers": providers}, indent=2)),
                       ("settings.json",
                        json.dumps({"compaction": {"enabled": False}, "retry": {"enabled": False}}, indent=2)),
                       ("SYSTEM.md", SYSTEM_PROMPT),
                       # pi makes this file when it is missing: made here, anything in the folder afterwards that
                       # is new or changed was written by the session (and listed as an outside write)
                       ("auth.json", "{}")):
        tmp = agent_dir / f".{name}.{uuid.uuid4().hex}"
        tmp.write_text(text)
        os.replace(tmp, agent_dir / name)
    agent_dir.chmod(0o755)
    for f in agent_dir.iterdir():
        f.chmod(0o644)
    return agent_dir


def _thinking_of(message: dict) -> str:
    """The reasoning pi kept of a reply: its thinking parts (pi reads the server's reasoning_content into them)."""
    parts = message.get("content") if isinstance(message.get("content"), list) else []
    return "".join(p["thinking"] for p in parts
                   if isinstance(p, dict) and p.get("type") == "thinking" and isinstance(p.get("thinking"), str))


def _text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or []
                   if isinstance(part, dict) and part.get("type") == "text")


_DELTA = '{"type":"message_update"'  # how pi's JSON mode starts a delta line


def stats_from_events(lines: list[str], events: EventLog) -> SessionStats:
    """Count what pi did from its JSON events, and copy them into events.jsonl."""
    stats = SessionStats()
    last_error = None
    for line in lines:
        ev = parse_event(line)
        if ev is None:  # not an event, or one too deep to read safely (the model's arguments): kept as text
            if line.strip() and not line.startswith(_DELTA):  # a delta unread is dropped as a read one is
                events.write({"type": "pi_output", "text": line[:2000]})
            continue
        kind = ev.get("type")
        if kind == "message_update":
            continue  # deltas: the message_end event carries the whole message
        events.write({"type": "pi", "event": ev})
        if kind == "message_end" and ev.get("message", {}).get("role") == "assistant":
            msg = ev["message"]
            stats.turns += 1
            usage = msg.get("usage") or {}
            stats.input_tokens += int(usage.get("input", 0)) + int(usage.get("cacheRead", 0))
            stats.output_tokens += int(usage.get("output", 0))
            reason = msg.get("stopReason", "")
            stats.stop_reason = {"toolUse": "tool_use"}.get(reason, reason)
            stats.cutoffs += reason == "length"
            last_error = msg.get("errorMessage") if reason == "error" else None
            text = _text_of(msg)
            if reason not in ("error", "aborted"):  # a reply the server sent, not pi's note of a failure
                stats.note_reply(shows_reasoning(text, _thinking_of(msg), None))
            has_call = any(isinstance(p, dict) and p.get("type") == "toolCall" for p in msg.get("content") or [])
            if not has_call:
                stats.final_message = text
                stats.tool_format_errors += len(parse_text_calls(text))  # pi cannot run calls written as text
        elif kind == "tool_execution_end":
            result = ev.get("result")
            result_text = json.dumps(result)[:2000] if not isinstance(result, str) else result
            if ev.get("isError") and _FORMAT.search(result_text):
                stats.tool_format_errors += 1
            else:
                stats.tool_calls += 1
                stats.native_calls += 1
                stats.tool_errors += bool(ev.get("isError"))
    if stats.stop_reason == "error":
        message = last_error or "pi reported an error with no message"
        if _INFRA.search(message):
            stats.infra_error = message[:500]  # only pi's claim: PiAgent._judge keeps it where the proxy agrees
        else:
            stats.server_error = message[:500]
    return stats


def exec_only_node(search_path: str, cache: Path | None = None) -> Path:
    """A copy of node that the sandbox user may run but not read (mode 0111), made once per node binary.

    The kernel makes a process that runs a file it cannot read non-dumpable: no process of its uid may then ptrace
    it or open its /proc memory, environment or file descriptors. pi runs as the same uid as the model's commands
    (its children); this keeps them out of pi. It holds only when the process that starts node has no capability
    to read the file anyway: the relay, an ordinary process of the sandbox uid.
    """
    found = shutil.which("node", path=search_path)
    if not found:
        raise RuntimeError(f"node is not on the sandbox's PATH ({search_path}): pi needs Node 20")
    src = Path(found).resolve()
    st = src.stat()
    root = cache or Path.home() / ".cache" / "kbench" / "node"
    dest = root / f"{st.st_size}-{st.st_mtime_ns}" / "node"
    if not dest.exists():
        for old in root.glob("*/node"):  # another node since: its copy is of no further use
            shutil.rmtree(old.parent, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".node.{uuid.uuid4().hex}")
        shutil.copyfile(src, tmp)
        tmp.chmod(0o111)
        os.replace(tmp, dest)
    return dest


@dataclass
class PiAgent:
    proxy: ServerProxy  # pi's only way to the server: holds the key, judges each reply
    model: str
    agent_dir: Path  # written by write_pi_config
    node_modules: Path = DEFAULT_NODE_MODULES

    def run(self, prompt: str, workdir: Path, cond: Condition, cfg: IsolationConfig, limits: Limits,
            events: EventLog, log_path: Path | None = None) -> SessionStats:
        bwrap = cfg.resolve() in CONTAINED  # bwrap or a container: pi has no network, only the relay
        # pi writes lock files into its config folder: each session gets its own writable copy.
        session_dir = private_copy({"pi-agent": self.agent_dir}, near=workdir)
        own_agent_dir = session_dir / "pi-agent"
        # The run's record names the real server; this session's copy points pi at this process's proxy.
        models = json.loads((own_agent_dir / "models.json").read_text())
        for provider in models["providers"].values():
            # Under bwrap pi has no network: it reaches the proxy through the relay's port in its own namespace.
            provider["baseUrl"] = f"http://127.0.0.1:{INSIDE_PROXY_PORT}/v1" if bwrap else self.proxy.url
        (own_agent_dir / "models.json").write_text(json.dumps(models, indent=2))
        events.write({"type": "prompt", "agent": "pi", "text": prompt})
        raw = Path(events.path).with_suffix(f".pi{events.session}.raw")
        # Only pi may know it: the proxy forwards a sandboxed session's requests only with this token. pi holds it
        # in its environment, which its children do not inherit (pi_guard.cjs) and nothing else can read.
        token = f"kbench-session-{uuid.uuid4().hex}"
        # what pi cannot send (COMPAT has it send no reasoning_effort, and it has no sampling flags) the proxy sets
        self.proxy.set_request_fields(token, {**cond.sampling(), **cond.effort()})
        self.proxy.set_step_limit(token, limits.max_turns)
        with self.proxy.session(token) if bwrap else contextlib.nullcontext() as sock:
            cmd, binds = self._command(cond, cfg, sock)
            res = run_session(cmd + [prompt], workdir, limits=limits.with_(max_output_bytes=64 * MB), cfg=cfg,
                              env={"PI_CODING_AGENT_DIR": INSIDE_AGENT_DIR if bwrap else str(own_agent_dir),
                                   "KBENCH_PI_KEY": token},
                              output_path=raw, ro_binds=binds, log_path=log_path, label="pi",
                              rw_binds=[(own_agent_dir, INSIDE_AGENT_DIR)] if bwrap else [], network=not bwrap)
        remove_tree(session_dir, ignore_errors=True)  # writable by the session: any tree can be there
        lines = raw.read_text(encoding="utf-8", errors="replace").splitlines() if raw.exists() else []
        raw.unlink(missing_ok=True)
        stats = stats_from_events(lines, events)
        stats.duration_s = res.duration_s
        stats.kills = res.kill_count
        stats.outside_writes = [w for w in res.outside_writes if not _PI_OWN_FILES.match(w)]
        self._judge(stats, res, token, events)
        events.write({"type": "pi_exit", "returncode": res.returncode, "timed_out": res.timed_out})
        return stats

    def _command(self, cond: Condition, cfg: IsolationConfig, sock: Path | None) -> tuple[list[str], list]:
        """pi's command line and its read-only binds; under bwrap behind the relay to the session's socket."""
        if sock is None:
            return ["node", *NODE_FLAGS, "--require", str(GUARD), f"{self.node_modules}/{PI_PACKAGE}/dist/cli.js",
                    *self._flags(cond, str(Path(cond.extension).parent) if cond.extension else "")], []
        node = exec_only_node(":".join([*cfg.path_prefix, SYSTEM_PATH]))
        binds: list = [(self.node_modules, INSIDE_NODE_MODULES), (RELAY, INSIDE_RELAY), (GUARD, INSIDE_GUARD),
                       (node, INSIDE_NODE), (sock.parent, INSIDE_PROXY_DIR)]
        if cond.extension:
            binds.append((Path(cond.extension).parent, INSIDE_EXTENSIONS))
        return [sandbox_python(), INSIDE_RELAY, f"{INSIDE_PROXY_DIR}/{sock.name}", str(INSIDE_PROXY_PORT), "--",
                INSIDE_NODE, *NODE_FLAGS, "--require", INSIDE_GUARD, f"{INSIDE_NODE_MODULES}/{PI_PACKAGE}/dist/cli.js",
                *self._flags(cond, INSIDE_EXTENSIONS)], binds

    def _flags(self, cond: Condition, extensions: str) -> list[str]:
        flags = ["-p", "--no-session", "--mode", "json", "--provider", f"kb-{cond.name}", "--model", self.model,
                 "--thinking", cond.thinking]
        if cond.extension:
            flags += ["--extension", f"{extensions}/{Path(cond.extension).name}"]
        return flags

    def _judge(self, stats: SessionStats, res, token: str, events: EventLog) -> None:
        """Infra is only what the server did. pi's own word does not count (a cut stream looks like an answer to
        it, and anything that breaks its connection looks like the server); the proxy's record of the session
        does, unless the sandbox misbehaved: then whatever the replies looked like is the model's doing."""
        wire = self.proxy.chat_log(token)
        stats.requests = self.proxy.speed_log(token)
        for timing in stats.requests:
            events.write({"type": "speed", **timing})
        broken = [p for p in wire if p]
        if broken:
            events.write({"type": "server_faults", "count": len(broken), "of": len(wire), "faults": broken[:20]})
        tampered = self.proxy.sandbox_log(token)
        if tampered:
            events.write({"type": "sandbox_faults", "count": len(tampered), "faults": tampered[:20]})
        claimed, stats.infra_error = stats.infra_error, None
        if self.proxy.over_step_limit(token):  # pi ended on the proxy's refusal: the task's limit, not an error
            stats.stop_reason, stats.server_error, claimed = "max_turns", None, None
            events.write({"type": "step_limit", "message": "the task's step limit ended the session"})
        waited = self.proxy.waiting_s(token)
        if res.timed_out:
            stats.stop_reason = "timeout"
        elif res.returncode is not None and (res.returncode < 0 or res.returncode > 128):
            # pi was ended by a signal: a limit the model's commands ran into (file size, memory, processes), or
            # the model's commands themselves
            stats.stop_reason = "killed"
        elif not tampered:  # else the sandbox misbehaved: whatever the replies looked like, the model's doing
            if wire and wire[-1]:
                # pi ended on a reply the server broke (pi may even have taken a cut stream as its answer)
                stats.infra_error = wire[-1]
            elif claimed and waited is not None:
                stats.infra_error = f"pi gave up on a reply the server had not sent after {waited:.0f} s: {claimed}"
            elif stats.turns == 0 and not wire and res.returncode != 0:
                stats.infra_error = f"pi exited {res.returncode} before any reply: {res.tail[-400:]}"
        if claimed and not stats.infra_error:
            events.write({"type": "pi_error", "message": claimed, "infra": False,
                          "why": "the proxy saw no server fault that pi's error could come from"})
