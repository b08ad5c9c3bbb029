"""A study is a file (issue 39): one YAML or JSON document holds a campaign's corpus, systems and every
setting of the one list (``ranking.campaign_settings``); ``python manage.py study apply|export|validate``.

The crowd app adds its section (entry, consent, welcome) through ``ranking.study.sections``."""
