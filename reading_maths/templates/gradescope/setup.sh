#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (an Ubuntu image: choose
# Ubuntu 22.04 or later in the assignment's settings). Written by `reading-maths gradescope $assignment`.
#
# AUTOGRADER_ROOT stands in for /autograder, so that a test can run these steps in a throw-away
# folder; READING_MATHS_PYTHON picks the Python (3.11 or later) the grader's virtual environment uses.
set -euo pipefail
ROOT="$${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$$ROOT/source"

python_ok() { "$$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$$@"; }

# 1. bubblewrap, the sandbox student code runs in (setpriv comes with util-linux).
if ! command -v bwrap >/dev/null; then apt-get update -qq && apt_install bubblewrap; fi

# 2. A Python of 3.11 or later, with venv.
PYTHON="$${READING_MATHS_PYTHON:-}"
if [ -z "$$PYTHON" ]; then
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$$candidate" >/dev/null && python_ok "$$candidate"; then PYTHON="$$candidate"; break; fi
  done
fi
if [ -z "$$PYTHON" ]; then apt-get update -qq && apt_install python3.11 python3.11-venv; PYTHON=python3.11; fi
if ! "$$PYTHON" -c 'import ensurepip' 2>/dev/null; then apt_install "$$(basename "$$PYTHON")-venv"; fi

# 3. The course package, with the versions the zip was built with (constraints.txt).
"$$PYTHON" -m venv "$$ROOT/venv"
"$$ROOT/venv/bin/python" -m pip install --quiet --upgrade pip
"$$ROOT/venv/bin/python" -m pip install --quiet --constraint "$$SOURCE/constraints.txt" "$$SOURCE/package"

# 4. The course (source notebook and hidden graders): readable by root only. Student code runs as
#    another user in the sandbox, which does not even see this folder.
chmod -R go-rwx "$$SOURCE/course"
"$$ROOT/venv/bin/reading-maths" --version

# 5. Whether the sandbox works in this container, guarantee by guarantee: in the build log now, and
#    printed by run_autograder on every run, where "Test Autograder" shows it to the instructor (the
#    autograder's own output is hidden from students). A container without one refuses every submission.
"$$ROOT/venv/bin/reading-maths" doctor > "$$ROOT/doctor.txt" 2>&1 || true
cat "$$ROOT/doctor.txt"
