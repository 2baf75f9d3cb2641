# reading-maths: `make demo` and `make test` each bootstrap .venv by themselves on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast release lint system-packages clean hub hub-proxy hub-lab a11y

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian packages the sandbox, the browser tests and the hub use (skipped when not root or not Debian):
# bubblewrap, acl and libseccomp2 (sandbox), chromium (browser tests), nodejs + npm (JupyterHub's proxy), python3-venv (the
# hub's shared Python, made from Debian's python3 so that every account can run it), postgresql (the gradebook and
# checks store tests start a server of their own: tests/postgres.py). Only what is missing is
# asked for: a machine whose Node.js comes from elsewhere (NodeSource's nodejs bundles npm and conflicts with
# Debian's npm package) keeps it.
system-packages:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v setfacl >/dev/null || missing="$$missing acl"; \
	/sbin/ldconfig -p 2>/dev/null | grep -q libseccomp.so.2 || missing="$$missing libseccomp2"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	/usr/bin/python3 -c 'import ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "note: install$$missing for the sandbox, browser, hub and PostgreSQL tests"; fi; \
	fi

# JupyterHub's configurable-http-proxy, from npm, into hub/node_modules (not global).
PROXY := hub/node_modules/.bin/configurable-http-proxy
$(PROXY): hub/package.json hub/package-lock.json
	cd hub && npm ci --no-audit --no-fund --loglevel=error
	touch $(PROXY)
hub-proxy: system-packages
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(PROXY); \
	else echo "note: no npm: the hub test will skip (make system-packages as root installs it)"; fi

# The Check with the hidden tests button (hub/checks-lab): a JupyterLab extension built with @jupyterlab/builder
# from npm against the JupyterLab in .venv (the same version as the hub's servers), into hub/checks-lab/labextension.
CHECKS_LAB := hub/checks-lab/labextension/package.json
$(CHECKS_LAB): hub/checks-lab/package.json hub/checks-lab/package-lock.json hub/checks-lab/index.js hub/checks-lab/schema/plugin.json $(STAMP)
	cd hub/checks-lab && npm ci --no-audit --no-fund --loglevel=error
	cd hub/checks-lab && node node_modules/@jupyterlab/builder/lib/build-labextension.js \
	  --core-path "$$(../../$(BIN)/python -c 'import jupyterlab, pathlib; print(pathlib.Path(jupyterlab.__file__).parent / "staging")')" .
hub-lab: system-packages
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(CHECKS_LAB); \
	else echo "note: no npm: the hub's Check button is not built (make system-packages as root installs it)"; fi

# axe-core for the browser tests' accessibility checks (tests/a11y.py), from npm, into tests/axe/node_modules.
AXE := tests/axe/node_modules/axe-core/axe.min.js
$(AXE): tests/axe/package.json tests/axe/package-lock.json
	cd tests/axe && npm ci --no-audit --no-fund --loglevel=error
	touch $(AXE)
a11y: system-packages
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(AXE); \
	else echo "note: no npm: the accessibility checks will skip (make system-packages as root installs it)"; fi

# The course on a JupyterHub on this machine (as root): prints the URL and the demo accounts.
hub: $(STAMP) hub-proxy hub-lab
	$(BIN)/python -m hub

release: $(STAMP)
	$(BIN)/reading-maths release

demo: $(STAMP) system-packages
	$(BIN)/python -m classroom.demo

test: $(STAMP) system-packages hub-proxy hub-lab a11y
	$(BIN)/python -m pytest -n 2 -q

# The in-process tests only (no sandbox, kernel, hub, browser or other program), for every edit: under a minute.
# A test that starts one fails here until it carries its marker (tests/inprocess.py).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q --fast

lint: $(STAMP)
	$(BIN)/ruff check reading_maths classroom graders tests benchmarks hub

clean:
	rm -rf $(VENV) autograded/* submitted feedback exchange gradebook.db

bench: $(STAMP) system-packages ; $(BIN)/python benchmarks/bench.py  # slow (about 40 minutes), not part of test: see benchmarks/README.md
