"""The Celery app. Tasks run eagerly in-process when no broker is configured."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gec_arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Task modules in sub-packages (analysis runs, qualification grading).
app.autodiscover_tasks(["ranking.analysis", "annotate.rewrites", "annotate.jobs"])
