"""What an image's ENTRYPOINT costs a session on the docker backend, in one run: the wall time of a session whose
command is `true`, in an image without an ENTRYPOINT and in the same image with one that starts a server in the
background (Harbor's usual use) and runs its arguments. The difference is the entrypoint, the wait until what it
started has settled (sandbox/containers/entrypoint.py) and the root-to-uid drop; the verifier's session pays it too.
Needs a Docker engine and the base image (make docker-image).

    .venv/bin/python bench/entrypoint_sessions.py [N]
"""

import json
import statistics
import sys
import tempfile
from pathlib import Path

from sandbox.containers import engine, task_images
from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import AGENT_LIMITS
from sandbox.isolation.session import run_session

N = int(sys.argv[1]) if len(sys.argv) > 1 else 10
PLAIN = "FROM debian:bookworm-slim\nWORKDIR /app\n"
START = "#!/bin/sh\ncd /srv && python3 -m http.server 80 --bind 127.0.0.1 >/dev/null 2>&1 &\nexec \"$@\"\n"
SERVED = PLAIN + "COPY start.sh /usr/local/bin/start\nRUN chmod 755 /usr/local/bin/start\n" \
                 'ENTRYPOINT ["/usr/local/bin/start"]\n'


def image(root: Path, name: str, dockerfile: str) -> str:
    context = root / name
    context.mkdir()
    (context / "Dockerfile").write_text(dockerfile)
    (context / "start.sh").write_text(START)
    rec = task_images.recipe(context, name)
    task_images.build(rec, engine.client(), timeout_s=300, log=lambda _m: None)
    return rec.name


def session_walls(root: Path, name: str) -> list[float]:
    walls = []
    for _ in range(N):
        work = Path(tempfile.mkdtemp(prefix="w-", dir=root))
        work.chmod(0o755)
        res = run_session(["true"], work, limits=AGENT_LIMITS.with_(timeout_s=60),
                          cfg=IsolationConfig(mode="docker", image=name, work_mounts=((".", "/app"),)))
        assert res.returncode == 0 and not res.timed_out, res
        walls.append(res.duration_s)
    return walls


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="kbench-bench-", dir="/var/tmp") as tmp:
        root = Path(tmp)
        root.chmod(0o755)
        plain, served = image(root, "plain", PLAIN), image(root, "served", SERVED)
        session_walls(root, plain)  # the first container of an image pays the engine's first look at it
        a, b = statistics.median(session_walls(root, plain)), statistics.median(session_walls(root, served))
    print(json.dumps({"sessions": N, "plain_session_s": round(a, 3), "entrypoint_session_s": round(b, 3),
                      "entrypoint_cost_s": round(b - a, 3), "ratio": round(b / a, 2)}))


if __name__ == "__main__":
    main()
