# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import ast
import random

import kbtest as kb

SOURCE = kb.read("csvline.py")
m = kb.load("csvline.py")
split = kb.func(m, "split_csv_line")


def check(line, want):
    kb.eq(split(line), want, "split_csv_line(%r)" % line)


def raises_for(exc_types, fn, *args):
    """kb.raises, naming the call in the failure message."""
    try:
        kb.raises(exc_types, fn, *args)
    except AssertionError as exc:
        raise AssertionError("%s(%s): %s" % (getattr(fn, "__name__", "call"), ", ".join(repr(a) for a in args), exc)) from None


@kb.case
def plain_fields():
    check("a,b,c", ["a", "b", "c"])
    check("one", ["one"])
    check("1,2,3,4,5", ["1", "2", "3", "4", "5"])
    check(" a , b ", [" a ", " b "])
    check("x y,z", ["x y", "z"])


@kb.case
def empty_fields_are_kept():
    check("", [""])
    check(",", ["", ""])
    check("a,,b", ["a", "", "b"])
    check("a,", ["a", ""])
    check(",a,", ["", "a", ""])
    check(",,,", ["", "", "", ""])


@kb.case
def quoted_fields():
    check('"a,b",c', ["a,b", "c"])
    check('a,"b,c"', ["a", "b,c"])
    check('"he said ""hi""",x', ['he said "hi"', "x"])
    check('""', [""])
    check('""""', ['"'])
    check('"",""', ["", ""])
    check('x,"",y', ["x", "", "y"])
    check('"a,""b"",c"', ['a,"b",c'])
    check('" spaced "," , "', [" spaced ", " , "])
    check('"",', ["", ""])


@kb.case
def malformed_lines_raise_value_error():
    for line in ['"abc', 'a,"b', '"a"b', 'ab"c', '"a""', ' "x"', '"a" ,b', 'x,y"', '"a","b', '"""',
                 'a"b"', 'a""', 'x,a"",y', '"a" ', '"a"\t']:
        raises_for(ValueError, split, line)


@kb.case
def backslash_and_single_quote_are_ordinary():
    # only a double quote quotes, and only a doubled double quote escapes one
    check("'a,b',c", ["'a", "b'", "c"])
    check("'',x", ["''", "x"])
    check('a\\,b', ["a\\", "b"])
    check('"C:\\dir\\",x', ["C:\\dir\\", "x"])
    check('"a\\n"', ["a\\n"])
    raises_for(ValueError, split, '"a\\"b"')


def _encode(field, rng):
    if "," in field or '"' in field or rng.random() < 0.3:
        return '"' + field.replace('"', '""') + '"'
    return field


@kb.case
def random_round_trips():
    rng = random.Random(7130)
    for _ in range(400):
        fields = ["".join(rng.choice('ab ,"x') for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 6))]
        line = ",".join(_encode(f, rng) for f in fields)
        check(line, fields)


@kb.case
def csv_module_not_imported():
    for node in ast.walk(ast.parse(SOURCE)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                kb.ok(alias.name.split(".")[0] != "csv", "csvline.py imports csv (line %d)" % node.lineno)
        elif isinstance(node, ast.ImportFrom):
            kb.ok((node.module or "").split(".")[0] != "csv", "csvline.py imports from csv (line %d)" % node.lineno)
        elif isinstance(node, ast.Name) and node.id == "__import__":
            raise AssertionError("csvline.py uses __import__ (line %d)" % node.lineno)
        elif isinstance(node, ast.Constant) and node.value == "csv":
            raise AssertionError("csvline.py names the csv module in a string (line %d)" % node.lineno)


kb.main()
