"""new_model_release_sensor: a model id a server lists for the first time becomes a partition and gets runs."""


import dagster as dg

from kbench_dagster.keys import CELLS, model_key
from kbench_dagster.partitions import model_partitions
from kbench_dagster.resources import ModelEndpoints, ResultsDB
from sandbox.servers.hardware import endpoint_record

BENCHMARK_JOB = "benchmark"
# The cells a new release gets without a human step: seed 1 of the default conditions.
RELEASE_CELLS = [c for c in CELLS if c.endswith(".s1")]


@dg.sensor(job_name=BENCHMARK_JOB, minimum_interval_seconds=60, default_status=dg.DefaultSensorStatus.STOPPED)
def new_model_release_sensor(context: dg.SensorEvaluationContext, endpoints: ModelEndpoints,
                             results_db: ResultsDB) -> dg.SensorResult | dg.SkipReason:
    """Polls /v1/models of every endpoint into the models table, and its description into endpoints; every
    registered model (also those added with `kbench models add`) is a partition MODEL@ENDPOINT, and a new one is
    benchmarked on seed 1."""
    store = results_db.store()
    failures = []
    for ep in endpoints.endpoints():
        try:
            ids = endpoints.list_models(ep.name)
        except Exception as exc:  # a server that is down is tried again next tick; say so, don't fail
            failures.append(f"{ep.name}: {exc}")
            continue
        for model_id in ids:
            store.remember_model(model_key(model_id, ep.name), model_id, ep.name)
        # what the server says of itself now (engine, build, model file, context...), for `kbench endpoints list`
        store.save_endpoint(endpoint_record(ep.url, ep.api_key, {"name": ep.name, **ep.declared}), ep.url)
    registered = {m["model_key"]: m for m in store.models()}
    existing = set(context.instance.get_dynamic_partitions(model_partitions.name))
    new_keys = sorted(set(registered) - existing)
    removed = sorted(existing - set(registered))  # `kbench models remove`: results stay, no more runs
    requests = [dg.RunRequest(run_key=f"{key}:{cell}",
                              partition_key=dg.MultiPartitionKey({"model": key, "cell": cell}),
                              tags={"kbench/endpoint": registered[key]["endpoint"],
                                    "kbench/model": registered[key]["model_id"]})
                for key in new_keys for cell in RELEASE_CELLS]
    if not new_keys and not removed:
        return dg.SkipReason("no new model ids" + (f"; unreachable: {'; '.join(failures)}" if failures else ""))
    context.log.info(f"new models: {', '.join(new_keys) or 'none'}; removed: {', '.join(removed) or 'none'}; "
                     f"{len(requests)} runs requested")
    changes = []
    if new_keys:
        changes.append(model_partitions.build_add_request(new_keys))
    if removed:
        changes.append(model_partitions.build_delete_request(removed))
    return dg.SensorResult(run_requests=requests, dynamic_partitions_requests=changes)
