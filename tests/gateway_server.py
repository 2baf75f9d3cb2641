"""A Dask Gateway on 127.0.0.1 for tests: ``dask-gateway-server`` with its ``UnsafeLocalBackend``.

The backend starts each cluster's scheduler and workers as local processes of the gateway's own user: as root in
CI, as an ordinary user on a teacher's machine, so each worker's sandbox is the one local grading gets here.
(``LocalBackend`` would start them as the account each gateway user names, which needs root and those accounts,
and tests the gateway's user switch, not grading.)  Its users log in with dask-gateway's basic authentication and
:data:`PASSWORD`: :data:`CLIENT_CONFIG` (``dask.config.set``) or :data:`CLIENT_ENV` (a program's environment).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from hub.site import free_port, stop, wait_until_serving

PASSWORD = "gateway-test-password"
CLIENT_CONFIG = {"gateway.auth.type": "basic", "gateway.auth.kwargs": {"password": PASSWORD}}
CLIENT_ENV = {"DASK_GATEWAY__AUTH__TYPE": "basic", "DASK_GATEWAY__AUTH__KWARGS__PASSWORD": PASSWORD}
START_WAIT = 120.0
"""Seconds the gateway may take to answer (it starts its proxy first)."""

CONFIG = """\
c.DaskGateway.address = "127.0.0.1:{api}"
c.Proxy.address = "127.0.0.1:{port}"
c.DaskGateway.backend_class = "dask_gateway_server.backends.local.UnsafeLocalBackend"
c.DaskGateway.authenticator_class = "dask_gateway_server.auth.SimpleAuthenticator"
c.SimpleAuthenticator.password = {password!r}
c.LocalBackend.clusters_directory = {clusters!r}
c.ClusterConfig.scheduler_cmd = [{python!r}, "-m", "distributed.cli.dask_scheduler"]
c.ClusterConfig.worker_cmd = [{python!r}, "-m", "distributed.cli.dask_worker"]
c.ClusterConfig.worker_cores = 1
c.ClusterConfig.worker_threads = 1
"""


def start_gateway(folder: Path) -> tuple[str, Callable[[], None]]:
    """Start a gateway whose files (configuration, log, clusters' folders) are in ``folder``; return its address
    (``http://127.0.0.1:PORT``) and the function that stops it, and with it every cluster it started."""
    port = free_port()
    config = folder / "dask_gateway_config.py"
    config.write_text(CONFIG.format(api=free_port(), port=port, password=PASSWORD, python=sys.executable,
                                    clusters=str(folder / "clusters")))
    log = folder / "gateway.log"
    with log.open("wb") as out:
        gateway = subprocess.Popen([sys.executable, "-m", "dask_gateway_server", "-f", str(config)], cwd=folder,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    address = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(gateway, f"{address}/api/health", log, "dask-gateway-server", START_WAIT)
    except BaseException:
        stop(gateway)
        raise
    return address, lambda: stop(gateway, grace=60)
