# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from app.main import build_parser, main
from app.utils.strings import shorten, slugify


def test_parser_defaults():
    args = build_parser().parse_args([])
    assert args.port == 8080
    assert not args.debug


def test_main_returns_zero():
    assert main(["--port", "9000"]) == 0


def test_slugify():
    assert slugify("Hello, World!") == "hello-world"


def test_shorten():
    assert shorten("x" * 50, 10) == "xxxxxxx..."
    assert shorten("short") == "short"


def test_admin(admin):
    assert admin.is_admin()
