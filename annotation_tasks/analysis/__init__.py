"""Analysis: pure functions over pandas frames (no ORM). Frames come from annotation_tasks.services.frames."""
