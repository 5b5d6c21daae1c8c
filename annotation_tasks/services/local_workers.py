"""Local annotators (the default platform): Django users with a Worker row, invited per project.

An invite link (services.tokens.invite_token) creates an account on first use and makes it a project
annotator; researchers can also add existing accounts as members.
"""
from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model

from annotation_tasks.crowd.local import LocalProvider
from annotation_tasks.models import Project, ProjectMembership, Worker
from annotation_tasks.services.identity import set_display_name

LOCAL_PROVIDER = LocalProvider.name


def local_worker(user) -> Worker:
    """The user's local Worker (created on first use)."""
    worker = Worker.objects.filter(user=user).first()
    if worker is None:
        worker, _ = Worker.objects.get_or_create(
            provider=LOCAL_PROVIDER, external_id=f"user-{user.pk}", defaults={"user": user}
        )
    return worker


def local_worker_for(user, project: Project) -> Worker | None:
    """The Worker of a logged-in user allowed to annotate `project` (members of any role), else None."""
    if not user.is_authenticated:
        return None
    if not (user.is_superuser or ProjectMembership.objects.filter(project=project, user=user).exists()):
        return None
    return local_worker(user)


def accept_invite(project: Project, user=None, *, name: str = ""):
    """Make `user` (or a new account named `name`) an annotator of `project`; returns the user to log in."""
    if user is None or not user.is_authenticated:
        user = get_user_model().objects.create_user(username=f"annotator-{secrets.token_hex(4)}", password=None)
    ProjectMembership.objects.get_or_create(
        project=project, user=user, defaults={"role": ProjectMembership.Role.ANNOTATOR}
    )
    worker = local_worker(user)
    if name and not worker.display_name:
        set_display_name(worker, name)
    return user


__all__ = ["LOCAL_PROVIDER", "accept_invite", "local_worker", "local_worker_for"]
