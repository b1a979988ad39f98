# Two entry points (see README): `make run` starts the app, `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# stamp files: the install runs again only when pyproject.toml is newer (or the venv is new)
STAMP  := $(VENV)/.installed
LOAD_STAMP := $(VENV)/.installed-load
PORT   ?= 8501
# the address the app listens on: loopback only; ADDRESS=0.0.0.0 lets a class's phones reach it
ADDRESS ?= 127.0.0.1

.PHONY: run test test-fast long walk lint format bench fuzz paper-grid presets load memory profile deploy-test load-replicas clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,peers,scale,export,docs]'
	touch $(STAMP)

# the load-test client (locust), for make load, load-replicas, memory, deploy-test and classroom
$(LOAD_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[load]'
	touch $(LOAD_STAMP)

run: $(STAMP)
	$(BIN)/streamlit run app.py --server.headless true --server.address $(ADDRESS) --server.port $(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not paper and not walk and not long" $(PYTEST_ARGS)

# The long statistical checks (about 4 min on 2 cores; CI runs them after `make test`): the audit's
# validity on every registered entry and over repeated audits, the power on multi-stage estimators, the
# low-bit attack on every one-stage release, the presets' claims and the remeasure and tail simulations.
long: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m long $(PYTEST_ARGS)

# Everything except the browser tests and the long statistical ones (marked slow): the edit loop.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not slow and not browser" $(PYTEST_ARGS)

# The browser walk (~9 min, so not in `make test`; CI runs both): every page at its defaults and
# Compare at every preset, full-page screenshots in $(WALK_SCREENSHOTS); then the slow browser tests
# marked `walk` (presenter fit of PLAN and Compare, state across navigation, Compare's long sweep).
WALK_SCREENSHOTS ?= /tmp/dpmean-walk
walk: $(STAMP)
	DPMEAN_WALK=1 WALK_SCREENSHOTS=$(WALK_SCREENSHOTS) $(BIN)/python -m pytest -p no:randomly -s tests/e2e/test_walk_browser.py $(PYTEST_ARGS)
	$(BIN)/python -m pytest -n 2 -m walk tests/e2e $(PYTEST_ARGS)

# Every page in presenter mode at 1280x720 (PLAN and Compare also at 1920x1080) and on a 375-px
# phone, and a class room of 4 phones: the page-by-page browser checks `make test` runs on a few pages.
.PHONY: fit
fit: $(STAMP)
	DPMEAN_WALK=1 $(BIN)/python -m pytest -p no:randomly -s tests/e2e/test_presenter_fit_browser.py tests/e2e/test_phone_browser.py tests/e2e/test_rooms_browser.py tests/e2e/test_side_by_side_browser.py $(PYTEST_ARGS)

# The long fuzz profile: >= 10,000 generated cases over every estimator, the budgets,
# parse_csv, experiment configs and the URL query. `make test` runs the same tests with few examples.
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -n 2 -p no:randomly tests/fuzz $(PYTEST_ARGS)

# Every page's "This view as a notebook", executed in a fresh kernel and compared with the page's
# charts (tests/pages/test_notebooks.py; `make test` runs three quick pages). Several minutes.
.PHONY: notebooks
notebooks: $(STAMP)
	DPMEAN_NOTEBOOKS=1 $(BIN)/python -m pytest -p no:randomly tests/pages/test_notebooks.py $(PYTEST_ARGS)

# The full privacy audit profile (dpcore.audit.profile): a table per estimator (claim, audited
# bound, calibration, verdict) and the power table (caught k/N per broken family); about an hour on
# one core. `make test` runs the quick profile (tests/audit). AUDIT_ARGS="--reps 5" for a shorter run.
.PHONY: audit
audit: $(STAMP)
	$(BIN)/python -m dpcore.audit $(AUDIT_ARGS)

# The documentation site (docs/, mkdocs.yml) built in strict mode: every warning (a broken link or
# anchor, a docstring mkdocstrings cannot render) fails. Open $(DOCS_SITE)/index.html.
DOCS_SITE ?= /tmp/dpmean-site
.PHONY: docs
docs: $(STAMP)
	$(BIN)/mkdocs build --strict -d $(DOCS_SITE)

lint: $(STAMP)
	$(BIN)/ruff check dpcore pages tests benchmarks app.py
	$(BIN)/ruff format --check dpcore pages tests benchmarks app.py
	$(BIN)/mypy  # dpcore, pages and app.py (pyproject's [tool.mypy] files)

# Format the tree with ruff (settings in pyproject's [tool.ruff.format]); `make lint` and
# tests/repo/test_lint.py::test_ruff_format_clean fail on an unformatted file.
format: $(STAMP)
	$(BIN)/ruff format dpcore pages tests benchmarks app.py

bench: $(STAMP)
	$(BIN)/python benchmarks/plan_speed.py
	$(BIN)/python benchmarks/compare_speed.py

# PLAN and IOME on the paper's whole Gaussian grid, 50 runs per cell (long: about an hour on 2 cores),
# then compared cell by cell with the authors' runs (benchmarks/data/authors).
paper-grid: $(STAMP)
	$(BIN)/python -m pytest -p no:randomly -m "slow or paper" tests/estimators/test_robust_steps.py
	$(BIN)/python benchmarks/paper_grid.py --reps 50 --before --out benchmarks/results/paper_grid_final.md --csv benchmarks/results/paper_grid_final.csv
	$(BIN)/python benchmarks/paper_grid_authors.py benchmarks/results/paper_grid_final.csv --out benchmarks/results/paper_grid_authors.md

# Every Compare preset's claim at 12 seeds with its own parameters (about 10 min on 2 cores).
presets: $(STAMP)
	$(BIN)/python benchmarks/presets.py $(PRESETS_ARGS)

# Classroom load test: N websocket sessions (Home, PLAN, Compare, Side by side; arriving over 30 s,
# reading each page 10-20 s: LOAD_ARGS="--arrivals 0 --think 0 0" for all at once) against the
# app started with the `make run` command on a free loopback port; prints the latency table.
LOAD_ARGS ?=
load: $(LOAD_STAMP)
	$(BIN)/python benchmarks/load.py $(LOAD_ARGS)

# The same load test against 2 replicas behind Debian's nginx on loopback (deploy/README.md):
# LOAD_ARGS as for `make load`, e.g. LOAD_ARGS="--sessions 30".
load-replicas: $(LOAD_STAMP)
	$(BIN)/python benchmarks/replicas.py --replicas 2 -- $(LOAD_ARGS)

# Server memory of one visitor pressing "New seed" on PLAN step by step at n = 488, d = 4096 for
# 70 s (the served app; goal: under 1.5 GB). MEMORY_ARGS="--seconds 30" for a shorter run.
MEMORY_ARGS ?=
memory: $(LOAD_STAMP)
	$(BIN)/python benchmarks/memory.py --served --seconds 70 $(MEMORY_ARGS)

# Where one page view's CPU goes (cProfile in the script thread): make profile PAGE=compare
PAGE ?= compare
profile: $(STAMP)
	DPMEAN_WORKERS=0 $(BIN)/python benchmarks/profile_pages.py $(PAGE) $(PROFILE_ARGS)

# Two replicas behind Debian's nginx on loopback, sticky sessions and websockets (deploy/README.md).
deploy-test: $(LOAD_STAMP)
	DPMEAN_DEPLOY_TEST=1 $(BIN)/python -m pytest -p no:randomly tests/repo/test_deploy.py $(PYTEST_ARGS)

# Follow latency of a class room (docs/classroom.md): a lecturer in Chromium steps through PLAN
# with the arrow key while 30 non-rendering followers (benchmarks/load.py's websocket client) and
# one phone browser follow; writes the table to benchmarks/results/classroom.md.
CLASSROOM_ARGS ?=
.PHONY: classroom classroom-browsers
classroom: $(LOAD_STAMP)
	$(BIN)/python benchmarks/classroom.py --followers 30 $(CLASSROOM_ARGS)

# The same room with 30 real phone browsers (375x812, idle CPU priority): every phone lands on
# each slide; prints the lecturer's and the last phone's times. `make fit` runs 4 phones.
classroom-browsers: $(STAMP)
	DPMEAN_WALK=1 DPMEAN_ROOM_PHONES=30 DPMEAN_ROOM_STEPS=7 $(BIN)/python -m pytest -p no:randomly -s tests/e2e/test_rooms_browser.py $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache
