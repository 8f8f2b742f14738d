"""systemctl on the mock machine: units of the installed packages, system-wide or the user's (--user).

    enable|disable [--now] UNIT...   (--now also starts or stops)     start|stop|restart|try-restart|reload UNIT...
    mask|unmask [--now] UNIT...      status [UNIT...]     is-active|is-enabled UNIT...
    list-units [--all] [--type=T]    list-unit-files [--type=T]      list-timers      daemon-reload

A unit is named with or without `.service`. Changing a system unit needs root: without sudo it fails as the real one
does when it cannot ask for a password; a user unit needs no sudo, and under sudo the user's bus is out of reach.
A unit of a package that is not installed is not found; a masked unit can be neither started nor enabled.
"""

from __future__ import annotations

from task_defs.trials.machine.programs import Ctx
from task_defs.trials.machine.state import HOME, Unit, unit_file, unit_key

CHANGES = ("enable", "disable", "reenable", "start", "stop", "restart", "try-restart", "reload", "mask", "unmask",
           "daemon-reload")
QUERIES = ("status", "is-active", "is-enabled", "list-units", "list-unit-files", "list-timers")
QUIET = {"--no-pager", "-q", "--quiet", "--no-ask-password", "-l", "--full", "--no-legend", "--plain", "--system",
         "--no-block", "-f", "--force"}
USER_BUS = ("Failed to connect to user scope bus via local transport: $DBUS_SESSION_BUS_ADDRESS and $XDG_RUNTIME_DIR "
            "not defined (consider using --machine=<user>@.host --user to connect to bus of other user)")


def systemctl(ctx: Ctx, args: list[str]) -> int:
    scope, now, show_all, types, words = "system", False, False, None, []
    for a in args:
        if a == "--user":
            scope = "user"
        elif a == "--now":
            now = True
        elif a in ("--all", "-a"):
            show_all = True
        elif a.startswith("--type=") or a.startswith("-t"):
            types = a.split("=", 1)[1] if "=" in a else a[2:]
        elif a in QUIET:
            continue
        elif a.startswith("-"):
            return ctx.fail(f"systemctl: unrecognized option '{a}'")
        else:
            words.append(a)
    verb, units = (words[0], words[1:]) if words else ("list-units", [])
    if verb not in CHANGES + QUERIES:
        return ctx.fail(f"Unknown command verb '{verb}'.")
    if scope == "user" and ctx.root:
        return ctx.fail(USER_BUS)
    if verb in CHANGES and scope == "system" and not ctx.root:
        what = "unit" if verb in ("enable", "disable", "reenable", "mask", "unmask") else \
            unit_file(unit_key(units[0])) if units else "daemon"
        return ctx.fail(f"Failed to {verb.replace('daemon-', '')} {what}: Interactive authentication required.")
    if verb == "daemon-reload":
        return 0
    if verb in ("list-units", "list-unit-files", "list-timers"):
        return _list(ctx, scope, verb, show_all, "timer" if verb == "list-timers" else types)
    if verb == "status":
        return _status(ctx, scope, units)
    if not units:
        return ctx.fail("Too few arguments.")
    status = 0
    for name in units:
        status = max(status, _one(ctx, scope, verb, unit_key(name), now))
    return status


def _wants(scope: str, key: str) -> tuple[str, str]:
    """(where enable links the unit, the unit file it links to)."""
    if scope == "user":
        return (f"{HOME}/.config/systemd/user/default.target.wants/{unit_file(key)}",
                f"/usr/lib/systemd/user/{unit_file(key)}")
    target = "timers.target" if key.endswith(".timer") else "sockets.target" if key.endswith(".socket") else \
        "multi-user.target"
    return f"/etc/systemd/system/{target}.wants/{unit_file(key)}", f"/usr/lib/systemd/system/{unit_file(key)}"


def _mask_path(scope: str, key: str) -> str:
    return (f"{HOME}/.config/systemd/user/" if scope == "user" else "/etc/systemd/system/") + unit_file(key)


def _one(ctx: Ctx, scope: str, verb: str, key: str, now: bool) -> int:
    units = ctx.state.units_of(scope)
    u: Unit | None = units.get(key)
    f = unit_file(key)
    if verb in ("is-active", "is-enabled"):
        if verb == "is-active":
            ctx.say("active" if u and u.active else "inactive")
            return 0 if u and u.active else 3
        if u is None:
            return ctx.fail(f"Failed to get unit file state for {f}: No such file or directory")
        state = "masked" if u.masked else "enabled" if u.enabled else "disabled"
        ctx.say(state)
        return 0 if state == "enabled" else 1
    if u is None:
        if verb in ("enable", "disable", "reenable", "mask", "unmask"):
            return ctx.fail(f"Failed to {verb} unit: Unit file {f} does not exist.")
        if verb in ("stop", "try-restart"):
            return ctx.fail(f"Failed to {verb} {f}: Unit {f} not loaded.", 5)
        return ctx.fail(f"Failed to {verb} {f}: Unit {f} not found.", 5)
    link, target = _wants(scope, key)
    if verb in ("enable", "reenable"):
        if u.masked:
            return ctx.fail(f"Failed to enable unit: Unit file {_mask_path(scope, key)} is masked.")
        if verb == "reenable" and u.enabled:
            ctx.say(f"Removed '{link}'.")
        if not u.enabled or verb == "reenable":
            ctx.say(f"Created symlink '{link}' → '{target}'.")
        u.enabled = True
        return _start(ctx, u, f) if now else 0
    if verb == "disable":
        if u.enabled:
            ctx.say(f"Removed '{link}'.")
        u.enabled = False
        if now:
            u.active = False
        return 0
    if verb == "mask":
        if not u.masked:
            ctx.say(f"Created symlink '{_mask_path(scope, key)}' → '/dev/null'.")
        u.masked = True
        if now:
            u.active = False
        return 0
    if verb == "unmask":
        if u.masked:
            ctx.say(f"Removed '{_mask_path(scope, key)}'.")
        u.masked = False
        return 0
    if verb in ("start", "restart"):
        return _start(ctx, u, f)
    if verb == "try-restart":
        return 0
    if verb == "reload":
        if not u.active:
            return ctx.fail(f"Failed to reload {f}: Unit {f} is not active.")
        return 0
    u.active = False  # stop
    return 0


def _start(ctx: Ctx, u: Unit, f: str) -> int:
    if u.masked:
        return ctx.fail(f"Failed to start {f}: Unit {f} is masked.")
    u.active = True
    return 0


def _describe(ctx: Ctx, scope: str, key: str) -> str:
    owner = ctx.state.owner_of_unit(key, scope)
    info = ctx.state.info(owner) if owner else None
    return info.description if info else key


def _status(ctx: Ctx, scope: str, names: list[str]) -> int:
    units = ctx.state.units_of(scope)
    if not names:
        active = sum(u.active for u in units.values())
        ctx.say(f"● arch\n    State: running\n    Units: {len(units)} loaded, {active} active")
        return 0
    status = 0
    for k, name in enumerate(names):
        key = unit_key(name)
        f, u = unit_file(key), units.get(key)
        if k:
            ctx.say("")
        if u is None:
            ctx.say(f"Unit {f} could not be found.")
            status = max(status, 4)
            continue
        where = _wants(scope, key)[1]
        dot = "●" if u.active else "○"
        if u.masked:
            ctx.say(f"{dot} {f}", f"     Loaded: masked (Reason: Unit {f} is masked.)")
        else:
            ctx.say(f"{dot} {f} - {_describe(ctx, scope, key)}",
                    f"     Loaded: loaded ({where}; {'enabled' if u.enabled else 'disabled'}; preset: disabled)")
        running = "active (waiting)" if key.endswith(".timer") else "active (running)"
        ctx.say(f"     Active: {running if u.active else 'inactive (dead)'}")
        if not u.active:
            status = max(status, 3)
    return status


def _list(ctx: Ctx, scope: str, verb: str, show_all: bool, types: str | None) -> int:
    units = ctx.state.units_of(scope)
    chosen = [(k, u) for k, u in units.items() if types is None or unit_file(k).endswith("." + types)]
    if verb == "list-unit-files":
        ctx.say(f"{'UNIT FILE':<40} STATE")
        for k, u in chosen:
            ctx.say(f"{unit_file(k):<40} {'masked' if u.masked else 'enabled' if u.enabled else 'disabled'}")
        ctx.say("", f"{len(chosen)} unit files listed.")
        return 0
    if not show_all or verb == "list-timers":
        chosen = [(k, u) for k, u in chosen if u.active]
    ctx.say(f"{'UNIT':<40} {'LOAD':<7} {'ACTIVE':<9} DESCRIPTION")
    for k, u in chosen:
        ctx.say(f"{unit_file(k):<40} {'masked' if u.masked else 'loaded':<7} {'active' if u.active else 'inactive':<9} "
                f"{_describe(ctx, scope, k)}")
    ctx.say("", f"{len(chosen)} {'timers' if verb == 'list-timers' else 'loaded units'} listed.")
    return 0
