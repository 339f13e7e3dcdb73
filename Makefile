# PopDice: `make demo` shows the devices working, `make test` checks everything.
# Both build .venv from PyPI by themselves (pinned in requirements/): the demo only what it
# needs (demo.txt), the tests the development tools too (dev.txt). Nothing else is needed
# but python3 (3.10 or newer).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STUBS := $(VENV)/mpy-stubs
DEMO_READY := $(VENV)/.demo-$(shell cat pyproject.toml setup.py requirements/demo.txt | cksum | cut -d' ' -f1)
READY := $(VENV)/.ready-$(shell cat pyproject.toml setup.py lab/pyproject.toml requirements/*.txt host/popdice/sim/rp2040/js/package*.json | cksum | cut -d' ' -f1)
# setuptools reports every editable install as a warning ("Editable installation."), which it
# calls information only: this keeps that one message out of the install's output.
EDITABLE := PYTHONWARNINGS="ignore:Editable installation"
PYTEST_ARGS ?=
# Most device tests wait on a simulated board's real time, so three workers keep two cores
# busy; the emulated Pico is all CPU, so it gets one worker a core. 0 runs in one process.
# On the emulated Pico, a few tests take a minute or more: they are collected first
# (runs_long, tests/conftest.py) and --dist load deals the first tests out one to a worker
# in turn, so none is left to run alone at the end. The main run, many short tests and its
# long ones spread through it, does best with --dist worksteal: an idle worker takes
# queued tests from a busy one.
PYTEST_WORKERS ?= 3
RP2040_WORKERS ?= 2

.PHONY: all demo test lint typecheck compile browser pytest pytest-rp2040 bench bench-cli bench-lookalike pictures clean venv

all: test

$(DEMO_READY):
	rm -f $(VENV)/.demo-*
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/demo.txt
	$(EDITABLE) $(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(READY): $(DEMO_READY)
	rm -f $(VENV)/.ready-*
	$(BIN)/python -m pip install --quiet -r requirements/dev.txt
	$(EDITABLE) $(BIN)/python -m pip install --quiet --no-deps -e lab
	$(BIN)/python -m pip install --quiet --no-deps --target $(STUBS) --upgrade -r requirements/stubs.txt
	$(BIN)/python -m popdice.sim.rp2040.tools install || echo "rp2040js not installed: the emulated-Pico tests will be skipped"
	touch $@

venv: $(READY)

demo: $(DEMO_READY)
	$(BIN)/popdice demo

test: lint typecheck compile pytest pytest-rp2040

lint: $(READY)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(READY)
	$(BIN)/pyright -p pyrightconfig.json
	$(BIN)/pyright -p pyrightconfig.firmware.json

# Every firmware file compiles with mpy-cross of the MicroPython version the tests run.
compile: $(READY)
	$(BIN)/python -m popdice.deploy.files --check

# The phones' pages are tested in Debian's Chromium, driven by Playwright (no browser is
# downloaded from elsewhere). As root with apt, this installs it when it is missing; else
# the browser tests are skipped, saying why (CI sets POPDICE_REQUIRE_BROWSER=1: a failure).
CHROMIUM ?= /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		apt-get install -y -q chromium >/dev/null; } || \
		echo "no Chromium at $(CHROMIUM): the browser tests will be skipped"

pytest: $(READY) browser
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# The device tests that matter most, again on MicroPython's own Pico image in an emulated
# RP2040. Without Node, rp2040js or a base image they are skipped, saying why; CI sets
# POPDICE_REQUIRE_RP2040=1, which makes that a failure.
pytest-rp2040: $(READY)
	$(BIN)/python -m pytest -n $(RP2040_WORKERS) --dist load --device rp2040 -m rp2040_tier $(PYTEST_ARGS)

bench: $(READY)
	$(BIN)/python bench/link.py
	$(BIN)/python bench/simulate.py

# How long `popdice --help`, `check ringer` and `status` take, and closing a client.
bench-cli: $(READY)
	$(BIN)/python bench/cli.py

# How many presses of each model family look like a moment without a press within the
# sensor's noise, the recall that leaves, and how many have their main blow later than the
# latency allows. Needs numpy, installed into .venv only here
# (requirements/analysis.txt).
bench-lookalike: $(READY)
	$(BIN)/python -m pip install --quiet -r requirements/analysis.txt
	$(BIN)/python bench/lookalike.py

# The README's pictures in docs/images/, drawn by the project's own code (simulated boards, the
# firmware's dice and detector, the table app); tests/lab/test_pictures.py fails when one is stale.
pictures: $(READY)
	$(BIN)/python -m popdice_lab.pictures --out docs/images

clean:
	rm -rf $(VENV) build dist *.egg-info host/*.egg-info .pytest_cache .ruff_cache
