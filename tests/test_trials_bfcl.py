"""The BFCL importer (task_defs/trials/bfcl.py, bfcl_agreement.py and bfcl_families.py): BFCL-shaped items
become trials with their own tools, schemas in JSON Schema, oracles that read answers as BFCL's checker does
(optional parameters, dict answers, ints for floats, its string normalisation, except an enum it would merge,
compared exactly), families our loader accepts with no prompt asked twice, and an agreement report that names every
item where our oracle and BFCL's canonical answer part. The last tests run the real installed package data."""

import time

import pytest

from sandbox.chatwork.trial_checks import gate_problems
from sandbox.chatwork.trials import ToolTrials
from task_defs.trials import bfcl, bfcl_agreement, bfcl_families
from task_defs.trials.grading import Answer, Call, grade, value_ok
from task_defs.trials.loader import load_families, load_family, normalised_prompt


def q(text):
    return [[{"role": "user", "content": text}]]


RANGE = {"name": "geo.range", "description": "How far apart two places are.",
         "parameters": {"type": "dict", "required": ["origin", "target"], "properties": {
             "origin": {"type": "string", "description": "Where from."},
             "target": {"type": "string", "description": "Where to."},
             "unit": {"type": "string", "enum": ["km", "mi"], "optional": True},
             "legs": {"type": "integer", "description": "Stops on the way."},
             "speed": {"type": "float", "description": "Average speed."}}}}
PARCEL = {"name": "parcel_quote", "description": "",
          "parameters": {"type": "dict", "required": ["box"], "properties": {
              "box": {"type": "dict", "properties": {"width": {"type": "integer"}, "height": {"type": "integer"},
                                                     "label": {"type": "string"}}},
              "weights": {"type": "tuple", "items": {"type": "float"}},
              "meta": {"type": "any", "description": "Anything."}}}}
FILTER = {"name": "rows.filter", "description": "Rows matching conditions.",
          "parameters": {"type": "dict", "required": ["table", "where"], "properties": {
              "table": {"type": "string"},
              "where": {"type": "array", "items": {"type": "dict", "properties": {
                  "col": {"type": "string"}, "op": {"type": "string", "enum": ["<", ">", "="]}}}}}}}
CLOCK = {"name": "clock.now", "description": "The current time in a zone.",
         "parameters": {"type": "dict", "required": ["zone"], "properties": {"zone": {"type": "string"}}}}

ITEMS = {
    "simple": [
        {"id": "simple_python_0", "question": q("How far is Lyon from Nice in km, with 2 stops, at 80 km/h?"),
         "function": [RANGE], "ground_truth": [{"geo.range": {
             "origin": ["Lyon"], "target": ["Nice"], "unit": ["km", ""], "legs": [2], "speed": [80.0]}}]},
        {"id": "simple_python_1", "question": q("Quote a 20 by 10 box."), "function": [PARCEL],
         "ground_truth": [{"parcel_quote": {"box": [{"width": [20], "height": [10], "label": ["", "fragile"]}],
                                            "weights": ["", [1.5, 2.0]], "meta": [""]}}]},
        {"id": "simple_python_2", "question": [[{"role": "user", "content": "hi"}], [{"role": "user",
                                                                                     "content": "again"}]],
         "function": [CLOCK], "ground_truth": [{"clock.now": {"zone": ["UTC"]}}]},
        {"id": "simple_python_3", "question": q("Time in Oslo?"), "function": [CLOCK],
         "ground_truth": [{"clock.now": {"zone": ["Europe/Oslo", ""]}}]},
    ],
    "multiple": [
        {"id": "multiple_0", "question": q("What time is it in Tokyo?"), "function": [RANGE, CLOCK],
         "ground_truth": [{"clock.now": {"zone": ["Asia/Tokyo", "JST"]}}]},
    ],
    "parallel": [
        {"id": "parallel_0", "question": q("Time in Rome and in Lima?"), "function": [CLOCK],
         "ground_truth": [{"clock.now": {"zone": ["Europe/Rome"]}}, {"clock.now": {"zone": ["America/Lima"]}}]},
        {"id": "parallel_1", "question": q("Time in Cairo, please."), "function": [CLOCK],
         "ground_truth": [{"clock.now": {"zone": ["Africa/Cairo"]}}]},
    ],
    "parallel_multiple": [
        {"id": "parallel_multiple_0", "question": q("Rows of users with age > 30, and the time in Paris."),
         "function": [FILTER, CLOCK],
         "ground_truth": [{"rows.filter": {"table": ["users"], "where": [[{"col": ["age"], "op": [">"]}]]}},
                          {"clock.now": {"zone": ["Europe/Paris"], "format": ["", "24h"]}}]},
        {"id": "parallel_multiple_1", "question": q("Time in Kyiv and in Baku."), "function": [CLOCK],
         "ground_truth": [{"clock.now": {"zone": ["Europe/Kyiv"], "dst": [True]}},
                          {"clock.now": {"zone": ["Asia/Baku"]}}]},
    ],
    "irrelevance": [
        {"id": "irrelevance_0", "question": q("Bake me a cake."), "function": [CLOCK], "ground_truth": None},
        {"id": "irrelevance_1-b", "question": q("Sing a song."), "function": [RANGE], "ground_truth": None},
    ],
}


def convert(cat):
    return bfcl.convert_items(cat, ITEMS[cat])


def by_id(trials):
    return {t.id: t for t in trials}


def calls(*pairs):
    return Answer(calls=tuple(Call(n, a) for n, a in pairs))


def test_conversion_tools_schemas_and_oracles():
    trials, skipped = convert("simple")
    assert skipped == {"not a single-turn question": 1}
    t = by_id(trials)["bfcl_simple_python_0"]
    assert (t.source, t.tools, t.oracle.kind) == ("bfcl", ["geo_range"], "calls_exact")
    assert t.messages[0].role == "user" and t.messages[0].content.startswith("How far")
    params = t.tool_specs["geo_range"]["parameters"]
    assert params["type"] == "object" and params["required"] == ["origin", "target"]
    assert params["properties"]["speed"]["type"] == "number" and "optional" not in params["properties"]["unit"]
    rules = t.oracle.calls[0].args
    assert t.oracle.calls[0].name == "geo_range"
    assert rules["unit"].optional and rules["unit"].any_of == ["km"] and rules["unit"].norm == "bfcl"
    assert not rules["origin"].optional
    parcel = by_id(trials)["bfcl_simple_python_1"].tool_specs["parcel_quote"]
    assert parcel["description"]  # BFCL's was empty: a fallback
    props = parcel["parameters"]["properties"]
    assert props["box"]["type"] == "object" and props["box"]["properties"]["width"]["type"] == "integer"
    assert props["weights"] == {"type": "array", "items": {"type": "number"}} and "type" not in props["meta"]
    box = by_id(trials)["bfcl_simple_python_1"].oracle.calls[0].args
    assert box["box"].any_of == [{"width": 20, "height": 10}, {"width": 20, "height": 10, "label": "fragile"}]
    assert box["meta"].any_of == [""] and box["meta"].optional  # only "": leave it out (or give "")
    assert [t.oracle.kind for t in convert("parallel")[0]] == ["calls_set", "calls_exact"]
    irr, _ = convert("irrelevance")
    assert [t.id for t in irr] == ["bfcl_irrelevance_0", "bfcl_irrelevance_1_b"] and irr[0].oracle.kind == "no_call"


def test_oracle_reads_answers_as_bfcl_does():
    t = by_id(convert("simple")[0])["bfcl_simple_python_0"]
    right = {"origin": "Lyon", "target": "Nice", "legs": 2, "speed": 80.0}
    assert grade(t, calls(("geo_range", right))).passed
    assert grade(t, calls(("geo_range", {**right, "unit": "KM", "origin": " lyon"}))).passed  # BFCL's normalising
    assert grade(t, calls(("geo_range", {**right, "speed": 80}))).passed  # an int for a float, as BFCL allows
    assert not grade(t, calls(("geo_range", {**right, "unit": "mi"}))).passed
    assert not grade(t, calls(("geo_range", {**right, "legs": 3}))).passed
    assert not grade(t, calls(("geo_range", {k: v for k, v in right.items() if k != "legs"}))).passed
    assert grade(t, calls(("geo.range", right))).cause == "wrong_tool"  # the dotted name is not the tool's
    p = by_id(convert("simple")[0])["bfcl_simple_python_1"]
    assert grade(p, calls(("parcel_quote", {"box": {"height": 10, "width": 20}}))).passed
    assert grade(p, calls(("parcel_quote", {"box": {"height": 10, "width": 20, "label": "Fragile"},
                                            "weights": [1.5, 2]}))).passed
    assert not grade(p, calls(("parcel_quote", {"box": {"height": 10, "width": 20, "label": "heavy"}}))).passed
    assert not grade(p, calls(("parcel_quote", {"box": {"height": 10, "width": 20, "depth": 1}}))).passed
    assert not grade(p, calls(("parcel_quote", {"box": {"height": 10, "width": 20}, "meta": "x"}))).passed
    par = convert("parallel")[0][0]
    rome, lima = ("clock_now", {"zone": "europe/rome"}), ("clock_now", {"zone": "America/Lima"})
    assert grade(par, calls(lima, rome)).passed and not grade(par, calls(rome, rome)).passed
    irr = convert("irrelevance")[0][0]
    assert grade(irr, Answer(text="I cannot bake.")).passed
    assert grade(irr, calls(("clock_now", {"zone": "UTC"}))).cause == "called_when_not_to"


def test_every_written_family_loads(tmp_path):
    for cat in bfcl.CATEGORIES:
        report = bfcl_families.write_family(tmp_path, cat, ITEMS[cat])
        folder = tmp_path / f"bfcl_{cat}"
        assert (folder / "job.toml").read_text().splitlines()[0].startswith("# kbench-dagster canary")
        family = load_family(folder)
        assert family.id == f"bfcl_{cat}" and not family.spec.tools
        assert report["loader"] == f"ok, {len(family.trials)} trials" and report["written"] == len(family.trials)
    # parallel_multiple_1 demands `dst`, which clock.now does not take: converted, not written, a disagreement
    assert report["skipped"] == {}
    pm = bfcl_families.write_family(tmp_path, "parallel_multiple", ITEMS["parallel_multiple"])
    assert (pm["converted"], pm["written"]) == (2, 1)
    assert pm["skipped"] == {"fails our loader's fit check (listed as a disagreement)": 1}


def test_agreement_names_every_disagreement():
    per = {cat: bfcl_agreement.agreement(convert(cat)[0], ITEMS[cat]) for cat in bfcl.CATEGORIES}
    assert per["multiple"] == {"total": 1, "agree": 1, "disagreements": [], "by_reason": {}, "looser": {},
                               "stricter": {}, "case_exact": []}
    assert per["irrelevance"]["agree"] == 2 and per["parallel"]["agree"] == 2
    # a float like 2.0 for the integer `legs` passes ours, not BFCL's type check: counted, not a disagreement
    assert per["simple"]["looser"] == {"float_for_integer_accepted": 1}
    simple = dict(per["simple"]["disagreements"])
    assert list(simple) == ["bfcl_simple_python_3"] and simple["bfcl_simple_python_3"].startswith(
        "required_marked_omittable: clock_now.zone is required")
    pm = dict(per["parallel_multiple"]["disagreements"])
    assert list(pm) == ["bfcl_parallel_multiple_1"]
    assert pm["bfcl_parallel_multiple_1"] == "answer_param_not_in_function: clock_now takes no 'dst', yet the " \
                                             "answer demands it"
    assert per["parallel_multiple"]["agree"] == 1  # `format` is not clock.now's but omittable: dropped, agrees


def test_answer_that_breaks_the_schema_is_a_disagreement():
    item = {"id": "simple_python_9", "question": q("Range from here to there"), "function": [RANGE],
            "ground_truth": [{"geo.range": {"origin": ["here"], "target": ["there"], "unit": ["leagues"]}}]}
    trials, _ = bfcl.convert_items("simple", [item])
    found = bfcl_agreement.agreement(trials, [item])
    assert found["agree"] == 0 and found["by_reason"]["answer_breaks_schema"]["examples"] == ["bfcl_simple_python_9"]
    assert "'leagues' is not one of ['km', 'mi']" in found["disagreements"][0][1]


# Our own fixtures for the two import decisions: a prompt asked again in another category (and twice in one), and
# an enum whose members only case tells apart.
REPEATS = {
    "simple": [{"id": "simple_python_0", "question": q("What time is it in Quito?"), "function": [CLOCK],
                "ground_truth": [{"clock.now": {"zone": ["America/Guayaquil"]}}]},
               {"id": "simple_python_1", "question": q("What time is it in Hanoi?"), "function": [CLOCK],
                "ground_truth": [{"clock.now": {"zone": ["Asia/Ho_Chi_Minh"]}}]}],
    "multiple": [{"id": "multiple_0", "question": q("what time is it in  QUITO"), "function": [RANGE, CLOCK],
                  "ground_truth": [{"clock.now": {"zone": ["America/Guayaquil"]}}]},
                 {"id": "multiple_1", "question": q("How far is Quito from Lima?"), "function": [RANGE, CLOCK],
                  "ground_truth": [{"geo.range": {"origin": ["Quito"], "target": ["Lima"]}}]}],
    "irrelevance": [{"id": "irrelevance_0", "question": q("Paint my fence."), "function": [CLOCK]},
                    {"id": "irrelevance_1", "question": q("What time is it in Hanoi?"), "function": [RANGE]},
                    {"id": "irrelevance_2", "question": q("Paint my fence!"), "function": [RANGE]}],
}


def test_an_import_drops_repeated_prompts_keeping_the_first_in_category_order(tmp_path, monkeypatch):
    monkeypatch.setattr(bfcl_families, "load_bfcl", lambda cat, limit=None: REPEATS[cat])
    # asked in another order: the kept trial is still the first in CATEGORIES' order, then in file order
    report = bfcl_families.write_families(tmp_path, ["irrelevance", "multiple", "simple"])
    assert list(report) == ["simple", "multiple", "irrelevance"]
    assert [r["dropped"] for r in report.values()] == [
        [], [("bfcl_multiple_0", "bfcl_simple_python_0")],
        [("bfcl_irrelevance_1", "bfcl_simple_python_1"), ("bfcl_irrelevance_2", "bfcl_irrelevance_0")]]
    assert report["irrelevance"]["skipped"] == {bfcl_families.REPEATED: 2}
    assert [r["written"] for r in report.values()] == [2, 1, 1]
    assert all(r["written"] + sum(r["skipped"].values()) == r["items"] for r in report.values())
    assert report["multiple"]["agreement"]["total"] == 2  # the agreement still reads every converted item
    families = load_families(tmp_path)
    assert [t.id for f in families for t in f.trials] == [
        "bfcl_irrelevance_0", "bfcl_multiple_1", "bfcl_simple_python_0", "bfcl_simple_python_1"]
    assert gate_problems(ToolTrials(families)) == []  # the imported set passes our gate: no prompt twice
    # one category alone looks for repeats within itself
    alone = bfcl_families.write_family(tmp_path / "alone", "irrelevance", REPEATS["irrelevance"])
    assert alone["dropped"] == [("bfcl_irrelevance_2", "bfcl_irrelevance_0")]


def test_the_dropped_repeats_are_printed_with_what_they_repeat():
    from kbench_dagster.commands.trials_bfcl import dropped_lines

    report = {"simple": {"dropped": []}, "multiple": {"dropped": [("bfcl_multiple_0", "bfcl_simple_python_0")]}}
    assert dropped_lines(report) == [
        "repeated prompts dropped: 1 (the first kept, in the order simple, multiple, parallel, parallel_multiple, "
        "irrelevance, then file order)", "  bfcl_multiple_0: repeats bfcl_simple_python_0"]


ALLELE = {"name": "allele.share", "description": "The expected share of one allele pair in a population.",
          "parameters": {"type": "dict", "required": ["pair", "freq", "region"], "properties": {
              "pair": {"type": "string", "enum": ["BB", "Bb", "bb"], "description": "The allele pair."},
              "freq": {"type": "float", "description": "The dominant allele's frequency."},
              "region": {"type": "string", "description": "Where the population lives."}}}}


def test_enum_members_that_bfcl_lower_casing_merges_are_compared_exactly():
    assert bfcl.enum_collisions(ALLELE["parameters"]["properties"]["pair"]) == [["BB", "Bb", "bb"]]
    assert bfcl.enum_collisions({"type": "array", "items": {"type": "string", "enum": ["x-y", "XY", "z"]}}) == \
        [["x-y", "XY"]]  # BFCL's normalisation drops marks as well as case
    assert bfcl.enum_collisions({"type": "dict", "properties": {"u": {"type": "string", "enum": ["km", "KM"]}}}) == \
        [["km", "KM"]]
    assert bfcl.enum_collisions({"type": "string", "enum": ["km", "mi"]}) == []
    assert bfcl.enum_collisions({"type": "integer", "enum": [1, 1.0]}) == [] and bfcl.enum_collisions(None) == []
    item = {"id": "parallel_7", "question": q("Shares of BB, Bb and bb at a dominant frequency of 0.6 in Lapland?"),
            "function": [ALLELE], "ground_truth": [
                {"allele.share": {"pair": [p], "freq": [0.6], "region": ["Lapland"]}} for p in ("BB", "Bb", "bb")]}
    (t,), _ = bfcl.convert_items("parallel", [item])
    rules = t.oracle.calls[0].args
    assert rules["pair"].norm is None and rules["region"].norm == "bfcl"  # only the merged enum is exact
    right = [("allele_share", {"pair": p, "freq": 0.6, "region": "Lapland"}) for p in ("BB", "Bb", "bb")]
    assert grade(t, calls(*right)).passed
    assert grade(t, calls(*right[::-1])).passed  # parallel calls in any order
    same = [("allele_share", {"pair": "BB", "freq": 0.6, "region": "lapland"})] * 3
    assert not grade(t, calls(*same)).passed  # under BFCL's lower-casing BB would stand for Bb and bb too
    assert value_ok(rules["pair"].model_copy(update={"norm": "bfcl"}), "bb")  # what comparing exactly prevents
    assert grade(t, calls(*[(n, {**a, "region": " lapland"}) for n, a in right])).passed  # the rest: BFCL's way
    found = bfcl_agreement.agreement([t], [item])
    assert (found["agree"], found["total"], found["disagreements"]) == (1, 1, [])  # BFCL's own answer passes
    assert found["case_exact"] == ["bfcl_parallel_7: allele_share.pair"]
    assert found["stricter"] == {"case_exact_enum": 1}
    (one,), _ = bfcl.convert_items("simple", [{**item, "id": "simple_python_7",
                                                "ground_truth": item["ground_truth"][:1]}])
    assert not grade(one, calls(("allele_share", {"pair": "bb", "freq": 0.6, "region": "Lapland"}))).passed


def test_missing_package_names_the_install_command(monkeypatch):
    def gone(name):
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(bfcl.importlib.resources, "files", gone)
    with pytest.raises(bfcl.BfclMissing, match="pip install --no-deps bfcl-eval==2026.3.23"):
        bfcl.load_bfcl("simple")


# Measured on bfcl-eval 2026.3.23: 1233 of 1240 agree (5 required parameters marked omittable, 2 answers that
# break their own schema); the floor leaves no room for a new kind of disagreement to pass unnoticed in bulk.
FLOOR = 0.99
SIZES = {"simple": 400, "multiple": 200, "parallel": 200, "parallel_multiple": 200, "irrelevance": 240}
# 105 of them ask a prompt an earlier one asks (100 multiple items repeat simple ones, 5 irrelevance items repeat
# a simple one or each other): dropped at import; one enum (genotypes) only case tells apart, in 5 items
DROPPED = {"simple": 0, "multiple": 100, "parallel": 0, "parallel_multiple": 0, "irrelevance": 5}
CASE_EXACT = 5


def test_real_bfcl_package(tmp_path):
    start = time.perf_counter()
    try:
        report = bfcl_families.write_families(tmp_path)
    except bfcl.BfclMissing as exc:
        pytest.fail(str(exc))
    assert {c: r["converted"] for c, r in report.items()} == SIZES
    for cat, r in report.items():
        assert r["loader"].startswith("ok"), (cat, r["loader"])
        assert r["written"] + sum(r["skipped"].values()) == r["items"]
        for tid, reason in r["agreement"]["disagreements"]:
            assert tid.startswith("bfcl_") and ": " in reason and reason.split(": ")[1].strip(), (tid, reason)
    agree = sum(r["agreement"]["agree"] for r in report.values())
    total = sum(r["agreement"]["total"] for r in report.values())
    assert total == sum(SIZES.values()) and agree / total >= FLOOR, f"{agree}/{total}"
    assert report["irrelevance"]["agreement"]["agree"] == SIZES["irrelevance"]
    assert {c: len(r["dropped"]) for c, r in report.items()} == DROPPED
    assert {c: r["written"] for c, r in report.items()} == {c: n - DROPPED[c] for c, n in SIZES.items()}
    assert sum(len(r["agreement"]["case_exact"]) for r in report.values()) == CASE_EXACT
    assert sum(r["agreement"]["stricter"].get("case_exact_enum", 0) for r in report.values()) == CASE_EXACT
    families = load_families(tmp_path)
    prompts = [normalised_prompt(t) for f in families for t in f.trials]
    assert len(prompts) == len(set(prompts)) == sum(SIZES.values()) - sum(DROPPED.values())
    assert [p for p in gate_problems(ToolTrials(families)) if "the same prompt" in p] == []
    assert time.perf_counter() - start < 30


def test_import_bfcl_command(tmp_path, capsys):
    import argparse

    from kbench_dagster.commands.trials_bfcl import add_import_bfcl

    parser = argparse.ArgumentParser()
    add_import_bfcl(parser.add_subparsers(dest="cmd", required=True))
    args = parser.parse_args(["import-bfcl", "--out", str(tmp_path), "--categories", "simple_python,irrelevance",
                              "--limit", "20"])
    try:
        assert args.func(args) == 0
    except bfcl.BfclMissing as exc:
        pytest.fail(str(exc))
    out = capsys.readouterr().out
    assert "bfcl_simple " in out and "20 converted, 20 written" in out and "loader: ok, 20 trials" in out
    assert "agreement overall            39/40 (97.5%)" in out  # simple_python_17 marks a required parameter omittable
    assert "  bfcl_simple_python_17: required_marked_omittable: " in out
    assert "repeated prompts dropped: 0 (the first kept, in the order simple, multiple" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bfcl_irrelevance", "bfcl_simple"]
