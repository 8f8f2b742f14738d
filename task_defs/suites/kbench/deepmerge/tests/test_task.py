# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import kbtest as kb

FILE = "deepmerge.js"


def merge(a_js, b_js):
    return kb.node(FILE, "m(%s, %s)" % (a_js, b_js))


@kb.case
def exports_the_function():
    kb.eq(kb.node(FILE, "typeof m"), "function", "typeof require('./deepmerge.js')")


@kb.case
def flat_objects():
    kb.eq(merge("{a: 1, b: 2}", "{b: 3, c: 4}"), {"a": 1, "b": 3, "c": 4}, "flat merge")
    kb.eq(merge("{}", "{}"), {}, "two empty objects")
    kb.eq(merge("{x: 'a'}", "{}"), {"x": "a"}, "empty b")
    kb.eq(merge("{}", "{y: true}"), {"y": True}, "empty a")


@kb.case
def nested_objects_merge():
    got = merge("{x: {y: 1, z: {p: 1, q: 1}}, k: 0}", "{x: {z: {q: 2, r: 3}, w: 4}}")
    kb.eq(got, {"x": {"y": 1, "z": {"p": 1, "q": 2, "r": 3}, "w": 4}, "k": 0}, "nested merge")
    got = merge("{a: {b: {c: {d: 1}}}}", "{a: {b: {c: {e: 2}}}}")
    kb.eq(got, {"a": {"b": {"c": {"d": 1, "e": 2}}}}, "four levels deep")
    kb.eq(merge("{a: {b: {}}}", "{}"), {"a": {"b": {}}}, "empty nested object kept")


@kb.case
def non_plain_values_replace():
    kb.eq(merge("{l: [1, 2, 3]}", "{l: [4]}"), {"l": [4]}, "arrays replace, never merge")
    kb.eq(merge("{l: [{a: 1}]}", "{l: [{b: 2}]}"), {"l": [{"b": 2}]}, "arrays of objects replace")
    kb.eq(merge("{x: {y: 1}}", "{x: 5}"), {"x": 5}, "number replaces object")
    kb.eq(merge("{x: 5}", "{x: {y: 1}}"), {"x": {"y": 1}}, "object replaces number")
    kb.eq(merge("{x: {y: 1}}", "{x: null}"), {"x": None}, "null replaces object")
    kb.eq(merge("{x: null}", "{x: {y: 1}}"), {"x": {"y": 1}}, "object replaces null")
    kb.eq(merge("{x: [1]}", "{x: {a: 1}}"), {"x": {"a": 1}}, "object replaces array")
    kb.eq(merge("{x: {a: 1}}", "{x: [1]}"), {"x": [1]}, "array replaces object")
    kb.eq(merge("{s: 'old', f: true}", "{s: '', f: false}"), {"s": "", "f": False}, "falsy values from b win")


@kb.case
def inputs_not_mutated():
    expr = """(() => {
        const a = {x: {y: 1, z: {p: 1}}, l: [1, 2]};
        const b = {x: {z: {q: 2}}, l: [3], n: {m: 1}};
        const before = JSON.stringify([a, b]);
        const r = m(a, b);
        return [JSON.stringify([a, b]) === before, r !== a && r !== b];
    })()"""
    kb.eq(kb.node(FILE, expr), [True, True], "[inputs unchanged, result is a new object]")


@kb.case
def result_shares_no_plain_object():
    expr = """(() => {
        const a = {x: {y: 1}, only_a: {deep: {v: 1}}, rep: 5};
        const b = {x: {z: 2}, only_b: {deep: {v: 2}}, rep: {deep: {v: 3}}};
        const r = m(a, b);
        r.x.y = 99; r.x.z = 99;
        r.only_a.deep.v = 99; r.only_b.deep.v = 99;
        r.only_a.added = 1; r.only_b.added = 1;
        r.rep.deep.v = 99; r.rep.added = 1;
        return [a, b];
    })()"""
    want = [{"x": {"y": 1}, "only_a": {"deep": {"v": 1}}, "rep": 5},
            {"x": {"z": 2}, "only_b": {"deep": {"v": 2}}, "rep": {"deep": {"v": 3}}}]
    kb.eq(kb.node(FILE, expr), want, "[a, b] after changing the result")


kb.main()
