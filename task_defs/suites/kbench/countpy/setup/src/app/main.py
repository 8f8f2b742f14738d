# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Entry point of the inventory service."""
import argparse
import logging

from app.models.user import User
from app.utils.strings import slugify

log = logging.getLogger(__name__)


def build_parser():
    parser = argparse.ArgumentParser(description="inventory service")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--debug", action="store_true")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO)
    admin = User(name="Admin", email="admin@example.com")
    log.info("starting on port %d as %s", args.port, slugify(admin.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
