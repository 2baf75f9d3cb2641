"""JupyterHub's configuration for the course's hub (``make hub`` and tests/test_hub.py).

It reads the site's ``site.json`` (written by :func:`hub.site.make_site`; the folder is given by
``$READING_MATHS_HUB_SITE``): the ports, the accounts allowed in, the shared Python env and the proxy.
Real Unix accounts log in with their passwords (PAM); each person's JupyterLab runs as that person.
"""

import json
import os
from pathlib import Path

c = get_config()  # noqa: F821 - provided by JupyterHub

site = json.loads((Path(os.environ["READING_MATHS_HUB_SITE"]) / "site.json").read_text())
state, env = Path(site["state"]), Path(site["env"])

# Everything on 127.0.0.1: the public proxy, the hub, the proxy's API (a real server puts TLS in front).
c.JupyterHub.bind_url = f"http://127.0.0.1:{site['port']}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{site['hub_port']}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{site['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [site["proxy"]]
c.ConfigurableHTTPProxy.pid_file = str(state / "jupyterhub-proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")

# Real Unix accounts, their own passwords; only the class's accounts may log in.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set(site["people"])

# Each person's JupyterLab, as that person, from the shared env, in their home folder.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(env / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    "PATH": f"{env / 'bin'}:/usr/local/bin:/usr/bin:/bin",  # nbgrader calls alembic by name
    "JUPYTER_CONFIG_PATH": site["jupyter_config"],  # the site's nbgrader_config.py and switches
}
if site["exchange"]:  # the course's nbgrader_config.py uses the shared exchange folder
    c.Spawner.environment["READING_MATHS_EXCHANGE"] = site["exchange"]
c.Spawner.start_timeout = 180  # JupyterLab starts slowly on a busy two-core machine
c.Spawner.http_timeout = 180
services, reachable = [], []  # the hub's services, and those every user and each server's token may reach

# The checks service (hub/checks.py; site.json has "checks" when the site was made with it): the hidden tests'
# verdict on demand, run as the instructor, who alone can read the course's graders. Every user may reach it,
# and each server's $JUPYTERHUB_API_TOKEN may too, so that the notebook's kernel can send it the saved notebook.
if "checks" in site:
    checks = site["checks"]
    services.append({
        "name": "checks", "url": f"http://127.0.0.1:{checks['port']}", "cwd": checks["course"],
        "command": [str(env / "bin" / "python"), checks["program"]], "oauth_no_confirm": True, "display": True,
        "environment": {"READING_MATHS_COURSE": checks["course"], "PATH": f"{env / 'bin'}:/usr/bin:/bin",
                        "READING_MATHS_CHECKS_INSTRUCTORS": checks["instructor"], "LANG": "C.UTF-8"}
                       | ({"READING_MATHS_CHECKS_DB": checks["store"]} if checks.get("store") else {}),
    } | ({"user": checks["account"]} if checks["account"] else {}))
    reachable.append("checks")
    c.Spawner.environment |= {"READING_MATHS_CHECKS_URL": f"http://127.0.0.1:{checks['port']}/services/checks/",
                              "JUPYTER_PATH": checks["jupyter_path"]}  # the Check button's lab extension

# The exchange service (hub/exchange.py; site.json has "exchange_service" when the course's nbgrader_config.py
# says c.CourseExchange.kind = "service"): nbgrader's exchange over HTTP, run as the instructor, who reads the
# class list in the gradebook. Each server's nbgrader calls it with the server's $JUPYTERHUB_API_TOKEN.
if "exchange_service" in site:
    exchange = site["exchange_service"]
    services.append({
        "name": "exchange", "url": f"http://127.0.0.1:{exchange['port']}", "cwd": exchange["courses"][0],
        "command": [str(env / "bin" / "python"), exchange["program"]], "user": exchange["account"],
        "display": False,  # an API for nbgrader, no page
        "environment": {"READING_MATHS_COURSE": os.pathsep.join(exchange["courses"]), "LANG": "C.UTF-8",
                        "PATH": f"{env / 'bin'}:/usr/bin:/bin",
                        "READING_MATHS_EXCHANGE_INSTRUCTORS": exchange["instructors"]}
        | ({"READING_MATHS_EXCHANGE_DB": exchange["store"]} if exchange["store"] else {}),
    })
    reachable.append("exchange")
    c.Spawner.environment["READING_MATHS_EXCHANGE_URL"] = f"http://127.0.0.1:{exchange['port']}/services/exchange/"

if services:
    c.JupyterHub.services = services
    access = [f"access:services!service={name}" for name in reachable]
    c.JupyterHub.load_roles = [{"name": "user", "scopes": ["self", *access]}]
    c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", *access]
