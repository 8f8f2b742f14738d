"""Dagster's concurrency pools, named once: the assets declare them and `kbench ui` sets their limits."""

# Sessions at once against the model servers (the endpoint's slots; each server's own limit is kept per session).
MODEL_SERVER_POOL = "model_server"
# One per device, so kernel timings never overlap; held only while a kernel is graded.
GPU_POOL = "gpu"
POOLS = (MODEL_SERVER_POOL, GPU_POOL)
