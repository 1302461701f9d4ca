# Two commands do all the set-up on a fresh machine:
#   make run    creates .venv, installs the app, starts it
#   make test   same set-up (plus Xvfb where missing), then lint (ruff), types (mypy) and the
#               whole test suite (which also builds the wheel and installs it in a fresh venv)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
XVFB   := xvfb-run -a -s "-screen 0 2400x1500x24"

.PHONY: run test lint bench screenshots messages system-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

system-deps:
	@bash scripts/ensure-system-deps.sh

# With a screen, the app opens on it. Without one (a server, CI) it runs in a virtual
# X screen so that the command still works; use `make screenshots` to see it.
run: $(STAMP)
	@if [ -n "$$DISPLAY" ] || [ -n "$$WAYLAND_DISPLAY" ]; then \
		$(VENV)/bin/companion $(ARGS); \
	else \
		bash scripts/ensure-system-deps.sh && \
		echo "No display found: running the app in a virtual X screen (Xvfb)." && \
		$(XVFB) $(VENV)/bin/companion $(ARGS); \
	fi

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

test: $(STAMP) system-deps lint
	$(XVFB) $(PY) -m pytest $(PYTEST_ARGS)

bench: $(STAMP) system-deps
	$(XVFB) $(PY) bench/run_all.py

# the translation catalogues: extract every marked string (Python and .kv), update
# companion/locale/{en,fr}/LC_MESSAGES/companion.po, compile the .mo files the app reads
messages: $(STAMP)
	$(PY) scripts/messages.py

screenshots: $(STAMP) system-deps
	$(XVFB) $(PY) scripts/screenshots.py docs/screenshots
	$(XVFB) $(PY) scripts/teach_screenshots.py docs/screenshots

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
