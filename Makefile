# Two commands do all the set-up on a fresh machine:
#   make run    creates .venv from the lock (requirements.lock), installs the app, starts it
#   make test   same set-up (plus Xvfb where missing), then lint (ruff), types (mypy) and the
#               whole test suite (which also builds the wheel and installs it in a fresh venv)
# The venv holds exactly the versions in requirements.lock (pip freeze equals it): every
# machine tests the same packages. `make lock` refreshes the lock from pyproject.toml's
# ranges; commit its diff like code.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LOCK   := requirements.lock
# pip itself is pinned too (pip freeze does not list it)
PIP_VERSION := 26.3
XVFB   := xvfb-run -a -s "-screen 0 2400x1500x24"
# the suite runs in two processes (this machine has 2 cores); PYTEST_ARGS="-n 0" runs it in one
PYTEST_WORKERS ?= 2

.PHONY: run test lint bench screenshots messages system-deps lock train-dice train-taught train-tilt train-tower-faces train-tower-finder quantize-dice clean

# A venv made from scratch whenever the lock or pyproject.toml changes, so that nothing
# installed before (another version, a package the lock dropped) stays behind.
$(STAMP): pyproject.toml $(LOCK)
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check pip==$(PIP_VERSION)
	$(PY) -m pip install --quiet --requirement $(LOCK)
	$(PY) -m pip install --quiet --no-deps --editable .
	$(PY) -m pip check
	touch $(STAMP)

system-deps:
	@bash scripts/ensure-system-deps.sh --browser

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
	$(XVFB) $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

bench: $(STAMP) system-deps
	$(XVFB) $(PY) bench/run_all.py

# The lock: pyproject.toml's app and test dependencies resolved to their newest allowed
# versions in a scratch venv, written as `pip freeze` writes them (the project itself left
# out). Run it after changing a dependency, then `make test`, and commit requirements.lock.
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --disable-pip-version-check pip==$(PIP_VERSION)
	.lock-venv/bin/python -m pip install --quiet '.[app,test]'
	.lock-venv/bin/python scripts/write_lock.py $(LOCK)
	rm -rf .lock-venv

# The pip-dice reader's networks (vision/dice/models/), trained on the tuning part of the
# real photographs in ../shared/dice-photos/byler-train (scripts/train_dice.py says how).
# Training needs PyTorch, which neither the app nor the tests do: it gets a venv of its own,
# with the lock's numpy and OpenCV, the CPU build of torch $(TORCH_VERSION) and onnx
# $(ONNX_VERSION) (scripts/npz_to_onnx.py writes the networks' .onnx twins with it).
TRAIN_VENV    := .venv-train
TORCH_VERSION := 2.13.0
ONNX_VERSION  := 1.23.2
$(TRAIN_VENV)/.installed: $(LOCK)
	rm -rf $(TRAIN_VENV)
	$(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check pip==$(PIP_VERSION)
	$(TRAIN_VENV)/bin/python -m pip install --quiet --constraint $(LOCK) numpy opencv-python-headless \
		pyyaml onnxruntime torch==$(TORCH_VERSION) onnx==$(ONNX_VERSION)
	touch $@

train-dice: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python scripts/train_dice.py $(ARGS)

# The taught-face network (vision/dice/models/taught.npz): towers of the first, second and
# fourth independent renderers (rendered where missing), their teaching pictures and trays'
# dice as the reader cuts them; about 35 minutes (scripts/train_taught.py says how).
train-taught: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python scripts/train_taught.py $(ARGS)

# The tilt network (vision/dice/models/tilt.npz): towers of the first, second and fourth
# independent renderers and this project's renders, each die as the reader finds it
# (scripts/train_tilt.py says how).
train-tilt: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python scripts/train_tilt.py $(ARGS)

# The tower's face classifier (vision/dice/models/faces-tower.npz) going on learning from the
# trays of towers of four independent renderers (rendered where missing), each die where the
# reader finds it; about 12 minutes (scripts/train_tower_faces.py says how).
train-tower-faces: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python scripts/train_tower_faces.py $(ARGS)

# The tower's die finder (vision/dice/models/finder-tower.npz), which cuts dice pressed
# together, going on learning from the same towers' trays with every die of every kind a die;
# about 5 minutes (scripts/train_tower_finder.py says how).
train-tower-finder: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python scripts/train_tower_finder.py $(ARGS)

# The 8-bit twin of the taught-face network (vision/dice/models/taught.int8.onnx), which ONNX
# Runtime runs in its place: calibrated on this project's renders, refused if its answers
# stray from the float network's; about half a minute (scripts/quantize_nets.py says how).
# Run it after train-taught (the tests refuse a twin of the network before).
quantize-dice: $(TRAIN_VENV)/.installed
	$(TRAIN_VENV)/bin/python scripts/quantize_nets.py $(ARGS)

# the translation catalogues: extract every marked string (Python and .kv), update
# companion/locale/{en,fr}/LC_MESSAGES/companion.po, compile the .mo files the app reads
messages: $(STAMP)
	$(PY) scripts/messages.py

screenshots: $(STAMP) system-deps
	$(XVFB) $(PY) scripts/screenshots.py docs/screenshots
	$(XVFB) $(PY) scripts/screenshots.py --lang fr docs/screenshots/fr
	$(XVFB) $(PY) scripts/teach_screenshots.py docs/screenshots

clean:
	rm -rf $(VENV) .lock-venv $(TRAIN_VENV) .pytest_cache .hypothesis build *.egg-info
