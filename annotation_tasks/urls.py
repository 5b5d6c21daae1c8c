"""URLs of the domain app: the REST API under /api/ and the pages (unit page, dashboard)."""
from django.contrib.auth import views as auth_views
from django.urls import include, path

from annotation_tasks import dashboard_views, pages, study_pages
from annotation_tasks.api import webhooks
from annotation_tasks.api.auth import ThrottledLoginView

urlpatterns: list = [
    # Crowd platforms' signed webhook deliveries (services.webhooks).
    path("api/crowd/prolific/hooks/", webhooks.prolific_hooks, name="prolific-hooks"),
    path("api/", include("annotation_tasks.api.urls")),
    # Annotator pages (annotation_tasks.pages): unit page, platform entry, invites, next-unit queue.
    path("work/unit/<str:ref>/", pages.unit_entry, name="unit-entry"),
    # A batch study's one entry link (annotation_tasks.study_pages): each place gets units from our queue.
    path("work/study/<str:ref>/", study_pages.study_entry, name="study-entry"),
    path("work/<str:token>/", pages.work_page, name="work-page"),
    path("invite/<str:token>/", pages.invite, name="invite"),
    path("annotate/<int:project_id>/", pages.annotate, name="annotate"),
    path(
        "accounts/login/",
        ThrottledLoginView.as_view(template_name="annotation_tasks/login.html", next_page="/"),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="/accounts/login/"), name="logout"),
    # The researcher dashboard (Vue app over the REST API); login required.
    path("", dashboard_views.dashboard, name="dashboard"),
    path("preview/unit/<int:unit_id>/", dashboard_views.unit_preview, name="unit-preview"),
]
