"""Why a run stops starting attempts. Nothing is scored after such a stop: the attempts not started (or not
trusted) keep no result, and the same command later continues where the run stopped."""


class RunStopped(RuntimeError):
    """No further attempt may start."""


class DiskFull(RunStopped):
    """Too little free space to start, or to trust, an attempt."""


class ServerDown(RunStopped):
    """The model server has not answered for a long while."""
