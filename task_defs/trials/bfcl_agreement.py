"""How far our oracle agrees with BFCL's own answers: for each converted trial, BFCL's canonical answer graded by
our oracle, checked against the function's declared schema, and answers BFCL fails tried on ours; agreement()
names every item where the two cannot agree and why, and counts where ours is looser or stricter by design.
"""

from __future__ import annotations

from collections import Counter

from task_defs.trials.bfcl import (
    COMBO_CAP,
    STEMS,
    arg_rule,
    canonical_answer,
    enum_collisions,
    load_bfcl,
    offered_functions,
    tool_name,
    trial_id,
)
from task_defs.trials.grading import Answer, Call, grade, value_ok
from task_defs.trials.loader import fit_problem
from task_defs.trials.models import ArgRule, Trial


def _known_issues(item: dict) -> list[tuple[str, str]]:
    """What in a BFCL item keeps its own answer from passing, read from the item alone."""
    out, functions = [], offered_functions(item)
    for c in item.get("ground_truth") or []:
        name, args = next(iter(c.items()))
        if name not in functions:
            out.append(("answer_names_unoffered_function", f"{name} is not among the offered functions"))
            continue
        params, fn = functions[name].get("parameters") or {}, tool_name(name)
        props, required = params.get("properties") or {}, params.get("required") or []
        for p in required:
            if p not in args:
                out.append(("required_without_answer", f"{fn} requires {p!r} but the answer has no options for it: "
                                                       "BFCL fails it given (unexpected) and left out (missing)"))
            elif "" in args[p]:
                out.append(("required_marked_omittable", f"{fn}.{p} is required but '' is among its options "
                                                         f"{args[p]}: BFCL's required check fails its canonical "
                                                         "answer, which leaves it out (as does ours)"))
        for p, opts in args.items():
            if p not in props and "" not in opts:
                out.append(("answer_param_not_in_function", f"{fn} takes no {p!r}, yet the answer demands it"))
            elif p in props and arg_rule(opts, props[p], p in required)[1]:
                out.append(("dict_answer_cut", f"{fn}.{p}: over {COMBO_CAP} accepted dicts; the rest refused"))
    return out


def _schema_problems(trial: Trial, answer: Answer) -> list[str]:
    """Where BFCL's answer does not fit the function's own declared schema (a value of another type, outside the
    enum even under BFCL's normalisation, a nested required key left out): a model that keeps to the schema
    cannot send it."""
    import jsonschema

    found: dict[str, list[str]] = {}  # one entry per parameter, however many of its list items are off
    for call in answer.calls:
        spec = trial.tool_specs.get(call.name)
        if spec is None:
            continue
        for e in jsonschema.Draft202012Validator(spec["parameters"]).iter_errors(call.arguments):
            if e.validator == "required" and not e.path:
                continue  # a top-level required parameter left out is a known issue of its own
            if e.validator == "enum" and not enum_collisions({"enum": list(e.validator_value)}) and \
                    value_ok(ArgRule(any_of=list(e.validator_value), norm="bfcl"), e.instance):
                continue  # the enum's own spelling is accepted by both checkers (where ours compares exactly: not)
            found.setdefault(f"{call.name}.{e.path[0] if e.path else ''}", []).append(e.message)
    return [f"{where}: {msgs[0]}" + (f" (and {len(msgs) - 1} more)" if len(msgs) > 1 else "")
            for where, msgs in found.items()]


def _negatives(trial: Trial, answer: Answer) -> list[str]:
    """Answers BFCL fails that ours must fail too: a required argument left out, an argument the function lacks,
    and for irrelevance any call."""
    if not answer.calls:
        return ["a call passes no_call"] if grade(trial, Answer(calls=(Call(trial.tools[0], {}),))).passed else []
    out = []
    for i, call in enumerate(answer.calls):
        for p in trial.tool_specs.get(call.name, {}).get("parameters", {}).get("required", []):
            if p in call.arguments:
                fewer = {k: v for k, v in call.arguments.items() if k != p}
                calls = answer.calls[:i] + (Call(call.name, fewer),) + answer.calls[i + 1:]
                if grade(trial, Answer(calls=calls)).passed:
                    out.append(f"passes with {call.name}.{p} left out")
    extra = (Call(answer.calls[0].name, {**answer.calls[0].arguments, "not_a_parameter": 1}),) + answer.calls[1:]
    return out + (["passes an argument the function lacks"] if grade(trial, Answer(calls=extra)).passed else [])


def _looser(trial: Trial, answer: Answer) -> list[str]:
    """Where ours passes what BFCL's type check fails (kept: our oracle reads numbers as numbers): a float for an
    integer parameter, ints in a list of floats."""
    out = []
    for i, call in enumerate(answer.calls):
        props = trial.tool_specs.get(call.name, {}).get("parameters", {}).get("properties", {})
        for p, v in call.arguments.items():
            s = props.get(p, {})
            if s.get("type") == "integer" and type(v) is int:
                changed, key = float(v), "float_for_integer_accepted"
            elif s.get("type") == "array" and (s.get("items") or {}).get("type") == "number" and isinstance(v, list) \
                    and any(type(x) is float and x.is_integer() for x in v):
                changed, key = [int(x) if type(x) is float and x.is_integer() else x for x in v], "ints_in_float_list"
            else:
                continue
            calls = answer.calls[:i] + (Call(call.name, {**call.arguments, p: changed}),) + answer.calls[i + 1:]
            if grade(trial, Answer(calls=calls)).passed:
                out.append(key)
    return sorted(set(out))


def _stricter(trial: Trial, answer: Answer) -> list[str]:
    """Where ours fails what BFCL's normalisation passes, by design: another member of an enum whose members that
    normalisation makes one (Aa or aa for AA), in an argument ours compares exactly."""
    out = []
    for i, call in enumerate(answer.calls):
        props = trial.tool_specs.get(call.name, {}).get("parameters", {}).get("properties", {})
        for p, v in call.arguments.items():
            others = [x for g in enum_collisions(props.get(p)) if v in g for x in g if x != v]
            for x in others:
                calls = answer.calls[:i] + (Call(call.name, {**call.arguments, p: x}),) + answer.calls[i + 1:]
                if not grade(trial, Answer(calls=calls)).passed:
                    out.append("case_exact_enum")
    return sorted(set(out))


def case_exact(trial: Trial) -> list[str]:
    """The arguments of the trial's oracle compared exactly rather than with BFCL's normalisation (an enum whose
    members it would make one), as tool.param."""
    rules = getattr(trial.oracle, "calls", [])
    return sorted({f"{r.name}.{k}" for r in rules for k, a in r.args.items() if a.norm is None})


def _items_for(trials: list[Trial]) -> dict[str, dict]:
    stems = {c for c, stem in STEMS.items() if any(t.id.startswith(f"bfcl_{stem}_") for t in trials)}
    return {trial_id(it["id"]): it for c in sorted(stems) for it in load_bfcl(c)}


def agreement(trials: list[Trial], items: list[dict] | None = None) -> dict:
    """Our oracle on BFCL's canonical answer for each trial. A trial agrees when our loader accepts it, our oracle
    passes the canonical answer, that answer fits the function's own schema and ours fails what BFCL fails (a
    required argument left out, an unknown one, a call where none fits). `items`: the BFCL items the trials came
    from (default: read from the package by id)."""
    by_id = {trial_id(it["id"]): it for it in items} if items is not None else _items_for(trials)
    disagreements, by_reason, looser, stricter, exact = [], {}, Counter(), Counter(), []
    for t in trials:
        item = by_id.get(t.id)
        if item is None:
            reasons = [("no_bfcl_item", "no BFCL item has this id")]
        else:
            reasons = _verdicts(t, item)
            if not reasons:
                looser.update(_looser(t, canonical_answer(item)))
                stricter.update(_stricter(t, canonical_answer(item)))
        exact += [f"{t.id}: {p}" for p in case_exact(t)]
        if reasons:
            disagreements.append((t.id, "; ".join(f"{k}: {d}" for k, d in reasons)))
            for k in dict.fromkeys(k for k, _ in reasons):
                by_reason.setdefault(k, []).append(t.id)
    return {"total": len(trials), "agree": len(trials) - len(disagreements), "disagreements": disagreements,
            "by_reason": {k: {"count": len(v), "examples": v[:5]} for k, v in sorted(by_reason.items())},
            "looser": dict(looser), "stricter": dict(stricter), "case_exact": exact}


def _verdicts(trial: Trial, item: dict) -> list[tuple[str, str]]:
    known = _known_issues(item)
    fit = fit_problem(trial, {})
    if fit:
        return known or [("loader_fit", f"{fit[0]}: {fit[1]}")]
    reasons, answer = list(known), canonical_answer(item)
    verdict = grade(trial, answer)
    # a required parameter marked omittable fails BFCL's canonical answer in both checkers; ours must then pass
    # the answer that gives it, else the failure is ours
    explained = any(k == "required_marked_omittable" for k, _ in known) and \
        grade(trial, canonical_answer(item, give_required=True)).passed
    if not verdict.passed and not explained:
        reasons.append(("oracle_fails_answer", f"{verdict.cause}: {verdict.detail}"))
    reasons += [("answer_breaks_schema", p) for p in _schema_problems(trial, answer)]
    reasons += [("oracle_too_lenient", p) for p in _negatives(trial, answer)]
    return reasons
