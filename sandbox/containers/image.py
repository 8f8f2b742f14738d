"""The container sandbox's base image, built offline: a Debian root filesystem from debootstrap, `docker import`ed.

No registry is reachable from these machines, and BuildKit's RUN steps need a network bridge our engine does not
have, so the image is never pulled or built with RUN: debootstrap (from Debian's mirror, as apt itself) makes the
root filesystem once, and the engine imports it. The tag carries a hash of the recipe, so a changed package list
makes a new image and an unchanged one is reused (`make docker-image`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sandbox.containers import engine

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
# What hidden tests and agents' commands expect of a small Linux: the system python3 (the judge runs on it),
# ps/kill, git, make, zip and the utilities the host sandbox also offers. Node is the host's own binary, copied in:
# Debian's is an older major than the one pi and the JavaScript tasks are run with on the host.
PACKAGES = ("python3", "procps", "git", "make", "patch", "file", "less", "ca-certificates", "zip", "unzip",
            "xz-utils", "bzip2")
NODE_INSIDE = "usr/local/bin/node"
REPOSITORY = "kbench-base"


def host_node() -> str | None:
    return shutil.which("node")


@functools.cache
def recipe_tag() -> str:
    node = host_node()
    st = os.stat(node) if node else None
    node_id = f"{st.st_size}:{st.st_mtime_ns}" if st else "no node"  # another node install: another image
    recipe = "\n".join([SUITE, MIRROR, "minbase", *PACKAGES, node_id, "/root 0755"])
    return hashlib.sha256(recipe.encode()).hexdigest()[:12]


def image_name() -> str:
    """The base image sessions run in: $KBENCH_SANDBOX_IMAGE where a deployment names it for its run containers
    (they hold no node of the host to hash), else this machine's recipe."""
    return os.environ.get("KBENCH_SANDBOX_IMAGE") or f"{REPOSITORY}:{recipe_tag()}"


def present(client) -> bool:
    import docker

    try:
        client.images.get(image_name())
        return True
    except docker.errors.ImageNotFound:
        return False


def build(client, log=print) -> str:
    """Build the base image unless the engine has it; returns its name."""
    name = image_name()
    if present(client):
        log(f"base image {name}: already built")
        return name
    if not shutil.which("debootstrap"):
        raise RuntimeError("debootstrap is not installed: apt-get install debootstrap (make docker-image does)")
    with tempfile.TemporaryDirectory(prefix="kbench-rootfs-") as tmp:
        root = Path(tmp) / "root"
        log(f"debootstrap {SUITE} (minbase + {', '.join(PACKAGES)}) into {root}: a few minutes, once")
        subprocess.run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root),
                        MIRROR], check=True, stdout=subprocess.DEVNULL)
        # apt's caches are of no use in a sandbox and only make the image bigger
        for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(root / cache, ignore_errors=True)
        if host_node():
            shutil.copy2(host_node(), root / NODE_INSIDE)
        # Work folders are bound at their host paths, which may lie under root's home (~/kbench-work): the
        # session's unprivileged uid must be able to pass through it, as bwrap's made-up parents let it.
        (root / "root").chmod(0o755)
        tarball = Path(tmp) / "root.tar"
        subprocess.run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(tarball), "."], check=True)
        log(f"importing {tarball.stat().st_size / 2**20:.0f} MiB as {name}")
        with open(tarball, "rb") as fh:
            client.api.import_image_from_data(fh, repository=REPOSITORY, tag=recipe_tag(),
                                              changes=['CMD ["/bin/bash"]', "ENV LANG=C.UTF-8"])
    client.images.get(name).tag(REPOSITORY, "latest")
    _remove_older(client, name)
    return name


def _remove_older(client, keep: str) -> None:
    """Base images of earlier recipes: nothing runs on them once the new one is built (an image a container still
    uses stays, the engine refuses to remove it)."""
    import docker

    for img in client.images.list(REPOSITORY):
        for tag in img.tags:
            if tag not in (keep, f"{REPOSITORY}:latest"):
                try:
                    client.images.remove(tag)
                except docker.errors.APIError:
                    pass


def main() -> int:
    try:
        print(build(engine.client()))
    except (engine.EngineUnavailable, RuntimeError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
