"""How services hand work to Celery: by task name, after the transaction commits.

Services never import a ``tasks.py`` (tasks import services, so the other direction would be a
cycle): they name the task, ``"<app>.tasks.<function>"``, and send it with Celery's ``send_task``
once the surrounding transaction has committed, so a worker always reads committed rows. Without a
broker (``task_always_eager``: the embedded default and the tests) ``send_task`` would still try to
publish, so the task registered under that name runs in-process instead, as ``.delay()`` would.
Each app imports its task modules in ``AppConfig.ready()``, so the name is registered in every process.
"""

from __future__ import annotations

import logging
from functools import partial

from celery import current_app
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnreachable

logger = logging.getLogger(__name__)


def task_send(name: str, **kwargs: object) -> bool:
    """Send (or, eagerly, run) the task ``name`` now; False when the broker could not be reached."""
    app = current_app
    if app.conf.task_always_eager:
        app.tasks[name].apply_async(kwargs=kwargs)  # in-process: a failure here is the task's own
        return True
    try:
        app.send_task(name, kwargs=kwargs)
    except BrokerUnreachable:
        logger.warning("broker unreachable: %s%s not sent; the periodic repair will redo it", name, kwargs)
        return False
    return True


def task_send_on_commit(name: str, **kwargs: object) -> None:
    """Send the task once the current transaction commits (at once outside a transaction).

    A broker outage never undoes the caller's write: ``task_send`` logs it and beat's repair tasks
    catch up (``robust`` also keeps an eager task's failure from failing the committed request).
    """
    transaction.on_commit(partial(task_send, name, **kwargs), robust=True)
