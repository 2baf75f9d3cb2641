"""``make hub``: the course's JupyterHub on this machine, with demo accounts, until Ctrl-C.

    sudo .venv/bin/python -m hub [--port 8000] [--site /srv/reading-maths-hub] [--remove]

Creates (once) the Unix accounts of an instructor and three students, resets their passwords, and
prints the URL and the logins. The accounts, their work and the exchange stay between runs;
``--remove`` deletes the demo accounts, the site and this checkout's shared Python under /opt/reading-maths-hub.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from hub import accounts
from hub.env import ensure_env, env_path
from hub.site import make_site, running

REPO = Path(__file__).resolve().parents[1]
COMMENT = "reading-maths demo hub"
INSTRUCTOR = "rm-teacher"
STUDENTS = {"rm-ada": ("Ada", "Lovelace"), "rm-grace": ("Grace", "Hopper"), "rm-alan": ("Alan", "Turing")}


def _ours(name: str) -> bool:
    import pwd

    return pwd.getpwnam(name).pw_gecos.split(",")[0] == COMMENT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hub", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    parser.add_argument("--site", type=Path, default=Path("/srv/reading-maths-hub"), help="the hub's folder")
    parser.add_argument("--remove", action="store_true",
                        help="delete the demo accounts, the site and this checkout's shared Python in /opt, then exit")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("make hub needs root: it creates Unix accounts and starts each person's server as that person")
    names = (INSTRUCTOR, *STUDENTS)
    taken = [n for n in names if accounts.exists(n) and not _ours(n)]
    if taken:
        sys.exit(f"accounts {', '.join(taken)} exist and were not made by make hub; not touching them")
    if args.remove:
        for name in names:
            accounts.remove(name)
        shutil.rmtree(args.site, ignore_errors=True)
        shared = env_path(REPO)  # other checkouts' shared Pythons beside it are theirs
        shutil.rmtree(shared, ignore_errors=True)
        with contextlib.suppress(OSError):
            shared.parent.rmdir()  # /opt/reading-maths-hub, once no checkout has one there
        print(f"removed {', '.join(names)}, {args.site} and {shared}")
        return 0
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` stops the hub as Ctrl-C does
    env = ensure_env(REPO)
    people = [accounts.Person(INSTRUCTOR, accounts.new_password(), instructor=True),
              *(accounts.Person(n, accounts.new_password(), first_name=first, last_name=last)
                for n, (first, last) in STUDENTS.items())]
    for person in people:
        if accounts.exists(person.name):
            accounts.set_password(person)
        else:
            accounts.create(person, REPO, COMMENT)
    site = make_site(args.site, env, [p.name for p in people], INSTRUCTOR, port=args.port,
                     checks=(INSTRUCTOR, people[0].course, INSTRUCTOR),  # the checks service, as the instructor
                     course=people[0].course)  # its nbgrader_config.py chooses the exchange: folder or service
    shared = site.settings()["exchange"]
    accounts.enrol(people[0], people[1:], env, shared and Path(shared))  # the class list, in the gradebook
    with running(site) as hub:
        print(f"\nThe course's JupyterHub is at {hub.url}/  (this machine only; from elsewhere: "
              f"ssh -L {args.port}:127.0.0.1:{args.port} this-machine)\n")
        for person in people:
            role = "instructor: Nbgrader > Formgrader" if person.instructor else "student: Nbgrader > Assignment List"
            print(f"  {person.name:<12} password {person.password:<18} {role}")
        print(f"\nChecks with the hidden tests: the notebook toolbar's button; each person's checks at "
              f"{hub.url}/services/checks/ (limits: {people[0].course}/checks.toml).")
        exchange = shared or f"the exchange service ({hub.url}/services/exchange/)"
        print(f"\nThe instructor's course is {people[0].course}; the exchange {exchange}; "
              f"the hub's log {site.log}.\nCtrl-C stops the hub (the accounts stay; --remove deletes them).")
        try:
            while hub.process.poll() is None:
                time.sleep(1)
        except KeyboardInterrupt:
            print("\nstopping the hub")
    return 0


if __name__ == "__main__":
    sys.exit(main())
