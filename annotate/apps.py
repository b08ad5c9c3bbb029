from django.apps import AppConfig

from geceval import cache


class AnnotateConfig(AppConfig):
    name = "annotate"
    verbose_name = "Corpora and rewrites"

    def ready(self) -> None:
        from django.conf import settings

        # one cache per deployment (issue 43), kept under its cap
        cache.configure(settings.GECEVAL_CACHE, max_mb=settings.GECEVAL_CACHE_MAX_MB)
        # Registers the tasks under their names in every process (web, worker, commands): services send
        # them by name (annotate.tasking), and eager mode looks the name up. Imported here because task
        # modules import models, which exist only once the app registry is ready.
        from annotate.jobs import tasks as job_tasks  # noqa: F401
        from annotate.jobs.runners import register_runners
        from annotate.rewrites import tasks  # noqa: F401

        register_runners()
