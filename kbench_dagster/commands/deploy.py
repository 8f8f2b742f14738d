"""`kbench deploy start|stop|status` (make deploy-local, make deploy-stop): Dagster on this machine with
PostgreSQL storage and every run in a container (kbench_dagster/deploy)."""

from __future__ import annotations


def cmd_start(args) -> int:
    from kbench_dagster.deploy import local

    local.start(port=args.port)
    return 0


def cmd_stop(args) -> int:
    from kbench_dagster.deploy import local

    return 1 if local.stop() else 0


def cmd_status(args) -> int:
    from kbench_dagster.deploy import local

    return 0 if local.status() else 3


def add_deploy_parser(sub) -> None:
    p = sub.add_parser("deploy", help="Dagster in containers on this machine: PostgreSQL storage, the daemon and the "
                                      "webserver as processes, each run in a container of the code image")
    actions = p.add_subparsers(dest="deploy_action", required=True)
    s = actions.add_parser("start", help="start what is not running (the code image is built when the tree changed)")
    s.add_argument("--port", type=int,
                   help="the UI's port on 127.0.0.1 (default $KBENCH_DEPLOY_PORT, else 3000)")
    s.set_defaults(func=cmd_start)
    s = actions.add_parser("stop", help="stop the daemon, the webserver, the run containers and PostgreSQL, then "
                                        "check that nothing is left")
    s.set_defaults(func=cmd_stop)
    s = actions.add_parser("status", help="what of the deployment runs (exit status 3 when not all of it)")
    s.set_defaults(func=cmd_status)
