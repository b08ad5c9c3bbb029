"""Production settings for the fault tests' gunicorn: static files by plain storage (no collectstatic)."""

from config.settings import *  # noqa: F403
from config.settings import STORAGES

STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
