from django.apps import AppConfig


class AnnotationTasksConfig(AppConfig):
    name = "annotation_tasks"
    verbose_name = "FactCrowd annotation tasks"
    default_auto_field = "django.db.models.BigAutoField"
