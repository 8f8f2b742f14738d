"""Task execution outside any agent: laying a task's folder, grading it with its hidden test, validating
and auditing the suite."""
