# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import json

import kbtest as kb

FILE = "slugify.js"


def slugs(inputs):
    """slugify applied to each input in one node process; the module's export itself must be the function."""
    expr = "(() => { if (typeof m !== 'function') throw new Error('module.exports is not a function'); " \
           "return %s.map((s) => m(s)); })()" % json.dumps(inputs)
    return kb.node(FILE, expr)


def check(pairs, what):
    got = slugs([p[0] for p in pairs])
    kb.ok(isinstance(got, list) and len(got) == len(pairs), "%s: unexpected result %r" % (what, got))
    for (text, want), g in zip(pairs, got):
        kb.eq(g, want, "slugify(%s)" % json.dumps(text))


@kb.case
def ordinary_titles():
    check([
        ("Hello World", "hello-world"),
        ("Hello, World!", "hello-world"),
        ("10 Tips for Better Sleep", "10-tips-for-better-sleep"),
        ("already-a-slug", "already-a-slug"),
        ("CamelCaseTitle", "camelcasetitle"),
        ("version 2.0.1 released", "version-2-0-1-released"),
    ], "ordinary titles")


@kb.case
def runs_collapse_and_edges_trimmed():
    check([
        ("  lots   of    space  ", "lots-of-space"),
        ("--dashes--and__underscores__", "dashes-and-underscores"),
        ("a - b -- c", "a-b-c"),
        ("!!!wow!!!", "wow"),
        ("tab\there\nnewline", "tab-here-newline"),
        ("x", "x"),
    ], "runs of separators")


@kb.case
def non_ascii_are_separators():
    check([
        ("Crème Brûlée", "cr-me-br-l-e"),
        ("naïve café", "na-ve-caf"),
        ("Über Straße", "ber-stra-e"),
        ("日本語 text", "text"),
        ("rocket 🚀 launch", "rocket-launch"),
        ("ÉCOLE", "cole"),
    ], "non-ASCII characters")


@kb.case
def nothing_left_gives_empty():
    check([
        ("", ""),
        ("   ", ""),
        ("!@#$%^&*()", ""),
        ("éàü", ""),
        ("-", ""),
    ], "inputs without ASCII letters or digits")


@kb.case
def non_string_throws_type_error():
    expr = ("(() => { if (typeof m !== 'function') throw new Error('module.exports is not a function'); "
            "return [42, null, undefined, ['a'], {t: 'x'}].map((v) => { try { m(v); return 'no error'; } "
            "catch (e) { return e instanceof TypeError ? 'TypeError' : 'other: ' + String(e); } }); })()")
    got = kb.node(FILE, expr)
    kb.eq(got, ["TypeError"] * 5, "what slugify throws for 42, null, undefined, ['a'], {t: 'x'}")


@kb.case
def only_ascii_capitals_are_lowered():
    # non-ASCII capitals are separators even where String.prototype.toLowerCase maps them onto ASCII letters
    check([
        ("\u212aelvin scale", "elvin-scale"),
        ("ma\u212ae it", "ma-e-it"),
        ("\u0130stanbul", "stanbul"),
        ("D\u0130Z 9", "d-z-9"),
        ("\u212a\u0130", ""),
    ], "non-ASCII capital letters")


kb.main()
