import os
import shutil
import subprocess
import sys

# fresh names the agent has not seen, with runs of spaces and a leading dash
samples = {"plain.txt": "alpha\n", "q  two spaces.txt": "gamma\n", "-dash first.txt": "delta\n",
           "tab\there.txt": "epsilon\n"}
shutil.rmtree("/app/data", ignore_errors=True)
shutil.rmtree("/app/archive", ignore_errors=True)
os.makedirs("/app/data")
for name, text in samples.items():
    with open(os.path.join("/app/data", name), "w") as fh:
        fh.write(text)
with open("/app/data/skip.log", "w") as fh:
    fh.write("not a txt file\n")
run = subprocess.run(["bash", "/app/backup.sh"], cwd="/", capture_output=True, text=True, timeout=30)
if run.returncode != 0:
    sys.exit(f"backup.sh exited {run.returncode}: {run.stderr[-400:]}")
got = {}
for name in os.listdir("/app/archive") if os.path.isdir("/app/archive") else []:
    with open(os.path.join("/app/archive", name)) as fh:
        got[name] = fh.read()
if got != samples:
    sys.exit(f"the archive holds {sorted(got)}, expected {sorted(samples)}")
print("backup.sh copies every name")
