"""`kbench deploy`: Dagster on this machine with its runs in containers (make deploy-local, make deploy-stop).

PostgreSQL holds Dagster's storage, `dagster-daemon` and `dagster-webserver` run as host processes, and the
daemon's DockerRunLauncher starts every run in a container of the code image through the project's own Docker
engine. Everything the deployment owns lives under one folder (KBENCH_DEPLOY_DIR, else .state/deploy):

    state.json          what runs: pids, ports, the code image
    pg-password         the database password (0600; never printed)
    postgres/           the cluster, owned by the postgres user: data/, its socket, server.log
    dagster_home/       DAGSTER_HOME: dagster.yaml, compute logs (mounted into the run containers)
    logs/               daemon.log, webserver.log
    store/              the Parquet results store and the board, unless KBENCH_DB says elsewhere
    tmp/                the run workers' TMPDIR, shared with the host: sibling sandboxes bind what is made there
"""
