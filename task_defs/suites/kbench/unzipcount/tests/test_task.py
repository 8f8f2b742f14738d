# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os
import zipfile

import kbtest as kb

# 21 files; the archive also has 9 folder entries, so `unzip -l` says "30 files".
ANSWER = "21"
FILES = {
    "LICENSE": "f3a754febf60d493112b5fbbe7a15c50e480c578ff2d7885c4df2358e301fdba",
    "config.ini": "875618580b6071d824bffe8e661b80f5de4fd7f40ff0d6870649ef0161ede47b",
    "data/a/b/c/deep.json": "9048069ca06c930844b7e2df6bdb45935e24186b0aa6801e018549da7b4b787c",
    "docs/guide.pdf": "6b056725eac728f3fdffd0c2065fe7ff9fa450f33fd5adbf8a982d52b891dbd0",
    "docs/index.txt": "e9155ae09836579f7f230a1850447c39fec45af0f0dc935f73a01a9e2252af8f",
    "docs/.hidden/settings.json": "7e01ac4dd515001e8bf30a1c03e04244c22bdb5bfe331d8d79be995f65111c9b",
    "images/chart-1.png": "a9c8a46924afca4e56d7d0dc843f8d78c0e821bbdaa0e303b2607fa55aa7d799",
    "images/chart-2.png": "fa606a08632bb875be070e65de8e0b025abdf25fc3f1b1a18e24acdcd367bcd2",
    "images/raw/.gitkeep": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "images/raw/IMG_001.raw": "e8010ae2b86bbf44ddfd72295924399dcdfd078c2f39ff7be365cfb75075f7fe",
    "logs/run.log": "1c5708cd5fae2b4cb94b5451d551a73ae3854c37f0c4b4f6399980276623eefc",
    "logs/run.log.1": "52c8b5cc92b5f15c98b8a3936fb7cf52c3ed2952cb11abd10847eec090ee12f2",
    "report/.meta": "91f9677128a27e3ae9f49acd393c7782aa9dbdce25c7a3d1be371fc6e5012b7a",
    "report/README.md": "82bf52c944f1935899c9e7ca245e2131228a59998ebb02e342b02dcd0a9013e5",
    "report/2023/q4.csv": "d0ee01ef7164d1900144cc2a6e7c703f9d431c659f63e0b1b7b639a0b3c606ab",
    "report/2024/q1.csv": "806ecddff23692295f82fcd3f1ccbffa7226388adc47f5868258216a7868eef7",
    "report/2024/q2.csv": "10203c331ec14457cdbd1caea0ea7278ac5b21e2de4ef379cffc25e28311b9a2",
    "report/2024/q3.csv": "33113e6cf472e86a4133992704899b18a03e703492ac5b060b083d6a99040475",
    "report/2024/q4.csv": "4303631fdfbfae5b346e30ec241705202fa4a4bc7649a4d5ef01dbe8969e4621",
    "report/2024/summary notes.txt": "5d1cf627ecfe61849d88838848538ef5ac676cc17939c1d1b7984beb3a50ef40",
}
# Compressed bytes depend on the zlib version, so the inner zip is checked by what it holds.
INNER_ZIP = "report/2023/archive.zip"
INNER_NAMES = ["2022/q4.csv", "2022/notes.txt"]
EMPTY_FOLDERS = ["empty", "logs/old"]


def extracted(rel):
    return kb.path(os.path.join("extracted", rel))


def files_under_extracted():
    out = set()
    for dirpath, _dirs, names in os.walk(kb.path("extracted")):
        for n in names:
            out.add(os.path.relpath(os.path.join(dirpath, n), kb.path("extracted")))
    return out


@kb.case
def answer_is_the_file_count():
    kb.eq(kb.read("answer.txt").strip(), ANSWER, "answer.txt")


@kb.case
def answer_is_only_a_number():
    text = kb.read("answer.txt").strip()
    kb.ok(text.isdigit(), "answer.txt must hold only the number, got %r" % text[:80])


@kb.case
def files_extracted_with_their_content():
    for rel, digest in FILES.items():
        kb.ok(os.path.isfile(extracted(rel)), "extracted/%s is missing" % rel)
        with open(extracted(rel), "rb") as fh:
            kb.eq(hashlib.sha256(fh.read()).hexdigest(), digest, "content of extracted/%s" % rel)


@kb.case
def inner_archive_left_as_one_file():
    path = extracted(INNER_ZIP)
    kb.ok(os.path.isfile(path) and zipfile.is_zipfile(path), "extracted/%s must be the zip file itself" % INNER_ZIP)
    with zipfile.ZipFile(path) as z:
        kb.eq(z.namelist(), INNER_NAMES, "members of extracted/%s" % INNER_ZIP)


@kb.case
def empty_folders_extracted():
    for rel in EMPTY_FOLDERS:
        kb.ok(os.path.isdir(extracted(rel)), "folder extracted/%s is missing" % rel)


@kb.case
def nothing_else_in_extracted():
    want = set(FILES) | {INNER_ZIP}
    got = files_under_extracted()
    kb.ok(got == want, "files under extracted/ differ: extra %r, missing %r" % (sorted(got - want), sorted(want - got)))


kb.main()
