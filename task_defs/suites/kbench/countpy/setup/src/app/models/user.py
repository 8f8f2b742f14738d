# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from dataclasses import dataclass, field


@dataclass
class User:
    name: str
    email: str
    roles: list = field(default_factory=list)

    def is_admin(self):
        return "admin" in self.roles

    def display(self):
        return f"{self.name} <{self.email}>"
