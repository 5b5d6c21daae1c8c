"""API routes. Each concern registers its views here."""
from django.urls import path  # noqa: F401

urlpatterns: list = []
