"""Runs inside a sandbox that has no network of its own: listens on 127.0.0.1:PORT there and relays each
connection to a Unix socket bound in from outside (the model proxy), then runs the command and exits with its
status. So pi reaches the model through the proxy and nothing else of the host: not the model server directly, not
the Dagster UI, not another session. Stdlib only; started with the system Python inside bwrap.

The relay makes itself non-dumpable before anything else runs: it holds the session token in its environment and
pi's output pipe, and runs as the same uid as the model's commands, which could otherwise open its /proc files
(environ, fd, mem) and read the token or write forged events into pi's output.

    python3 netrelay.py SOCKET PORT -- COMMAND...
"""

import ctypes
import socket
import subprocess
import sys
import threading

PR_SET_DUMPABLE = 4


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: netrelay.py SOCKET PORT -- COMMAND...", file=sys.stderr)
        return 2
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        print(f"netrelay: cannot make itself non-dumpable (errno {ctypes.get_errno()})", file=sys.stderr)
        return 2
    path, port, cmd = argv[0], int(argv[1]), argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    rc = subprocess.call(cmd)
    return rc if rc >= 0 else 128 - rc  # killed by a signal: the shell's convention, as the caller expects


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
