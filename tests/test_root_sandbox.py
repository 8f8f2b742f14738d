"""A session that keeps uid 0 inside bwrap (the kernel grader's worker, peers sharing root-owned sockets) keeps it
without capabilities and cannot write the host-wide knobs under /proc/sys."""

import os

import pytest
from conftest import needs_bwrap

from sandbox.isolation.bwrap import IsolationConfig
from sandbox.isolation.limits import TEST_LIMITS
from sandbox.isolation.session import run_session

pytestmark = [needs_bwrap, pytest.mark.skipif(os.geteuid() != 0, reason="only root can keep uid 0 in the sandbox")]


def test_uid_0_in_the_sandbox_has_no_capabilities_and_a_read_only_proc_sys(work):
    script = ("grep CapEff /proc/self/status; id -u; "
              "if echo 3 > /proc/sys/vm/drop_caches; then echo WROTE-SYSCTL; fi; "
              "if echo /tmp/x > /proc/sys/kernel/core_pattern; then echo WROTE-CORE; fi")
    res = run_session(["sh", "-c", script], work, limits=TEST_LIMITS, cfg=IsolationConfig(mode="bwrap", drop_uid=False),
                      network=False)
    assert "CapEff:\t0000000000000000" in res.tail, res.tail
    assert "\n0\n" in res.tail  # still uid 0: the point of drop_uid=False
    assert "WROTE" not in res.tail, res.tail
