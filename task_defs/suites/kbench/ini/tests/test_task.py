# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

m = kb.load("ini.py")
parse = kb.func(m, "parse_ini")


def check(text, want):
    kb.eq(parse(text), want, "parse_ini(%r)" % (text,))


@kb.case
def sections_and_keys():
    text = "[server]\nhost=example.org\nport=8080\n\n[client]\nretries=3\n"
    check(text, {"server": {"host": "example.org", "port": "8080"}, "client": {"retries": "3"}})


@kb.case
def whitespace_and_comments():
    text = (
        "; top comment\n"
        "# another comment\n"
        "   [ db ]   \n"
        "  user   =   admin  \n"
        "\t; indented comment\n"
        "\n"
        "   \n"
        "pass=  s3cret\r\n"
        "    # indented hash comment\n"
        "; timeout = 30\n"
        "  #debug=true\n"
    )
    check(text, {"db": {"user": "admin", "pass": "s3cret"}})


@kb.case
def values_keep_equals_and_comment_chars():
    text = "[links]\nurl = http://x.org/?a=1&b=2#frag\nnote = keep ; this\nquoted = \"a b\"\nempty =\neq ==x\n"
    check(text, {"links": {"url": "http://x.org/?a=1&b=2#frag", "note": "keep ; this", "quoted": "\"a b\"",
                           "empty": "", "eq": "=x"}})


@kb.case
def keys_before_first_section():
    check("name = top\n[s]\nk = v\n", {"": {"name": "top"}, "s": {"k": "v"}})
    check("a=1\nb=2\n", {"": {"a": "1", "b": "2"}})
    got = parse("; only a comment\n[s]\nk = v\n")
    kb.ok("" not in got, "no \"\" section when no key precedes the first header, got %r" % (got,))


@kb.case
def duplicates_and_repeated_sections():
    text = "[a]\nx = 1\ny = 2\nx = 3\n[b]\nz = 4\n[a]\ny = 5\nw = 6\n"
    check(text, {"a": {"x": "3", "y": "5", "w": "6"}, "b": {"z": "4"}})


@kb.case
def empty_sections_and_case():
    check("[empty]\n[Full]\nKey = Value\nkey = other\n", {"empty": {}, "Full": {"Key": "Value", "key": "other"}})
    check("", {})
    check("\n\n; nothing here\n", {})


@kb.case
def bad_lines_raise():
    kb.raises(ValueError, parse, "just some words\n")
    kb.raises(ValueError, parse, "[s]\nk = v\nnovalue\n")
    kb.raises(ValueError, parse, "[s]\n= 5\n")
    kb.raises(ValueError, parse, "[s]\n   =\n")
    kb.raises(ValueError, parse, "[unclosed\n")
    kb.raises(ValueError, parse, "[s]x\nk = v\n")  # not of the form [name], and no =
    kb.raises(ValueError, parse, "[s]\nhost: example.org\n")  # only = separates a key from its value


@kb.case
def only_newline_ends_a_line():
    # other line-break characters are ordinary characters of the line; a \r is whitespace only at its ends
    check("[s]\nk = a\u2028b\nm = 1\x0c2\nr = 1\r2\r\n", {"s": {"k": "a\u2028b", "m": "1\x0c2", "r": "1\r2"}})
    check("[s]\nk = v", {"s": {"k": "v"}})  # a last line without \n


kb.main()
