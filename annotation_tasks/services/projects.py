"""Projects from the command line: owner, protocol and members, so a project made by an import is one the
dashboard shows (the dashboard lists a researcher's projects through their memberships).

Used by the `project` command and by every import command's `--owner`.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from annotation_tasks.models import Project, ProjectMembership
from annotation_tasks.models.projects import Protocol

ROLES = [r.value for r in ProjectMembership.Role]


class ProjectAdminError(ValueError):
    """A project command that cannot run as asked; the message names the argument and what to pass."""


def user_named(username: str, *, flag: str = "--owner") -> Any:
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise ProjectAdminError(f"{flag}: no active user named {username!r} (create it: manage.py createsuperuser)")
    return user


def researcher_accounts() -> list[Any]:
    """Accounts that may own a project: superusers and researchers of any project."""
    return list(
        get_user_model().objects.filter(is_active=True)
        .filter(Q(is_superuser=True) | Q(factcrowd_memberships__role=ProjectMembership.Role.RESEARCHER))
        .distinct().order_by("username")
    )


def resolve_owner(username: str | None, project_name: str | None = None, *, allow_none: bool = False) -> Any | None:
    """The researcher who will own a project: `username`, else the only researcher account; None when the named
    project already has a researcher (nothing to add), or, with `allow_none`, when there is no researcher account
    at all yet (a fresh install importing before createsuperuser). An error says what to pass when it cannot
    choose between several researchers."""
    if username:
        return user_named(username)
    existing = Project.objects.filter(name=project_name).first() if project_name else None
    if existing is not None and existing.memberships.filter(role=ProjectMembership.Role.RESEARCHER).exists():
        return None
    accounts = researcher_accounts()
    if len(accounts) == 1:
        return accounts[0]
    if not accounts:
        if allow_none:
            return None
        raise ProjectAdminError("--owner: no researcher account yet; create one (manage.py createsuperuser) "
                                "and pass --owner USERNAME")
    names = ", ".join(u.get_username() for u in accounts[:10])
    raise ProjectAdminError(f"--owner: several researchers ({names}); pass --owner USERNAME to say whose project "
                            "it is")


class LastResearcher(ProjectAdminError):
    """A member change that would leave a project without a researcher: every researcher action on it would then be
    a 403 and nobody but a superuser could undo the change. `field` is the request field it is about."""

    field = "role"

    def __init__(self, project: Project, username: str) -> None:
        self.message = (f"project {project.name!r} needs at least one researcher and {username} is its only one: "
                        "make another member a researcher first")
        super().__init__(f"--role: {self.message}")


def add_member(project: Project, user: Any, role: str = ProjectMembership.Role.RESEARCHER) -> ProjectMembership:
    """Make `user` a member with `role` (changing the role of an existing member); LastResearcher when that would
    demote the project's only researcher. The project's row is locked first, so two researchers demoting
    themselves at once cannot both see the other one remain."""
    if role not in ROLES:
        raise ProjectAdminError(f"--role: {role!r} is not one of {', '.join(ROLES)}")
    with transaction.atomic():
        list(Project.objects.select_for_update().filter(pk=project.pk).values_list("pk"))  # one change at a time
        membership, created = ProjectMembership.objects.get_or_create(project=project, user=user,
                                                                      defaults={"role": role})
        if not created and membership.role != role:
            if membership.role == ProjectMembership.Role.RESEARCHER and not _other_researchers(project, user).exists():
                raise LastResearcher(project, user.get_username())
            membership.role = role
            membership.save(update_fields=["role"])
    return membership


def _other_researchers(project: Project, user: Any) -> Any:
    return project.memberships.filter(role=ProjectMembership.Role.RESEARCHER).exclude(user=user)


def has_researcher(project_name: str) -> bool:
    return ProjectMembership.objects.filter(project__name=project_name, role=ProjectMembership.Role.RESEARCHER).exists()


def own(project_name: str, owner: Any | None) -> None:
    """After an import: the owner (if any) becomes a researcher of the project, unless already a member."""
    if owner is None:
        return
    project = Project.objects.filter(name=project_name).first()
    if project is not None:
        ProjectMembership.objects.get_or_create(
            project=project, user=owner, defaults={"role": ProjectMembership.Role.RESEARCHER}
        )


def parse_protocol(text: str | Sequence[str]) -> list[str]:
    """"span_coverage,qa_support" → the ordered steps; unknown or repeated steps name themselves."""
    steps = [s.strip() for s in (text.split(",") if isinstance(text, str) else text) if s.strip()]
    known = [p.value for p in Protocol]
    unknown = [s for s in steps if s not in known]
    if unknown:
        raise ProjectAdminError(f"--protocol: unknown step {unknown[0]!r} (steps: {', '.join(known)})")
    if len(set(steps)) != len(steps):
        raise ProjectAdminError("--protocol: a step appears twice")
    if not steps:
        raise ProjectAdminError(f"--protocol: give at least one step ({', '.join(known)})")
    return steps


def project_named(name: str) -> Project:
    project = Project.objects.filter(name=name).first()
    if project is None:
        raise ProjectAdminError(f"no project named {name!r} (manage.py project create {name} --owner USERNAME)")
    return project


def create_project(name: str, owner_name: str | None, protocol: str | None = None, *, description: str = "",
                   annotations_per_item: int | None = None) -> Project:
    """A new project with its owner as researcher (the owner is resolved as for the imports)."""
    if not name.strip():
        raise ProjectAdminError("NAME: must not be empty")
    if Project.objects.filter(name=name).exists():
        raise ProjectAdminError(f"NAME: a project named {name!r} exists (see: manage.py project show {name})")
    steps = parse_protocol(protocol) if protocol else None
    if annotations_per_item is not None and not 1 <= annotations_per_item <= 50:
        raise ProjectAdminError("--annotations-per-item: between 1 and 50")
    owner = resolve_owner(owner_name)
    with transaction.atomic():
        fields: dict[str, Any] = {"name": name, "description": description}
        if steps:
            fields["protocol"] = steps
        if annotations_per_item is not None:
            fields["annotations_per_item"] = annotations_per_item
        project = Project.objects.create(**fields)
        add_member(project, owner, ProjectMembership.Role.RESEARCHER)
    return project


def set_protocol(project: Project, protocol: str) -> Project:
    project.protocol = parse_protocol(protocol)
    project.save(update_fields=["protocol"])
    return project


def describe(project: Project) -> dict[str, Any]:
    """What `project show` prints: settings, members, and how much content and work it has."""
    members = project.memberships.select_related("user").order_by("role", "user__username")
    return {
        "id": project.pk,
        "name": project.name,
        "description": project.description,
        "protocol": list(project.protocol or []),
        "annotations_per_item": project.annotations_per_item,
        "members": [{"username": m.user.get_username(), "role": m.role} for m in members],
        "counts": {
            "sources": project.sources.count(),
            "responses": project.responses.count(),
            "units": project.units.count(),
            "batches": project.batches.count(),
        },
    }


__all__ = [
    "LastResearcher", "ProjectAdminError", "add_member", "create_project", "describe", "has_researcher", "own", "parse_protocol", "project_named",
    "resolve_owner", "set_protocol", "user_named",
]
