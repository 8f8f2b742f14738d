# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
import pytest

from app.models.user import User


@pytest.fixture
def admin():
    return User(name="Admin", email="admin@example.com", roles=["admin"])
