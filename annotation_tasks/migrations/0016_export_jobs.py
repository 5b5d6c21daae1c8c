# Job.Kind export (services/export_jobs.py: CSV and dataset exports as background jobs with a download link).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation_tasks', '0015_adjudications_by_item_type'),
    ]

    operations = [
        migrations.AlterField(
            model_name='job',
            name='kind',
            field=models.CharField(choices=[('import', 'Import'), ('parse', 'Parse'), ('sync', 'Sync'), ('publish', 'Publish'), ('score', 'Score'), ('export', 'Export')], max_length=20),
        ),
    ]
