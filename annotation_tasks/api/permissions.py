"""Who may see what through the researcher API.

Roles are per project (ProjectMembership): a researcher reads and changes everything of the project; an annotator
sees only the project's name, protocol and instructions and their own assignments. Gold labels, other projects and
other people's assignments are never reachable for an annotator. An anonymous crowd worker holds only a signed
per-assignment token, which is no API credential here at all: it opens /api/work/<token>/... and nothing else.
Objects outside the caller's projects answer 404 (not 403) so that ids of other projects leak nothing.
"""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from rest_framework.permissions import SAFE_METHODS, BasePermission

from annotation_tasks.models import Project, ProjectMembership

RESEARCHER = ProjectMembership.Role.RESEARCHER


def visible_projects(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Project]:
    """Projects the user belongs to in any role (all for a superuser)."""
    if not user.is_authenticated:
        return Project.objects.none()
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user).distinct()


def researcher_projects(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Project]:
    """Projects whose data (content, gold, work, reports) the user may read and change."""
    if not user.is_authenticated:
        return Project.objects.none()
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user, memberships__role=RESEARCHER).distinct()


def is_researcher(user: AbstractBaseUser | AnonymousUser, project: Project) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return ProjectMembership.objects.filter(project=project, user=user, role=RESEARCHER).exists()


def can_create_projects(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Creating a study is for researchers: a model permission, or being a researcher somewhere already."""
    if not user.is_authenticated:
        return False
    return user.has_perm("annotation_tasks.add_project") or ProjectMembership.objects.filter(
        user=user, role=RESEARCHER
    ).exists()


class ProjectAccess(BasePermission):
    """Projects: members read; researchers of the project change it and run its operations."""

    message = "Only the project's researchers may do this."

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if getattr(view, "action", None) == "create":
            return can_create_projects(request.user)
        return True

    def has_object_permission(self, request, view, obj: Project) -> bool:
        if request.method in SAFE_METHODS and getattr(view, "action", None) in ("retrieve", None):
            return True  # the queryset already limits to the user's projects
        return is_researcher(request.user, obj)


class IsResearcherSomewhere(BasePermission):
    """Researcher-only resources: querysets are limited per project, this only turns annotators away early."""

    message = "Only researchers may use this endpoint."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        return researcher_projects(user).exists()
