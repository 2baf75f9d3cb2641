"""The trust boundary.

``inside/`` is the sandboxed side, the one folder the child sees (``child``, ``wire``,
``functions_as_data``, ``notebook_shell`` and the ``fork_server``); the rest is the trusted side that starts
children and talks to them (``process``, ``fork_server_client``, ``child_starter``, ``stopping``, ``cgroups``,
``channel``, ``notebook_run``, ``session``, ``proxy``, ``mutant_calls``, ``rerun``, ``errors``, ``doctor``)
and the limited formula evaluator (``limited_eval``).
"""
