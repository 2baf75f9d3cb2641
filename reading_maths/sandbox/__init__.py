"""The trust boundary: the sandboxed side (``child``, ``wire``, ``portable``, ``patching``, and the fork server
``zygote``) and the trusted side that starts it and talks to it (``process``, ``nursery``, ``ahead``,
``cgroups``, ``channel``, ``session``, ``proxy``, ``trials``, ``errors``, ``doctor``).

Only the files of :data:`reading_maths.sandbox.process.CHILD_FILES` are visible inside the sandbox; nothing else is.
"""
