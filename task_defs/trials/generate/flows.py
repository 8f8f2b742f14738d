"""The flows family: requests of two to four steps over files, the home, a shop cart, messages and the calendar.
Steps whose order matters are graded as an exact sequence, steps on different things as a set; a request no tool
serves wants no call."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from task_defs.trials.generate.build import Draft, Irrelevant, T, Template
from task_defs.trials.generate.pools import CITIES, EVENT_TITLES, FIRST, fill
from task_defs.trials.generate.rng import Rng
from task_defs.trials.generate.rules import (
    call,
    eq,
    exact,
    folder_rule,
    into_rule,
    num,
    one_of,
    parallel,
    path_rule,
    said,
)
from task_defs.trials.generate.words import NUMBER_WORDS, a_day, a_time, cap, hhmm, listed, say_date, say_time

ROOMS = (("kitchen",), ("bedroom",), ("office",), ("bathroom",), ("hallway", "hall"),
         ("living room", "living_room", "livingroom", "lounge"), ("garage",), ("porch",), ("nursery",), ("study",),
         ("dining room", "dining_room"), ("guest room", "guest_room", "guest bedroom"), ("basement",), ("attic",),
         ("laundry room", "laundry_room", "utility room"))
GROCERIES = (("apples", "apple"), ("pears", "pear"), ("lemons", "lemon"), ("avocados", "avocado"),
             ("bananas", "banana"), ("tomatoes", "tomato"), ("onions", "onion"), ("cucumbers", "cucumber"),
             ("eggs", "egg"), ("carrots", "carrot"), ("limes", "lime"), ("peaches", "peach"), ("oranges", "orange"),
             ("potatoes", "potato"), ("bagels", "bagel"), ("yoghurts", "yoghurt", "yogurts", "yogurt"),
             ("croissants", "croissant"), ("mangoes", "mango", "mangos"), ("peppers", "pepper", "bell peppers"),
             ("kiwis", "kiwi"), ("leeks", "leek"), ("courgettes", "courgette", "zucchini"), ("plums", "plum"),
             ("baguettes", "baguette"))
FLOW_TEXTS = ("home in 20", "running late", "dinner is ready", "call me back", "see you at 7", "the door is open",
              "meeting moved to 3pm", "bring an umbrella", "all done", "on my way", "the parcel arrived",
              "keys are under the mat", "lunch is booked", "back in ten minutes", "don't wait for me",
              "the babysitter is here", "starting the call now", "tickets are printed", "need anything from the shop?",
              "film starts at 8")
STEMS = ("report", "notes", "draft", "budget", "agenda", "todo", "summary", "invoice", "photo", "readme", "config",
         "data", "minutes", "plan", "letter", "recipe", "slides", "results", "contract", "timeline", "survey",
         "checklist", "poster", "playlist")
EXTS = ("txt", "md", "csv", "json", "pdf", "docx", "png", "jpg", "yaml", "log", "xlsx", "html")
TEXT_EXTS = ("txt", "md", "csv", "json", "yaml", "log", "html", "ini")
SUFFIXES = ("", "", "", "_v2", "-2025", "_final", "_old", "_march", "2", "_backup")
FOLDERS = ("archive", "backup", "docs", "reports", "old", "shared", "data", "photos", "drafts", "invoices", "tmp",
           "notes", "exports", "projects", "inbox", "done")
CONTENTS = ("fresh start", "debug: true", "alpha beta gamma", "buy milk", "TODO: call the bank", "version = 2",
            "done", "hello world", "closed for the holidays", "port: 8080", "name,score", "draft 2",
            "see you soon", "status: paused", "owner: Dana", "retries = 3", "# Notes", "timeout: 30",
            "mode = quiet", "ready for review")


def a_file(rng: Rng, folder_share: float = 0.15, text: bool = False) -> str:
    name = f"{rng.pick(STEMS)}{rng.pick(SUFFIXES)}.{rng.pick(TEXT_EXTS if text else EXTS)}"
    return f"{rng.pick(FOLDERS)}/{name}" if rng.chance(folder_share) else name


@dataclass
class Act:
    tool: str
    say: str  # a lower-case verb phrase the request is built from
    rule: dict
    keys: frozenset  # what it touches: two acts of a request touch different things


def room_of(rng: Rng) -> tuple[str, ...]:
    return rng.pick(ROOMS)


def room_rule(room: tuple[str, ...]) -> dict:
    return one_of(room, fold=True)


def act_read(rng: Rng, path: str | None = None) -> Act:
    path = path or a_file(rng, text=True)
    say = rng.pick(("read {p}", "open {p}", "show me {p}", "read the file {p}")).format(p=path)
    return Act("read_file", say, call("read_file", path=path_rule(path)), frozenset({path}))


def act_write(rng: Rng, path: str | None = None, content: str | None = None) -> Act:
    path, content = path or a_file(rng, text=True), content or rng.pick(CONTENTS)
    say = rng.pick(('write "{c}" to {p}', 'save the text "{c}" as {p}', 'create {p} containing exactly "{c}"',
                    'overwrite {p} so it holds only "{c}"')).format(p=path, c=content)
    rule = call("write_file", path=path_rule(path), content=one_of([content, content + "\n"]))
    return Act("write_file", say, rule, frozenset({path}))


def act_list(rng: Rng, folder: str | None = None) -> Act:
    folder = folder or rng.pick(FOLDERS)
    say = rng.pick(("list the {d} folder", "show me what's in the {d} folder", "list the files in {d}/",
                    "see what the {d} folder contains")).format(d=folder)
    return Act("list_dir", say, call("list_dir", path=folder_rule(folder)), frozenset({folder + "/"}))


def act_move(rng: Rng, path: str | None = None, folder: str | None = None) -> Act:
    path = path or a_file(rng, 0.0)
    folder = folder or rng.pick(FOLDERS)
    say = rng.pick(("move {p} into {d}/", "move {p} to the {d} folder", "put {p} in the {d} folder")).format(
        p=path, d=folder)
    return Act("move_file", say, call("move_file", src=path_rule(path), dst=into_rule(folder, path)),
               frozenset({path, folder + "/"}))


def act_rename(rng: Rng, path: str | None = None, new: str | None = None) -> Act:
    path = path or a_file(rng, 0.0)
    if new is None:
        ext = path.rsplit(".", 1)[1]
        new = f"{rng.pick(STEMS)}{rng.pick(('_v3', '_new', '-final', '_2026', '_clean'))}.{ext}"
    say = rng.pick(("rename {p} to {n}", "change the name of {p} to {n}")).format(p=path, n=new)
    return Act("move_file", say, call("move_file", src=path_rule(path), dst=path_rule(new)), frozenset({path, new}))


def act_copy(rng: Rng, path: str | None = None, folder: str | None = None) -> Act:
    path = path or a_file(rng, 0.0)
    folder = folder or rng.pick(FOLDERS)
    say = rng.pick(("copy {p} into {d}/", "make a copy of {p} in the {d} folder",
                    "back up {p} into the {d} folder as a copy")).format(p=path, d=folder)
    return Act("copy_file", say, call("copy_file", src=path_rule(path), dst=into_rule(folder, path)),
               frozenset({path, folder + "/"}))


def act_copy_as(rng: Rng, path: str, new: str) -> Act:
    say = rng.pick(("copy {p} to {n}", "make a copy of {p} named {n}", "duplicate {p} as {n}")).format(p=path, n=new)
    return Act("copy_file", say, call("copy_file", src=path_rule(path), dst=path_rule(new)), frozenset({path, new}))


def act_delete(rng: Rng, path: str | None = None) -> Act:
    path = path or a_file(rng)
    say = rng.pick(("delete {p}", "remove the file {p}", "get rid of {p}")).format(p=path)
    return Act("delete_file", say, call("delete_file", path=path_rule(path)), frozenset({path}))


def act_light(rng: Rng, room: tuple[str, ...] | None = None, on: bool | None = None) -> Act:
    room = room or room_of(rng)
    on = rng.chance(0.6) if on is None else on
    r = room[0]
    if not on:
        say = rng.pick(("turn off the {r} light", "switch the {r} light off", "switch off the light in the {r}"))
        rule = call("set_light", room=room_rule(room), on=eq(False), brightness=one_of([0], optional=True))
    elif rng.chance(0.5):
        b = rng.pick((10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90))
        say = rng.pick(("put the {r} light on at {b}%", "turn on the {r} light at {b} percent brightness",
                        "switch the {r} light on, {b}% bright")).replace("{b}", str(b))
        rule = call("set_light", room=room_rule(room), on=eq(True), brightness=num(b))
    else:
        say = rng.pick(("turn on the {r} light", "switch the {r} light on", "switch on the light in the {r}"))
        rule = call("set_light", room=room_rule(room), on=eq(True), brightness=one_of([100], optional=True))
    return Act("set_light", say.format(r=r), rule, frozenset({"light:" + r}))


def act_heat(rng: Rng, room: tuple[str, ...] | None = None) -> Act:
    room = room or room_of(rng)
    c = rng.pick((16, 17, 18, 19, 20, 21, 22, 23, 24, 18.5, 19.5, 20.5, 21.5))
    say = rng.pick(("set the {r} to {c} degrees", "set the {r} thermostat to {c} °C", "make the {r} {c} degrees",
                    "change the {r} heating to {c} degrees Celsius")).format(r=room[0], c=f"{c:g}")
    return Act("set_thermostat", say, call("set_thermostat", room=room_rule(room), celsius=num(c, 0.01)),
               frozenset({"heat:" + room[0]}))


def item_rule(item: tuple[str, ...]) -> dict:
    return one_of(item, fold=True)


def act_stock(rng: Rng, item: tuple[str, ...] | None = None) -> Act:
    item = item or rng.pick(GROCERIES)
    say = rng.pick(("check the stock of {i}", "see how many {i} are in stock", "check whether you have {i} in stock",
                    "look up the stock level for {i}")).format(i=item[0])
    return Act("check_stock", say, call("check_stock", item=item_rule(item)), frozenset({"item:" + item[0]}))


def act_cart(rng: Rng, item: tuple[str, ...] | None = None, qty: int | None = None) -> Act:
    item = item or rng.pick(GROCERIES)
    qty = qty or rng.between(1, 12)
    n = rng.pick((str(qty), NUMBER_WORDS[qty]))
    name = item[1] if qty == 1 else item[0]
    say = rng.pick(("add {n} {i} to my cart", "put {n} {i} in the cart", "add {n} {i} to the shopping cart")).format(
        n=n, i=name)
    return Act("add_to_cart", say, call("add_to_cart", item=item_rule(item), quantity=num(qty)),
               frozenset({"item:" + item[0]}))


def act_message(rng: Rng, to: str | None = None, text: str | None = None) -> Act:
    to = to or rng.pick(FIRST)
    text = text or rng.pick(FLOW_TEXTS)
    say = rng.pick(('text {n} "{t}"', 'send {n} the message "{t}"', 'message {n}: "{t}"',
                    'send a message to {n} saying "{t}"')).format(n=to, t=text)
    return Act("send_message", say, call("send_message", to=one_of([to], fold=True), text=said(text)),
               frozenset({"to:" + to}))


def act_event(rng: Rng, title: str | None = None, day: dt.date | None = None) -> Act:
    title = title or fill(rng, rng.pick(EVENT_TITLES))
    day = day or a_day(rng)
    t = a_time(rng, 7, 20)
    say = rng.pick(('put "{x}" in my calendar on {d} at {t}', 'add an event "{x}" on {d} at {t}',
                    'book "{x}" for {d} at {t}', 'create a calendar entry "{x}" on {d} at {t}')).format(
        x=title, d=say_date(rng, day, 0.8), t=say_time(rng, t))
    rule = call("create_event", title=one_of([title], fold=True), date=eq(day.isoformat()), start=eq(hhmm(t)),
                duration_minutes=one_of([30, 60], optional=True))
    return Act("create_event", say, rule, frozenset({"event:" + title + day.isoformat()}))


SINGLE_ACTS = (act_read, act_write, act_list, act_move, act_rename, act_copy, act_delete, act_light, act_heat,
               act_stock, act_cart, act_message, act_event)


def independent(rng: Rng, k: int) -> list[Act] | None:
    acts: list[Act] = []
    for _ in range(k):
        a = rng.pick(SINGLE_ACTS)(rng)
        if any(a.keys & b.keys for b in acts):
            return None
        acts.append(a)
    return acts


def in_order(rng: Rng, says: list[str]) -> str:
    if len(says) == 2:
        a, b = says
        return rng.pick((f"{cap(a)}, then {b}.", f"First {a}; after that, {b}.", f"{cap(a)}. Once that's done, {b}.",
                         f"{cap(a)} and then {b}.", f"Please {a}, and only after that {b}.",
                         f"Two steps, in this order: {a}, then {b}."))
    a, b, c = says
    return rng.pick((f"{cap(a)}, then {b}, then {c}.", f"In this order: {a}; {b}; {c}.",
                     f"First {a}, next {b}, and finally {c}.", f"Do these one after another: {a}, then {b}, then {c}.",
                     f"Step one, {a}. Step two, {b}. Step three, {c}."))


def at_once(rng: Rng, says: list[str]) -> str:
    if len(says) == 2:
        a, b = says
        return rng.pick((f"{cap(a)} and {b}.", f"Please {a}, and also {b}.", f"Two things: {a}, and {b}.",
                         f"{cap(a)}; separately, {b}.", f"Could you {a} and {b}?"))
    a, b, c = says
    return rng.pick((f"{cap(a)}, {b} and {c}.", f"Three things, in any order: {a}; {b}; {c}.",
                     f"Please {a}, {b}, and {c}.", f"Could you {a}, {b} and {c}?"))


def f_random_exact(rng: Rng) -> Draft | None:
    acts = independent(rng, rng.pick((2, 2, 3)))
    if acts is None:
        return None
    return Draft(in_order(rng, [a.say for a in acts]), exact(*(a.rule for a in acts)), tuple(a.tool for a in acts))


def f_random_set(rng: Rng) -> Draft | None:
    acts = independent(rng, rng.pick((2, 2, 3)))
    if acts is None:
        return None
    return Draft(at_once(rng, [a.say for a in acts]), parallel(*(a.rule for a in acts)), tuple(a.tool for a in acts))


def f_chain(rng: Rng) -> Draft:
    """Steps where the order matters for the result, said in the order to take."""
    kind = rng.below(13)
    f = a_file(rng, 0.0, text=kind in (0, 1, 6, 7, 12))
    d = rng.pick(FOLDERS)
    if kind == 0:
        acts = [act_copy_as(rng, f, f + ".bak"), act_write(rng, f)]
    elif kind == 1:
        acts = [act_read(rng, f), act_delete(rng, f)]
    elif kind == 2:
        acts = [act_copy(rng, f, d), act_delete(rng, f)]
    elif kind == 3:
        acts = [act_list(rng, d), act_move(rng, f"{d}/{f}", rng.pick([x for x in FOLDERS if x != d]))]
    elif kind == 4:
        acts = [act_move(rng, f, d), act_list(rng, d)]
    elif kind == 5:
        item = rng.pick(GROCERIES)
        acts = [act_stock(rng, item), act_cart(rng, item)]
    elif kind == 6:
        acts = [act_write(rng, f), act_message(rng, text=f"check {f}")]
    elif kind == 7:
        acts = [act_write(rng, f), act_read(rng, f)]
    elif kind == 8:
        new = f"{rng.pick(STEMS)}_final.{f.rsplit('.', 1)[1]}"
        acts = [act_rename(rng, f, new), act_copy(rng, new, d)]
    elif kind == 9:
        event = act_event(rng)
        acts = [event, act_message(rng, text=rng.pick(("it's in the calendar", "booked it", "see you there")))]
    elif kind == 10:
        room = room_of(rng)
        acts = [act_heat(rng, room), act_light(rng, room)]
    elif kind == 11:
        item = rng.pick(GROCERIES)
        acts = [act_cart(rng, item), act_message(rng, text=f"got the {item[0]}")]
    else:
        acts = [act_delete(rng, f), act_write(rng, f)]
    return Draft(in_order(rng, [a.say for a in acts]), exact(*(a.rule for a in acts)), tuple(a.tool for a in acts))


def _group(rng: Rng, k: int) -> tuple[str, list[Act], list[str]]:
    """k acts of one tool on different things, and how a request lists them."""
    kind = rng.below(8)
    if kind == 0:
        rooms = rng.sample(ROOMS, k)
        on = rng.chance(0.5)
        acts = [act_light(rng, r, on) for r in rooms]
        acts = [Act(a.tool, a.say, call("set_light", room=room_rule(r), on=eq(on),
                                        brightness=one_of([100 if on else 0], optional=True)), a.keys)
                for a, r in zip(acts, rooms)]
        names = [f"the {r[0]}" for r in rooms]
        return rng.pick((f"switch {'on' if on else 'off'} the lights in {{list}}",
                         f"turn the lights {'on' if on else 'off'} in {{list}}")), acts, names
    if kind == 1:
        items = rng.sample(GROCERIES, k)
        return (rng.pick(("check the stock of {list}", "see how many of each are in stock: {list}")),
                [act_stock(rng, i) for i in items], [i[0] for i in items])
    if kind == 2:
        files = list(dict.fromkeys(a_file(rng) for _ in range(k)))
        return rng.pick(("delete {list}", "remove the files {list}")), [act_delete(rng, p) for p in files], files
    if kind == 3:
        files = list(dict.fromkeys(a_file(rng, text=True) for _ in range(k)))
        return rng.pick(("open {list} for me", "read {list}")), [act_read(rng, p) for p in files], files
    if kind == 4:
        folders = rng.sample(FOLDERS, k)
        return ("list the folders {list}", [act_list(rng, x) for x in folders], [f"{x}/" for x in folders])
    if kind == 5:
        acts = [act_heat(rng, r) for r in rng.sample(ROOMS, k)]
        return "{list}", acts, [a.say for a in acts]
    if kind == 6:
        items = rng.sample(GROCERIES, k)
        acts = [act_cart(rng, i, rng.between(2, 9)) for i in items]
        parts = [re.sub(r"^(add|put) (\S+) (.+?) (to|in) .*$", r"\2 \3", a.say) for a in acts]
        return rng.pick(("add {list} to my cart", "put {list} in the cart")), acts, parts
    people = rng.sample(FIRST, k)
    texts = rng.sample(FLOW_TEXTS, k)
    acts = [act_message(rng, p, t) for p, t in zip(people, texts)]
    return "send these messages: {list}", acts, [f'{p} "{t}"' for p, t in zip(people, texts)]


def f_group_set(rng: Rng) -> Draft | None:
    k = rng.pick((2, 2, 3, 3, 4))
    frame, acts, names = _group(rng, k)
    if len({a.say for a in acts}) < len(acts) or len(acts) < 2:
        return None
    prompt = cap(frame.format(list=listed(names))) + rng.pick((".", ", please.", "."))
    return Draft(prompt, parallel(*(a.rule for a in acts)), tuple(a.tool for a in acts))


def f_group_exact(rng: Rng) -> Draft | None:
    k = rng.pick((2, 3, 3))
    frame, acts, names = _group(rng, k)
    if len({a.say for a in acts}) < len(acts) or len(acts) < 2:
        return None
    order = rng.pick((", in exactly that order.", ", one after another in the order given.",
                      ", in this order and not another."))
    prompt = cap(frame.format(list=listed(names))) + order
    return Draft(prompt, exact(*(a.rule for a in acts)), tuple(a.tool for a in acts))


NONE_FLOWS = (
    (("Lock the front door, please.", "Is the back door locked? Lock it if not.", "Open the garage door."), ()),
    (("Play some {genre} in the {room}.", "Turn the music up in the {room}.", "Pause the podcast in the {room}."),
     ()),
    (("Place the order for everything in my cart and pay with my saved card.", "Check out my cart now.",
      "Apply the coupon SPRING10 to my cart."), ()),
    (("Zip up the {folder} folder into {folder}.zip.", "Extract {folder}.zip into the {folder} folder.",
      "Encrypt {file} with a password."), ()),
    (("Print two copies of {file} on the office printer.", "Send {file} to the printer.",
      "Fax {file} to the tax office."), ()),
    (("Cancel the {title} I have on {date}.", "Move my {title} on {date} to the following week.",
      "What time does the {title} on {date} start?"), ()),
    (("Take the {item} back out of my cart.", "Empty my shopping cart.", "What did I pay for {item} last week?"), ()),
    (("Open the blinds in the {room}.", "Close the curtains in the {room}.", "Open the {room} window a little."), ()),
    (("Start the dishwasher.", "Run the washing machine on the {wash}-degree cycle.", "Turn on the coffee machine."),
     ()),
    (("Start a video call with {name}.", "Phone {name} and tell them I'm late.", "Is {name} online right now?"), ()),
    (("What's the weather going to be like tomorrow?", "Will it rain this afternoon?", "When is sunset today?"), ()),
    (("Restore {file} from the trash.", "Undo my last change to {file}.", "Show me the version history of {file}."),
     ()),
    (("How much free disk space is left?", "Search the web for cheap flights to {city}.",
      "Which of my files is the biggest?"), ()),
    (("Set the oven to {oven} degrees.", "Preheat the oven to {oven} degrees for the bread.",
      "Is the fridge door closed?"), ()),
    (("Vacuum the {room}.", "Water the plants in the {room}.", "Feed the cat at six."), ()),
)


def none_flows_values(rng: Rng) -> dict:
    return {"genre": rng.pick(("jazz", "classical music", "lo-fi beats", "reggae", "folk songs")),
            "room": room_of(rng)[0], "folder": rng.pick(FOLDERS), "file": a_file(rng, 0.0),
            "title": rng.pick(("dentist appointment", "team lunch", "yoga class", "haircut", "car service")),
            "date": a_day(rng).isoformat(), "item": rng.pick(GROCERIES)[0], "name": rng.pick(FIRST),
            "wash": rng.pick((30, 40, 60)), "oven": rng.pick((180, 200, 220)), "city": rng.pick(CITIES)[0][0]}


def flows_templates() -> list[tuple[Template, float]]:
    return [*FLOWS, (Irrelevant("f_none", NONE_FLOWS, none_flows_values).template(), 30)]


FLOWS = [(T(f_chain), 80), (T(f_random_exact), 70), (T(f_group_exact), 25), (T(f_group_set), 80),
         (T(f_random_set), 65)]
