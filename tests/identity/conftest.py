"""The API tests' two-project world, reused."""
from tests.api.conftest import as_user, users, world  # noqa: F401  (fixtures)
