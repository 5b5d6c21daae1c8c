"""project create NAME --owner U [--protocol a,b] | show NAME [--json] | set-protocol NAME a,b |
add-member NAME USER [--role annotator|researcher]

A project made here (or by an import) has a researcher, so it shows in that researcher's dashboard.
"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models.projects import Protocol
from annotation_tasks.services import projects

STEPS = ", ".join(p.value for p in Protocol)


class Command(BaseCommand):
    help = "Create a project, show it, set its protocol, add members (researchers see it in the dashboard)."

    def add_arguments(self, parser) -> None:
        sub = parser.add_subparsers(dest="action", required=True, metavar="create|show|set-protocol|add-member")
        create = sub.add_parser("create", help="a new project owned by a researcher")
        create.add_argument("name")
        create.add_argument("--owner", default=None, help="researcher username (default: the only researcher)")
        create.add_argument("--protocol", default=None, help=f"comma-separated steps in order ({STEPS})")
        create.add_argument("--description", default="")
        create.add_argument("--annotations-per-item", type=int, default=None)
        show = sub.add_parser("show", help="settings, members and counts")
        show.add_argument("name")
        show.add_argument("--json", action="store_true")
        setp = sub.add_parser("set-protocol", help="replace the ordered steps")
        setp.add_argument("name")
        setp.add_argument("protocol", help=f"comma-separated steps ({STEPS})")
        member = sub.add_parser("add-member", help="add a user (or change their role)")
        member.add_argument("name")
        member.add_argument("user")
        member.add_argument("--role", default="annotator", choices=projects.ROLES)

    def handle(self, *args, action: str, **opts) -> None:
        try:
            if action == "create":
                project = projects.create_project(opts["name"], opts["owner"], opts["protocol"],
                                                  description=opts["description"],
                                                  annotations_per_item=opts["annotations_per_item"])
                self._show(project, False)
            elif action == "show":
                self._show(projects.project_named(opts["name"]), opts["json"])
            elif action == "set-protocol":
                project = projects.set_protocol(projects.project_named(opts["name"]), opts["protocol"])
                self.stdout.write(f"{project.name}: protocol {', '.join(project.protocol)}")
            else:
                project = projects.project_named(opts["name"])
                m = projects.add_member(project, projects.user_named(opts["user"], flag="USER"), opts["role"])
                self.stdout.write(f"{project.name}: {m.user.get_username()} is {m.role}")
        except projects.ProjectAdminError as exc:
            raise CommandError(str(exc)) from exc

    def _show(self, project, as_json: bool) -> None:
        info = projects.describe(project)
        if as_json:
            self.stdout.write(json.dumps(info, ensure_ascii=False))
            return
        c = info["counts"]
        members = ", ".join(f"{m['username']} ({m['role']})" for m in info["members"]) or "none"
        self.stdout.write(
            f"project {info['name']} (id {info['id']})\n"
            f"  protocol: {', '.join(info['protocol']) or '-'}\n"
            f"  annotations per item: {info['annotations_per_item']}\n"
            f"  members: {members}\n"
            f"  {c['sources']} sources, {c['responses']} responses, {c['units']} units, {c['batches']} batches"
        )
