"""GPU kernel tasks and their grader (issue 5 builds them). Never imports dagster."""
