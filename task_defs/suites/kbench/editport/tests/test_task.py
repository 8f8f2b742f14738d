# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

ORIGINAL = kb.data("server.conf.orig")
OLD_LINES = ORIGINAL.split(b"\n")
PORT_AT = OLD_LINES.index(b"[server]") + 2  # the line "port = 8080" of the [server] section
assert OLD_LINES[PORT_AT] == b"port = 8080"
NEW_LINES = list(OLD_LINES)
NEW_LINES[PORT_AT] = b"port = 9090"
WANT = b"\n".join(NEW_LINES)


def got_lines():
    with open(kb.path("server.conf"), "rb") as fh:
        return fh.read().split(b"\n")


def section(lines, name):
    """The lines of one [section], up to the next header."""
    start = lines.index(name) + 1 if name in lines else len(lines)
    out = []
    for line in lines[start:]:
        if line.startswith(b"["):
            break
        out.append(line)
    return out


@kb.case
def server_port_changed():
    sec = section(got_lines(), b"[server]")
    kb.ok(b"port = 9090" in sec, "the [server] section must contain the line 'port = 9090'")
    kb.ok(b"port = 8080" not in sec, "the [server] section still has 'port = 8080'")


@kb.case
def other_sections_untouched():
    lines = got_lines()
    for name in (b"[tls]", b"[healthcheck]", b"[proxy]", b"[metrics]"):
        kb.eq(section(lines, name), section(OLD_LINES, name), "section %s" % name.decode())


@kb.case
def comments_and_similar_keys_untouched():
    lines = got_lines()
    kb.eq(lines[:PORT_AT], OLD_LINES[:PORT_AT], "the lines before the [server] port line")
    kb.eq(section(lines, b"[server]")[2:], section(OLD_LINES, b"[server]")[2:],
          "the [server] lines after the port line (backup_port, a comment, ...)")


@kb.case
def whole_file_exact():
    with open(kb.path("server.conf"), "rb") as fh:
        got = fh.read()
    if got != WANT:
        g, w = got.split(b"\n"), WANT.split(b"\n")
        for i in range(max(len(g), len(w))):
            a = g[i] if i < len(g) else None
            b = w[i] if i < len(w) else None
            if a != b:
                raise AssertionError("server.conf differs first at line %d: expected %r, got %r" % (i + 1, b, a))
        raise AssertionError("server.conf differs from the expected bytes")


kb.main()
