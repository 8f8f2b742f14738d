"""deskctl: the mock machine's desktop settings tool, a design of our own (no model can know it from training: the
trials document it in full, HELP below, in the shell tool's description).

It runs as the user, never as root. Names are taken without regard to case and stored in their canonical form.
"""

from __future__ import annotations

import posixpath

from task_defs.trials.machine.programs import Ctx
from task_defs.trials.machine.state import State

HELP = """deskctl - change the desktop's settings; each change takes effect at once. Run it as yourself, not with sudo.
  deskctl status                          every setting
  deskctl theme list                      the themes (* marks the one in use)
  deskctl theme set NAME                  switch theme; this also sets the theme's first wallpaper
  deskctl font list                       the font families of the installed font packages (* in use)
  deskctl font set NAME [--size N]        the desktop font (NAME may be several words); N: 6 to 32
  deskctl font size N                     the font size alone
  deskctl wallpaper list                  the current theme's backgrounds and your pictures (* in use)
  deskctl wallpaper set PATH              any listed image, by path (or by file name when that is unique)
  deskctl wallpaper next                  the current theme's next background
  deskctl keyboard layout LAYOUT[,LAYOUT...] [--variant V]
                                          xkb layout codes (us, de, fr, gb, ...); without --variant the variant
                                          is cleared; V: dvorak, colemak, colemak_dh, intl, altgr-intl,
                                          nodeadkeys, mac
  deskctl nightlight on [--temp K]        night light on; K: colour temperature in kelvin, 1000 to 6500
  deskctl nightlight off
  deskctl display scale X                 X: 0.5 to 3 in steps of 0.25 (1.25, 1.5, 2, ...)
  deskctl bindings                        the key bindings
  deskctl bind KEYS ACTION                bind keys; KEYS: modifiers SUPER, CTRL, ALT, SHIFT and one key joined by +
                                          (SUPER+SHIFT+F, SUPER+RETURN, CTRL+ALT+T, PRINT); keys already bound are
                                          refused: unbind them first
                                          ACTION: exec COMMAND..., close, fullscreen, float, lock, launcher,
                                          screenshot, workspace N, movetoworkspace N (N: 1 to 10)
  deskctl unbind KEYS                     remove a binding
  deskctl default                         the default terminal and browser
  deskctl default terminal|browser NAME   the default app: an installed terminal or browser"""

MODS = {"SUPER": "SUPER", "MOD": "SUPER", "WIN": "SUPER", "META": "SUPER", "LOGO": "SUPER", "CTRL": "CTRL",
        "CONTROL": "CTRL", "ALT": "ALT", "SHIFT": "SHIFT"}
MOD_ORDER = ("SUPER", "CTRL", "ALT", "SHIFT")
KEY_ALIASES = {"ENTER": "RETURN", "ESC": "ESCAPE", "PRTSC": "PRINT", "PRINTSCREEN": "PRINT", "DEL": "DELETE",
               "BACK": "BACKSPACE", ",": "COMMA", ".": "PERIOD", "-": "MINUS", "=": "EQUAL"}
NAMED_KEYS = {"RETURN", "SPACE", "TAB", "ESCAPE", "PRINT", "LEFT", "RIGHT", "UP", "DOWN", "COMMA", "PERIOD",
              "MINUS", "EQUAL", "BACKSPACE", "DELETE", "HOME", "END", *(f"F{i}" for i in range(1, 13))}
ACTIONS = {"close": 0, "fullscreen": 0, "float": 0, "lock": 0, "launcher": 0, "screenshot": 0, "workspace": 1,
           "movetoworkspace": 1}
LAYOUTS = ("us", "gb", "de", "fr", "es", "it", "pt", "br", "se", "no", "dk", "fi", "pl", "cz", "hu", "ru", "ua",
           "jp", "kr", "tr", "nl", "be", "ch", "ca", "latam", "gr", "il", "ie")
VARIANTS = ("dvorak", "colemak", "colemak_dh", "intl", "altgr-intl", "nodeadkeys", "mac")


def deskctl(ctx: Ctx, args: list[str]) -> int:
    if ctx.root:
        return ctx.fail("deskctl: refusing to run as root: the settings belong to your session; run it without sudo")
    if not args or args[0] in ("help", "--help", "-h"):
        ctx.say(HELP)
        return 0 if args else 2
    cmd, rest = args[0], args[1:]
    handler = {"status": _status, "theme": _theme, "font": _font, "wallpaper": _wallpaper, "keyboard": _keyboard,
               "nightlight": _nightlight, "display": _display, "bindings": _bindings, "bind": _bind,
               "unbind": _unbind, "default": _default}.get(cmd)
    if handler is None:
        return ctx.fail(f"deskctl: unknown command '{cmd}' (deskctl help lists them)", 2)
    return handler(ctx, ctx.state, rest)


def _usage(ctx: Ctx, line: str) -> int:
    return ctx.fail(f"deskctl: usage: {line}", 2)


def _status(ctx: Ctx, st: State, args: list[str]) -> int:
    d = st.desktop
    ctx.say(f"theme: {d.theme}", f"font: {d.font}", f"font size: {d.font_size}", f"wallpaper: {d.wallpaper}",
            f"keyboard layout: {d.layout}", f"keyboard variant: {d.variant or '(none)'}",
            f"night light: {'on' if d.nightlight else 'off'}", f"night light temperature: {d.nightlight_temp} K",
            f"display scale: {d.scale:g}", f"default terminal: {d.terminal}", f"default browser: {d.browser}",
            f"key bindings: {len(d.bindings)} (deskctl bindings lists them)")
    return 0


def _theme(ctx: Ctx, st: State, args: list[str]) -> int:
    if args == ["list"]:
        ctx.say(*[f"{'*' if t == st.desktop.theme else ' '} {t}" for t in sorted(st.themes)])
        return 0
    if len(args) != 2 or args[0] != "set":
        return _usage(ctx, "deskctl theme list | deskctl theme set NAME")
    name = next((t for t in st.themes if t.casefold() == args[1].casefold()), None)
    if name is None:
        return ctx.fail(f"deskctl: no theme '{args[1]}' (deskctl theme list shows them)")
    st.desktop.theme = name
    if st.themes[name]:
        st.desktop.wallpaper = st.themes[name][0]
    ctx.say(f"theme: {name}", f"wallpaper: {st.desktop.wallpaper}")
    return 0


def _size(ctx: Ctx, text: str) -> int | None:
    if not text.isdigit() or not 6 <= int(text) <= 32:
        ctx.say(f"deskctl: font size '{text}' is not a whole number from 6 to 32")
        return None
    return int(text)


def _font(ctx: Ctx, st: State, args: list[str]) -> int:
    fonts = st.fonts()
    if args == ["list"]:
        ctx.say(*[f"{'*' if f == st.desktop.font else ' '} {f} ({p})" for f, p in sorted(fonts.items())])
        return 0
    if len(args) == 2 and args[0] == "size":
        size = _size(ctx, args[1])
        if size is None:
            return 1
        st.desktop.font_size = size
        ctx.say(f"font size: {size}")
        return 0
    if not args or args[0] != "set":
        return _usage(ctx, "deskctl font list | deskctl font set NAME [--size N] | deskctl font size N")
    words, size = [], None
    rest = args[1:]
    while rest:
        a = rest.pop(0)
        if a == "--size" or a.startswith("--size="):
            value = a.split("=", 1)[1] if "=" in a else (rest.pop(0) if rest else "")
            size = _size(ctx, value)
            if size is None:
                return 1
        elif a.startswith("--"):
            return ctx.fail(f"deskctl: unknown option '{a}'", 2)
        else:
            words.append(a)
    if not words:
        return _usage(ctx, "deskctl font set NAME [--size N]")
    wanted = " ".join(words)
    name = next((f for f in fonts if f.casefold() == wanted.casefold()), None)
    if name is None:
        return ctx.fail(f"deskctl: font '{wanted}' is not installed (deskctl font list shows the installed ones)")
    st.desktop.font = name
    if size is not None:
        st.desktop.font_size = size
    ctx.say(f"font: {name} {st.desktop.font_size}")
    return 0


def _images(st: State) -> list[str]:
    return [*st.themes.get(st.desktop.theme, []), *[p for p in st.pictures]]


def _wallpaper(ctx: Ctx, st: State, args: list[str]) -> int:
    d = st.desktop
    if args == ["list"]:
        ctx.say(*[f"{'*' if p == d.wallpaper else ' '} {p}" for p in _images(st)])
        return 0
    if args == ["next"]:
        own = st.themes.get(d.theme, [])
        if not own:
            return ctx.fail(f"deskctl: theme {d.theme} has no backgrounds")
        d.wallpaper = own[(own.index(d.wallpaper) + 1) % len(own)] if d.wallpaper in own else own[0]
        ctx.say(f"wallpaper: {d.wallpaper}")
        return 0
    if len(args) != 2 or args[0] != "set":
        return _usage(ctx, "deskctl wallpaper list | deskctl wallpaper set PATH | deskctl wallpaper next")
    known = [p for imgs in st.themes.values() for p in imgs] + list(st.pictures)
    path = posixpath.normpath(args[1]) if "/" in args[1] else args[1]
    hits = [p for p in known if p == path] or ([p for p in known if posixpath.basename(p) == path]
                                              if "/" not in path else [])
    if len(set(hits)) != 1:
        why = "is not an image this desktop knows" if not hits else "names more than one image: give the path"
        return ctx.fail(f"deskctl: '{args[1]}' {why} (deskctl wallpaper list shows them)")
    d.wallpaper = hits[0]
    ctx.say(f"wallpaper: {d.wallpaper}")
    return 0


def _keyboard(ctx: Ctx, st: State, args: list[str]) -> int:
    if len(args) < 2 or args[0] != "layout":
        return _usage(ctx, "deskctl keyboard layout LAYOUT[,LAYOUT...] [--variant V]")
    rest, layout, variant = args[1:], None, ""
    while rest:
        a = rest.pop(0)
        if a == "--variant" or a.startswith("--variant="):
            variant = (a.split("=", 1)[1] if "=" in a else (rest.pop(0) if rest else "")).casefold()
            if variant not in VARIANTS:
                return ctx.fail(f"deskctl: unknown variant '{variant}' (one of {', '.join(VARIANTS)})")
        elif layout is None and not a.startswith("-"):
            layout = a.casefold()
        else:
            return _usage(ctx, "deskctl keyboard layout LAYOUT[,LAYOUT...] [--variant V]")
    codes = (layout or "").split(",")
    bad = [c for c in codes if c not in LAYOUTS]
    if bad:
        return ctx.fail(f"deskctl: unknown layout '{bad[0]}' (xkb codes such as {', '.join(LAYOUTS[:8])})")
    st.desktop.layout, st.desktop.variant = ",".join(codes), variant
    ctx.say(f"keyboard layout: {st.desktop.layout}" + (f" ({variant})" if variant else ""))
    return 0


def _nightlight(ctx: Ctx, st: State, args: list[str]) -> int:
    usage = "deskctl nightlight on [--temp K] | deskctl nightlight off"
    if not args or args[0] not in ("on", "off"):
        return _usage(ctx, usage)
    temp, rest = None, args[1:]
    while rest:
        a = rest.pop(0)
        if args[0] == "on" and (a == "--temp" or a.startswith("--temp=")):
            text = (a.split("=", 1)[1] if "=" in a else (rest.pop(0) if rest else "")).rstrip("Kk")
            if not text.isdigit() or not 1000 <= int(text) <= 6500:
                return ctx.fail(f"deskctl: temperature '{text}' is not a number of kelvin from 1000 to 6500")
            temp = int(text)
        else:
            return _usage(ctx, usage)
    st.desktop.nightlight = args[0] == "on"
    if temp is not None:
        st.desktop.nightlight_temp = temp
    ctx.say(f"night light: {args[0]}" + (f" ({st.desktop.nightlight_temp} K)" if args[0] == "on" else ""))
    return 0


def _display(ctx: Ctx, st: State, args: list[str]) -> int:
    if len(args) != 2 or args[0] != "scale":
        return _usage(ctx, "deskctl display scale X")
    try:
        x = float(args[1])
    except ValueError:
        x = -1.0
    if not 0.5 <= x <= 3 or (x * 4) != int(x * 4):
        return ctx.fail(f"deskctl: scale '{args[1]}' is not from 0.5 to 3 in steps of 0.25")
    st.desktop.scale = x
    ctx.say(f"display scale: {x:g}")
    return 0


def keys_of(text: str) -> str | None:
    """The canonical form of a key combination (SUPER+SHIFT+F), or None when it is not one."""
    mods, key = set(), None
    for part in text.upper().replace(" ", "").split("+"):
        if part in MODS:
            mods.add(MODS[part])
            continue
        part = KEY_ALIASES.get(part, part)
        if key is not None or not (part in NAMED_KEYS or (len(part) == 1 and part.isalnum())):
            return None
        key = part
    return "+".join([m for m in MOD_ORDER if m in mods] + [key]) if key else None


def action_of(words: list[str]) -> str | None:
    if len(words) == 1:
        words = words[0].split()
    if not words:
        return None
    name = words[0].casefold()
    if name == "exec":
        return "exec " + " ".join(words[1:]) if len(words) > 1 else None
    if name not in ACTIONS or len(words) != 1 + ACTIONS[name]:
        return None
    if ACTIONS[name] and not (words[1].isdigit() and 1 <= int(words[1]) <= 10):
        return None
    return " ".join([name, *words[1:]])


def _bindings(ctx: Ctx, st: State, args: list[str]) -> int:
    for keys, action in sorted(st.desktop.bindings.items()):
        ctx.say(f"{keys:<20} {action}")
    return 0


def _bind(ctx: Ctx, st: State, args: list[str]) -> int:
    if len(args) < 2:
        return _usage(ctx, "deskctl bind KEYS ACTION")
    keys, action = keys_of(args[0]), action_of(args[1:])
    if keys is None:
        return ctx.fail(f"deskctl: '{args[0]}' is not a key combination (modifiers and one key joined by +)")
    if action is None:
        return ctx.fail(f"deskctl: '{' '.join(args[1:])}' is not an action (deskctl help lists them)")
    bound = st.desktop.bindings.get(keys)
    if bound is not None:
        return ctx.fail(f"deskctl: {keys} is already bound to '{bound}'; run deskctl unbind {keys} first")
    st.desktop.bindings[keys] = action
    ctx.say(f"bound {keys} to {action}")
    return 0


def _unbind(ctx: Ctx, st: State, args: list[str]) -> int:
    if len(args) != 1:
        return _usage(ctx, "deskctl unbind KEYS")
    keys = keys_of(args[0])
    if keys is None or keys not in st.desktop.bindings:
        return ctx.fail(f"deskctl: {keys or args[0]} is not bound")
    del st.desktop.bindings[keys]
    ctx.say(f"unbound {keys}")
    return 0


def _default(ctx: Ctx, st: State, args: list[str]) -> int:
    if not args:
        ctx.say(f"terminal: {st.desktop.terminal}", f"browser: {st.desktop.browser}")
        return 0
    if len(args) != 2 or args[0] not in ("terminal", "browser"):
        return _usage(ctx, "deskctl default terminal|browser NAME")
    apps = st.apps(args[0])
    name = next((a for a in apps if a.casefold() == args[1].casefold()), None)
    if name is None:
        return ctx.fail(f"deskctl: '{args[1]}' is not an installed {args[0]} (installed: {', '.join(apps)})")
    setattr(st.desktop, args[0], name)
    ctx.say(f"{args[0]}: {name}")
    return 0
