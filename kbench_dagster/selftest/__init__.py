"""`kbench selftest`: the hostile fault suite, a containment table from real runs.

One replay script per attack family (a module each, written from the issue's findings), played under each agent
in a real `kbench run` whose last task is an ordinary one solved with its reference: it must still pass. Each family
checks only what kbench recorded. Then the host is checked for what an attack could have left outside.
"""

from kbench_dagster.selftest import (
    capability_forged_cases,
    deep_nesting,
    deep_tree,
    escapes,
    file_tools,
    harbor_image,
    harbor_shadow,
    import_host_files,
    judge_import,
    judge_injection,
    machine_trials,
    memory_split,
    pi_tamper,
    record_truth,
    shell_trials,
    thread_bomb,
)

FAMILIES = [m.FAMILY for m in (judge_import, pi_tamper, deep_tree, thread_bomb, memory_split, file_tools, escapes,
                               record_truth, import_host_files, harbor_shadow, harbor_image,
                               capability_forged_cases, judge_injection, deep_nesting)]
FAMILIES += shell_trials.FAMILIES  # the shell trials' oracle: two judge families in one module
FAMILIES.append(machine_trials.FAMILY)

__all__ = ["FAMILIES"]
