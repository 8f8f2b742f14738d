"""The named fixture states a machine trial starts from. Each is checked when first built: every installed package
is known and has what it depends on, every unit belongs to an installed package, the desktop names installed apps
and fonts. `fixture(name)` gives a fresh copy each time (the programs change it in place).

    fresh          a new desktop install: base, alacritty, chromium, the PipeWire stack
    dev_laptop     a developer's laptop: editors, CLI tools, docker and sshd installed but off, tlp, bluetooth,
                   some packages out of date, an orphaned library, an AUR helper
    home_server    a small server with a screen: sshd, nginx, cups, docker, tailscale running, postgresql and ufw
                   installed but off, avahi masked, syncthing as a user service
    media_desktop  music and bluetooth: mpd as a user service, cups masked, several fonts and browsers
    stale          long without an update: many packages out of date, orphans, a .pacsave left behind
    minimal        foot, firefox and one font; few key bindings
"""

from __future__ import annotations

import functools
import json

from task_defs.trials.machine.catalog import FOREIGN, PICTURES, REPO, THEMES
from task_defs.trials.machine.state import State

BASE = "linux sudo pacman systemd networkmanager glibc:dep gcc-libs:dep readline:dep ncurses:dep bash:dep zlib:dep " \
       "openssl:dep curl:dep util-linux:dep libnm:dep"
BASE_UNITS = {"NetworkManager": "on", "systemd-timesyncd": "on", "systemd-resolved": "on"}
AUDIO = "pipewire:dep pipewire-pulse wireplumber"
AUDIO_UNITS = {"pipewire.socket": "on", "pipewire": "active", "pipewire-pulse": "on", "wireplumber": "on"}
BINDINGS = {"SUPER+RETURN": "exec {terminal}", "SUPER+B": "exec {browser}", "SUPER+W": "close",
            "SUPER+F": "fullscreen", "SUPER+V": "float", "SUPER+SPACE": "launcher", "SUPER+ESCAPE": "lock",
            "PRINT": "screenshot", "SUPER+1": "workspace 1", "SUPER+2": "workspace 2", "SUPER+3": "workspace 3",
            "SUPER+4": "workspace 4", "SUPER+SHIFT+1": "movetoworkspace 1", "SUPER+SHIFT+2": "movetoworkspace 2",
            "SUPER+SHIFT+3": "movetoworkspace 3"}
_UNIT = {"on": {"enabled": True, "active": True}, "enabled": {"enabled": True}, "active": {"active": True},
         "masked": {"masked": True}, "off": {}}


def _installed(spec: str) -> dict:
    """'name', 'name:dep' (a dependency), 'name@1.2-1' (an older version than the repository's)."""
    out = {}
    for word in spec.split():
        name, _, reason = word.partition(":")
        name, _, version = name.partition("@")
        info = FOREIGN.get(name) or REPO[name]
        out[name] = {"version": version or info["version"], "reason": "dependency" if reason == "dep" else "explicit"}
    return out


def _build(packages: str, units: dict, user_units: dict, desktop: dict, bindings: dict | None = None,
           drop: tuple[str, ...] = (), pacsave: tuple[str, ...] = ()) -> State:
    installed = _installed(" ".join([BASE, packages]))
    foreign = {n: FOREIGN[n] for n in installed if n in FOREIGN}
    d = {"font_size": 11, **desktop}
    d["wallpaper"] = d.get("wallpaper") or THEMES[d["theme"]][0]
    binds = {k: v.format(**d) for k, v in {**BINDINGS, **(bindings or {})}.items() if k not in drop}
    state = State.model_validate({
        "repo": REPO, "foreign": foreign, "installed": installed,
        "services": {u: _UNIT[s] for u, s in {**BASE_UNITS, **units}.items()},
        "user_services": {u: _UNIT[s] for u, s in user_units.items()},
        "pacsave": list(pacsave), "themes": THEMES, "pictures": PICTURES,
        "desktop": {**d, "bindings": binds}}).normalized()
    return state


def _fresh() -> State:
    return _build(f"alacritty chromium ttf-jetbrains-mono-nerd noto-fonts {AUDIO}", {}, AUDIO_UNITS,
                  {"theme": "tokyo-night", "font": "JetBrainsMono Nerd Font", "terminal": "alacritty",
                   "browser": "chromium"})


def _dev_laptop() -> State:
    return _build(
        f"{AUDIO} git@2.48.1-1 neovim ripgrep@14.1.0-1 fd fzf btop docker openssh tlp bluez bluez-utils kitty "
        "firefox@137.0.2-1 ttf-cascadia-code ttf-jetbrains-mono-nerd bat jq yay-bin perl:dep pcre2:dep libuv:dep "
        "luajit:dep tree-sitter:dep containerd:dep iptables:dep libgit2:dep oniguruma:dep postgresql-libs:dep "
        "python:dep",
        {"tlp": "on", "bluetooth": "enabled"}, AUDIO_UNITS,
        {"theme": "gruvbox", "wallpaper": THEMES["gruvbox"][1], "font": "Cascadia Code", "font_size": 12,
         "terminal": "kitty", "browser": "firefox", "scale": 1.25, "layout": "us,de", "nightlight": True,
         "nightlight_temp": 3500},
        {"SUPER+N": "exec kitty -e nvim", "SUPER+SHIFT+B": "exec chromium --incognito"},
        drop=("SUPER+SHIFT+3",))


def _home_server() -> State:
    return _build(
        "openssh nginx postgresql cronie ufw avahi cups tailscale syncthing docker reflector pacman-contrib htop foot "
        "firefox ttf-dejavu ttf-hack pcre2:dep postgresql-libs:dep iptables:dep python:dep containerd:dep",
        {"sshd": "on", "nginx": "on", "cronie": "on", "avahi-daemon": "masked", "cups": "on", "cups.socket": "on",
         "tailscaled": "on", "docker": "on", "containerd": "on", "reflector.timer": "on"},
        {"syncthing": "on"},
        {"theme": "nord", "font": "DejaVu Sans Mono", "font_size": 10, "terminal": "foot", "browser": "firefox",
         "layout": "gb", "nightlight_temp": 4500},
        {"SUPER+H": "exec foot -e htop"}, drop=("SUPER+4", "SUPER+SHIFT+2", "SUPER+SHIFT+3"))


def _media_desktop() -> State:
    return _build(
        f"{AUDIO} mpd@0.24.3-1 bluez bluez-utils cups foot ghostty firefox qutebrowser ttf-ibm-plex ttf-fira-code "
        "ttf-hack inter-font vim zoxide eza vim-runtime:dep python:dep libgit2:dep pcre2:dep",
        {"bluetooth": "on", "cups": "masked", "cups.socket": "masked"}, {**AUDIO_UNITS, "mpd": "on"},
        {"theme": "catppuccin", "wallpaper": PICTURES[7], "font": "IBM Plex Mono", "font_size": 13,
         "terminal": "ghostty", "browser": "qutebrowser", "scale": 1.5, "layout": "de", "variant": "nodeadkeys",
         "nightlight": True},
        {"SUPER+M": "exec ghostty -e ncmpcpp", "SUPER+CTRL+B": "exec ghostty -e bluetoothctl"})


def _stale() -> State:
    return _build(
        "linux@6.14.4.arch1-1 openssl@3.4.1-1:dep curl@8.12.1-2:dep systemd@257.4-1 firefox@137.0.2-1 "
        "python@3.13.2-1 git@2.48.1-1 vim@9.1.1300-1 vim-runtime@9.1.1300-1:dep bat@0.24.0-3 htop alacritty "
        "noto-fonts ttf-fira-code visual-studio-code-bin perl:dep pcre2:dep libgit2:dep oniguruma:dep libuv:dep "
        "tree-sitter:dep",
        {"fstrim.timer": "on"}, {},
        {"theme": "everforest", "font": "Fira Code", "terminal": "alacritty", "browser": "firefox", "scale": 2.0,
         "layout": "fr", "nightlight_temp": 5000},
        {"SUPER+E": "exec code"}, pacsave=("/etc/nginx/nginx.conf.pacsave",))


def _minimal() -> State:
    return _build("foot firefox ttf-hack", {}, {},
                  {"theme": "matte-black", "font": "Hack", "terminal": "foot", "browser": "firefox"},
                  drop=tuple(k for k in BINDINGS if k not in ("SUPER+RETURN", "SUPER+B", "SUPER+W", "SUPER+1",
                                                             "SUPER+2")))


BUILDERS = {"fresh": _fresh, "dev_laptop": _dev_laptop, "home_server": _home_server, "media_desktop": _media_desktop,
            "stale": _stale, "minimal": _minimal}
NAMES = tuple(BUILDERS)


class FixtureError(ValueError):
    pass


def check(state: State, name: str = "inline") -> State:
    problems = state.problems()
    for n in state.installed:
        info = state.info(n)
        problems += [f"installed {n} lacks its dependency {d!r}" for d in info.depends if not state.satisfied(d)]
    if problems:
        raise FixtureError(f"fixture {name}: " + "; ".join(problems))
    return state


@functools.lru_cache(maxsize=None)
def _checked(name: str) -> State:
    return check(BUILDERS[name](), name)


def check_spec(spec: str | dict) -> None:
    """Raises FixtureError when the spec names no fixture or builds an inconsistent one; copies nothing."""
    if isinstance(spec, str):
        if spec not in BUILDERS:
            raise FixtureError(f"no fixture {spec!r}; the fixtures are {', '.join(NAMES)}")
        _checked(spec)
    else:
        fixture(spec)


def fixture(spec: str | dict) -> State:
    """A fresh copy of the named fixture, or of an inline one (a State's fields; `repo`, `themes` and `pictures`
    default to the catalog's)."""
    if isinstance(spec, str):
        if spec not in BUILDERS:
            raise FixtureError(f"no fixture {spec!r}; the fixtures are {', '.join(NAMES)}")
        return _checked(spec).copy()
    return _inline(json.dumps(spec, sort_keys=True)).copy()


@functools.lru_cache(maxsize=256)
def _inline(spec_json: str) -> State:
    raw = {"repo": REPO, "themes": THEMES, "pictures": PICTURES, **json.loads(spec_json)}
    return check(State.model_validate(raw).normalized())
