from django.apps import AppConfig


class RankingConfig(AppConfig):
    name = "ranking"
    verbose_name = "Judgment campaigns and analysis"

    def ready(self) -> None:
        # Registers the tasks under their names in every process: services send them by name
        # (annotate.tasking). Imported here because task modules import models, ready only now.
        from ranking import tasks  # noqa: F401
        from ranking.analysis import tasks as analysis_tasks  # noqa: F401
        from ranking.study.gold import gold_section
        from ranking.study.sections import section_register

        section_register(gold_section())  # the study file's gold answers (issue 39)
