"""How a breakdown job is put to the model in each of the three ways; the job's wording fills the instruction."""

from __future__ import annotations

import json

from task_defs.breakdown.jobs import BreakdownItem, BreakdownJob

ITEMS_FILE = "items.jsonl"  # the agent way: the items, in the agent's folder
ANSWERS_FILE = "answers.json"  # the agent way: what the agent must leave


def item_prompt(job: BreakdownJob, item: BreakdownItem, wording: str) -> str:
    return f"{item.text.strip()}\n\n{job.instruction(wording)}"


def batch_prompt(job: BreakdownJob, wording: str) -> str:
    example = json.dumps({job.items[0].id: "...", job.items[1].id: "..."} if len(job.items) > 1 else {})
    items = "\n\n".join(f"[{it.id}] {it.text.strip()}" for it in job.items)
    return (f"Below are {len(job.items)} items, each starting with its id in square brackets. For each item: "
            f"{job.instruction(wording)}\n\nReply with one JSON object that maps every id to that item's answer "
            f"as a string, for example {example}, and nothing else.\n\n{items}")


def agent_prompt(job: BreakdownJob, wording: str) -> str:
    return (f"The file {ITEMS_FILE} in the current folder holds {len(job.items)} items of the job "
            f"\"{job.spec.title}\", one JSON object per line with an \"id\" and a \"text\". For each item: "
            f"{job.instruction(wording)}\n\nWrite the file {ANSWERS_FILE} in the current folder: one JSON object "
            "that maps every id to that item's answer as a string. You may read the items and write any helper "
            "you like; only answers.json is checked.")


def items_file(job: BreakdownJob) -> str:
    return "".join(json.dumps({"id": it.id, "text": it.text}) + "\n" for it in job.items)
