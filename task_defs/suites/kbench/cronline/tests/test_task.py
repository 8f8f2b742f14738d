# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import re
import shlex

import kbtest as kb

SCRIPT = "/opt/jobs/cleanup.sh"
SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash"}
MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
DAYS = {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())}
# (lowest, highest, names) per field, as crontab(5) defines them; day of week 7 is Sunday again
FIELDS = [("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}), ("month", 1, 12, MONTHS),
          ("day of week", 0, 7, DAYS)]


def number(text, names, lo, hi):
    value = names.get(text.lower()) if text.lower() in names else (int(text) if text.isdigit() else None)
    if value is None or not lo <= value <= hi:
        raise AssertionError("%r is not a valid value here (%d-%d)" % (text, lo, hi))
    return value


def expand(field, lo, hi, names):
    """The set of values a crontab time field stands for: *, lists, ranges, steps and names."""
    out = set()
    for part in field.split(","):
        rng, _, step = part.partition("/")
        step = int(step) if step.isdigit() and int(step) > 0 else (1 if not _ else None)
        if step is None:
            raise AssertionError("bad step in %r" % field)
        if rng == "*":
            a, b = lo, hi
        elif "-" in rng:
            x, y = rng.split("-", 1)
            a, b = number(x, names, lo, hi), number(y, names, lo, hi)
        else:
            a = number(rng, names, lo, hi)
            b = hi if _ else a
        if a > b:
            raise AssertionError("empty range %r" % part)
        out.update(range(a, b + 1, step))
    return out


def entry():
    lines = [ln.strip() for ln in kb.read("cron.txt").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    kb.eq(len(lines), 1, "number of crontab lines in cron.txt (blank lines and # comments not counted)")
    parts = lines[0].split(None, 5)
    kb.ok(len(parts) == 6, "a crontab line needs five time fields and a command, got %r" % lines[0])
    sets = {}
    for (name, lo, hi, names), text in zip(FIELDS, parts[:5]):
        try:
            sets[name] = expand(text, lo, hi, names)
        except (AssertionError, ValueError) as exc:
            raise AssertionError("%s field %r: %s" % (name, text, exc))
    sets["day of week"] = {0 if d == 7 else d for d in sets["day of week"]}
    sets["stars"] = (parts[2].startswith("*"), parts[4].startswith("*"))
    return sets, parts[5]


@kb.case
def minute_is_30():
    kb.eq(sorted(entry()[0]["minute"]), [30], "minutes the line runs at")


@kb.case
def hour_is_2():
    kb.eq(sorted(entry()[0]["hour"]), [2], "hours the line runs at")


@kb.case
def every_day():
    sets = entry()[0]
    kb.eq(sorted(sets["month"]), list(range(1, 13)), "months")
    all_dom = sets["day of month"] == set(range(1, 32))
    all_dow = sets["day of week"] == set(range(7))
    dom_star, dow_star = sets["stars"]
    if dom_star or dow_star:
        # cron needs both day fields to match when either of them starts with *
        kb.ok(all_dom and all_dow, "the line must run on every day: days of month %s, days of week %s"
              % (sorted(sets["day of month"]), sorted(sets["day of week"])))
    else:
        # with both day fields restricted, cron runs when either one matches
        kb.ok(all_dom or all_dow, "the line must run on every day: days of month %s, days of week %s"
              % (sorted(sets["day of month"]), sorted(sets["day of week"])))


@kb.case
def runs_the_script():
    command = entry()[1]
    # crontab(5): an unescaped % ends the command (the rest becomes its standard input), even inside quotes
    kb.ok(re.search(r"(?<!\\)%", command) is None,
          "cron turns an unescaped %% into a newline, so this command would not run as written: %r" % command)
    try:
        words = shlex.split(command)
    except ValueError:
        raise AssertionError("the command part does not parse: %r" % command)
    if words and words[0] in SHELLS:
        words = words[1:]
    kb.ok(bool(words) and words[0] == SCRIPT,
          "the command must run %s (directly or as `bash %s`), got %r" % (SCRIPT, SCRIPT, command))


kb.main()
