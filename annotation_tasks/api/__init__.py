"""REST API: thin DRF views that translate between HTTP and annotation_tasks.services."""
