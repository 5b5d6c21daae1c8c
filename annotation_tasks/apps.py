from django.apps import AppConfig


class AnnotationTasksConfig(AppConfig):
    name = "annotation_tasks"
    verbose_name = "FactCrowd annotation tasks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from annotation_tasks.analysis.vocabularies import provide_label_orders
        from annotation_tasks.api.authentication import end_tokens_on_password_change
        from annotation_tasks.protocols.registry import label_order

        # API tokens end when their user's password changes (set_password, changepassword, the admin, a reset)
        pre_save.connect(end_tokens_on_password_change, sender=get_user_model(), dispatch_uid="end-tokens-on-password")
        # the analysis's label vocabularies and tie order are the protocols' declarations (read on first use)
        provide_label_orders(label_order)
