"""URLs of the domain app: the REST API under /api/ and the pages (unit page, dashboard)."""
from django.urls import include, path

urlpatterns: list = [
    path("api/", include("annotation_tasks.api.urls")),
]
