"""GPU kernel tasks (gpu/tasks/) and their grader, which also runs on a CPU. Never imports dagster."""
