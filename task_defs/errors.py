class TaskFileError(ValueError):
    """A task file is broken; the message names the file and the field."""

    def __init__(self, path, field, problem):
        self.path, self.field, self.problem = str(path), field, problem
        where = f"{self.path}: field '{field}'" if field else self.path
        super().__init__(f"{where}: {problem}")
