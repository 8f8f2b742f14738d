"""Objects of the test handed to agent code are stand-ins that act on the test's own object. A copy of one
(copy.copy, copy.deepcopy, alone or inside a container) is made by the judge: a new object of the test, equal where
the original's type says so, never the original again. Before, a copy kept the original's number and mapped back to
it, so "return the original objects" could not tell a copy from the original (spiral's survivor)."""

from test_kbtest_pipelining import NONCE, _judge

AGENT = '''
import copy


def same(x):
    return x


def shallow(x):
    return copy.copy(x)


def deep(items):
    return copy.deepcopy(items)
'''

TEST = '''
import kbtest as kb

m = kb.load("agent.py")


class Point:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Point) and other.x == self.x


@kb.case
def copies_are_new_objects():
    p, q = Point(1), object()
    kb.ok(m.same(p) is p, "the object itself comes back as itself")
    got = m.shallow(p)
    kb.ok(got is not p and isinstance(got, Point) and got == p, "a copy is a new equal Point: %r" % (got,))
    pair = m.deep([p, q])
    kb.ok(pair[0] is not p and pair[0] == p, "a deep copy holds a new equal Point")
    kb.ok(pair[1] is not q, "a deep copy holds a new object")


kb.main()
'''


def test_a_copy_of_a_test_object_made_by_agent_code_is_a_new_object(tmp_path):
    p = _judge(tmp_path, TEST, AGENT)
    assert f"KBTEST-RESULT {NONCE} pass" in p.stdout, p.stdout + p.stderr
