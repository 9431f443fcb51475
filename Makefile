# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-deep lint install lock bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

test: lint
	$(BIN)/python -m pytest -n 2 --dist worksteal

# Undefined names, unused imports, lines past 120 characters ([tool.ruff] in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check --quiet .

# Every seed, the slow ones `make test` leaves out too (tests/tiers.py): about a third longer.
test-deep: $(STAMP)
	TENFOLD_DEEP=1 $(BIN)/python -m pytest -n 2 --dist worksteal

# The main job on a small example: generate a pack, prove it again, summarise it.
run: $(STAMP)
	$(BIN)/tenfold generate halloween --count 4 --seed 1 --out out/example-pack.json
	$(BIN)/tenfold verify out/example-pack.json
	$(BIN)/tenfold solve out/example-pack.json

# Pins the newest versions pyproject.toml's ranges allow (then run make test on them): a scratch
# venv takes every dependency, the dev ones too, and its list becomes constraints.txt.
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/pip install --quiet -e '.[dev]'
	grep '^#' constraints.txt > constraints.txt.new
	$(LOCK_VENV)/bin/pip freeze --exclude-editable >> constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)

bench: $(STAMP)
	$(BIN)/python bench/tray.py
	$(BIN)/python bench/campaign.py
	$(BIN)/python bench/generate.py

clean:
	rm -rf $(VENV) $(LOCK_VENV) build *.egg-info out
