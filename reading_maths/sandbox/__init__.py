"""The trust boundary.

``inside/`` is the sandboxed side, the one folder the child sees (``child``, ``wire``,
``functions_as_data``, ``notebook_shell`` and the ``fork_server``); the rest is the trusted side that starts
children and talks to them (``process``, ``fork_server_client``, ``child_starter``, ``stopping``, ``cgroups``,
``channel``, ``session``, ``proxy``, ``mutant_calls``, ``errors``, ``doctor``) and the limited formula
evaluator (``limited_eval``).
"""
