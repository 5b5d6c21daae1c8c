"""The OpenAPI schema builds without warnings or errors, and its docs page renders."""
import pytest
from django.core.management import call_command


def test_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for path in ("/api/projects/", "/api/qas/bulk-validity/", "/api/batches/{id}/publish/", "/api/workers/{id}/block/"):
        assert path in text


@pytest.mark.django_db
def test_docs_page_is_served_behind_login(client, django_user_model):
    docs = client.get("/api/docs/")
    assert docs.status_code == 302 and docs["Location"].startswith("/accounts/login/")
    assert client.get("/api/schema/").status_code in (401, 403)
    client.force_login(django_user_model.objects.create_user("reader", password="pw"))
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/schema/").status_code == 200
