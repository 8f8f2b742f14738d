"""`kbench board --serve`: the written board on 127.0.0.1, until Ctrl-C or SIGTERM."""

from __future__ import annotations

import functools
import http.server
import signal
from pathlib import Path


def serve(out_dir: Path, port: int = 8000) -> None:
    """Serve the written board on 127.0.0.1 until Ctrl-C or SIGTERM."""
    handler = functools.partial(_QuietHandler, directory=str(out_dir))
    try:
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise ValueError(f"cannot serve the board on 127.0.0.1:{port} ({exc.strerror}): "
                         "pick another port with --port") from None
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    with httpd:
        print(f"serving {out_dir} at http://127.0.0.1:{httpd.server_address[1]}/ (Ctrl-C stops)", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # a line per request on stderr drowns the one line that matters: where the board is
