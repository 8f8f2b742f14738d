# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text):
    """Lower-case text with runs of other characters turned into single dashes."""
    return _NON_WORD.sub("-", text.lower()).strip("-")


def shorten(text, width=40):
    if len(text) <= width:
        return text
    return text[: width - 3] + "..."