"""The hotkeys family: which default key does an action, or which action does a key, in bash, the terminal, tmux,
less, Vim, nano, GNOME and the browsers, answered as exactly one label of a deck's fixed list (hotkeys_pools).

Each fact is asked once: a deck's template takes its facts in a random order, one per trial, so a deck makes as
many trials as it has facts and every label of its list is right exactly once (the deck's weight is its number of
facts, and the family's target is their sum). A phrasing whose text names the right label more often than another
label is redrawn (classify.gives_away), so the answer is never read off the words."""

from __future__ import annotations

from task_defs.trials.generate.build import Draft, Template
from task_defs.trials.generate.classify import gives_away
from task_defs.trials.generate.hotkeys_pools import DECKS, Deck
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.words import cap, listed

ASK_KEY = ("{where}, which key would you press to {act}?", "Which key combination lets you {act} {where}?",
           "{Where}: I want to {act}. What is the default key for that?",
           "Keyboard question, {where}: how do you {act}?",
           "Quick one about shortcuts. {Where}, what do you press to {act}?")
ASK_ACTION = ("{where}, what does pressing {key} do?", "{Where}, I pressed {key}. What did that do by default?",
              "What is the default action of {key} {where}?",
              "Shortcut check, {where}: which action is bound to {key}?",
              "{Where}, someone presses {key}. What happens?")
# how the list of labels and the reply rule follow the question: inline, as a list, or as a bulleted block
OPTIONS = (" Answer with exactly one of: {comma}.", " Options: {comma}. Reply with one option, written exactly as "
           "shown.", "\n\nChoose one of:\n{bullets}\nAnswer with the option only.",
           " Pick {or_}; give just that option.")


class DeckTask:
    """One deck's trials: each fact once, in an order drawn from the generator."""

    def __init__(self, deck: Deck):
        self.deck = deck
        self.left = list(deck.facts)
        self._last: tuple[str, str] | None = None

    def template(self) -> Template:
        return Template(self.make, f"hotkeys_{self.deck.name}", self.commit)

    def make(self, rng: Rng) -> Draft | None:
        if not self.left:  # only reached if a target asks more trials than the deck has facts
            return None
        fact = rng.pick(self.left)
        d, labels = self.deck, self.deck.labels
        where = rng.pick(d.where)
        if d.direction == "keys":
            answer = fact[0]
            ask = rng.pick(ASK_KEY).format(where=where, Where=cap(where), act=fact[1])
        else:
            answer = fact[1]
            ask = rng.pick(ASK_ACTION).format(where=where, Where=cap(where), key=fact[0])
        options = rng.pick(OPTIONS).format(comma=", ".join(labels), or_=listed(list(labels), "or"),
                                           bullets="\n".join(f"- {x}" for x in labels))
        prompt = cap(ask) + options
        if gives_away(prompt, labels, answer):
            return None
        self._last = fact
        return Draft(prompt, {"kind": "label", "labels": list(labels), "answer": answer})

    def commit(self) -> None:
        self.left.remove(self._last)


def hotkeys_templates() -> list[tuple[Template, float]]:
    # fresh tasks each run (a task keeps the facts it has left); a deck's weight is its number of facts
    return [(DeckTask(deck).template(), len(deck.facts)) for deck in DECKS]


HOTKEY_FACTS = sum(len(d.facts) for d in DECKS)  # the family's target: every fact once
