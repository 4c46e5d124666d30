# sanpath: every target creates .venv on first use (Python 3.11 and make are all you need).
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_OUT ?= out/demo

.PHONY: demo test lint unit bench validation clean help

help:
	@echo "make demo   - install into .venv and run the quickstart scenario (tables in $(DEMO_OUT))"
	@echo "make test   - install with test extras, lint (ruff, mypy) and run every test"
	@echo "make bench  - speed and memory benchmarks (prints figures and ratios)"
	@echo "make validation - compare the published experiments with the model (docs/validation.md)"

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,dev,distributed]"
	touch $(STAMP)

demo: $(STAMP)
	@mkdir -p $(DEMO_OUT)
	$(BIN)/sanpath validate scenarios/*.yaml
	$(BIN)/sanpath run scenarios/quickstart.yaml | tee $(DEMO_OUT)/quickstart.txt
	$(BIN)/sanpath run scenarios/quickstart.yaml --json > $(DEMO_OUT)/quickstart.json
	@echo "demo tables written to $(DEMO_OUT)/"

lint: $(STAMP)
	$(BIN)/ruff check sanpath tests
	$(BIN)/ruff format --check sanpath tests
	$(BIN)/mypy

unit: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -q -p no:cacheprovider

test: lint unit

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/bench.py

clean:
	rm -rf $(VENV) out build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis

validation: $(STAMP)
	$(BIN)/python -c "import glob; from sanpath.reference import write_report; \
	write_report(sorted(glob.glob('scenarios/*.yaml')), 'docs/validation.md', 'docs/validation')"
	@echo "docs/validation.md regenerated"
