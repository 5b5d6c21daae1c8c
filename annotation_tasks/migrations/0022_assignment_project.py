"""Assignment.project (the unit's project, kept on the assignment) and its list indexes (issue 25): a project's
assignment ids, by id or by status then id, are index scans, so the assignment list's count and any page of it, its
?status= filter and the monitor's counts by status no longer join every assignment to its unit; the few assignments
with feedback have their own (partial) index for ?search=. Predicates by kind: the QA list's ?kind= asks which
kinds a project has."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Q, Subquery


def fill_project(apps, schema_editor):
    Assignment = apps.get_model("annotation_tasks", "Assignment")
    Unit = apps.get_model("annotation_tasks", "Unit")
    owner = Unit.objects.filter(pk=OuterRef("unit_id")).values("project_id")[:1]
    Assignment.objects.filter(project__isnull=True).update(project_id=Subquery(owner))


class Migration(migrations.Migration):

    dependencies = [
        ('annotation_tasks', '0021_qa_project'),
    ]

    operations = [
        migrations.AddField(
            model_name='assignment',
            name='project',
            field=models.ForeignKey(db_index=False, editable=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation_tasks.project'),
        ),
        migrations.RunPython(fill_project, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='assignment',
            name='project',
            field=models.ForeignKey(db_index=False, editable=False, help_text="The unit's project, kept on the assignment (filled on save and bulk_create) so a project's assignment lists, counts by status and the monitor read one index, not a join per assignment (issue 25).", on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation_tasks.project'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(fields=['project', 'id'], name='assignment_project_id'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(fields=['project', 'status', 'id'], include=['verification', 'time_on_task_ms'], name='assignment_project_status_id'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=Q(('feedback', ''), _negated=True), fields=['project', 'id'], name='assignment_project_feedback'),
        ),
        migrations.AddIndex(
            model_name='predicate',
            index=models.Index(fields=['kind'], name='predicate_kind'),
        ),
    ]
