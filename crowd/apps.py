from django.apps import AppConfig


class CrowdConfig(AppConfig):
    name = "crowd"
    verbose_name = "Crowd platforms"

    def ready(self) -> None:
        # Imported here, not at the top: these modules import models, which only exist once the app
        # registry is ready. Lower layers call crowd through these registrations, never by import.
        from annotate.privacy import personal_data_eraser_register
        from crowd import tasks  # noqa: F401  (registers the tasks by name in every process)
        from crowd.importing import judgments_import
        from crowd.importing.background import register_runner
        from crowd.services.confirmation import platform_hold_needed
        from crowd.services.privacy import crowd_identities_forget
        from crowd.study import crowd_section
        from ranking.judgment_import import judgments_importer_register
        from ranking.quality.holds import platform_hold_register
        from ranking.study.sections import section_register

        personal_data_eraser_register("crowd identities", crowd_identities_forget)
        judgments_importer_register(judgments_import)
        register_runner()
        platform_hold_register(platform_hold_needed)
        section_register(crowd_section())
