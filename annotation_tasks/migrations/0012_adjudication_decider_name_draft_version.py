from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation_tasks', '0011_assignment_verification_admitted'),
    ]

    operations = [
        migrations.AddField(
            model_name='adjudicatedlabel',
            name='decided_by_name',
            field=models.CharField(blank=True, help_text='Who decided, as an imported file names them (no account here): exports write it back as decided_by.', max_length=150),
        ),
        migrations.AddField(
            model_name='assignment',
            name='draft_version',
            field=models.PositiveIntegerField(default=0, help_text='Bumped by every saved draft: a save naming an older version is a stale tab (409).'),
        ),
    ]
