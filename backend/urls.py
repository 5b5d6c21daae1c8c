"""Top-level URLs: admin, the REST API and its schema, the annotator's unit page."""
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from annotation_tasks.pages import favicon

urlpatterns = [
    path("admin/", admin.site.urls),
    path("favicon.ico", favicon, name="favicon"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Behind login (SPECTACULAR_SETTINGS' SERVE_PERMISSIONS for the schema; the docs page sends to the login page).
    path("api/docs/", login_required(SpectacularSwaggerView.as_view(url_name="schema")), name="api-docs"),
    path("", include("annotation_tasks.urls")),
]

# JSON error answers under /api/ (annotation_tasks.api.errors); HTML pages elsewhere.
handler400 = "annotation_tasks.api.errors.bad_request"
handler403 = "annotation_tasks.api.errors.permission_denied"
handler404 = "annotation_tasks.api.errors.not_found"
handler500 = "annotation_tasks.api.errors.server_error"
