"""The real llama.cpp server (xllamacpp) as a named endpoint (make test-real): added under a name, described by what
it says of itself (engine, build, model file, quantisation, context, slots), and timed on the wire beside the
server's own timings. The figures are printed for bench/RESULTS.md; what they are is a measurement, not asserted."""

import statistics

import pytest
from test_local_model import model_or_skip

from kbench_dagster.cli import main
from kbench_dagster.store import ResultsStore
from sandbox.servers import llama as lm


@pytest.mark.real_model
def test_the_local_server_is_described_and_timed(tmp_path, capsys):
    db = tmp_path / "r.duckdb"
    with lm.LocalModelServer("0.5b", port=0, model_path=model_or_skip()) as server:
        assert main(["endpoints", "add", "real-local", server.url, "--db", str(db)]) == 0
        assert main(["textjobs", str(tmp_path / "t.json"), "--endpoint", "real-local", "--only", "tables",
                     "--limit", "3", "--runs", str(tmp_path / "runs"), "--work", str(tmp_path / "work"),
                     "--db", str(db), "--timeout", "120"]) == 0
    store = ResultsStore(db)
    [e] = store.endpoints()
    assert (e["engine"], e["quant"], e["model_file"]) == ("llama.cpp", "Q4_K_M", model_or_skip().name)
    assert e["build"] and e["build"] != "unknown" and int(e["n_ctx"]) > 0 and int(e["slots"]) >= 1
    _, rows = store.query("SELECT ttft_s, gen_s, completion_tokens, gen_tok_s, server_gen_tok_s, server_prompt_tok_s "
                          "FROM requests WHERE endpoint = 'real-local'")
    assert len(rows) == 3 and all(r[4] and r[4] > 0 for r in rows)  # llama.cpp reports its own timings
    timed = [r for r in rows if r[1] and r[2] > 1]
    assert timed, "no reply of more than one piece: the generation rate could not be measured"
    pooled = sum(r[2] - 1 for r in timed) / sum(r[1] for r in timed)
    capsys.readouterr()
    with capsys.disabled():
        print(f"\nreal-local: {e['engine']} build {e['build']}, {e['model_file']} {e['quant']}, n_ctx {e['n_ctx']}, "
              f"{e['slots']} slot(s), {e['hardware_class']} ({e['hardware']}); first token median "
              f"{statistics.median(r[0] for r in rows):.2f} s; generation {pooled:.1f} tok/s "
              f"measured on the wire, {statistics.median(r[4] for r in rows):.1f} tok/s by the server's own "
              f"timings; prompt {statistics.median(r[5] for r in rows):.0f} tok/s by the server")
