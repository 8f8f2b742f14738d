"""Task formats, their pydantic models, and the suites as data. Never imports dagster."""

from task_defs.errors import TaskFileError
from task_defs.loader import load_suite, load_task, suite_root
from task_defs.models import Suite, Task

__all__ = ["Suite", "Task", "TaskFileError", "load_suite", "load_task", "suite_root"]
