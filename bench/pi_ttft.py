"""How closely pi's time to first token, as its proxy measures it, follows the server's: the scripted server waits
a set delay before its first token, a pi run does one task, and the median measured TTFT is given as a ratio of
the set one (target: within 1.00-1.10 on a quiet machine; under load it grows with the machine's scheduling).

    .venv/bin/python bench/pi_ttft.py [ROUNDS]
"""

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbench_dagster.cli import main  # noqa: E402
from kbench_dagster.store import ResultsStore  # noqa: E402
from sandbox.servers.scripted import ScriptedServer  # noqa: E402

SET_TTFT_S = 0.6


def one_round(root: Path, n: int) -> list[float]:
    db = root / f"r{n}.duckdb"
    with ScriptedServer("oracle", port=0, ttft_s=SET_TTFT_S, token_rate=100.0) as srv:
        assert main(["run", f"pi-ttft-{n}", "--model", srv.model_id, "--url", srv.url, "--agent", "pi", "--conds",
                     "base", "--tasks", "fizz", "--runs", str(root / "runs"), "--work", str(root / "work"),
                     "--db", str(db)]) == 0
    return [r[0] for r in ResultsStore(db).query("SELECT ttft_s FROM requests WHERE agent = 'pi'")[1]]


def main_bench() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory(prefix="bench-pi-ttft-") as d:
        ratios = [statistics.median(one_round(Path(d), n)) / SET_TTFT_S for n in range(rounds)]
    print(f"pi's measured TTFT over the set {SET_TTFT_S} s: median ratio {statistics.median(ratios):.3f} "
          f"over {rounds} rounds ({', '.join(f'{r:.3f}' for r in ratios)})")


if __name__ == "__main__":
    main_bench()
