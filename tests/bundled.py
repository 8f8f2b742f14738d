"""The bundled kbench suite, loaded once per test process: a dozen modules use it, and each load reads and
fingerprints all 65 task folders (about half a second). Its models are frozen, so sharing it is safe."""

from task_defs import load_suite

SUITE = load_suite("kbench")
