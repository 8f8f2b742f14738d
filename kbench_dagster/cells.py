"""One Dagster cell (a model@endpoint x condition and seed partition) of any kind: its settings in the terms `kbench
run` takes, the run and its store partition through the service, and the factory that makes a kind's cell
asset, so the assets of every kind share one body (assets/*.py call these; none repeats them)."""

from collections.abc import Callable

import dagster as dg

from kbench_dagster import service
from kbench_dagster.keys import parse_cell
from kbench_dagster.partitions import keys_of, run_partitions
from kbench_dagster.pools import MODEL_SERVER_POOL
from kbench_dagster.resources import AgentSettings, ModelEndpoints, ResultsDB, SandboxSettings
from kbench_dagster.run_settings import RunSettings, settings_of
from kbench_dagster.store import ResultsStore
from sandbox.engine.spec import API_AGENT


def registered_model(store: ResultsStore, model_key: str) -> tuple[str, str]:
    found = store.model_of(model_key)
    if found is None:
        raise dg.Failure(f"model key {model_key!r} is not registered: `kbench models add MODEL --endpoint NAME` "
                         "or the new_model_release_sensor records the model id and its endpoint")
    return found


def cell_settings(model_key: str, cell: str, kind, model_id: str, endpoint, agent: AgentSettings,
                  sandbox: SandboxSettings, tasks: str = "", defer_grading: bool = False,
                  agent_name: str | None = None) -> RunSettings:
    """The settings of one Dagster cell: the run settings the agent resource holds, and what the cell, its
    endpoint and the sandbox resource decide (agent_name: "api" for chat kinds)."""
    cond, seed = parse_cell(cell)
    who = agent_name or agent.agent
    return settings_of(**{
        **agent.run_fields(), "run_id": service.cell_run_id(who, model_key, cell, kind), "model": model_id,
        "url": endpoint.url, "agent": who, "suite": kind.name, "tasks": tasks or None, "conds": cond,
        "defer_grading": defer_grading, "seeds": [seed], "workers": min(agent.workers, endpoint.slots or agent.workers),
        "work_root": str(sandbox.work_path()), "isolation": sandbox.isolation, "server_slots": endpoint.slots,
        "endpoint": endpoint.name, **endpoint.declared})


def run_cell(context, kind, units, agent_name, endpoints, agent, sandbox, results_db):
    """Run one cell of `kind` over `units` and store it under its partition: (store, key, outcome, model, endpoint)."""
    model_key, cell = keys_of(context)
    store = results_db.store()
    model_id, endpoint_name = registered_model(store, model_key)
    endpoint = endpoints.get(endpoint_name)
    settings = cell_settings(model_key, cell, kind, model_id, endpoint, agent, sandbox,
                             ",".join(u.id for u in units), agent_name=agent_name)
    run = service.plan_run(settings, kind, api_key=endpoint.api_key)
    key = service.partition_store_key(agent_name, model_key, cell, run.kind.name)
    done = service.run_and_store(run, store, store_as=lambda s, st: service.store_run_cell(s, st, key),
                                 say=context.log.warning)
    return store, key, done, model_id, endpoint_name


class FirstUnits(dg.Config):
    """The settings of a kind that declares none of its own."""

    limit: int = 0  # the first K of its units; 0: all


# (the kind's own settings, the agent resource, the cell's endpoint) -> the kind, the units it asks, and metadata
KindFor = Callable[[dg.Config, AgentSettings, object], tuple[object, list, dict]]


def cell_asset(name: str, table: str, by: str, kind_for: KindFor, *, description: str, deps: tuple = (),
               group: str = "language", settings: type[dg.Config] = FirstUnits) -> dg.AssetsDefinition:
    """The cell asset of a kind: every unit `kind_for` picks, done for one model@endpoint in one cell (through the
    chat API, or by the configured agent for a kind that runs one), graded and stored as rows of `table`; its
    preview counts them per `by`. `settings` are the kind's own (which units, how it asks), the asset's run
    config; the run's settings come from the resources."""

    @dg.asset(name=name, partitions_def=run_partitions, pool=MODEL_SERVER_POOL, group_name=group, deps=list(deps),
              description=description)
    def cell(context: dg.AssetExecutionContext, config: settings, endpoints: ModelEndpoints, agent: AgentSettings,
             sandbox: SandboxSettings, results_db: ResultsDB) -> dg.MaterializeResult:
        model_key, _cell = keys_of(context)
        endpoint = endpoints.get(registered_model(results_db.store(), model_key)[1])
        kind, units, own = kind_for(config, agent, endpoint)
        who = agent.agent if kind.runs_agent else API_AGENT
        store, key, done, model_id, endpoint_name = run_cell(context, kind, units, who, endpoints, agent, sandbox,
                                                             results_db)
        rows = store.partition_summary(table, key, by)
        preview = [f"| {by} | rows | passed |", "|---|---|---|"] + [f"| {g} | {n} | {p} |" for g, n, p in rows]
        return dg.MaterializeResult(metadata={
            "model": model_id, "endpoint": endpoint_name, "run_id": done.spec.run_id,
            "rows": sum(r[1] for r in rows), "passed": sum(r[2] for r in rows), "ran_now": done.summary["ran"],
            "suite_fingerprint": kind.fingerprint, **own, f"per_{by}": dg.MetadataValue.md("\n".join(preview))})

    return cell


def kind_cell_asset(card) -> dg.AssetsDefinition:
    """The cell asset of a kind registered from elsewhere (sandbox/engine/registry.py): all of its units (the first
    `limit` of them, with that run config), named after its table, counted per outcome."""
    def every_unit(settings: FirstUnits, agent, endpoint):
        kind = card.make(card.name)
        return kind, kind.units[:settings.limit or None], {}

    return cell_asset(card.table, card.table, "outcome", every_unit,
                      description=f"Every unit of the kind {card.name} asked of one model@endpoint in one cell.")
