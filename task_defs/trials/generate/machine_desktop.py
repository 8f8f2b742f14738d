"""The desktop family: deskctl (our own desktop settings tool, documented in the shell tool's description) on the
mock machine, with pacman where a setting needs a package first. A template picks a fixture and a setting that
differs from what the fixture has; some requests take two steps in order (unbind before binding, install before
choosing), some are questions answered by the deskctl query that shows the setting."""

from __future__ import annotations

import re

from task_defs.trials.generate.build import Draft, T
from task_defs.trials.generate.machine import PACKAGE_FIXTURES, mdraft
from task_defs.trials.generate.rng import Rng
from task_defs.trials.machine.fixtures import fixture
from task_defs.trials.machine.state import HOME, State

THEME_NAMES = {"tokyo-night": ("Tokyo Night", "tokyo-night"), "catppuccin": ("Catppuccin",), "gruvbox": ("Gruvbox",),
               "nord": ("Nord",), "everforest": ("Everforest",), "kanagawa": ("Kanagawa",),
               "rose-pine": ("Rose Pine", "rose-pine"), "matte-black": ("Matte Black", "matte-black"),
               "osaka-jade": ("Osaka Jade",), "ristretto": ("Ristretto",)}
LAYOUTS = (("de", "German"), ("fr", "French"), ("gb", "British English"), ("us", "US English"), ("es", "Spanish"),
           ("it", "Italian"), ("se", "Swedish"), ("pl", "Polish"), ("pt", "Portuguese"), ("no", "Norwegian"),
           ("dk", "Danish"), ("fi", "Finnish"), ("cz", "Czech"), ("jp", "Japanese"), ("nl", "Dutch"))
VARIANTS = (("us", "dvorak", "US Dvorak"), ("us", "colemak", "Colemak (on the US layout)"),
            ("us", "colemak_dh", "Colemak-DH on a US layout"), ("us", "intl", "US international"),
            ("us", "altgr-intl", "US international with AltGr dead keys"), ("de", "nodeadkeys", "German, no dead keys"),
            ("gb", "mac", "British (Mac)"), ("fr", "mac", "French (Mac)"), ("de", "mac", "German (Mac)"))
ACTIONS = (("lock the screen", "lock"), ("close the focused window", "close"), ("toggle fullscreen", "fullscreen"),
           ("make the focused window float", "float"), ("open the app launcher", "launcher"),
           ("take a screenshot", "screenshot"), *((f"switch to workspace {n}", f"workspace {n}") for n in range(5, 11)),
           *((f"move the focused window to workspace {n}", f"movetoworkspace {n}") for n in range(4, 11)))
MODS = ("SUPER", "SUPER+SHIFT", "SUPER+CTRL", "SUPER+ALT", "CTRL+ALT")
LETTERS = "ACDEGIJKLMOPQRSTUXYZ"


def _fx(rng: Rng, ok) -> tuple[str, State]:
    names = [n for n in PACKAGE_FIXTURES if ok(fixture(n))]
    name = rng.pick(names)
    return name, fixture(name)


def _spell(rng: Rng, keys: str) -> str:
    """A key combination as a person writes it: SUPER+E, Super+E, super + e."""
    return rng.pick((keys, "+".join(p.capitalize() if len(p) > 1 else p for p in keys.split("+")),
                     " + ".join(p.lower() for p in keys.split("+"))))


THEME = ("Switch my desktop theme to {t}.", "Change the theme to {t}.", "I'd like the {t} theme now.",
         "Use {t} as the desktop theme.", "Set the theme to {t}, please.")


def d_theme(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    t = rng.pick([t for t in THEME_NAMES if t != st.desktop.theme])
    return mdraft(rng.pick(THEME).format(t=rng.pick(THEME_NAMES[t])), fx, [f"deskctl theme set {t}"],
                  ["desktop.theme"])


KEEP = ("Switch the theme to {t}, but keep the wallpaper I have now.", "Change to the {t} theme without losing my "
        "current wallpaper.", "Set the theme to {t}; the wallpaper must stay what it is now.")


def d_theme_keep(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    t = rng.pick([t for t in THEME_NAMES if t != st.desktop.theme])
    return mdraft(rng.pick(KEEP).format(t=rng.pick(THEME_NAMES[t])), fx,
                  [f"deskctl theme set {t}", f"deskctl wallpaper set {st.desktop.wallpaper}"],
                  ["desktop.theme", "desktop.wallpaper"])


WALL = ("Set my wallpaper to {p}.", "Use {p} as the desktop background.", "Make {p} my wallpaper.",
        "Use the picture {f} from my Wallpapers folder as the background.",
        "Change the wallpaper to {f} (it's in ~/Pictures/Wallpapers).")


def d_wallpaper(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    path = rng.pick([p for p in st.pictures if p != st.desktop.wallpaper])
    shown = path.replace(HOME, "~") if rng.chance(0.6) else path
    prompt = rng.pick(WALL).format(p=shown, f=path.rsplit("/", 1)[1])
    return mdraft(prompt, fx, [f"deskctl wallpaper set {path}"], ["desktop.wallpaper"])


NEXT = ("Switch to the next background of my current theme.", "Cycle the wallpaper to the theme's next background.",
        "Next wallpaper, please (from the theme's own backgrounds).")


def d_next(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    return mdraft(rng.pick(NEXT), fx, ["deskctl wallpaper next"], ["desktop.wallpaper"])


FONT = ("Use {f} as the desktop font.", "Change the desktop font to {f}.", "Switch the system font to {f}.")
SIZED = (" Size {n}.", " At size {n}, please.", " Make it {n} points.")


def d_font(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: len(s.fonts()) > 1)
    f = rng.pick(sorted(x for x in st.fonts() if x != st.desktop.font))
    sized = rng.chance(0.5)
    n = rng.pick([k for k in (9, 10, 11, 12, 13, 14, 15, 16) if k != st.desktop.font_size])
    prompt = rng.pick(FONT).format(f=f) + (rng.pick(SIZED).format(n=n) if sized else "")
    ref = f"deskctl font set '{f}'" + (f" --size {n}" if sized else "")
    return mdraft(prompt, fx, [ref], ["desktop.font"] + (["desktop.font_size"] if sized else []))


SIZE = ("Make the desktop font size {n}.", "Set the font size to {n}; keep the font.", "Font size {n}, please.")


def d_size(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    n = rng.pick([k for k in range(8, 21) if k != st.desktop.font_size])
    return mdraft(rng.pick(SIZE).format(n=n), fx, [f"deskctl font size {n}"], ["desktop.font_size"])


FONT_INSTALL = ("Set the desktop font to {f}. It isn't installed yet, so install its package first.",
                "I want {f} as my desktop font; install the font package it comes in, then switch to it.",
                "Install the package that provides the {f} font and make it the desktop font.")


def d_font_install(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    free = sorted((f, n) for n in st.repo if n not in st.installed for f in st.repo[n].fonts)
    f, pkg = rng.pick(free)
    return mdraft(rng.pick(FONT_INSTALL).format(f=f), fx, [f"sudo pacman -S {pkg}", f"deskctl font set '{f}'"],
                  [f"packages.{pkg}.installed", "desktop.font"])


LAYOUT = ("Switch my keyboard layout to {l}.", "Change the keyboard to the {l} layout.", "I need a {l} keyboard "
          "layout now.", "Set the keyboard layout to {l}.")


def d_layout(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    code, name = rng.pick([x for x in LAYOUTS if x[0] != st.desktop.layout])
    return mdraft(rng.pick(LAYOUT).format(l=rng.pick((name, code)) if rng.chance(0.3) else name), fx,
                  [f"deskctl keyboard layout {code}"], ["desktop.layout"])


VARIANT = ("Switch my keyboard to {v}.", "Set the keyboard layout to {v}.", "I type on {v}: set the keyboard so.")


def d_variant(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    code, variant, name = rng.pick([x for x in VARIANTS if (x[0], x[1]) != (st.desktop.layout, st.desktop.variant)])
    return mdraft(rng.pick(VARIANT).format(v=name), fx, [f"deskctl keyboard layout {code} --variant {variant}"],
                  ["desktop.layout", "desktop.variant"])


TWO = ("I type in {a} and {b}: set both keyboard layouts, {a} first.",
       "Give me two keyboard layouts, {a} then {b}.", "Set the layouts to {a} and {b} (in that order).")


def d_two(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    (ca, a), (cb, b) = rng.sample(LAYOUTS, 2)
    return mdraft(rng.pick(TWO).format(a=a, b=b), fx, [f"deskctl keyboard layout {ca},{cb}"], ["desktop.layout"])


NIGHT = ("Turn on night light at {k} K.", "Enable the night light with a colour temperature of {k} kelvin.",
         "Night light on, please, at {k}K.", "Switch the night light on and set it to {k} K.")


def d_night(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    k = rng.pick([x for x in range(2500, 5600, 250) if x != st.desktop.nightlight_temp])
    return mdraft(rng.pick(NIGHT).format(k=k), fx, [f"deskctl nightlight on --temp {k}"],
                  ["desktop.nightlight", "desktop.nightlight_temp"])


NIGHT_OFF = ("Turn the night light off.", "Switch off night light; I'm editing photos.",
             "Disable the night light.")


def d_night_off(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: s.desktop.nightlight)
    return mdraft(rng.pick(NIGHT_OFF), fx, ["deskctl nightlight off"], ["desktop.nightlight"])


SCALE = ("Set the display scale to {x}.", "Scale the display to {p}%.", "Everything is the wrong size: make the "
         "display scale {x}.", "Change the display scaling to {p} percent.")


def d_scale(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    x = rng.pick([v for v in (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5) if v != st.desktop.scale])
    return mdraft(rng.pick(SCALE).format(x=f"{x:g}", p=round(x * 100)), fx, [f"deskctl display scale {x:g}"],
                  ["desktop.scale"])


BIND = ("Bind {k} to {a}.", "Make {k} {a}.", "Add a key binding: {k} should {a}.", "I want {k} to {a}.")
OPEN = ("open {app}", "launch {app}", "start {app}")


def _free_keys(rng: Rng, st: State) -> str:
    while True:
        keys = f"{rng.pick(MODS)}+{rng.pick(LETTERS)}"
        if keys not in st.desktop.bindings:
            return keys


def _action(rng: Rng, st: State) -> tuple[str, str]:
    apps = [n for n in sorted(st.installed) if st.info(n).role]
    if rng.chance(0.4):
        app = rng.pick(apps)
        return rng.pick(OPEN).format(app=app), f"exec {app}"
    return rng.pick(ACTIONS)


def d_bind(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    keys, (said, action) = _free_keys(rng, st), _action(rng, st)
    return mdraft(rng.pick(BIND).format(k=_spell(rng, keys), a=said), fx, [f"deskctl bind {keys} {action}"],
                  [f"desktop.bindings.{keys}"])


REBIND = ("{k} is bound already; make it {a} instead.", "Change {k} so that it will {a}.",
          "Rebind {k}: it should {a} from now on.")


def d_rebind(rng: Rng) -> Draft | None:
    fx, st = _fx(rng, lambda s: True)
    keys = rng.pick(sorted(st.desktop.bindings))
    said, action = _action(rng, st)
    if st.desktop.bindings[keys] == action:
        return None
    return mdraft(rng.pick(REBIND).format(k=_spell(rng, keys), a=said), fx,
                  [f"deskctl unbind {keys}", f"deskctl bind {keys} {action}"], [f"desktop.bindings.{keys}"])


UNBIND = ("Remove the {k} key binding.", "Unbind {k}; I keep hitting it by accident.", "{k} should do nothing.")


def d_unbind(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    keys = rng.pick(sorted(st.desktop.bindings))
    return mdraft(rng.pick(UNBIND).format(k=_spell(rng, keys)), fx, [f"deskctl unbind {keys}"],
                  [f"desktop.bindings.{keys}"])


DEFAULT = ("Make {a} my default {r}.", "Set the default {r} to {a}.", "I want {a} as the default {r}.")
DEFAULT_INSTALL = ("Install {a} and make it my default {r}.", "Get {a} installed and set it as the default {r}.",
                   "Switch my default {r} to {a}; it needs installing first.")


def d_default_set(rng: Rng) -> Draft | None:
    return d_default(rng, False)


def d_default_install(rng: Rng) -> Draft | None:
    return d_default(rng, True)


def d_default(rng: Rng, install: bool) -> Draft | None:
    fx, st = _fx(rng, lambda s: True)
    role = rng.pick(("terminal", "browser"))
    pool = [n for n in sorted(st.repo) if st.repo[n].role == role and (n in st.installed) != install
            and n != getattr(st.desktop, role)]
    if not pool:
        return None
    app = rng.pick(pool)
    ref = ([f"sudo pacman -S {app}"] if install else []) + [f"deskctl default {role} {app}"]
    return mdraft(rng.pick(DEFAULT_INSTALL if install else DEFAULT).format(a=app, r=role), fx, ref,
                  ([f"packages.{app}.installed"] if install else []) + [f"desktop.{role}"])


QUERIES = {
    "theme": ("Which theme is my desktop using? Run the deskctl command that shows it.",
              "Show me the current desktop theme with deskctl."),
    "font": ("What font is the desktop set to? Show it with deskctl.", "Run the deskctl query that shows my font."),
    "scale": ("What display scale is set? Show it with deskctl.", "Check the current display scaling (deskctl)."),
    "layout": ("Which keyboard layout is active? Run the deskctl command that tells.",
               "Show me the keyboard layout setting with deskctl."),
    "browser": ("Which browser is my default? Show it with deskctl.", "Run the deskctl query for my default browser."),
    "binding": ("What is {k} bound to? Run the deskctl command that lists it.", "Show what {k} does (deskctl)."),
}


def d_query(rng: Rng) -> Draft:
    fx, st = _fx(rng, lambda s: True)
    d, what = st.desktop, rng.pick(sorted(QUERIES))
    e = re.escape
    keys = rng.pick(sorted(d.bindings))
    rx, ref = {
        "theme": (rf"^(?:theme: |\* ){e(d.theme)}$", "deskctl status"),
        "font": (rf"^(?:font: {e(d.font)}|\* {e(d.font)} \(\S+\))$", "deskctl status"),
        "scale": (rf"^display scale: {e(f'{d.scale:g}')}$", "deskctl status"),
        "layout": (rf"^keyboard layout: {e(d.layout)}$", "deskctl status"),
        "browser": (rf"^(?:default )?browser: {e(d.browser)}$", "deskctl default"),
        "binding": (rf"^{e(keys)} +{e(d.bindings[keys])}$", "deskctl bindings"),
    }[what]
    return mdraft(rng.pick(QUERIES[what]).format(k=_spell(rng, keys)), fx, [ref], stdout_regex=rx)


def desktop_templates():
    return [(T(d_theme), 8), (T(d_theme_keep), 4), (T(d_wallpaper), 6), (T(d_next), 2), (T(d_font), 6),
            (T(d_size), 3), (T(d_font_install), 4), (T(d_layout), 4), (T(d_variant), 4), (T(d_two), 3),
            (T(d_night), 4), (T(d_night_off), 2), (T(d_scale), 4), (T(d_bind), 8), (T(d_rebind), 5),
            (T(d_unbind), 3), (T(d_default_set), 3), (T(d_default_install), 3),
            (T(d_query), 8)]
