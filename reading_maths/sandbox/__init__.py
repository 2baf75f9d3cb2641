"""The trust boundary: the sandboxed child process (``child``, ``wire``, ``portable``, ``patching``) and the trusted
side that starts it and talks to it (``process``, ``cgroups``, ``channel``, ``session``, ``proxy``,
``trials``, ``errors``, ``doctor``).

Only ``child.py``, ``wire.py``, ``portable.py`` and ``patching.py`` are visible inside the sandbox; nothing else is.
"""
