# reading-maths: `make demo` and `make test` each bootstrap .venv by themselves on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test release lint system-packages clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian packages the sandbox and the browser tests use (skipped when not root or not Debian).
system-packages:
	@if ! command -v bwrap >/dev/null || ! command -v chromium >/dev/null || ! command -v setfacl >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap chromium acl >/dev/null; \
	  else echo "note: install bubblewrap, chromium and acl for the sandbox and browser tests"; fi; \
	fi

release: $(STAMP)
	$(BIN)/reading-maths release

demo: $(STAMP) system-packages
	$(BIN)/python -m classroom.demo

test: $(STAMP) system-packages
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check reading_maths classroom graders tests benchmarks

clean:
	rm -rf $(VENV) autograded/* submitted feedback exchange gradebook.db

bench: $(STAMP) system-packages ; $(BIN)/python benchmarks/bench.py  # slow (about an hour), not part of test: see benchmarks/README.md
