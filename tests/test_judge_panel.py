"""A judge panel (klbench's): two judges on their own endpoints share an item's three votes, each vote records the
member that cast it, a vote a member fails falls back to the other (recorded as such), the members' families are
recorded and a judge of the judged model's own family is flagged on Thinks. `kbench capability judge-bias` has
each judge judge the same stored replies alone: their agreement (with Cohen's kappa) and each one's lean per model,
checked here against arithmetic of the test's own, on the board's judge-bias page as in the store."""

import contextlib
import io
import json
import re
import socket

import pytest
from test_boards import CHROMIUM, chromium_dom

from kbench_dagster.cli import main
from kbench_dagster.reporting.board_capability import thinks_page, thinks_rows
from kbench_dagster.reporting.judge_bias import bias_study, judge_bias_page, kappa
from kbench_dagster.store import ResultsStore
from sandbox.chatwork.judge import TRIES, Judge, JudgeFailed
from sandbox.chatwork.judge_panel import JudgePanel, model_family, parse_families, parse_judge
from sandbox.servers.scripted import ScriptedServer
from task_defs.capability.models import Item

CRITERIA = ["It thanks the night shift.", "It stays under fifty words.", "It names one concrete task done.",
            "It avoids any form of sarcasm."]  # 26, 27, 32 and 30 characters
ITEM = Item.model_validate({"id": "writing_panel", "prompt": "Write a short thank-you note to the night shift.",
                            "reference": "Thank you all for the careful work overnight.",
                            "grader": {"kind": "judge", "criteria": CRITERIA}})


def strict_says(criterion: str, vote: int) -> bool:
    """The scripted judge's rule (sandbox/servers/scripted/personas.py JudgePersona)."""
    return (len(criterion) + vote) % 4 in (0, 1)


def test_model_families_and_judge_specs():
    assert model_family("Qwen/Qwen2.5-Coder-7B-Instruct-GGUF") == "alibaba"
    assert model_family("gpt-oss-120b") == "openai" and model_family("claude-sonnet-4") == "anthropic"
    assert model_family("meta-llama/Llama-3.1-8B") == "meta" and model_family("scripted-oracle") is None
    assert model_family("alphabet-soup") is None  # "phi" inside a word is not Microsoft's
    assert parse_judge("gpt-oss-20b@http://127.0.0.1:9000/v1") == ("gpt-oss-20b", "http://127.0.0.1:9000/v1", "openai")
    assert parse_judge("mine@http://127.0.0.1:1/v1", {"mine": "google"})[2] == "google"
    with pytest.raises(ValueError, match="MODEL@URL"):
        parse_judge("http://127.0.0.1:9000/v1")
    with pytest.raises(ValueError, match="MODEL=FAMILY"):
        parse_families(["openai"])
    with pytest.raises(ValueError, match="names no judge"):
        JudgePanel.from_specs(["a@http://127.0.0.1:1/v1"], ["b=openai"])


def test_two_judges_share_the_votes_and_each_vote_names_its_member():
    with ScriptedServer("judge", port=0) as strict, ScriptedServer("lenient_judge", port=0) as lenient:
        panel = JudgePanel([Judge(strict.url, "strict-judge"), Judge(lenient.url, "gpt-lenient")])
        checks, record = panel.grade(ITEM, [ITEM.reference])
    members = [v["member"] for v in record["votes"]]
    assert members == [panel.assigned(ITEM.id, v) for v in (1, 2, 3)] and set(members) == {0, 1}
    assert record["fallbacks"] == 0 and not any(v["fallback"] for v in record["votes"])
    assert record["panel"] == [{"model": "strict-judge", "family": None, "fingerprint": panel.members[0].fingerprint},
                               {"model": "gpt-lenient", "family": "openai",
                                "fingerprint": panel.members[1].fingerprint}]
    assert "url" not in json.dumps(record)  # no endpoint address in a stored verdict
    # by hand: the lenient member says yes to everything, the strict one by its rule for the vote it casts
    want = []
    for c in CRITERIA:
        yes = sum(True if m == 1 else strict_says(c, v) for v, m in zip((1, 2, 3), members))
        want.append(yes >= 2)
    assert [c.passed for c in checks] == want == record["median"]


def closed_url() -> str:
    """An endpoint nothing listens on: a judge there is unreachable."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_vote_an_unreachable_member_would_cast_falls_back_to_the_other_and_says_so():
    with ScriptedServer("judge", port=0) as strict:
        panel = JudgePanel([Judge(closed_url(), "down-judge"), Judge(strict.url, "strict-judge")])
        checks, record = panel.grade(ITEM, [ITEM.reference])
        assigned = [panel.assigned(ITEM.id, v) for v in (1, 2, 3)]
        assert record["fallbacks"] == assigned.count(0) >= 1
        for v, a in zip(record["votes"], assigned):
            assert v["assigned"] == a and v["member"] == 1 and v["fallback"] == (a == 0)
            assert bool(v["failed"]) == (a == 0) and all("down-judge: APIConnectionError" in f for f in v["failed"])
        # every vote was the strict judge's: its own median of three, by its rule
        assert [c.passed for c in checks] == [sum(strict_says(c, v) for v in (1, 2, 3)) >= 2 for c in CRITERIA]
    with pytest.raises(JudgeFailed, match="down-judge.*other-down|other-down.*down-judge"):
        JudgePanel([Judge(closed_url(), "down-judge"), Judge(closed_url(), "other-down")]).grade(
            ITEM, [ITEM.reference])


def test_a_member_that_answers_out_of_form_never_hands_its_vote_on():
    """The reply may be what derailed it: falling back would let a reply pick its judge by derailing the strict
    one. The item fails (judge_failed), and the other member is never asked that vote."""
    with ScriptedServer("null", port=0) as derailed, ScriptedServer("lenient_judge", port=0) as lenient:
        panel = JudgePanel([Judge(derailed.url, "derailed-judge"), Judge(lenient.url, "lenient-judge")])
        first = panel.assigned(ITEM.id, 1)
        with pytest.raises(JudgeFailed, match=f"derailed-judge: vote {2 if first else 1}: {TRIES} answers"):
            panel.grade(ITEM, [ITEM.reference])
        # the derailed member was asked its TRIES times and then given up on; the lenient one cast only the votes
        # assigned to it before that (none when the derailed one holds vote 1)
        assert len(derailed.sampling_seen) == TRIES
        assert len(lenient.sampling_seen) == (0 if first == 0 else 1)


def _run(tmp_path, srv, model, judges, db):
    argv = ["capability", "run", str(tmp_path / f"{model}.json"), "--url", srv.url, "--model", model, "--seeds", "1",
            "--only", "writing", "--limit", "6", "--run-id", model, "--runs", str(tmp_path / "runs"), "--work",
            str(tmp_path / "work"), "--db", str(db)]
    for j in judges:
        argv += ["--judge", j]
    assert main(argv) == 0


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """Two models' writing items judged by a two-judge panel (one of them of the first model's family), then the
    bias study of two other judges over the same replies, and the board."""
    tmp = tmp_path_factory.mktemp("panel")
    db = tmp / "c.duckdb"
    said = []
    with ScriptedServer("oracle", suite="capability", port=0) as srv, \
            ScriptedServer("judge", port=0) as strict, ScriptedServer("lenient_judge", port=0) as lenient:
        panel = [f"qwen-judge@{strict.url}", f"other-judge@{lenient.url}"]
        for model in ("qwen-student", "llama-student"):  # alibaba, as the first judge; meta, as none
            with contextlib.redirect_stderr(io.StringIO()) as err:
                _run(tmp, srv, model, panel, db)
            said.append(err.getvalue())
        assert main(["capability", "judge-bias", "--judge", f"strict-judge@{strict.url}", "--judge",
                     f"gpt-lenient@{lenient.url}", "--db", str(db)]) == 0
    assert main(["board", "--db", str(db), "--out", str(tmp / "board")]) == 0
    return ResultsStore(db), tmp / "board", said


def test_a_judge_of_the_models_own_family_is_flagged(study):
    store, _, said = study
    assert "WARNING: qwen-judge is of the same family as qwen-student" in said[0] and "WARNING" not in said[1]
    rows = {r["model"]: r for r in thinks_rows(store, agent_tasks={})}
    assert rows["qwen-student"]["same_family_judges"] == ["qwen-judge"] and rows["qwen-student"]["same_family_items"]
    assert rows["llama-student"]["same_family_items"] == []
    html = thinks_page(list(rows.values()))
    assert f"data-field='same_family' data-value='{len(rows['qwen-student']['same_family_items'])}'" in html


def _verdicts(store):
    cols, found = store.query("SELECT judge, model, item, seed, criteria, met, median FROM judge_bias "
                              "WHERE outcome = 'judged' ORDER BY model, item, seed, judge")
    return [dict(zip(cols, r)) for r in found]


def test_the_bias_study_matches_its_arithmetic_and_the_board_shows_it(study):
    store, site, _ = study
    verdicts = _verdicts(store)
    judged = {r["item"] for r in verdicts}
    assert len(judged) == 3 and len(verdicts) == 2 * 2 * len(judged)  # two judges x two models x the items
    found = bias_study(store)
    assert found["replies"] == 2 * len(judged) and found["left_out"] == 0
    for m in found["models"]:
        mine = [r for r in verdicts if r["model"] == m["model"]]
        share = {j: sum(r["met"] for r in mine if r["judge"] == j) / sum(r["criteria"] for r in mine if r["judge"] == j)
                 for j in ("strict-judge", "gpt-lenient")}
        assert share["gpt-lenient"] == 1.0 and m["shares"] == pytest.approx(share)
        mean = (share["strict-judge"] + share["gpt-lenient"]) / 2
        assert m["lean"]["gpt-lenient"] == pytest.approx(1.0 - mean) and 1.0 > mean
        lean = m["lean"]["strict-judge"]
        assert lean == pytest.approx(share["strict-judge"] - mean) and lean < 0
    # agreement and kappa from the 2x2 table of the criterion verdicts, counted apart
    a = b = c = d = 0
    for key in {(r["model"], r["item"], r["seed"]) for r in verdicts}:
        s, le = (json.loads(next(r["median"] for r in verdicts if (r["model"], r["item"], r["seed"]) == key
                                 and r["judge"] == j)) for j in ("strict-judge", "gpt-lenient"))
        for x, y in zip(s, le):
            a, b, c, d = a + (x and y), b + (x and not y), c + (not x and y), d + (not x and not y)
    [pair] = found["pairs"]
    n = a + b + c + d
    assert pair["criteria"] == n and pair["agreement"] == pytest.approx((a + d) / n)
    den = (a + b) * (b + d) + (a + c) * (c + d)
    assert pair["kappa"] == pytest.approx(2 * (a * d - b * c) / den)
    assert (site / "judge-bias.html").read_text() == judge_bias_page(found)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_judge_bias_page_in_headless_chromium(study, tmp_path):
    store, site, _ = study
    dom = chromium_dom((site / "judge-bias.html").as_uri(), tmp_path / "profile")
    assert "<title>Judge bias</title>" in dom and 'href="judge-bias.html">Judge bias</a>' in dom
    shown = re.findall(r"<tr data-model=\"([^\"]+)\">(.*?)</tr>", dom, re.S)
    found = {m["model"]: m for m in bias_study(store)["models"]}
    assert sorted(m for m, _ in shown) == sorted(found)
    for model, row in shown:
        cells = re.findall(r'data-judge="([^"]+)" data-value="([^"]+)"', row)
        assert sorted(j for j, _ in cells) == ["gpt-lenient", "strict-judge"]
        for judge, value in cells:
            assert float(value) == pytest.approx(found[model]["lean"][judge], abs=1e-12)
    # Thinks, as the board wrote it: the same-family judge's items on the model of its family only
    dom = chromium_dom((site / "thinks.html").as_uri(), tmp_path / "profile2")
    rows = {r["model"]: r for r in thinks_rows(store, agent_tasks={})}
    for model, r in rows.items():
        row = re.search(r"<tr data-group=\"" + re.escape(r["key"]) + r"\"(.*?)</tr>", dom, re.S).group(1)
        flagged = re.search(r'data-field="same_family" data-value="(\d+)"', row).group(1)
        assert int(flagged) == len(r["same_family_items"]) and (int(flagged) > 0) == (model == "qwen-student")
        assert ("voted on by qwen-judge" in row) == (model == "qwen-student")


def test_kappa_agrees_with_the_two_by_two_formula():
    import random

    rng = random.Random(5)
    for _ in range(200):
        n = rng.randint(1, 40)
        x = [rng.random() < 0.6 for _ in range(n)]
        y = [v if rng.random() < 0.7 else not v for v in x]
        a, b = sum(p and q for p, q in zip(x, y)), sum(p and not q for p, q in zip(x, y))
        c, d = sum(q and not p for p, q in zip(x, y)), sum(not p and not q for p, q in zip(x, y))
        den = (a + b) * (b + d) + (a + c) * (c + d)
        want = None if den == 0 else 2 * (a * d - b * c) / den
        got = kappa(x, y)
        assert (got is None) == (want is None) and (want is None or got == pytest.approx(want, abs=1e-12))


def test_judge_bias_needs_two_judges_and_stored_replies(tmp_path, capsys):
    db = tmp_path / "empty.duckdb"
    assert main(["capability", "judge-bias", "--judge", "a@http://127.0.0.1:9/v1", "--db", str(db)]) == 2
    assert "two --judge" in capsys.readouterr().err
    assert main(["capability", "judge-bias", "--judge", "a@http://127.0.0.1:9/v1", "--judge",
                 "b@http://127.0.0.1:9/v1", "--db", str(db)]) == 1
    assert "no judged replies" in capsys.readouterr().err
