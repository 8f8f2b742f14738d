"""new_model_release_sensor: a model id a server lists for the first time becomes a partition and gets runs."""


import json

import dagster as dg

from kbench_dagster.partitions import CELLS, model_key, model_partitions
from kbench_dagster.resources import ModelEndpoints, ResultsDB

BENCHMARK_JOB = "benchmark"
# The cells a new release gets without a human step: seed 1 of the default conditions.
RELEASE_CELLS = [c for c in CELLS if c.endswith(".s1")]


@dg.sensor(job_name=BENCHMARK_JOB, minimum_interval_seconds=60, default_status=dg.DefaultSensorStatus.STOPPED)
def new_model_release_sensor(context: dg.SensorEvaluationContext, endpoints: ModelEndpoints,
                             results_db: ResultsDB) -> dg.SensorResult | dg.SkipReason:
    """Polls /v1/models of every endpoint; new model ids are added as partitions and benchmarked."""
    seen = set(json.loads(context.cursor)) if context.cursor else set()
    new_keys, requests, failures = [], [], []
    store = results_db.store()
    for ep in endpoints.endpoints():
        try:
            ids = endpoints.list_models(ep.name)
        except Exception as exc:  # a server that is down is tried again next tick; say so, don't fail
            failures.append(f"{ep.name}: {exc}")
            continue
        for model_id in ids:
            marker = f"{ep.name}\t{model_id}"
            if marker in seen:
                continue
            seen.add(marker)
            key = model_key(model_id)
            store.remember_model(key, model_id, ep.name)
            new_keys.append(key)
            for cell in RELEASE_CELLS:
                requests.append(dg.RunRequest(
                    run_key=f"{key}:{cell}",
                    partition_key=dg.MultiPartitionKey({"model": key, "cell": cell}),
                    tags={"kbench/endpoint": ep.name, "kbench/model": model_id}))
    if not new_keys:
        return dg.SkipReason("no new model ids" + (f"; unreachable: {'; '.join(failures)}" if failures else ""))
    context.log.info(f"new models: {', '.join(new_keys)}; {len(requests)} runs requested")
    return dg.SensorResult(run_requests=requests, cursor=json.dumps(sorted(seen)),
                           dynamic_partitions_requests=[model_partitions.build_add_request(new_keys)])
