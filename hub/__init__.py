"""The course on a JupyterHub: a shared Python for everyone, real Unix accounts, nbgrader's exchange.

``python -m hub`` (``make hub``) starts it on this machine for a teacher to try; ``tests/test_hub.py``
drives the same hub in a browser. The pieces, each in its own module:

- :mod:`hub.env` — the Python every single-user server runs (a venv made from Debian's python3, in a
  folder every user can read, with this project and JupyterHub installed);
- :mod:`hub.site` — the hub's folder: the shared exchange, the system-wide Jupyter settings, the
  hub's own state; starting and stopping JupyterHub on it (configured by ``jupyterhub_config.py``);
- :mod:`hub.accounts` — the Unix accounts of an instructor and students, and the instructor's course.
"""
