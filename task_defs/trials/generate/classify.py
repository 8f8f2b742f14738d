"""The classify family: label one text from a fixed list (intent, sentiment, department, language, ...), some texts
coming back as robustness variants (typos, distraction, a wrong hint), with answers spread evenly over each list."""

from __future__ import annotations

import re
from typing import Callable

from task_defs.trials.generate.build import Draft, Template
from task_defs.trials.generate.classify_texts import (
    CLS_POOLS,
    DAIRY_EGGS,
    DEPARTMENTS,
    DEPT_POOLS,
    DEV_POOLS,
    DEVICES,
    EXP_POOLS,
    EXPENSES,
    FILETYPES,
    INTENTS,
    LANG_TEXTS,
    MEAT,
    ONL_POOLS,
    ONLINE,
    PII,
    PII_POOLS,
    PLANTS,
    SENT_POOLS,
    SENTIMENT,
    SEV_POOLS,
    SEVERITY,
    SHELL,
    SPAM,
    SPAM_POOLS,
    SPEECH,
    SPEECH_POOLS,
    URG_POOLS,
    URGENCY,
)
from task_defs.trials.generate.pools import code
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.words import WEEKDAYS, cap, listed

NOISE_BEFORE = ("Forwarded from the shared inbox on {day}:", "Copied from ticket #{n} (queue: triage, owner: none):",
                "Here it is exactly as it reached us, headers and all:",
                "Pasted from a chat log, so excuse the formatting:", "From the overnight queue, item {n} of {m}:")
NOISE_AFTER = ("Sent from my phone", "--\nThis message was scanned by the mail gateway.", "Reply above this line.",
               "({n} people found this helpful · Report)", "[end of paste]", "Ref: {code}-{n}")
HINTS = ("A colleague guessed {w} for this one, but please judge it yourself.",
         "The last person who looked at this said {w}; I'm not convinced.",
         "My first instinct was {w}, though I may well be wrong.",
         "Autocomplete suggested {w}. Ignore that and decide from the text.")


def typo(rng: Rng, text: str, keep: set[str], rate: float = 0.3) -> str:
    """Keyboard slips in longer words (a swap, a dropped or a doubled letter); words in `keep` stay whole, so the
    label list remains exact."""
    def slip(m: re.Match) -> str:
        w = m.group(0)
        if w.casefold() in keep or len(w) < 5 or not rng.chance(rate):
            return w
        i = rng.between(1, len(w) - 3)
        kind = rng.below(3)
        if kind == 0:
            return w[:i] + w[i + 1] + w[i] + w[i + 2:]
        return w[:i] + w[i + 1:] if kind == 1 else w[:i] + w[i] + w[i:]
    return re.sub(r"[A-Za-z]+", slip, text)


def gives_away(text: str, labels: tuple[str, ...], answer: str) -> bool:
    """The text names the right label more often than some other label: reading labels off the words would find
    it (`kbench trials probe`, the label the text names)."""
    t = text.casefold()
    counts = [t.count(x.casefold()) for x in labels]
    return counts[labels.index(answer)] > min(counts)


class LabelTask:
    """One judgment over a fixed label list (the list's order never changes, so the most common label stays a
    chance guess). Each new text takes the label with the fewest trials so far (ties broken at random), so each label
    is right about equally often, variants included; a text may come back as a robustness variant (another
    phrasing, typos, distraction)."""

    def __init__(self, name: str, labels: tuple[str, ...], item: Callable[[Rng, str], str], asks: tuple[str, ...],
                 leads: tuple[str, ...], typo_item: bool = True):
        self.name, self.labels, self.item, self.asks, self.leads = name, labels, item, asks, leads
        self.typo_item = typo_item
        self.keep = {w for x in labels for w in re.split(r"[^a-z]+", x.casefold()) if w}
        self._count = dict.fromkeys(labels, 0)
        self._answer: str | None = None
        self._again: tuple[str, str, set[str]] | None = None  # text, answer, styles used: a variant to make
        self._last: tuple[str, str, str] | None = None
        self._texts: set[str] = set()  # base texts used: a text comes back only as its own robustness variant

    def template(self) -> Template:
        return Template(self.make, self.name, self.commit)

    def make(self, rng: Rng) -> Draft | None:
        if self._again is not None:
            text, answer, used = self._again
            styles = [s for s in ("plain", "typos", "distract", "hint") if s not in used]
            if not styles:
                self._again = None
                return None
            style = rng.pick(styles)
        else:
            if self._answer is None:
                self._answer = min(rng.shuffled(self.labels), key=self._count.__getitem__)
            answer = self._answer
            text = self.item(rng, answer)
            if text in self._texts:
                return None
            style = rng.weighted({"plain": 6, "typos": 2, "distract": 1, "hint": 1})
        prompt = self.compose(rng, text, answer, style)
        if gives_away(prompt, self.labels, answer):
            return None
        self._last = (text, answer, style)
        return Draft(prompt, {"kind": "label", "labels": list(self.labels), "answer": answer})

    def commit(self) -> None:
        text, answer, style = self._last
        self._count[answer] += 1
        if self._again is not None:
            # a group is the text and one variant, or two when the text's length is even
            self._again[2].add(style)
            ahead = self._count[answer] + 1 - min(self._count.values())
            self._again = self._again if len(self._again[2]) < 3 and len(text) % 2 == 0 and ahead <= 2 else None
        else:
            self._answer = None
            self._texts.add(text)
            # about one text in three comes back as a robustness variant (chosen by the text's length: commit has
            # no generator to draw from), unless that would put its label two trials ahead of the rarest one
            ahead = self._count[answer] + 1 - min(self._count.values())
            self._again = (text, answer, {style}) if len(text) % 3 == 0 and ahead <= 2 else None

    def compose(self, rng: Rng, text: str, answer: str, style: str) -> str:
        labels = self.labels
        ask = rng.pick(self.asks).format(comma=", ".join(labels), or_=listed(list(labels), "or"),
                                         and_=listed(list(labels), "and"))
        item = text
        if style == "typos":
            ask = typo(rng, ask, self.keep, 0.35)
            if self.typo_item:
                item = typo(rng, item, self.keep, 0.3)
            if rng.chance(0.5):
                ask, item = ask.lower(), (item.lower() if self.typo_item else item)
        elif style == "distract":
            fill = {"day": rng.pick(WEEKDAYS), "n": rng.between(2, 99), "m": rng.between(100, 400),
                    "code": code(rng, 3, "ABCDEFGHKMNPRSTXZ")}
            item = (rng.pick(NOISE_BEFORE).format(**fill) + "\n" + item if rng.chance(0.7) else item)
            item = item + "\n" + rng.pick(NOISE_AFTER).format(**fill) if rng.chance(0.7) else item
        elif style == "hint":
            wrong = rng.pick([x for x in labels if x != answer])
            ask = ask + " " + rng.pick(HINTS).format(w=wrong)
        lead = rng.pick(self.leads)
        one_line = "\n" not in item and '"' not in item
        form = rng.weighted({0: 4, 1: 2, 2: 2 if one_line else 0, 3: 2})
        if form == 0:
            return f"{ask}\n\n{lead}: {item}"
        if form == 1:
            return f"{ask}\n\n{item}"
        if form == 2:
            return f'{ask}\n\n"{item}"'
        return f"{lead}:\n{item}\n\n{ask}"


def _sub(rng: Rng, text: str, pools: dict[str, tuple]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(rng.pick(pools[m.group(1)])), text)


def _items(table: dict[str, tuple[str, ...]], pools: dict[str, tuple], capital: bool = True
           ) -> Callable[[Rng, str], str]:
    def item(rng: Rng, label: str) -> str:
        text = _sub(rng, rng.pick(table[label]), pools)
        return cap(text) if capital else text
    return item


def lang_item(rng: Rng, label: str) -> str:
    first, second = rng.sample(LANG_TEXTS[label], 2)
    return first if rng.chance(0.5) else f"{first} {second}"


def filetype_item(rng: Rng, label: str) -> str:
    stems, exts = FILETYPES[label]
    return f"{rng.pick(stems)}.{rng.pick(exts)}"


def diet_item(rng: Rng, label: str) -> str:
    parts = rng.sample(PLANTS, rng.between(3, 5))
    extra = {"vegan": [], "vegetarian": rng.sample(DAIRY_EGGS, rng.between(1, 2)),
             "has_meat_or_fish": [rng.pick(MEAT)] + ([rng.pick(DAIRY_EGGS)] if rng.chance(0.4) else [])}[label]
    for x in extra:
        parts.insert(rng.below(len(parts) + 1), x)
    return ", ".join(parts)


def classify_tasks() -> tuple[LabelTask, ...]:
    """Fresh tasks for each run: a task keeps counts and used texts while it makes a family."""
    return (
        LabelTask("intent", ("play_music", "set_alarm", "weather", "other"), _items(INTENTS, CLS_POOLS, False), (
            "Classify the intent of this request. Answer with exactly one of: {comma}.",
            "Which intent fits the user's message best? The options are {and_}. Reply with the intent name only.",
            "Intent classification. Labels: {comma}. Answer with one label and nothing more.",
            "Assign one intent to the voice command, using {or_}. Just the label, please."),
            ("Request", "User", "Voice command")),
        LabelTask("shell", ("destructive", "safe"), _items(SHELL, CLS_POOLS, capital=False), (
            "Is this shell command destructive, meaning it deletes or overwrites data? Answer with one word only: "
            "{or_}.", "Label the terminal command: destructive if running it would remove or overwrite data, safe "
            "otherwise. Output just the label.",
            "Would running this command delete or overwrite any data? Reply {or_}, nothing else.",
            "Classify the command as {or_}: does it erase or overwrite data? Label only."),
            ("Command", "Shell", "Terminal"), typo_item=False),
        LabelTask("sentiment", ("positive", "negative", "neutral"), _items(SENTIMENT, SENT_POOLS), (
            "What is the sentiment of this product review? Answer with exactly one label: {comma}.",
            "Give the sentiment of the review as one of {comma}. Output only the label.",
            "Sentiment check. Possible answers: {and_}. Reply with exactly one of them.",
            "Does this review sound pleased, unhappy or matter-of-fact? Answer {or_} and nothing else."),
            ("Review", "Text", "Customer review")),
        LabelTask("department", ("billing", "technical_support", "sales", "hr", "legal"),
                  _items(DEPARTMENTS, DEPT_POOLS), (
            "Route this email to a department. Answer with exactly one of: {comma}.",
            "Which team should handle the message: {or_}? Give the team name only.",
            "Internal mailbox routing. Possible departments: {comma}. Give exactly one department as your answer.",
            "Pick the department for this email from {comma}. Reply with the label only."),
            ("Email", "Message", "Ticket")),
        LabelTask("language", ("english", "french", "german", "spanish", "italian", "portuguese", "dutch"), lang_item, (
            "Identify the language of this text. Answer with exactly one of: {comma}.",
            "In which language is the following written? Choose from {and_}, and write only the chosen language.",
            "Name the language of the sentence, choosing one of {comma}. Reply with that one word.",
            "Language detection. Options: {comma}. Respond with the option only."),
            ("Text", "Sentence", "Line"), typo_item=False),
        LabelTask("urgency", ("urgent", "can_wait"), _items(URGENCY, URG_POOLS), (
            "Classify how pressing this facilities message is. Answer with exactly one label: {or_}.",
            "Does the report below need someone right now? Reply {or_}, the label only.",
            "Triage for the facilities team: answer with only {or_}.",
            "Facilities triage. Labels: {comma}. One label, no explanation."),
            ("Message", "Report", "Note")),
        LabelTask("filetype", ("image", "document", "audio", "video", "archive", "code", "spreadsheet", "other"),
                  filetype_item, (
                      "Classify the file by its name. Answer with exactly one of: {comma}.",
                      "What kind of file is this, judging from its name? Allowed answers: {comma}. Reply with one "
                      "answer only.",
                      "File type label for the file name below. Use one of {comma}, and write only that label.",
                      "Sort this file into one of these buckets by its extension: {comma}. Name the bucket only."),
                  ("File", "Name", "Upload"), typo_item=False),
        LabelTask("severity", ("critical", "major", "minor", "cosmetic"), _items(SEVERITY, SEV_POOLS), (
            "Assign a severity to this bug report. The severities: critical (the service is down or unusable for "
            "everyone), major (a main feature is broken, no workaround), minor (something is wrong but a workaround "
            "exists), cosmetic (only the looks are off). Answer with exactly one of {comma}.",
            "Triage by severity, one of {comma}: critical = down or unusable for everyone; major = a main feature "
            "broken with no workaround; minor = wrong but there is a workaround; cosmetic = only appearance. Reply "
            "with the severity only."),
            ("Bug", "Report", "Incident")),
        LabelTask("device", ("lights", "thermostat", "door_lock", "vacuum", "tv", "speaker"),
                  _items(DEVICES, DEV_POOLS, False), (
            "Which smart-home device does this command target? Devices: {comma}. Answer with the device name only.",
            "Route the command to a device. Choose exactly one of {comma}; output the device label and nothing else.",
            "Home assistant routing: pick the device from {comma} for the command. Label only."),
            ("Command", "Said", "Voice")),
        LabelTask("expense", ("travel", "meals", "office_supplies", "software", "other"), _items(EXPENSES, EXP_POOLS), (
            "Categorise this expense line. Categories: {comma}. Reply with one category only.",
            "Which expense category fits this receipt: {or_}? Answer with just the category.",
            "Book the receipt to one of {comma}. Output the category name alone."),
            ("Receipt", "Expense", "Line")),
        LabelTask("online", ("needs_internet", "offline_ok"), _items(ONLINE, ONL_POOLS), (
            "Can an assistant with no network connection answer this, or does it need to go online? Answer with "
            "exactly one of: {comma}.",
            "Does answering this question require live network access? Labels: {comma}. Give the label only.",
            "Decide whether this can be answered offline. Reply {or_}."),
            ("Question", "User asks", "Query")),
        LabelTask("speech_act", ("question", "command", "statement"), _items(SPEECH, SPEECH_POOLS), (
            "Is this utterance a question, a command or a statement? Reply with one word: {or_}.",
            "Label the sentence as one of {comma}. Output the label only.",
            "Speech act of the utterance below? Choose {or_}."),
            ("Utterance", "Sentence", "Said")),
        LabelTask("spam", ("spam", "legitimate"), _items(SPAM, SPAM_POOLS), (
            "Is this email junk or real mail? Answer with exactly one of: {comma}.",
            "Mail filter decision for the message below. Reply with {or_} and nothing else.",
            "Classify the message as {or_}. Label only."),
            ("Email", "Message", "Inbox item")),
        LabelTask("pii", ("contains_pii", "no_pii"), _items(PII, PII_POOLS), (
            "Does this text contain personal data about an identifiable person? Answer with only {or_}.",
            "Privacy check before we log this text: {or_}? Give the label only.",
            "Label the text {or_} (personal data: names with addresses, phone numbers, birth dates, ID numbers)."),
            ("Text", "Log entry", "Note")),
        LabelTask("diet", ("vegan", "vegetarian", "has_meat_or_fish"), diet_item, (
            "Sort the dish into vegan (no animal products at all), vegetarian (no meat or fish, but eggs, dairy or "
            "honey) or has_meat_or_fish (any meat or fish). Answer with exactly one of: {comma}.",
            "Diet label for these ingredients, one of {comma}: vegan = nothing from animals; vegetarian = eggs, dairy "
            "or honey but no meat or fish; has_meat_or_fish = contains meat or fish. Label only."),
            ("Ingredients", "Recipe ingredients", "What goes in")),
    )


def classify_templates() -> list[tuple[Template, float]]:
    # more trials for longer label lists: a two-way judgment is a coin toss for a model that names the first label
    return [(task.template(), 0.5 + len(task.labels) / 8) for task in classify_tasks()]
