"""pacman on the mock machine: the operations and options the trials use, with pacman's refusals.

    -S NAME...        install (pulls in what they depend on, as dependencies); --needed skips what is up to date,
                      --noconfirm is accepted, --asdeps/--asexplicit set the reason; a name another package
                      provides installs that package; an installed, outdated target is upgraded
    -Syu [NAME...]    upgrade every package the repositories have newer, then install NAME
    -Sy               refresh the databases (changes nothing here); -Sy NAME is refused (a partial upgrade)
    -Ss TERM... / -Si NAME / -Sc
    -R NAME...        remove; refused when an installed package still depends on it; -s also removes what it
                      depended on that nothing else needs and was not installed explicitly; -n leaves no .pacsave
                      of its config files; -c also removes what depends on it
    -Q [NAME...]      list installed (-e explicit, -d dependencies, -t required by none, -m foreign, -n native,
                      -u upgradable, -q names only); -Qi NAME, -Qs TERM, -Ql NAME, -Qo FILE|COMMAND
    -F FILE|COMMAND   which repository package ships a file
    -D --asdeps|--asexplicit NAME
Changes need root (sudo); queries do not. A failing transaction changes nothing.
"""

from __future__ import annotations

from task_defs.trials.machine.programs import Ctx
from task_defs.trials.machine.state import Installed, State, vercmp

VERSION = "Pacman v7.0.0 - libalpm v15.0.0 (mock machine)"
NOT_ROOT = "error: you cannot perform this operation unless you are root."
OPS = {"S": "sync", "R": "remove", "Q": "query", "F": "files", "D": "database", "U": "upgrade", "T": "deptest",
       "V": "version", "h": "help"}
LONG_OPS = {"--sync": "S", "--remove": "R", "--query": "Q", "--files": "F", "--database": "D", "--upgrade": "U",
            "--deptest": "T", "--version": "V", "--help": "h"}
MODS = {  # op -> letters it takes; long forms below
    "S": "yuvsicqw", "R": "sncudv", "Q": "eidtmnuqslov", "F": "yqlx", "D": "kq", "U": "", "T": "", "V": "", "h": ""}
LONG_MODS = {"--refresh": "y", "--sysupgrade": "u", "--search": "s", "--info": "i", "--clean": "c", "--quiet": "q",
             "--recursive": "s", "--nosave": "n", "--cascade": "c", "--unneeded": "u", "--explicit": "e",
             "--deps": "d", "--unrequired": "t", "--foreign": "m", "--native": "n", "--upgrades": "u",
             "--owns": "o", "--list": "l", "--verbose": "v", "--downloadonly": "w"}
FLAGS = {"--needed", "--noconfirm", "--confirm", "--asdeps", "--asexplicit", "--noprogressbar", "--color=never",
         "--color=auto", "--color=always", "--overwrite"}
USAGE = ("usage:  pacman <operation> [...]\noperations:\n    pacman {-h --help}\n    pacman {-V --version}\n"
         "    pacman {-D --database} <options> <package(s)>\n    pacman {-F --files}   [options] [file(s)]\n"
         "    pacman {-Q --query}    [options] [package(s)]\n    pacman {-R --remove}   [options] <package(s)>\n"
         "    pacman {-S --sync}     [options] [package(s)]")


def pacman(ctx: Ctx, args: list[str]) -> int:
    ops, mods, flags, targets = [], {}, set(), []
    for a in args:
        if a.startswith("--"):
            if a in LONG_OPS:
                ops.append(LONG_OPS[a])
            elif a in LONG_MODS:
                mods[LONG_MODS[a]] = mods.get(LONG_MODS[a], 0) + 1
            elif a in FLAGS or a.startswith("--color="):
                flags.add(a)
            else:
                return ctx.fail(f"pacman: unrecognized option '{a}'")
        elif a.startswith("-") and len(a) > 1:
            for ch in a[1:]:
                if ch in OPS:
                    ops.append(ch)
                else:
                    mods[ch] = mods.get(ch, 0) + 1
        else:
            targets.append(a)
    if len(set(ops)) > 1:
        return ctx.fail("error: only one operation may be used at a time")
    if not ops:
        return ctx.fail("error: no operation specified (use -h for help)")
    op = ops[0]
    bad = [m for m in mods if m not in MODS[op]]
    if bad:
        return ctx.fail(f"pacman: invalid option -- '{bad[0]}'")
    if op == "h":
        ctx.say(USAGE)
        return 0
    if op == "V":
        ctx.say(VERSION)
        return 0
    return {"S": _sync, "R": _remove, "Q": _query, "F": _files, "D": _database, "U": _upgrade_file,
            "T": _deptest}[op](ctx, mods, flags, targets)


# ------------------------------------------------------------------------------------------------ -S

def _sync(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    st = ctx.state
    if mods.get("s"):
        return _search(ctx, st, targets, local=False)
    if mods.get("i"):
        return _info(ctx, st, targets, local=False)
    if not ctx.root:
        return ctx.fail(NOT_ROOT)
    if mods.get("c"):
        ctx.say("Packages to keep:\n  All locally installed packages\n\nCache directory: /var/cache/pacman/pkg/\n"
                ":: Do you want to remove all other packages from cache? [Y/n] \nremoving old packages from cache...")
        return 0
    if mods.get("y"):
        ctx.say(":: Synchronizing package databases...\n core is up to date\n extra is up to date")
        if not mods.get("u") and targets:
            return ctx.fail("error: refusing a partial upgrade: -Sy with packages named refreshes the databases "
                            "without upgrading; use pacman -Syu NAME (or pacman -S NAME without y)")
    if not targets and not mods.get("u"):
        if mods.get("y"):
            return 0
        return ctx.fail("error: no targets specified (use -h for help)")
    picked: dict[str, str] = {}  # package -> why: target | upgrade
    if mods.get("u"):
        ctx.say(":: Starting full system upgrade...")
        for n in sorted(st.installed):
            if n in st.repo and n not in st.foreign and vercmp(st.repo[n].version, st.installed[n].version) > 0:
                picked[n] = "upgrade"
    for t in targets:
        name = t.split("/", 1)[1] if t.startswith(("core/", "extra/", "multilib/")) else t
        providers = [p for p in st.providers(name) if p in st.repo]
        if not providers:
            return ctx.fail(f"error: target not found: {t}")
        chosen = providers[0]
        if chosen != name:
            ctx.say(f":: There are {len(providers)} providers available for {name}: {', '.join(providers)} "
                    f"(selected {chosen})" if len(providers) > 1 else f":: {chosen} provides {name}")
        inst = st.installed.get(chosen)
        if inst is not None and vercmp(st.repo[chosen].version, inst.version) <= 0:
            verb = "skipping" if "--needed" in flags else "reinstalling"
            ctx.say(f"warning: {chosen}-{inst.version} is up to date -- {verb}")
            if "--needed" in flags:
                continue
        picked[chosen] = "target"
    deps = _missing_deps(st, picked)
    if not picked and not deps:
        ctx.say(" there is nothing to do")
        return 0
    plan = sorted({**{d: "dep" for d in deps}, **picked}.items())
    ctx.say("resolving dependencies...\nlooking for conflicting packages...\n",
            f"Packages ({len(plan)}) " + "  ".join(f"{n}-{st.repo[n].version}" for n, _ in plan), "",
            ":: Proceed with installation? [Y/n] ")
    for k, (n, why) in enumerate(plan, 1):
        before = st.installed.get(n)
        reason = ("dependency" if "--asdeps" in flags else "explicit" if "--asexplicit" in flags
                  else before.reason if before else "explicit" if why == "target" else "dependency")
        verb = "installing" if before is None else "upgrading" if vercmp(st.repo[n].version, before.version) > 0 \
            else "reinstalling"
        st.installed[n] = Installed(version=st.repo[n].version, reason=reason)
        ctx.say(f"({k}/{len(plan)}) {verb} {n}")
    st.normalized()
    return 0


def _missing_deps(st: State, picked: dict[str, str]) -> list[str]:
    """Repository packages to install so that everything picked has what it depends on."""
    have = set(st.installed) | set(picked)
    todo, added = list(picked), []
    while todo:
        info = st.repo.get(todo.pop(0))
        for dep in info.depends if info else []:
            if any(p in have for p in st.providers(dep)):
                continue
            chosen = next(p for p in st.providers(dep) if p in st.repo)
            have.add(chosen)
            added.append(chosen)
            todo.append(chosen)
    return added


# ------------------------------------------------------------------------------------------------ -R

def _remove(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    st = ctx.state
    if not ctx.root:
        return ctx.fail(NOT_ROOT)
    if not targets:
        return ctx.fail("error: no targets specified (use -h for help)")
    for t in targets:
        if t not in st.installed:
            return ctx.fail(f"error: target not found: {t}")
    doomed = set(targets)
    if mods.get("c"):
        grow = True
        while grow:
            more = {o for n in doomed for o in st.required_by(n)} - doomed
            doomed |= more
            grow = bool(more)
    if mods.get("s"):
        grow = True
        while grow:
            grow = False
            for n in sorted(doomed):
                for dep in st.info(n).depends if st.info(n) else []:
                    for p in st.providers(dep):
                        inst = st.installed.get(p)
                        if inst is None or p in doomed or (inst.reason == "explicit" and mods["s"] < 2):
                            continue
                        if _still_needed(st, p, doomed):
                            continue
                        doomed.add(p)
                        grow = True
    ctx.say("checking dependencies...")
    broken = [(o, dep, n) for o in sorted(set(st.installed) - doomed) for dep in (st.info(o).depends or [])
              for n in sorted(doomed) if n in st.providers(dep) and not st.satisfied(dep, without=doomed)]
    if broken and mods.get("d", 0) < 2:  # -Rdd skips the check, as pacman's does
        ctx.say("error: failed to prepare transaction (could not satisfy dependencies)")
        for o, dep, n in broken:
            ctx.say(f":: removing {n} breaks dependency '{dep}' required by {o}")
        return 1
    plan = sorted(doomed)
    ctx.say("", f"Packages ({len(plan)}) " + "  ".join(f"{n}-{st.installed[n].version}" for n in plan), "",
            ":: Do you want to remove these packages? [Y/n] ")
    for k, n in enumerate(plan, 1):
        info = st.info(n)
        ctx.say(f"({k}/{len(plan)}) removing {n}")
        for f in info.backup if info else []:
            if not mods.get("n"):
                st.pacsave.append(f"/{f}.pacsave")
                ctx.say(f"warning: /{f} saved as /{f}.pacsave")
        del st.installed[n]
    st.normalized()
    return 0


def _still_needed(st: State, name: str, doomed: set[str]) -> bool:
    """Whether a package outside the removal set depends on `name` (and nothing else outside provides it)."""
    for o in st.installed:
        if o in doomed or o == name:
            continue
        for dep in st.info(o).depends if st.info(o) else []:
            if name in st.providers(dep) and not st.satisfied(dep, without=doomed | {name}):
                return True
    return False


# ------------------------------------------------------------------------------------------------ -Q

def _query(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    st = ctx.state
    if mods.get("s"):
        return _search(ctx, st, targets, local=True)
    if mods.get("o"):
        return _owns(ctx, st, targets)
    if mods.get("i"):
        return _info(ctx, st, targets or sorted(st.installed), local=True)
    if targets:
        missing = [t for t in targets if t not in st.installed]
        chosen = [t for t in targets if t in st.installed]
    else:
        missing, chosen = [], sorted(st.installed)
    if mods.get("e"):
        chosen = [n for n in chosen if st.installed[n].reason == "explicit"]
    if mods.get("d"):
        chosen = [n for n in chosen if st.installed[n].reason == "dependency"]
    if mods.get("t"):
        chosen = [n for n in chosen if not _still_needed(st, n, set())]
    if mods.get("m"):
        chosen = [n for n in chosen if n in st.foreign or n not in st.repo]
    if mods.get("n"):
        chosen = [n for n in chosen if n in st.repo and n not in st.foreign]
    if mods.get("u"):
        chosen = [n for n in chosen if n in st.repo and n not in st.foreign
                  and vercmp(st.repo[n].version, st.installed[n].version) > 0]
    for t in missing:
        ctx.say(f"error: package '{t}' was not found")
    for n in chosen:
        v = st.installed[n].version
        if mods.get("l"):
            ctx.say(*[f"{n} /{f}" for f in st.info(n).files])
        elif mods.get("q"):
            ctx.say(n)
        elif mods.get("u"):
            ctx.say(f"{n} {v} -> {st.repo[n].version}")
        else:
            ctx.say(f"{n} {v}")
    return 1 if missing or not chosen else 0


def _search(ctx: Ctx, st: State, terms: list[str], local: bool) -> int:
    names = sorted(st.installed) if local else sorted(st.repo)
    found = 0
    for n in names:
        info = st.info(n) if local else st.repo[n]
        hay = f"{n} {info.description}".casefold()
        if not all(t.casefold() in hay for t in terms):
            continue
        found += 1
        if local:
            ctx.say(f"local/{n} {st.installed[n].version}", f"    {info.description}")
            continue
        inst = st.installed.get(n)
        mark = "" if inst is None else " [installed]" if inst.version == info.version else \
            f" [installed: {inst.version}]"
        ctx.say(f"{info.repo}/{n} {info.version}{mark}", f"    {info.description}")
    return 0 if found else 1


def _field(name: str, value: str) -> str:
    return f"{name:<16}: {value}"


def _info(ctx: Ctx, st: State, targets: list[str], local: bool) -> int:
    if not targets:
        return ctx.fail("error: no targets specified (use -h for help)")
    status = 0
    for t in targets:
        info = (st.info(t) if t in st.installed else None) if local else st.repo.get(t)
        if info is None:
            ctx.say(f"error: package '{t}' was not found")
            status = 1
            continue
        lines = [] if local else [_field("Repository", info.repo)]
        lines += [_field("Name", t), _field("Version", st.installed[t].version if local else info.version),
                  _field("Description", info.description), _field("Provides", "  ".join(info.provides) or "None"),
                  _field("Depends On", "  ".join(info.depends) or "None")]
        if local:
            req = [o for o in sorted(st.installed) if o != t and any(
                t in st.providers(d) for d in (st.info(o).depends if st.info(o) else []))]
            reason = "Explicitly installed" if st.installed[t].reason == "explicit" else \
                "Installed as a dependency for another package"
            lines += [_field("Required By", "  ".join(req) or "None"), _field("Install Reason", reason)]
        ctx.say(*lines, "")
    return status


def _owns(ctx: Ctx, st: State, targets: list[str]) -> int:
    if not targets:
        return ctx.fail("error: no file was specified for --owns")
    status = 0
    for t in targets:
        path = t.lstrip("/") if "/" in t else f"usr/bin/{t}"
        owner = next((n for n in sorted(st.installed) if path in (st.info(n).files if st.info(n) else [])), None)
        if owner is None:
            status = 1
            ctx.say(f"error: No package owns /{path}" if "/" in t else
                    f"error: failed to find '{t}' in PATH: No such file or directory")
        else:
            ctx.say(f"/{path} is owned by {owner} {st.installed[owner].version}")
    return status


# ------------------------------------------------------------------------------------------ -F, -D, -U, -T

def _files(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    st = ctx.state
    if mods.get("y"):
        if not ctx.root:
            return ctx.fail(NOT_ROOT)
        ctx.say(":: Synchronizing package databases...\n core is up to date\n extra is up to date")
        if not targets:
            return 0
    if not targets:
        return ctx.fail("error: no targets specified (use -h for help)")
    found = 0
    for t in targets:
        want = t.lstrip("/")
        for n in sorted(st.repo):
            hits = [f for f in st.repo[n].files if f == want or ("/" not in want and f.rsplit("/", 1)[-1] == want)]
            if hits:
                found += 1
                inst = " [installed]" if n in st.installed else ""
                ctx.say(f"{st.repo[n].repo}/{n} {st.repo[n].version}{inst}", *[f"    {h}" for h in hits])
    return 0 if found else 1


def _database(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    st = ctx.state
    mode = "dependency" if "--asdeps" in flags else "explicit" if "--asexplicit" in flags else None
    if mode is None:
        return ctx.fail("error: no install reason specified (use -h for help)")
    if not ctx.root:
        return ctx.fail(NOT_ROOT)
    if not targets:
        return ctx.fail("error: no targets specified (use -h for help)")
    for t in targets:
        if t not in st.installed:
            return ctx.fail(f"error: could not set install reason for package {t} (could not find or read package)")
    for t in targets:
        st.installed[t] = Installed(version=st.installed[t].version, reason=mode)
        said = "installed as dependency" if mode == "dependency" else "explicitly installed"
        ctx.say(f"{t}: install reason has been set to '{said}'")
    return 0


def _upgrade_file(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    if not ctx.root:
        return ctx.fail(NOT_ROOT)
    return ctx.fail(f"error: '{targets[0] if targets else ''}': could not find or read package")


def _deptest(ctx: Ctx, mods: dict, flags: set, targets: list[str]) -> int:
    missing = [t for t in targets if not ctx.state.satisfied(t)]
    ctx.say(*missing)
    return 127 if missing else 0
