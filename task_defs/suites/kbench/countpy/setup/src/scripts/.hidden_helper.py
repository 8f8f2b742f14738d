# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
"""Helper kept out of sight on purpose: bumps the version number."""
import pathlib
import re

VERSION_FILE = pathlib.Path(__file__).with_name("VERSION")


def bump():
    text = VERSION_FILE.read_text()
    major, minor, patch = map(int, re.findall(r"\d+", text)[:3])
    VERSION_FILE.write_text(f"{major}.{minor}.{patch + 1}\n")


if __name__ == "__main__":
    bump()
