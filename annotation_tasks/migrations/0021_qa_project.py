"""QA.project (the response's project, kept on the QA) and its list indexes (issue 25): a project's QA ids, by id
or by validity then id, are index-only scans, so the QA list's count and any page of it no longer join every QA to
its response."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_project(apps, schema_editor):
    QA = apps.get_model("annotation_tasks", "QA")
    Response = apps.get_model("annotation_tasks", "Response")
    owner = Response.objects.filter(pk=OuterRef("response_id")).values("project_id")[:1]
    QA.objects.filter(project__isnull=True).update(project_id=Subquery(owner))


class Migration(migrations.Migration):

    dependencies = [
        ('annotation_tasks', '0020_scale'),
    ]

    operations = [
        migrations.AddField(
            model_name='qa',
            name='project',
            field=models.ForeignKey(db_index=False, editable=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation_tasks.project'),
        ),
        migrations.RunPython(fill_project, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='qa',
            name='project',
            field=models.ForeignKey(db_index=False, editable=False, help_text="The response's project, kept on the QA (filled on save and bulk_create) so a project's QA lists and counts read one index, not a join per QA (issue 25).", on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation_tasks.project'),
        ),
        migrations.AddIndex(
            model_name='qa',
            index=models.Index(fields=['project', 'id'], name='qa_project_id'),
        ),
        migrations.AddIndex(
            model_name='qa',
            index=models.Index(fields=['project', 'validity', 'id'], name='qa_project_validity_id'),
        ),
    ]
