import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# What is alive now (modules, URL patterns, settings) lives as long as the process: out of the
# cyclic collector's way, so its full collections traverse only what requests leave behind.
gc.freeze()
