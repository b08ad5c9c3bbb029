"""The edit-level protocol (issue 24): ``protocol.EDIT_LEVEL``. Its tables (``models``) belong to the
``ranking`` app (``ranking.models`` imports them; migration ``ranking/0021_edit_protocol``): an app of its
own under ``ranking.protocols`` would import the registry, hence ``ranking.models``, before Django's
models are ready."""
