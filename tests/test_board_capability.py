"""The board's Thinks and Ships pages: their numbers equal this file's own SQL over synthetic rows (the composite
as the equal mean of category means, Ships as the mean over non-saturated tasks of per-harness pass shares),
the printed weights recompute the composite, a saturated task is listed and left out, a model with no agent work
has no Ships headline, and whatever a store holds is escaped, in the files and in headless Chromium."""

import html
from html.parser import HTMLParser

import pytest
from test_boards import CHROMIUM, chromium_dom

from kbench_dagster.reporting import board_capability as bc
from kbench_dagster.reporting.board_pages import build_board
from kbench_dagster.store import ResultsStore

# pinned: the suite's files may change while the tests run, and with them its fingerprint
FP = "the-suite-under-test"
HOSTILE = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"
# the bundled suite may hold no agent categories yet: the pages read this mapping in its place
AGENT_TASKS = {"agentic_fix": ("agentic", "normal"), "repo_patch_fix": ("repo_patch", "hard"),
               "ci_repair_fix": ("ci_repair", "normal")}
SAT, T1, T2 = sorted(bc.kbench_tasks())[:3]  # real kbench task ids, so the page counts them as kbench work
OTHER = "core-dedup-order"  # another suite's task: on neither page
A, B, C = "alpha", HOSTILE, "gamma"
WHERE = {A: ("e1", "gpu"), B: ("e2<b>", "cpu"), C: ("e1", "gpu")}
SCORED = "('pass', 'wrong', 'crash', 'timeout', 'nofile')"


def _chat(model, item, category, tier, runs, fp=None):
    endpoint, cls = WHERE[model]
    return [{"run_id": f"cap-{model}", "model": model, "condition": "base", "seed": seed, "item": item,
             "category": category, "tier": tier, "score": score, "outcome": outcome, "refusal": refusal,
             "duration_s": 1.0, "suite_fingerprint": fp or FP, "endpoint": endpoint,
             "hardware_class": cls} for seed, (score, outcome, refusal) in enumerate(runs)]


def _ok(*scores):
    return [(s, "pass" if s == 1 else "wrong", False) for s in scores]


CHAT = (
    _chat(A, "basic_one", "basic", "normal", _ok(1, 1, 0.5)) + _chat(A, "basic_two", "basic", "hard", _ok(0, .5, .5))
    + _chat(A, "coding_one", "coding", "normal", [(1, "pass", False), (1, "timeout", False), (1, "pass", False)])
    + _chat(A, "coding_two", "coding", "hard", [(0, "wrong", True)] * 3)
    + _chat(A, "tool_one", "tool_use", "normal", [(None, "pending", False)] * 3)
    + _chat(A, "tool_two", "tool_use", "normal", [(.25, "wrong", False), (.75, "wrong", False),
                                                  (None, "pending", False)])
    + _chat(A, "stale_one", "instruction", "normal", _ok(1, 1, 1), fp="an-older-suite")
    + _chat(B, "basic_one", "basic", "normal", _ok(.5, .5, .5))
    + _chat(B, "basic_two", "basic", "hard", [(None, "infra", False), (0, "wrong", False), (1, "pass", False)])
    + _chat(B, "coding_one", "coding", "normal", _ok(1, 0, 0))
    + _chat(B, "tool_two", "tool_use", "normal", _ok(1, 1, 1))
    + _chat(C, "basic_one", "basic", "normal", _ok(1, 1, 1)) + _chat(C, "coding_one", "coding", "normal", _ok(1, 1, .5))
    + _chat(C, "tool_two", "tool_use", "hard", _ok(.5, .5, .5)))
# model -> harness -> task -> verdicts (the gradings; the attempt rows say crash, so only the grading can pass)
AGENT = {
    A: {"pi": {SAT: "pp", T1: "pw", T2: "ppi", "agentic_fix": "pp", "repo_patch_fix": "ww", "ci_repair_fix": "pp",
               OTHER: "pp"},
        "builtin": {SAT: "pp", T1: "ww", T2: "pt", "agentic_fix": "wp", "repo_patch_fix": "pw"}},
    B: {"pi": {SAT: "pp", T1: "p", T2: "ww", "agentic_fix": "pps"}},
}
VERDICT = {"p": "pass", "w": "wrong", "t": "timeout", "i": "infra", "s": "skipped"}


def _agent_rows():
    attempts, gradings = [], []
    for model, harnesses in AGENT.items():
        endpoint, cls = WHERE[model]
        for agent, tasks in harnesses.items():
            for task, verdicts in tasks.items():
                for seed, v in enumerate(verdicts):
                    key = {"run_id": f"run-{model}-{agent}", "model": model, "condition": "base", "task": task,
                           "seed": seed}
                    attempts.append({**key, "agent": agent, "outcome": "crash", "category": "programming",
                                     "tier": "medium", "endpoint": endpoint, "hardware_class": cls,
                                     "hardware": "test box", "duration_s": 2.0, "turns": 1, "infra": v == "i"})
                    gradings.append({**key, "outcome": VERDICT[v], "suite_fingerprint": "fp"})
    return attempts, gradings


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    root = tmp_path_factory.mktemp("capboard")
    store = ResultsStore(root / "c.duckdb")
    attempts, gradings = _agent_rows()
    store.replace_partitions({"p": {"capability_results": CHAT, "attempts": attempts, "gradings": gradings}})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bc, "agent_categories", lambda: dict(AGENT_TASKS))
        mp.setattr(bc, "fingerprint", lambda: FP)
        site = build_board(store, root / "site").parent
    return store, site


class Rows(HTMLParser):
    """Per table id and row (data-group, plus data-task where there is one): the row's attributes, its text and
    the data-value (and data-weight) of each figure, by data-field or data-category."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: dict[str, dict[str, dict]] = {}
        self.table, self.row = None, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id") or "", {})
        elif tag == "tr" and "data-group" in a and self.table is not None:
            key = a["data-group"] + (" | " + a["data-task"] if "data-task" in a else "")
            self.row = self.table[key] = {"_attrs": a, "_text": "", "values": {}, "weights": {}}
        elif self.row is not None and "data-value" in a:
            name = a.get("data-field") or a.get("data-category")
            self.row["values"][name] = float(a["data-value"])
            if "data-weight" in a:
                self.row["weights"][name] = float(a["data-weight"])

    def handle_endtag(self, tag):
        if tag == "tr":
            self.row = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.row is not None:
            self.row["_text"] += data


def _ships(store) -> dict:
    return bc.ships_rows(store, AGENT_TASKS, thinks=bc.thinks_rows(store, AGENT_TASKS, FP))


def _group(model: str) -> str:
    return " · ".join((model, *WHERE[model]))


def _in(values: list[str]) -> str:
    return "(" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + ")"


def expected_thinks(store) -> dict[str, dict]:
    """The composite, usability and category means by SQL: an item's median over its graded runs (timeouts 0),
    refused when most runs declined; a category's mean over answered items (0 when all refused); the composite
    the plain mean of the category means."""
    mapping = " UNION ALL ".join(f"SELECT '{t}' AS task, '{c}' AS category" for t, (c, _) in AGENT_TASKS.items())
    _, found = store.query(f"""
    WITH runs AS (
        SELECT model, endpoint, hardware_class, item, category, outcome, refusal,
               CASE WHEN outcome = 'timeout' THEN 0.0 ELSE coalesce(score, 0.0) END AS s
        FROM capability_results WHERE suite_fingerprint = ?
        UNION ALL
        SELECT a.model, a.endpoint, a.hardware_class, a.task, m.category, g.outcome, false,
               CASE WHEN g.outcome = 'pass' THEN 1.0 ELSE 0.0 END
        FROM attempts a JOIN gradings g USING (run_id, condition, task, seed) JOIN ({mapping}) m USING (task)
        WHERE EXISTS (SELECT 1 FROM capability_results c WHERE c.model = a.model AND c.endpoint = a.endpoint
                      AND c.hardware_class = a.hardware_class)),
    items AS (
        SELECT model, endpoint, hardware_class, category, item, median(s) AS med,
               sum(CASE WHEN refusal THEN 1 ELSE 0 END) * 2 > count(*) AS refused
        FROM runs WHERE outcome NOT IN ('pending', 'skipped', 'infra') GROUP BY ALL),
    cats AS (
        SELECT model, endpoint, hardware_class, category,
               coalesce(avg(med) FILTER (WHERE NOT refused), 0.0) AS mean FROM items GROUP BY ALL),
    used AS (
        SELECT model, endpoint, hardware_class, avg(CASE WHEN refused THEN 0.0 ELSE med END) AS usability
        FROM items GROUP BY ALL)
    SELECT model || ' · ' || endpoint || ' · ' || hardware_class, avg(mean), list(category ORDER BY category),
           list(mean ORDER BY category), any_value(usability)
    FROM cats JOIN used USING (model, endpoint, hardware_class) GROUP BY ALL""", [FP])
    return {g: {"composite": comp, "categories": dict(zip(names, means)), "usability": use}
            for g, comp, names, means, use in found}


def expected_ships(store) -> dict[str, dict]:
    """Ships by SQL: per harness the pass share of graded runs, per task the mean over harnesses, saturated
    tasks (2 models or more, every row >= 0.95) dropped, then the mean over the rest."""
    eligible = _in(sorted(bc.kbench_tasks()) + [t for t, (c, _) in AGENT_TASKS.items() if c in ("agentic",
                                                                                                   "repo_patch")])
    _, found = store.query(f"""
    WITH h AS (
        SELECT a.model, a.endpoint, a.hardware_class, a.task, a.agent, count(*) AS n,
               avg(CASE WHEN g.outcome = 'pass' THEN 1.0 ELSE 0.0 END) AS share
        FROM attempts a JOIN gradings g USING (run_id, condition, task, seed)
        WHERE a.task IN {eligible} AND g.outcome IN {SCORED} GROUP BY ALL),
    t AS (SELECT model, endpoint, hardware_class, task, avg(share) AS score, sum(n) AS n,
                 max(share) FILTER (WHERE agent = 'pi') - max(share) FILTER (WHERE agent = 'builtin') AS diff
          FROM h GROUP BY ALL),
    sat AS (SELECT task FROM t GROUP BY task HAVING count(DISTINCT model) >= 2 AND min(score) >= 0.95)
    SELECT model || ' · ' || endpoint || ' · ' || hardware_class, avg(score), min(n), avg(diff),
           (SELECT list(task ORDER BY task) FROM sat)
    FROM t WHERE task NOT IN (SELECT task FROM sat) GROUP BY ALL""")
    return {g: {"ships": ships, "provisional": least < 2, "spread": diff, "saturated": sat}
            for g, ships, least, diff, sat in found}


def test_thinks_numbers_equal_sql(board):
    store, site = board
    truth = expected_thinks(store)
    page = Rows((site / "thinks.html").read_text())
    shown = page.tables["thinks"]
    assert set(shown) == set(truth) == {_group(m) for m in (A, B, C)}
    for group, t in truth.items():
        assert shown[group]["values"]["composite"] == pytest.approx(t["composite"], abs=6e-5), group
        assert shown[group]["values"]["usability"] == pytest.approx(t["usability"], abs=6e-5), group
        cats = page.tables["categories"][group]["values"]
        assert cats == pytest.approx(t["categories"], abs=6e-5), group
    # the agent categories counted for the model that has both; the stale suite's category nowhere
    assert set(page.tables["categories"][_group(A)]["values"]) == {"basic", "coding", "tool_use", "agentic",
                                                                    "repo_patch", "ci_repair"}
    assert "instruction" not in (site / "thinks.html").read_text()
    a = shown[_group(A)]
    assert a["values"]["refusals"] == 1 and a["values"]["timeouts"] == 1 and a["values"]["not_graded"] == 1
    assert "title='tool_one'" in (site / "thinks.html").read_text()  # the pending item, named


def test_thinks_is_ranked_with_ties_marked_and_functions_agree(board):
    store, site = board
    text = (site / "thinks.html").read_text()
    assert "Ranked by the composite: the equal mean of the category means; each category weighs 1/N" in text
    rows = bc.thinks_rows(store, AGENT_TASKS, FP)
    everything = list(Rows(text).tables["thinks"].items())
    assert [g for g, _ in everything] == [r["key"] for r in rows]
    # the CPU row is ranked apart, by usability, first of its own group; the GPU rows by the composite
    assert [(r["model"], r["ranked_by"], r["rank"]) for r in rows] == [
        (m, "composite", i) for i, m in enumerate(sorted((A, C), key=lambda m: -next(
            r["composite"] for r in rows if r["model"] == m)), 1)] + [(B, "usability", 1)]
    assert all(r["era"] == FP[:8] for r in rows)
    shown = [(g, r) for g, r in everything if r["_attrs"]["data-group"] != _group(B)]
    rows = [r for r in rows if r["ranked_by"] == "composite"]
    comps = [r["values"]["composite"] for _, r in shown]
    assert comps == sorted(comps, reverse=True)
    for (g, r), nxt, row in zip(shown, [*shown[1:], None], rows):
        gap = nxt and comps[shown.index((g, r))] - nxt[1]["values"]["composite"]
        gaps = [x["values"]["mdg"] for x in (r, nxt and nxt[1]) if x and "mdg" in x["values"]]
        tie = nxt is not None and bool(gaps) and gap < max(gaps)  # no interval (a one-item category): no gap
        assert ("tie with next" in r["_text"]) == tie == row["tie_next"], g


def test_weights_sum_to_one_and_recompute_the_composite(board):
    _, site = board
    page = Rows((site / "thinks.html").read_text())
    for group, row in page.tables["categories"].items():
        w, means = row["weights"], row["values"]
        assert set(w) == set(means) and len(w) >= 3
        assert all(x == round(1 / len(w), 6) for x in w.values())
        assert sum(w.values()) == pytest.approx(1.0, abs=1e-5)  # each weight to 6 places
        recomputed = sum(w[c] * means[c] for c in w)
        assert recomputed == pytest.approx(page.tables["thinks"][group]["values"]["composite"], abs=1e-3), group


def test_ships_numbers_equal_sql(board):
    store, site = board
    truth = expected_ships(store)
    shown = Rows((site / "ships.html").read_text()).tables["ships"]
    assert set(truth) == {_group(A), _group(B)}
    for group, t in truth.items():
        row = shown[group]
        assert row["values"]["ships"] == pytest.approx(t["ships"], abs=1e-12), group
        assert ("provisional" in row["_text"]) == t["provisional"], group
    assert truth[_group(A)]["ships"] == 0.5 and truth[_group(B)]["ships"] == pytest.approx(2 / 3)
    assert truth[_group(B)]["provisional"] and not truth[_group(A)]["provisional"]
    a = shown[_group(A)]
    assert a["values"]["spread"] == pytest.approx(truth[_group(A)]["spread"]) == 0.25
    lo, hi = next(r for r in _ships(store)["rows"] if r["key"] == _group(A))["spread"]["ci"]
    assert lo <= 0.25 <= hi and f"[{100 * lo:+.1f}, {100 * hi:+.1f}]" in a["_text"]
    assert "needs both harnesses" in shown[_group(B)]["_text"]
    # the composite beside Ships is the Thinks page's
    thinks = Rows((site / "thinks.html").read_text()).tables["thinks"]
    assert a["values"]["composite"] == thinks[_group(A)]["values"]["composite"]


def test_saturated_task_listed_and_left_out(board):
    store, site = board
    text = (site / "ships.html").read_text()
    truth = expected_ships(store)
    assert truth[_group(A)]["saturated"] == [SAT]
    listed = text.split("<ul id=saturated>")[1].split("</ul>")[0]
    assert f"<li data-task='{SAT}'>" in listed and T1 not in listed
    tasks = Rows(text).tables["tasks"]
    assert tasks[f"{_group(A)} | {SAT}"]["_text"].endswith("saturated")
    assert tasks[f"{_group(A)} | {T1}"]["_text"].endswith("yes")
    # with the saturated task counted, the row would read otherwise: the exclusion is what the page shows
    scores = [v["values"]["task_score"] for k, v in tasks.items() if k.startswith(_group(A) + " | ")]
    assert sum(scores) / len(scores) != Rows(text).tables["ships"][_group(A)]["values"]["ships"]
    # neither ci_repair nor another suite's task is Ships work
    assert "ci_repair_fix" not in text and OTHER not in text


def test_model_without_agent_work_has_no_ships_headline(board):
    store, site = board
    shown = list(Rows((site / "ships.html").read_text()).tables["ships"].items())
    last_group, last = shown[-1]
    assert last_group == _group(C) and "ships" not in last["values"] and "no task counts" in last["_text"]
    assert "composite" in last["values"]  # the row is there, with its Thinks composite
    doc = _ships(store)
    assert doc["rows"][-1]["ships"] is None
    assert "2 models have both; 5 are needed" in (site / "ships.html").read_text()


def test_spearman_handles_ties_and_its_threshold():
    assert bc.spearman([1, 2, 3, 4, 5], [10, 20, 30, 40, 50]) == pytest.approx(1.0)
    assert bc.spearman([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]) == pytest.approx(-1.0)
    # ranks x: 1, 2.5, 2.5, 4, 5 and y: 2, 1, 3, 5, 4 -> Pearson of the ranks
    rx, ry = [1, 2.5, 2.5, 4, 5], [2, 1, 3, 5, 4]
    mx, my = sum(rx) / 5, sum(ry) / 5
    r = sum((a - mx) * (b - my) for a, b in zip(rx, ry)) / (
        sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    assert bc.spearman([1, 2, 2, 4, 5], [2, 1, 3, 5, 4]) == pytest.approx(r)
    rows = [{"model": f"m{i}", "endpoint": "e", "hardware_class": "gpu", "key": f"m{i} · e · gpu", "tasks": {},
             "counted": [], "ships": i / 10, "provisional": False, "harnesses": [], "spread": None,
             "composite": i / 5, "era": "f", "rank": None} for i in range(5)]
    text = bc.ships_page({"rows": rows, "saturated": {}, "tasks": [], "spearman": {"models": 5, "rho": 1.0}})
    assert "over 5 models: <b data-value='1.0'>1.000</b>" in text


def test_hostile_names_are_escaped(board):
    _, site = board
    for name in ("thinks.html", "ships.html"):
        text = (site / name).read_text()
        assert HOSTILE not in text and "<img" not in text and "e2<b>" not in text
        assert html.escape(HOSTILE) in text and html.escape("e2<b>") in text
        assert text.count("<script") == 1  # the page's own filter script only
        assert 'href="thinks.html">Thinks</a>' in text and 'href="ships.html">Ships</a>' in text


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_pages_in_headless_chromium(board, tmp_path):
    store, site = board
    dom = chromium_dom((site / "thinks.html").as_uri(), tmp_path / "p1")
    assert "<title>Thinks: the capability composite</title>" in dom and "owned" not in dom.split("<body")[0]
    shown = Rows(dom).tables["thinks"]
    for group, t in expected_thinks(store).items():
        assert shown[group]["values"]["composite"] == pytest.approx(t["composite"], abs=6e-5), group
    by_key = {r["key"]: r for r in bc.thinks_rows(store, AGENT_TASKS, FP)}
    for group, row in shown.items():  # the rank within its group and the era, on every row
        assert row["values"]["rank"] == by_key[group]["rank"] and FP[:8] in row["_text"], group
    dom = chromium_dom((site / "ships.html").as_uri(), tmp_path / "p2")
    shown = Rows(dom).tables["ships"]
    for group, t in expected_ships(store).items():
        assert shown[group]["values"]["ships"] == pytest.approx(t["ships"], abs=1e-12), group
    ranked = {r["key"]: r["rank"] for r in _ships(store)["rows"] if r["rank"] is not None}
    assert ranked and {g: shown[g]["values"]["rank"] for g in ranked} == ranked
    # a filter in the URL hides the other endpoints' rows on both tables of the page
    dom = chromium_dom((site / "thinks.html").as_uri() + "?endpoint=e1", tmp_path / "p3")
    page = Rows(dom)
    for table in ("thinks", "categories"):
        hidden = {g for g, r in page.tables[table].items() if "display: none" in r["_attrs"].get("style", "")}
        assert hidden == {_group(B)}, table
