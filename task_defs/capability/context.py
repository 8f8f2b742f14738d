"""The long-context items' documents, sized to the endpoint's context window.

The size: the server's own context length where it says one (llama.cpp's /props n_ctx), else DEFAULT_TOKENS; the
document takes the item's `fill` share of it (half by default), at CHARS_PER_TOKEN characters a token, a low
figure for plain English filler, so the prompt and the reply fit whatever the tokenizer. The filler is built from a
seeded generator, so the same item at the same size is the same document on every machine, and the needles sit at
fixed fractions of it. The size used is recorded with each reply."""

from __future__ import annotations

import random

from task_defs.capability.models import LongContext

DEFAULT_TOKENS = 8192
CHARS_PER_TOKEN = 3.2
MIN_CHARS = 2_000

_SUBJECTS = ("The harbour office", "A night courier", "The weather station", "The archive clerk", "A ferry crew",
             "The orchard team", "The survey party", "A signal engineer", "The bakery on Mill Lane", "The choir")
_VERBS = ("logged", "reported", "repainted", "counted", "inspected", "moved", "catalogued", "measured", "repaired",
          "photographed")
_OBJECTS = ("the north pier", "three crates of tiles", "the old lighthouse lamp", "a row of birch saplings",
            "the tide tables", "two bicycles", "the east stairwell", "a box of maps", "the bell rope",
            "the drainage ditch")
_WHEN = ("before dawn", "on a windy afternoon", "after the market closed", "during the long holiday",
         "in light rain", "at the end of the shift", "while the road was closed", "on the first warm day")


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_WHEN)}."


def document_chars(ctx: LongContext, context_tokens: int | None) -> int:
    return max(MIN_CHARS, int((context_tokens or DEFAULT_TOKENS) * ctx.fill * CHARS_PER_TOKEN))


def build_document(ctx: LongContext, context_tokens: int | None) -> str:
    """Filler paragraphs of about document_chars characters with each needle at its fraction."""
    size = document_chars(ctx, context_tokens)
    rng = random.Random(ctx.seed)
    sentences: list[str] = []
    length = 0
    while length < size:
        s = _sentence(rng)
        sentences.append(s)
        length += len(s) + 1
    for fraction, needle in sorted(ctx.needles, reverse=True):
        sentences.insert(min(len(sentences), int(fraction * len(sentences))), needle)
    paragraphs = [" ".join(sentences[i:i + 6]) for i in range(0, len(sentences), 6)]
    return "\n\n".join(paragraphs)


def prompt_text(prompt: str, ctx: LongContext | None, context_tokens: int | None) -> str:
    """The prompt as sent: the document in its place for a long-context item."""
    return prompt.replace("{document}", build_document(ctx, context_tokens)) if ctx is not None else prompt
