"""The packages family's service templates: systemd units on the mock machine, system-wide (with sudo) and the
user's own (systemctl --user, without sudo). Each request says what it wants of both halves of a unit's state
(running now, starting at boot), so a command that does more than asked is collateral, not a matter of taste."""

from __future__ import annotations

from task_defs.trials.generate.build import Draft, T
from task_defs.trials.generate.machine import (
    PACKAGE_FIXTURES,
    UNITS,
    mdraft,
    pick_fixture,
    said_unit,
    unit_status_regex,
)
from task_defs.trials.generate.rng import Rng
from task_defs.trials.machine.fixtures import fixture
from task_defs.trials.machine.state import State, unit_file

USER_UNITS = {"syncthing": ("Syncthing", "syncthing"), "mpd": ("mpd", "the mpd music daemon"),
              "pipewire-pulse": ("pipewire-pulse",), "wireplumber": ("wireplumber",)}


def _units(st: State, ok, user: bool = False) -> list[str]:
    table = USER_UNITS if user else UNITS
    return [u for u, s in st.units_of("user" if user else "system").items() if u in table and ok(s)]


def _pick(rng: Rng, ok, user: bool = False) -> tuple[str, State, str] | None:
    """A unit first (each eligible one as likely), then a fixture where it is eligible: a unit that many fixtures
    hold does not crowd out the rest."""
    where = {fx: _units(fixture(fx), ok, user) for fx in PACKAGE_FIXTURES}
    units = sorted({u for us in where.values() for u in us})
    if not units:
        return None
    unit = rng.pick(units)
    fx = rng.pick([f for f, us in where.items() if unit in us])
    return fx, fixture(fx), unit


def _paths(unit: str, *fields: str, user: bool = False) -> list[str]:
    return [f"{'user_services' if user else 'services'}.{unit}.{f}" for f in fields]


ENABLE_NOW = ("Turn on {u}: it should run right now and come back after every reboot.",
              "Enable {u} and start it immediately.", "Get {u} running now and make it start at boot too.",
              "I want {u} up now and on every boot.")
ONE = (" Do it with a single systemctl command.", " One command, please.", " Use just one command for it.")


def s_enable_now(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: not (s.enabled or s.active or s.masked))
    if got is None:
        return None
    fx, st, unit = got
    one = rng.chance(0.5)
    prompt = rng.pick(ENABLE_NOW).format(u=said_unit(rng, unit)) + (rng.pick(ONE) if one else "")
    return mdraft(prompt, fx, [f"sudo systemctl enable --now {unit_file(unit)}"], _paths(unit, "enabled", "active"),
                  max_commands=1 if one else None)


BOOT_ONLY = ("Make {u} start at boot, but don't start it now.", "Enable {u} for the next boot only; leave it "
             "stopped for now.", "Have {u} come up on boot from now on, without starting it today.")


def s_boot_only(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: not (s.enabled or s.active or s.masked))
    if got is None:
        return None
    fx, st, unit = got
    return mdraft(rng.pick(BOOT_ONLY).format(u=said_unit(rng, unit)), fx, [f"sudo systemctl enable {unit_file(unit)}"],
                  _paths(unit, "enabled", "active"))


START_ONLY = ("Start {u} now, without enabling it at boot.", "Run {u} just for this session; don't enable it.",
              "Start {u} for now only (it should not start on the next boot).")


def s_start_only(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: not (s.enabled or s.active or s.masked))
    if got is None:
        return None
    fx, st, unit = got
    return mdraft(rng.pick(START_ONLY).format(u=said_unit(rng, unit)), fx, [f"sudo systemctl start {unit_file(unit)}"],
                  _paths(unit, "active", "enabled"))


STOP_KEEP = ("Stop {u} for now, but keep it enabled for the next boot.", "Stop {u} right now; it should still "
             "start at boot.", "Halt {u} until the next reboot (leave it enabled).")


def s_stop_keep(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: s.enabled and s.active and not s.masked)
    if got is None:
        return None
    fx, st, unit = got
    return mdraft(rng.pick(STOP_KEEP).format(u=said_unit(rng, unit)), fx, [f"sudo systemctl stop {unit_file(unit)}"],
                  _paths(unit, "active", "enabled"))


DISABLE_NOW = ("Turn {u} off: stop it now and keep it from starting at boot.", "Disable {u} and stop it right away.",
               "I don't want {u} running, now or after a reboot.")


def s_disable_now(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: s.enabled and s.active and not s.masked)
    if got is None:
        return None
    fx, st, unit = got
    return mdraft(rng.pick(DISABLE_NOW).format(u=said_unit(rng, unit)), fx,
                  [f"sudo systemctl disable --now {unit_file(unit)}"], _paths(unit, "enabled", "active"))


MASK = ("Mask {u} so that nothing can start it, not even another service.",
        "Mask {u}: no other unit may pull it in again.",
        "{U} must never run on this machine: mask it.")


def s_mask(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: not (s.masked or s.enabled))  # an enabled one: whether to disable it too is open
    if got is None:
        return None
    fx, st, unit = got
    u = said_unit(rng, unit)
    prompt = rng.pick(MASK).format(u=u, U=u[:1].upper() + u[1:])  # {U}: a phrasing that starts with the unit
    return mdraft(prompt, fx, [f"sudo systemctl mask --now {unit_file(unit)}"], _paths(unit, "masked", "active"))


UNMASK = ("{u} is masked. Unmask it, then enable and start it.", "Bring {u} back: unmask it and have it running now "
          "and at boot.", "Unmask {u} and turn it on (now and on every boot).")


def s_unmask(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: s.masked)
    if got is None:
        return None
    fx, st, unit = got
    u, phrasing = said_unit(rng, unit), rng.pick(UNMASK)
    prompt = phrasing.format(u=u[:1].upper() + u[1:] if phrasing.startswith("{u}") else u)
    f = unit_file(unit)
    return mdraft(prompt, fx, [f"sudo systemctl unmask {f}", f"sudo systemctl enable --now {f}"],
                  _paths(unit, "masked", "enabled", "active"))


INSTALL_ENABLE = ("Install {p} and get {u} running, now and at every boot.",
                  "Set up {p}: install it, then enable and start {u}.",
                  "I need {p} installed, with {u} running (also after reboots).")


def s_install_enable(rng: Rng) -> Draft | None:
    def free(s: State) -> list[tuple[str, str]]:
        return [(n, u) for n in sorted(s.repo) if n not in s.installed for u in s.repo[n].units if u in UNITS]

    got = pick_fixture(rng, lambda s: bool(free(s)))
    fx, st = got
    pkg, unit = rng.pick(free(st))
    prompt = rng.pick(INSTALL_ENABLE).format(p=pkg, u=said_unit(rng, unit))
    return mdraft(prompt, fx, [f"sudo pacman -S {pkg}", f"sudo systemctl enable --now {unit_file(unit)}"],
                  [f"packages.{pkg}.installed", *_paths(unit, "enabled", "active")])


USER_SETUP = ("Install syncthing and run it as my own user service (not a system one), started now and at every "
              "login.", "Set up Syncthing for my user: install it and enable its user unit right away.",
              "Get syncthing going under my account (systemd user unit), now and on login; install it first.")


def s_user_setup(rng: Rng) -> Draft | None:
    got = pick_fixture(rng, lambda s: "syncthing" not in s.installed)
    fx, st = got
    return mdraft(rng.pick(USER_SETUP), fx, ["sudo pacman -S syncthing", "systemctl --user enable --now syncthing"],
                  ["packages.syncthing.installed", *_paths("syncthing", "enabled", "active", user=True)])


USER_STOP = ("Stop my user-level {u} service and keep it from starting at login.",
             "Disable and stop {u}, the one running as my user service.",
             "Turn off the {u} user unit (now and for future logins).")


def s_user_stop(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: s.enabled and s.active, user=True)
    if got is None:
        return None
    fx, st, unit = got
    return mdraft(rng.pick(USER_STOP).format(u=said_unit(rng, unit, USER_UNITS)), fx,
                  [f"systemctl --user disable --now {unit_file(unit)}"],
                  _paths(unit, "enabled", "active", user=True))


STATUS = ("Show me the status of {u}.", "Is {u} running? Show its systemctl status.",
          "Check {u} with systemctl status and show me.")


def s_status(rng: Rng) -> Draft | None:
    got = _pick(rng, lambda s: not s.masked)
    if got is None:
        return None
    fx, st, unit = got
    return mdraft(rng.pick(STATUS).format(u=said_unit(rng, unit)), fx, [f"systemctl status {unit_file(unit)}"],
                  stdout_regex=unit_status_regex(unit, st.services[unit].active))


SERVICE_TEMPLATES = [(T(s_enable_now), 8), (T(s_boot_only), 3), (T(s_start_only), 3), (T(s_stop_keep), 3),
                     (T(s_disable_now), 3), (T(s_mask), 4), (T(s_unmask), 2), (T(s_install_enable), 5),
                     (T(s_user_setup), 2), (T(s_user_stop), 2), (T(s_status), 3)]


def packages_templates():
    from task_defs.trials.generate.machine import PACKAGE_TEMPLATES

    return [*PACKAGE_TEMPLATES, *SERVICE_TEMPLATES]
