"""The trust boundary: the sandboxed child process (``child``, ``wire``) and the trusted side that
starts it and talks to it (``process``, ``session``, ``errors``).

Only ``child.py`` and ``wire.py`` are visible inside the sandbox; nothing else of this package is.
"""
