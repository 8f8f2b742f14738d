# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import hashlib
import os
import tarfile

import kbtest as kb

FILES = {
    "site/.htaccess": "b78d1a298e75114edd18b5329a8deacc70377179cec16f23f6f58999c69a76f6",
    "site/deploy.sh": "750834bd5100f5d9bcff5115de4dbc5f02a7abbce49c3ec8924336d7c49a6dbf",
    "site/empty.txt": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "site/index.html": "664eddd831ef08eef79bda72882df03e4b10ae040c95fdb9cc666f069a90e3b3",
    "site/robots.txt": "1372ed3034c89b2e1c47797444bb83616a0ab213db56c8646f1db8b1c7216152",
    "site/about/index.html": "61fe37daceb2b730df7e67af9e8c1c86243b46b3a988e9e76f8fa750050df4e8",
    "site/blog/2024/hello world.html": "0e788bee7c3c09dc40d0ed95f02d60bbd8f62a50e7311c57b6f3ae12f2fd8e37",
    "site/css/main.css": "78190eb33c86047f6997a2f79995e0b93d75b0bceb8e59dba07ea7d6d9f7d40f",
    "site/img/favicon.ico": "b0e3f700bb21dccf2fd9d6c2012f3989c1252d28a57d61e7c12ca281e19e5fb5",
    "site/img/logo.png": "7e569ee671dd5377df2a24ac76af933ad2d96131599aacd5f7017ae62f987701",
    "site/js/app.js": "12dd8c2af53e136ba630153636c8ef0030f4ce4bf96b3d24669d1e4c981724c6",
}
FOLDERS = ["site/about", "site/blog", "site/blog/2024", "site/css", "site/img", "site/js", "site/uploads"]
ARCHIVE = "backup.tar.gz"


def sha(data):
    return hashlib.sha256(data).hexdigest()


def members():
    """name -> (TarInfo, bytes or None); a file that is not a tar.gz fails the case (wrong), never crashes."""
    try:
        with tarfile.open(kb.path(ARCHIVE), mode="r:gz") as tf:
            out = {}
            for m in tf.getmembers():
                data = tf.extractfile(m).read() if m.isfile() else None
                out[m.name.rstrip("/")] = (m, data)
            return out
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise AssertionError("%s cannot be read as a gzip-compressed tar archive: %s" % (ARCHIVE, exc))


@kb.case
def archive_is_gzip():
    with open(kb.path(ARCHIVE), "rb") as fh:
        head = fh.read(2)
    kb.eq(head, b"\x1f\x8b", "first two bytes of %s (the gzip magic number)" % ARCHIVE)


@kb.case
def every_file_with_its_content():
    got = members()
    for name, digest in FILES.items():
        kb.ok(name in got, "%s is not in the archive (as that exact path)" % name)
        m, data = got[name]
        kb.ok(m.isfile(), "%s must be stored as a regular file" % name)
        kb.eq(sha(data), digest, "sha256 of %s in the archive" % name)


@kb.case
def hidden_file_and_folders_included():
    got = members()
    kb.ok("site/.htaccess" in got, "the hidden file site/.htaccess is missing from the archive")
    for folder in FOLDERS:
        kb.ok(folder in got and got[folder][0].isdir(), "folder %s is missing from the archive" % folder)


@kb.case
def paths_start_with_site():
    for name in members():
        kb.ok(name == "site" or name.startswith("site/"),
              "archive member %r: every path must start with site/ (no ./, no absolute path, nothing else)" % name)


@kb.case
def deploy_script_stays_executable():
    m, _data = members().get("site/deploy.sh", (None, None))
    kb.ok(m is not None, "site/deploy.sh is missing from the archive")
    kb.ok(m.mode & 0o100, "site/deploy.sh is stored without its execute permission (mode %o)" % m.mode)


@kb.case
def site_left_in_place():
    for name, digest in FILES.items():
        kb.ok(os.path.isfile(kb.path(name)), "%s must still exist" % name)
        with open(kb.path(name), "rb") as fh:
            kb.eq(sha(fh.read()), digest, "content of %s" % name)
    kb.ok(os.path.isdir(kb.path("site/uploads")), "site/uploads must still exist")


kb.main()
