"""The machine's state: what is installed and available, the systemd units, the desktop's settings.

A fixture gives only what differs from the defaults: the units of an installed package exist (disabled, stopped,
unmasked) unless the fixture says otherwise; `normalized` fills them in. The grading reads the state through
`flat`, one value per path:

    packages.NAME.installed | .version | .reason        (only installed packages appear)
    services.UNIT.enabled | .active | .masked           (system units of installed packages; user_services alike)
    desktop.FIELD, desktop.bindings.KEYS                (theme, font, font_size, wallpaper, layout, variant,
                                                         nightlight, nightlight_temp, scale, terminal, browser)
    pacsave                                             (config files left behind as .pacsave, sorted)

A unit is named without `.service` (sshd), other unit types with theirs (fstrim.timer). A path's section is its
first segment and its field the last; the name is what lies between (it may hold dots: fstrim.timer).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

USER = "me"
HOME = f"/home/{USER}"


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Package(_M):
    """A package as its database knows it."""

    version: str
    description: str = ""
    repo: Literal["core", "extra", "multilib", "aur"] = "extra"
    depends: list[str] = []  # package names, or names another package provides
    provides: list[str] = []
    files: list[str] = []  # what it ships, without the leading slash: usr/bin/rg
    units: list[str] = []  # system units (sshd, fstrim.timer)
    user_units: list[str] = []
    backup: list[str] = []  # config files: removed without -n they stay behind as FILE.pacsave
    fonts: list[str] = []  # font families it brings
    role: Literal["terminal", "browser"] | None = None  # an app the desktop can take as its default


class Installed(_M):
    version: str
    reason: Literal["explicit", "dependency"] = "explicit"


class Unit(_M):
    enabled: bool = False
    active: bool = False
    masked: bool = False


class Desktop(_M):
    theme: str
    font: str
    font_size: int = 11
    wallpaper: str
    layout: str = "us"
    variant: str = ""
    nightlight: bool = False
    nightlight_temp: int = 4000
    scale: float = 1.0
    bindings: dict[str, str] = {}
    terminal: str
    browser: str


class State(_M):
    repo: dict[str, Package]
    foreign: dict[str, Package] = {}  # installed from outside the repositories (pacman -Qm)
    installed: dict[str, Installed]
    services: dict[str, Unit] = {}
    user_services: dict[str, Unit] = {}
    pacsave: list[str] = []
    themes: dict[str, list[str]] = {}  # theme -> its backgrounds, the first one set with the theme
    pictures: list[str] = []  # the user's own images, usable as wallpaper
    desktop: Desktop

    # ------------------------------------------------------------------------------------------ reading

    def info(self, name: str) -> Package | None:
        """The package's record: the local one for a foreign package, else the repository's."""
        return self.foreign.get(name) or self.repo.get(name)

    def units_of(self, scope: str) -> dict[str, Unit]:
        return self.user_services if scope == "user" else self.services

    def owner_of_unit(self, unit: str, scope: str) -> str | None:
        for name in sorted(self.installed):
            pkg = self.info(name)
            if pkg and unit in (pkg.user_units if scope == "user" else pkg.units):
                return name
        return None

    def fonts(self) -> dict[str, str]:
        """Font family -> the installed package that brings it."""
        return {f: n for n in sorted(self.installed) for f in (self.info(n).fonts if self.info(n) else [])}

    def apps(self, role: str) -> list[str]:
        return [n for n in sorted(self.installed) if (p := self.info(n)) is not None and p.role == role]

    # ------------------------------------------------------------------------------------------ keeping

    def normalized(self) -> "State":
        """The units of every installed package present (defaults where the fixture says nothing), the units of
        packages not installed gone; the pacsave list sorted. Changes self and returns it."""
        for scope in ("system", "user"):
            units = self.units_of(scope)
            owned = {u for n in self.installed if (p := self.info(n)) for u in (p.user_units if scope == "user"
                                                                                   else p.units)}
            for u in sorted(owned - set(units)):
                units[u] = Unit()
            for u in sorted(set(units) - owned):
                del units[u]
            ordered = dict(sorted(units.items()))
            units.clear()
            units.update(ordered)
        self.pacsave = sorted(set(self.pacsave))
        return self

    def problems(self) -> list[str]:
        """What makes a fixture inconsistent (a bug in the fixture, said at load)."""
        out = []
        for n in self.installed:
            if self.info(n) is None:
                out.append(f"installed package {n!r} is in neither repo nor foreign")
        for n, p in {**self.repo, **self.foreign}.items():
            for d in p.depends:
                if not self.providers(d):
                    out.append(f"{n} depends on {d!r}, which no package provides")
        for scope in ("system", "user"):
            for u in self.units_of(scope):
                if self.owner_of_unit(u, scope) is None:
                    out.append(f"{scope} unit {u!r} belongs to no installed package")
        d = self.desktop
        if self.themes and d.theme not in self.themes:
            out.append(f"desktop theme {d.theme!r} is not a known theme")
        for role, app in (("terminal", d.terminal), ("browser", d.browser)):
            if app not in self.apps(role):
                out.append(f"default {role} {app!r} is not an installed {role}")
        if d.font not in self.fonts():
            out.append(f"desktop font {d.font!r} comes with no installed package")
        return out

    def providers(self, name: str) -> list[str]:
        """Packages (repository or installed foreign) that are `name` or provide it: the package itself first."""
        pool = {**self.repo, **self.foreign}
        direct = [name] if name in pool else []
        return direct + sorted(n for n, p in pool.items() if name in p.provides and n != name)

    def satisfied(self, dep: str, without: set[str] = frozenset()) -> bool:
        return any(n in self.installed and n not in without for n in self.providers(dep))

    def required_by(self, name: str, among: set[str] | None = None) -> list[str]:
        """Installed packages (of `among`, when given) that depend on `name` or on something only it provides."""
        pkg = self.info(name)
        names = {name, *(pkg.provides if pkg else [])}
        out = []
        for other in sorted(among if among is not None else self.installed):
            if other == name or other not in self.installed:
                continue
            info = self.info(other)
            for dep in info.depends if info else []:
                if dep in names and not self.satisfied(dep, without={name}):
                    out.append(other)
                    break
        return out

    def copy(self) -> "State":
        """A copy whose changeable parts are its own; the repositories, themes and pictures, which no program
        changes, are shared."""
        return self.model_copy(update={
            "installed": {k: v.model_copy() for k, v in self.installed.items()},
            "services": {k: v.model_copy() for k, v in self.services.items()},
            "user_services": {k: v.model_copy() for k, v in self.user_services.items()},
            "pacsave": list(self.pacsave),
            "desktop": self.desktop.model_copy(update={"bindings": dict(self.desktop.bindings)})})

    def to_json(self) -> str:
        """The deterministic JSON form: keys sorted, no spaces."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------------------------- paths

PACKAGE_FIELDS = ("installed", "version", "reason")
UNIT_FIELDS = ("enabled", "active", "masked")
DESKTOP_FIELDS = ("theme", "font", "font_size", "wallpaper", "layout", "variant", "nightlight", "nightlight_temp",
                  "scale", "terminal", "browser")
_PATH = re.compile(r"^(?:packages\.[^\s]+\.(?:installed|version|reason)|(?:user_)?services\.[^\s]+\."
                   r"(?:enabled|active|masked)|desktop\.(?:" + "|".join(DESKTOP_FIELDS) + r")|desktop\.bindings\.\S+"
                   r"|pacsave)$")


def path_problem(path: str) -> str | None:
    if not _PATH.match(path):
        return (f"{path!r} is not a state path (packages.NAME.installed|version|reason, services.UNIT.enabled|active|"
                "masked, user_services.UNIT..., desktop.FIELD, desktop.bindings.KEYS, pacsave)")
    return None


def flat(state: State) -> dict[str, Any]:
    """Every value of the state the grading compares, by path."""
    out: dict[str, Any] = {}
    for n, p in sorted(state.installed.items()):
        out[f"packages.{n}.installed"] = True
        out[f"packages.{n}.version"] = p.version
        out[f"packages.{n}.reason"] = p.reason
    for section, units in (("services", state.services), ("user_services", state.user_services)):
        for u, s in sorted(units.items()):
            for f in UNIT_FIELDS:
                out[f"{section}.{u}.{f}"] = getattr(s, f)
    d = state.desktop
    for f in DESKTOP_FIELDS:
        out[f"desktop.{f}"] = getattr(d, f)
    for keys, action in sorted(d.bindings.items()):
        out[f"desktop.bindings.{keys}"] = action
    out["pacsave"] = sorted(state.pacsave)
    return out


def value_at(values: dict[str, Any], path: str) -> Any:
    """The value at a path; a package not installed reads installed=false, anything else absent reads null."""
    if path in values:
        return values[path]
    return False if path.startswith("packages.") and path.endswith(".installed") else None


def same(want: Any, got: Any) -> bool:
    """Equal, numbers compared as numbers (1 and 1.0 are one scale), a bool never a number."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(want) is type(got) and want == got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return float(want) == float(got)
    return want == got


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The paths whose values differ between two flat states (absent on one side counts)."""
    return sorted(p for p in set(before) | set(after) if not same(value_at(before, p), value_at(after, p)))


# ------------------------------------------------------------------------------------------- versions

def vercmp(a: str, b: str) -> int:
    """-1, 0 or 1 as pacman's vercmp orders two versions (epoch:pkgver-pkgrel), for the versions used here."""
    def parts(v: str):
        epoch, _, rest = v.rpartition(":") if ":" in v else ("0", "", v)
        ver, _, rel = rest.rpartition("-") if "-" in rest else (rest, "", "0")
        return int(epoch or 0), ver, rel

    ea, va, ra = parts(a)
    eb, vb, rb = parts(b)
    if ea != eb:
        return -1 if ea < eb else 1
    return _segcmp(va, vb) or _segcmp(ra, rb)


def _segcmp(a: str, b: str) -> int:
    sa, sb = re.findall(r"\d+|[a-zA-Z]+", a), re.findall(r"\d+|[a-zA-Z]+", b)
    for x, y in zip(sa, sb):
        if x.isdigit() and y.isdigit():
            if int(x) != int(y):
                return -1 if int(x) < int(y) else 1
        elif x.isdigit() != y.isdigit():
            return 1 if x.isdigit() else -1
        elif x != y:
            return -1 if x < y else 1
    return (len(sa) > len(sb)) - (len(sa) < len(sb))


def unit_key(name: str) -> str:
    """The state's name of a unit: sshd.service -> sshd; other types keep their suffix."""
    return name[: -len(".service")] if name.endswith(".service") else name


def unit_file(key: str) -> str:
    return key if "." in key else f"{key}.service"
