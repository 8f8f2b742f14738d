# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
# Builds archive.zip: 21 files (one of them a zip itself), 9 explicit folder entries (two of them empty
# folders), a few folders with no entry of their own, hidden files and a name with a space.
set -eu
/usr/bin/python3 - <<'PY'
import io
import zipfile

STAMP = (2024, 3, 1, 12, 0, 0)


def add_file(zf, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, STAMP)
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def add_dir(zf, name):
    info = zipfile.ZipInfo(name, STAMP)
    info.external_attr = (0o040000 | 0o755) << 16 | 0x10
    zf.writestr(info, b"")


def csv(quarter, base):
    rows = ["region,revenue,orders"]
    for i, region in enumerate(["north", "south", "east", "west"]):
        rows.append("%s,%d,%d" % (region, base + 1000 * i + 17 * quarter, 40 + 3 * i + quarter))
    return ("\n".join(rows) + "\n").encode()


inner = io.BytesIO()
with zipfile.ZipFile(inner, "w") as z:
    add_file(z, "2022/q4.csv", csv(4, 9000))
    add_file(z, "2022/notes.txt", b"Figures for 2022 were restated in March 2023.\n")

with zipfile.ZipFile("archive.zip", "w") as zf:
    zf.comment = b"quarterly export, kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247"
    add_dir(zf, "report/")
    add_file(zf, "report/README.md", b"# Quarterly reports\n\nOne CSV per quarter; 2023/archive.zip holds older years.\n")
    add_file(zf, "report/.meta", b"exported_by=finance-bot\nversion=3\n")
    add_dir(zf, "report/2024/")
    for q in (1, 2, 3, 4):
        add_file(zf, "report/2024/q%d.csv" % q, csv(q, 12000))
    add_file(zf, "report/2024/summary notes.txt", b"Q3 was the strongest quarter.\nQ4 includes the holiday sale.\n")
    add_dir(zf, "report/2023/")
    add_file(zf, "report/2023/q4.csv", csv(4, 11000))
    add_file(zf, "report/2023/archive.zip", inner.getvalue())
    add_dir(zf, "images/")
    add_file(zf, "images/chart-1.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    add_file(zf, "images/chart-2.png", b"\x89PNG\r\n\x1a\n" + bytes(range(255, -1, -1)) * 4)
    add_dir(zf, "images/raw/")
    add_file(zf, "images/raw/.gitkeep", b"")
    add_file(zf, "images/raw/IMG_001.raw", bytes([7, 1, 3]) * 1500)
    add_dir(zf, "empty/")
    add_dir(zf, "logs/")
    add_file(zf, "logs/run.log", b"2024-03-01 11:58:02 export started\n2024-03-01 11:59:40 export finished\n")
    add_file(zf, "logs/run.log.1", b"2024-02-01 11:58:00 export started\n2024-02-01 12:03:12 export failed: timeout\n")
    add_dir(zf, "logs/old/")
    add_dir(zf, "docs/")
    add_file(zf, "docs/guide.pdf", b"%PDF-1.4\n% fake guide\n" + b"0" * 2048 + b"\n%%EOF\n")
    add_file(zf, "docs/index.txt", b"guide.pdf - how to read the reports\n")
    add_file(zf, "docs/.hidden/settings.json", b'{"theme": "dark", "pageSize": 50}\n')
    add_file(zf, "config.ini", b"[export]\nformat = csv\nzip = true\n")
    add_file(zf, "LICENSE", b"Internal use only. (c) 2024 Example Finance.\n")
    add_file(zf, "data/a/b/c/deep.json", b'{"depth": 4, "ok": true}\n')
PY
