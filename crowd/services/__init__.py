"""Writes of the crowd layer: identities and sessions, MTurk and Prolific requester operations.

One module per concern; import from the submodules (``crowd.services.workers``,
``crowd.services.sessions``, ``crowd.services.mturk``, ``crowd.services.prolific``).
"""
