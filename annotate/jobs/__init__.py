"""Imports that run in the background (issue 18): an upload over ``IMPORT_INLINE_MAX_BYTES`` is kept in
file storage and imported by a Celery task, with its progress on a page the researcher can leave and
come back to. All-or-nothing as an inline import: the runner calls the same service, in one
transaction."""
