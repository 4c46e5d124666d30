# sanpath: every target creates .venv on first use (Python 3.11 and make are all you need).
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo
CORE := $(VENV)/.core-compiled
CORE_SOURCES := $(shell $(PYTHON) sanpath/compiled.py --sources)
DEMO_OUT ?= out/demo
# cache (default): executed notebooks are reused while they and sanpath's sources are
# unchanged (docs/conf.py); force: every notebook runs (CI builds so).
DOCS_EXECUTE ?= cache

.PHONY: demo test quick lint unit notebooks docs bench validation core clean help

help:
	@echo "make demo   - install the package into .venv and run the quickstart scenario (tables in"
	@echo "              $(DEMO_OUT)); the test, docs and dev extras come with the other targets"
	@echo "make test   - install with test extras, lint (ruff, mypy, imports, vulture) and run every test"
	@echo "make quick  - the fast tests (not slow, not build) on two workers, stop at the first failure"
	@echo "              (keeps pytest's cache: make quick ARGS=--lf reruns what failed last)"
	@echo "make bench  - speed and memory benchmarks (prints figures and ratios)"
	@echo "make validation - compare the published experiments, the twin and the profiles' datasheets with the model (docs/validation.md)"
	@echo "make docs   - build the documentation site into docs/_build/html (warnings are errors;"
	@echo "              executed notebooks cached; DOCS_EXECUTE=force runs every one, as CI)"
	@echo "make core   - compile the simulation core with mypyc (every target above does it first)"

# The demo needs only the package (and the compiled core its install builds; mypy, in the
# range of pyproject.toml's build requirements, lets make core compile it again after an
# edit); every other target installs the test, dev, distributed, notebook and docs extras on
# top of it.
$(DEMO_STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e . "mypy>=2.4,<2.5"
	touch $(DEMO_STAMP)

$(STAMP): $(DEMO_STAMP) setup.cfg pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test,dev,distributed,notebook,docs]"
	touch $(STAMP)

# The simulation core compiled in place with mypyc (sanpath/compiled.py, setup.py): the
# editable install above compiles it already; this rebuilds it when a core source changes.
# Without a C compiler sanpath runs the same core as pure Python.
$(CORE): $(DEMO_STAMP) sanpath/compiled.py $(CORE_SOURCES)
	$(BIN)/python sanpath/compiled.py
	touch $(CORE)

core: $(CORE)

demo: $(CORE)
	@mkdir -p $(DEMO_OUT)
	$(BIN)/sanpath validate scenarios/*.yaml
	$(BIN)/sanpath run scenarios/quickstart.yaml | tee $(DEMO_OUT)/quickstart.txt
	$(BIN)/sanpath run scenarios/quickstart.yaml --json > $(DEMO_OUT)/quickstart.json
	$(BIN)/sanpath sweep scenarios/qd_sweep_2007.yaml --jobs 2 --quiet --set run.ios=8000 \
		--set run.warmup_ios=800 --out $(DEMO_OUT)/qd_sweep.csv > $(DEMO_OUT)/qd_sweep.txt
	$(BIN)/sanpath plot $(DEMO_OUT)/qd_sweep.csv --kind iops-vs-outstanding \
		--out $(DEMO_OUT)/iops_vs_outstanding.png
	$(BIN)/sanpath plot $(DEMO_OUT)/qd_sweep.csv --kind latency-vs-iops \
		--out $(DEMO_OUT)/latency_vs_iops.png
	$(BIN)/sanpath plot $(DEMO_OUT)/qd_sweep.csv --kind breakdown --x workloads.0.outstanding \
		--out $(DEMO_OUT)/breakdown.png
	$(BIN)/sanpath sweep scenarios/fan_in.yaml --jobs 2 --quiet --set run.ios=8000 \
		--set run.warmup_ios=2000 --out $(DEMO_OUT)/fan_in.json > $(DEMO_OUT)/fan_in.txt
	$(BIN)/sanpath plot $(DEMO_OUT)/fan_in.json --kind fan-in --out $(DEMO_OUT)/fan_in.png
	$(BIN)/sanpath sweep scenarios/transfer_split.yaml --jobs 2 --quiet --set run.ios=2000 \
		--set run.warmup_ios=200 --vary hosts.0.hbas.0.max_transfer=512KiB,2MiB \
		--vary workloads.0.block_size=256KiB,512KiB,1MiB,2MiB,4MiB \
		--set workloads.0.outstanding=8 --set array.controller.bandwidth=1850MB/s \
		--set array.controller.transfer_setup=100us \
		--out $(DEMO_OUT)/transfer_split.csv > $(DEMO_OUT)/transfer_split.txt
	$(BIN)/sanpath plot $(DEMO_OUT)/transfer_split.csv --kind transfer-size \
		--out $(DEMO_OUT)/transfer_size.png
	$(BIN)/sanpath run scenarios/vi_queue_depth_2012.yaml --json > $(DEMO_OUT)/vi_dashboard.json
	$(BIN)/sanpath plot $(DEMO_OUT)/vi_dashboard.json --kind dashboard \
		--out $(DEMO_OUT)/dashboard.png
	$(BIN)/sanpath plot $(DEMO_OUT)/vi_dashboard.json --kind exchange-dashboard \
		--out $(DEMO_OUT)/exchange_dashboard.png
	$(BIN)/sanpath run scenarios/quickstart.yaml --set workloads.0.outstanding=32 \
		--json > $(DEMO_OUT)/quickstart_32.json
	$(BIN)/sanpath plot $(DEMO_OUT)/quickstart.json $(DEMO_OUT)/quickstart_32.json --kind cdf \
		--out $(DEMO_OUT)/latency_cdf.png
	$(BIN)/sanpath animate scenarios/animations/qfull_storm.yaml --force \
		--out $(DEMO_OUT)/qfull_storm.html
	@echo "demo tables, plots and an animation written to $(DEMO_OUT)/"

lint: $(STAMP)
	$(BIN)/ruff check sanpath tests
	$(BIN)/ruff format --check sanpath tests
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	$(BIN)/vulture

unit: $(STAMP) $(CORE)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -q -p no:cacheprovider

# The inner loop: every test not marked slow or build, two xdist workers, stop at the first
# failure; pytest's cache stays on so ARGS=--lf (last failed) or ARGS=--ff work.
quick: $(STAMP) $(CORE)
	$(BIN)/python -m pytest -q -x -n 2 -m "not slow and not build" $(ARGS)

# The notebooks run as a reader with only the notebook extra runs them: the docs tools
# (MyST-NB, Sphinx) are blocked in their kernels (tests/data/without_docs_tools).
notebooks: $(STAMP) $(CORE)
	$(BIN)/nbstripout --verify notebooks/*.ipynb
	PYTHONPATH=tests/data/without_docs_tools $(BIN)/python -m pytest -q -p no:cacheprovider \
		--nbmake --nbmake-timeout=120 notebooks

# The site is built, then checked as a reader sees it: the numbers its executed pages state
# against their runs, and every page in headless Chromium at 1280 px (screenshots and
# widths in build/test-artifacts/docs/).
docs: $(STAMP) $(CORE)
	SANPATH_DOCS_EXECUTE=$(DOCS_EXECUTE) $(BIN)/python -m sphinx -b html --fail-on-warning \
		--nitpicky -q docs docs/_build/html
	SANPATH_DOCS_SITE=docs/_build $(BIN)/python -m pytest -q -p no:cacheprovider tests/docs/site

test: lint unit notebooks docs

bench: $(STAMP) $(CORE)
	$(BIN)/python tests/benchmarks/bench.py --json docs/benchmarks.json

clean:
	-$(PYTHON) sanpath/compiled.py --clean
	rm -rf $(VENV) out build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis \
		docs/_build docs/notebooks

validation: $(STAMP) $(CORE)
	$(BIN)/python -c "import glob; from sanpath.experiments.validation import write_report; \
	write_report(sorted(glob.glob('scenarios/*.yaml')), 'docs/validation.md', 'docs/validation')"
	$(BIN)/python -c "import glob; from sanpath.experiments.twin_accuracy import \
	write_twin_accuracy; write_twin_accuracy(sorted(glob.glob('scenarios/*.yaml')), \
	'docs/validation/twin_accuracy.md')"
	$(BIN)/python -c "from sanpath.experiments.datasheets import write_table; \
	write_table('docs/validation/datasheets.md')"
	$(BIN)/python -c "from sanpath.experiments.transports import write_table; \
	write_table('docs/validation/transports.md')"
	@echo "docs/validation.md, its records docs/validation/*.json and" \
		"docs/validation/{twin_accuracy,datasheets,transports}.md regenerated"
