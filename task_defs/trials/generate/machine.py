"""The packages family: Arch-style package and service care on the mock machine (task_defs/trials/machine/), with
pacman, systemctl and sudo. A template picks a fixture and what to act on from what that fixture holds (a package
not installed, a unit that is off, a package out of date), runs the reference on it and expects the values it
leaves at the paths the request is about; everything else must stay as the reference leaves it (the oracle's
collateral rule). Query trials match what the machine's own query printed, anchored to the whole output of one
query, so listing everything is no answer. machine_desktop.py holds the desktop family's templates.
"""

from __future__ import annotations

import re

from task_defs.trials.generate.build import Draft, T, Template
from task_defs.trials.generate.rng import Rng
from task_defs.trials.machine.fixtures import fixture
from task_defs.trials.machine.oracle import state_after
from task_defs.trials.machine.state import unit_file, value_at, vercmp

TOOL = "run_shell"
PACKAGE_FIXTURES = ("fresh", "dev_laptop", "home_server", "media_desktop", "stale", "minimal")
# what people install by name (libraries and the base system are left out)
APPS = ("ripgrep", "fd", "bat", "eza", "zoxide", "fzf", "btop", "htop", "jq", "neovim", "vim", "git", "nginx",
        "postgresql", "docker", "bluez-utils", "cups", "tlp", "ufw", "avahi", "ollama", "tailscale", "syncthing",
        "mpd", "kitty", "ghostty", "foot", "firefox", "chromium", "qutebrowser", "reflector", "pacman-contrib",
        "cronie", "openssh", "ttf-fira-code", "ttf-hack", "inter-font", "ttf-ibm-plex")
# a command and the package that ships it, where the names differ
COMMANDS = (("rg", "ripgrep"), ("nvim", "neovim"), ("tldr", "tealdeer"), ("xxd", "vim"),
            ("bluetoothctl", "bluez-utils"), ("psql", "postgresql"), ("paccache", "pacman-contrib"),
            ("checkupdates", "pacman-contrib"), ("pactree", "pacman-contrib"), ("tlp-stat", "tlp"),
            ("avahi-browse", "avahi"), ("lpstat", "cups"), ("crontab", "cronie"), ("dockerd", "docker"),
            ("tailscaled", "tailscale"), ("scp", "openssh"))
# units people ask for by what they do: unit -> how a request names it
UNITS = {"sshd": ("the SSH server (sshd)", "sshd", "the sshd service"), "nginx": ("the nginx web server", "nginx"),
         "docker": ("docker", "the Docker daemon"), "bluetooth": ("the bluetooth service", "bluetooth"),
         "cups": ("cups (the printing service)", "the cups service"), "tlp": ("tlp", "TLP power management"),
         "postgresql": ("postgresql", "the PostgreSQL server"), "cronie": ("cronie", "the cron daemon (cronie)"),
         "ufw": ("the ufw firewall", "ufw"), "avahi-daemon": ("avahi-daemon", "the avahi-daemon service"),
         "tailscaled": ("tailscaled", "the tailscale daemon (tailscaled)"), "mpd": ("mpd", "the mpd music daemon"),
         "fstrim.timer": ("the fstrim.timer", "fstrim.timer (weekly SSD trim)"),
         "paccache.timer": ("paccache.timer", "the paccache.timer cache cleaner"),
         "containerd": ("containerd", "the containerd service"), "ollama": ("ollama", "the ollama service")}
USER_UNITS = {"syncthing": ("syncthing", "Syncthing"), "mpd": ("mpd", "the mpd music daemon")}


def mdraft(prompt: str, fx: str, reference: list[str], paths=(), stdout_regex: str | None = None,
           max_commands: int | None = None, system: str | None = None) -> Draft:
    """A machine draft: `expect` holds what the reference leaves at `paths`."""
    after = state_after(fx, reference)
    oracle: dict = {"kind": "machine", "tool": TOOL, "fixture": fx,
                    "expect": {p: value_at(after, p) for p in paths}}
    if stdout_regex is not None:
        oracle["stdout_regex"] = stdout_regex
    if max_commands is not None:
        oracle["max_commands"] = max_commands
    oracle["reference"] = list(reference)
    return Draft(prompt, oracle, (TOOL,), system=system)


def version_regex(name: str, version: str) -> str:
    """What `pacman -Q NAME` or `pacman -Qi NAME` prints for one installed package, as the whole output."""
    n, v = re.escape(name), re.escape(version)
    return rf"\A(?:{n} {v}\n|Name +: {n}\nVersion +: {v}\n(?:[^\n]+\n)*\n?)\Z"


def owner_regex(repo: str, name: str, version: str, file: str) -> str:
    """`pacman -F FILE`'s hit for the package that ships it."""
    return rf"^{re.escape(repo)}/{re.escape(name)} {re.escape(version)}(?: \[installed\])?\n {{4}}{re.escape(file)}$"


def unit_status_regex(unit: str, active: bool, user: bool = False) -> str:
    """`systemctl status UNIT`'s block for the unit: its name line, Loaded, and the Active line wanted."""
    f = re.escape(unit_file(unit))
    state = "active \\((?:running|waiting)\\)" if active else "inactive \\(dead\\)"
    return rf"^[●○] {f}\b.*\n +Loaded: .*\n +Active: {state}$"


def pick_fixture(rng: Rng, ok) -> tuple[str, object] | None:
    names = [n for n in PACKAGE_FIXTURES if ok(fixture(n))]
    if not names:
        return None
    name = rng.pick(names)
    return name, fixture(name)


def said_unit(rng: Rng, unit: str, table=UNITS) -> str:
    return rng.pick(table.get(unit, (unit,)))


def _outdated(st) -> list[str]:
    return [n for n in sorted(st.installed) if n in st.repo and vercmp(st.repo[n].version, st.installed[n].version) > 0]


# ----------------------------------------------------------------------------------------- packages

INSTALL = ("Install {x} on this machine.", "Please install {x}.", "I need {x}; install it for me.",
           "Get {x} installed, and whatever it needs.", "Could you install {x}? Skip anything already installed.",
           "Set me up with {x}.", "Install {x} with pacman.", "Put {x} on this computer.")


def p_install(rng: Rng) -> Draft | None:
    got = pick_fixture(rng, lambda s: True)
    fx, st = got
    free = [a for a in APPS if a not in st.installed]
    k = rng.pick((1, 1, 2, 2, 3))
    targets = sorted(rng.sample(free, min(k, len(free))))
    x = targets[0] if len(targets) == 1 else ", ".join(targets[:-1]) + " and " + targets[-1]
    return mdraft(rng.pick(INSTALL).format(x=x), fx, [f"sudo pacman -S --needed --noconfirm {' '.join(targets)}"],
                  [f"packages.{t}.installed" for t in targets])


ENSURE = ("Make sure {x} are all installed; some of them may be there already, don't reinstall those.",
          "I need {x} on this box. Install whichever are missing, leave the rest alone.",
          "Check that {x} are present and install the missing ones (no reinstalls).")


def p_ensure(rng: Rng) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: True)
    have = [a for a in APPS if a in st.installed and st.installed[a].reason == "explicit"]
    free = [a for a in APPS if a not in st.installed]
    if not have:
        return None
    targets = rng.shuffled([rng.pick(have), *rng.sample(free, rng.pick((1, 2)))])
    x = ", ".join(targets[:-1]) + " and " + targets[-1]
    return mdraft(rng.pick(ENSURE).format(x=x), fx, [f"sudo pacman -S --needed {' '.join(targets)}"],
                  [f"packages.{t}.installed" for t in targets])


def _removal(st, name: str, flags: str) -> list[str] | None:
    """What `pacman -R<flags> name` would remove, or None when pacman refuses."""
    fx_state = st.copy()
    from task_defs.trials.machine.shell import Session

    s = Session(fx_state)
    if s.run(f"sudo pacman -{flags} {name}").status != 0:
        return None
    return sorted(set(st.installed) - set(fx_state.installed))


REMOVE_DEPS = ("Remove {x} and the dependencies it pulled in that nothing else needs.",
               "Uninstall {x}, together with any of its dependencies that no other package uses.",
               "Get rid of {x} and clean up the libraries only it was using.",
               "I'm done with {x}: remove it along with its now-unneeded dependencies.")
REMOVE = ("Uninstall {x}.", "Remove the {x} package.", "Please remove {x} from this machine.",
          "I don't need {x} any more; remove it.")


def p_remove(rng: Rng, with_deps: bool) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: True)
    cands = []
    for n in APPS:
        if n not in st.installed or st.installed[n].reason != "explicit":
            continue
        plain, deep = _removal(st, n, "R"), _removal(st, n, "Rs")
        if plain is None or deep is None:
            continue
        if with_deps == (len(deep) > len(plain)):
            cands.append((n, deep))
    if not cands:
        return None
    name, gone = rng.pick(cands)
    table = REMOVE_DEPS if with_deps else REMOVE
    return mdraft(rng.pick(table).format(x=name), fx, [f"sudo pacman -R{'s' if with_deps else ''} {name}"],
                  [f"packages.{n}.installed" for n in gone])


PROVIDER = ("I want the `{c}` command. Find out which package ships it, then install that package.",
            "Which package gives me `{c}`? Look it up with pacman and install it.",
            "Install whatever package provides the {c} command (search the package files first).",
            "`{c}` is not found on my machine. Find the package that has it and install it.")


def p_provider(rng: Rng) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: True)
    free = [(c, p) for c, p in COMMANDS if p not in st.installed]
    if not free:
        return None
    c, p = rng.pick(free)
    return mdraft(rng.pick(PROVIDER).format(c=c), fx, [f"pacman -F {c}", f"sudo pacman -S {p}"],
                  [f"packages.{p}.installed"])


WHICH = ("Which package would give me the `{c}` command? Run the pacman query that tells; don't install anything.",
         "Look up which repository package ships {c}, without installing it.",
         "Find out (with pacman, no installing) what package provides `{c}`.")


def p_which(rng: Rng) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: True)
    c, p = rng.pick(COMMANDS)
    info = st.repo[p]
    file = next(f for f in info.files if f.endswith("/" + c))
    return mdraft(rng.pick(WHICH).format(c=c), fx, [f"pacman -F {c}"],
                  stdout_regex=owner_regex(info.repo, p, info.version, file))


VERSION = ("Which version of {x} is installed here? Run the pacman query that shows just that package.",
           "What {x} version do I have installed? Show it with pacman.",
           "Check the installed version of {x} (pacman, only that package).",
           "Tell me which {x} version is on this machine by running the query for it.")


def p_version(rng: Rng) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: True)
    name = rng.pick([n for n in sorted(st.installed) if n in APPS or n in ("linux", "systemd", "python", "curl",
                                                                           "openssl", "pacman", "bash")])
    return mdraft(rng.pick(VERSION).format(x=name), fx, [f"pacman -Q {name}"],
                  stdout_regex=version_regex(name, st.installed[name].version))


UPGRADE = ("Bring the whole system up to date, then install {x}.", "Do a full system upgrade and install {x} as part "
           "of it.", "Update every package on this machine and add {x} while you're at it.",
           "Upgrade the system fully; I also want {x} installed.")


def p_upgrade(rng: Rng) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: bool(_outdated(s)))
    x = rng.pick([a for a in APPS if a not in st.installed])
    return mdraft(rng.pick(UPGRADE).format(x=x), fx, [f"sudo pacman -Syu {x}"],
                  [f"packages.{n}.version" for n in _outdated(st)] + [f"packages.{x}.installed"])


ORPHANS = ("Find the packages installed as dependencies that nothing needs any more, and remove them.",
           "Clean up orphaned packages: list them with pacman, then remove them.",
           "Remove every orphan package (installed as a dependency, required by nothing).",
           "Are there leftover dependency packages nothing uses? Remove them.")


def p_orphans(rng: Rng) -> Draft | None:
    from task_defs.trials.machine.pacman import _still_needed

    def orphans(s):
        return [n for n in sorted(s.installed) if s.installed[n].reason == "dependency"
                and not _still_needed(s, n, set())]

    fx, st = pick_fixture(rng, lambda s: bool(orphans(s)))
    gone = orphans(st)
    return mdraft(rng.pick(ORPHANS), fx, ["pacman -Qdt", f"sudo pacman -Rns {' '.join(gone)}"],
                  [f"packages.{n}.installed" for n in gone])


PURGE = ("Remove {x} completely, its configuration file included: I don't want a .pacsave left behind.",
         "Uninstall {x} and don't keep its config around as a .pacsave.")


def p_purge(rng: Rng) -> Draft | None:
    def cands(s):
        return [n for n in APPS if n in s.installed and s.info(n).backup and _removal(s, n, "R") is not None
                and _removal(s, n, "R") == _removal(s, n, "Rs")]

    fx, st = pick_fixture(rng, lambda s: bool(cands(s)))
    x = rng.pick(cands(st))
    return mdraft(rng.pick(PURGE).format(x=x), fx, [f"sudo pacman -Rn {x}"], [f"packages.{x}.installed", "pacsave"])


EXPLICIT = ("Mark {x} as explicitly installed, so it never shows up as an orphan.",
            "Change {x}'s install reason to explicitly installed.")


def p_explicit(rng: Rng) -> Draft | None:
    fx, st = pick_fixture(rng, lambda s: any(p.reason == "dependency" for p in s.installed.values()))
    x = rng.pick([n for n, p in sorted(st.installed.items()) if p.reason == "dependency"])
    return mdraft(rng.pick(EXPLICIT).format(x=x), fx, [f"sudo pacman -D --asexplicit {x}"], [f"packages.{x}.reason"])


PACKAGE_TEMPLATES = [(T(p_install), 14), (T(p_ensure), 6), (Template(lambda r: p_remove(r, True), "p_remove_deps"), 8),
                     (Template(lambda r: p_remove(r, False), "p_remove"), 6), (T(p_provider), 8), (T(p_which), 4),
                     (T(p_version), 8), (T(p_upgrade), 5), (T(p_orphans), 2), (T(p_purge), 3), (T(p_explicit), 3)]
