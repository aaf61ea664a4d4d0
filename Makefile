# The two commands: `make demo` and `make test`. Each sets up .venv on a fresh machine.
# While editing: `make test-fast` (the library without notebooks, Dask, peer sweeps and slow
# tests) and `make lint`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
OUT    ?= build/notebooks
# Versions that produced the stored notebook outputs (refresh: make lock)
LOCK   := .ci/lock.txt
# The declared minimum versions (pyproject.toml's floors)
OLDEST := .ci/oldest.txt
OLD    ?= .venv-oldest
# Editable installs put the checkout on sys.path ("compat"), so `import rankkit` finds the package
# from any working directory, even the parent of a clone named rankkit (whose folder would
# otherwise be imported first, as an empty namespace package).
EDITABLE := --config-settings editable_mode=compat -e
# The kernels log errors only (not jupyter's "running over TCP without encryption" warning,
# which says nothing about a local run).
KERNEL := "--ExecutePreprocessor.extra_arguments=['--IPKernelApp.log_level=ERROR']"
NBRUN  := -m jupyter nbconvert --log-level=ERROR $(KERNEL) --to notebook --execute --ExecutePreprocessor.store_widget_state=False

.PHONY: demo student test test-fast lint test-oldest notebooks lock bench clean docs docs-student docs-check

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.notebooks: $(PY) pyproject.toml $(LOCK)
	$(PY) -m pip install --quiet -c $(LOCK) $(EDITABLE) ".[notebooks]"
	touch $@

$(VENV)/.test: $(PY) pyproject.toml $(LOCK)
	$(PY) -m pip install --quiet -c $(LOCK) $(EDITABLE) ".[test,arrays]"
	touch $@

# The book's tools (docs/README.md); Playwright drives Debian's Chromium, it downloads no browser.
$(VENV)/.docs: $(PY) pyproject.toml $(LOCK)
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(PY) -m pip install --quiet -c $(LOCK) $(EDITABLE) ".[docs]"
	touch $@

$(VENV)/.bench: $(VENV)/.test
	$(PY) -m pip install --quiet $(EDITABLE) ".[bench]"
	touch $@

# Rendered HTML reads as a lesson: cells tagged remove-input show only their output; math is
# typeset by a copy of MathJax next to the pages (no network).
HTML   := --to html --TagRemovePreprocessor.enabled=True --TagRemovePreprocessor.remove_input_tags remove-input \
          --TagRemovePreprocessor.remove_cell_tags remove-cell \
          --HTMLExporter.mathjax_url='mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe'

# rankkit's bytecode is written first: where the environment sets PYTHONDONTWRITEBYTECODE, the
# editable checkout would otherwise be compiled again at every start of the command (+0.1 s).
demo: $(VENV)/.notebooks
	$(PY) -m compileall -q rankkit
	$(PY) -m jupyter nbconvert --log-level=ERROR $(KERNEL) --execute $(HTML) --output-dir $(OUT) notebooks/*.ipynb
	$(PY) -c "import jupyter_server_mathjax as m, pathlib, shutil; shutil.copytree(pathlib.Path(m.__file__).parent / 'static', '$(OUT)/mathjax', dirs_exist_ok=True)"
	sed -i 's/\(href="[0-9][0-9]_[a-z_]*\)\.ipynb/\1.html/g' $(OUT)/*.html   # links between notebooks
	$(PY) -m rankkit evaluate data/example.qrels data/example.run -m nDCG@10 -m AP -m RR -m P@10 -m R@100
	@echo "(The two warnings are expected: the example leaves query 149 out of the run and query 150"
	@echo " out of the judgments on purpose, to show how unscored queries are reported; see data/README.md.)"
	@echo
	@echo "Open $(abspath $(OUT))/00_start_here.html in a browser (the rendered notebooks, no server needed),"
	@echo "or work with them live: .venv/bin/jupyter lab notebooks/"

# The notebooks for students: every notebook but 08 (the teacher's checklist shows the
# exercises' answers), without the cells tagged `solution` (answers), `remove-cell` (checks)
# or `teacher` (notes for the teacher), with the inputs of `remove-input` checks collapsed;
# beside the copies, the wheel students install rankkit from (the package alone: no notebook,
# no answer), built from a copy of the package so that nothing else of the checkout can slip
# into it, and data/trec_eval_test (notebook 11's collection, with its licence and its part of
# data/README.md); then Restart & Run All of every copy in a temporary folder outside the
# checkout, as a student will run it, so that a notebook reading a file of the checkout fails.
STUDENT ?= build/student
STUDENT_NOTEBOOKS := $(filter-out notebooks/08_%,$(wildcard notebooks/[0-9][0-9]_*.ipynb))
STUDENT_COPIES := $(addprefix $(STUDENT)/,$(notdir $(STUDENT_NOTEBOOKS)))
student: $(VENV)/.notebooks
	rm -rf $(STUDENT)/[0-9][0-9]_*.ipynb $(STUDENT)/rankkit_eval-*.whl $(STUDENT)/data   # an earlier edition, nothing else
	rm -rf build/wheel-src && mkdir -p build/wheel-src && cp -r pyproject.toml README.md rankkit build/wheel-src/
	$(PY) -m pip wheel --quiet --no-deps build/wheel-src -w $(STUDENT)
	$(PY) -m jupyter nbconvert --log-level=ERROR --to notebook --TagRemovePreprocessor.enabled=True \
		--TagRemovePreprocessor.remove_cell_tags solution --TagRemovePreprocessor.remove_cell_tags remove-cell \
		--TagRemovePreprocessor.remove_cell_tags teacher --output-dir $(STUDENT) $(STUDENT_NOTEBOOKS)
	mkdir -p $(STUDENT)/data && cp -r data/trec_eval_test $(STUDENT)/data/
	{ printf '# data\n\nThe section of rankkit data/README.md on this folder.\n\n'; awk '/^## /{keep = /trec_eval_test/} keep' data/README.md; } > $(STUDENT)/data/README.md
	run=$$(mktemp -d) && trap 'rm -rf "$$run"' EXIT && cp -r $(STUDENT)/. "$$run" \
		&& (cd "$$run" && $(abspath $(PY)) $(NBRUN) --inplace --ExecutePreprocessor.record_timing=False $(notdir $(STUDENT_COPIES))) \
		&& cp "$$run"/[0-9][0-9]_*.ipynb $(STUDENT)/
	$(PY) notebooks/collapse_checks.py $(STUDENT)
	@echo "Student notebooks (no solutions), each run top to bottom, and the rankkit wheel: $(abspath $(STUDENT))"

# The graded assignments (notebooks/assignments/README.md), built with nbgrader into
# build/assignments/{student,teacher}; then the reference solutions are graded (every automatic
# point) and the students' versions handed in unanswered (no point), or the target fails.
.PHONY: assignments
$(VENV)/.assignments: $(VENV)/.notebooks
	$(PY) -m pip install --quiet -c $(LOCK) $(EDITABLE) ".[assignments]"
	touch $@

assignments: $(VENV)/.assignments
	$(PY) notebooks/assignments/build.py build/assignments

# The book: the chapters as stored (their outputs are the ones `make test` checks), the API
# reference from the docstrings, the metric tables from the registry; offline, in build/docs.
# `make docs-student`: the same from the students' copy (no solutions, no checklist).
# `make docs-check`: every page in headless Chromium (console errors, requests leaving the
# machine, untypeset math, broken links, search), screenshots in build/docs-check.
DOCS    ?= build/docs
SPHINX  := -m sphinx -b html -E -q -W --keep-going  # a warning (a docstring sphinx misreads) fails the build
docs: $(VENV)/.docs
	$(PY) docs/generate.py notebooks build/docs-src
	$(PY) $(SPHINX) -d build/docs-doctrees build/docs-src $(DOCS)
	@echo "The book: $(abspath $(DOCS))/index.html (no server needed)"

docs-student: $(VENV)/.docs
	test -e $(STUDENT)/00_start_here.ipynb || $(MAKE) student
	rm -rf build/docs-student   # no page of an earlier edition stays
	$(PY) docs/generate.py $(STUDENT) build/docs-student-src
	$(PY) $(SPHINX) -d build/docs-student-doctrees build/docs-student-src build/docs-student
	@echo "The students' book: $(abspath build/docs-student)/index.html"

docs-check: $(VENV)/.docs
	$(PY) docs/check.py $(DOCS) --screenshots build/docs-check

# The course's slides (docs/syllabus.md): one reveal.js deck per week in build/slides
# (week1.html ... week6.html, index.html), made by nbconvert's SlidesExporter from the
# stored outputs of the week's notebooks as students see them (docs/slides.py says how cells
# become slides); reveal.js (from sphinx-revealjs) and MathJax are copied beside the decks,
# so they need no network. `make slides-check`: every deck in headless Chromium (reveal.js
# started, its slide count, console errors, requests leaving the machine, untypeset math).
.PHONY: slides slides-check
slides: $(VENV)/.docs
	$(PY) docs/slides.py --out build/slides

slides-check: $(VENV)/.docs
	$(PY) docs/check_slides.py build/slides --screenshots build/slides-check

# The CJK font of the figures and the book (rankkit/plot/cjk_font/README.md), remade from the
# characters of the lessons, pages and docstrings; needs Debian's fonts-noto-cjk.
.PHONY: cjk-font
cjk-font: $(VENV)/.test
	$(PY) docs/cjk_font.py

# Unit, conformance, doctests and strict nbval on every notebook, with the locked versions.
test: $(VENV)/.test
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q

# The edit loop: the library's tests and doctests without the notebooks (not collected), the
# Dask cluster, the sweeps against peers and the tests that take seconds (the markers are
# assigned in tests/conftest.py, which leaves the files deselected whole uncollected). `make
# test` runs them all. Compiled modules are kept (__pycache__) even where the environment says
# PYTHONDONTWRITEBYTECODE: pytest rewrites the asserts of every test module and of Hypothesis
# again in each run without them, a tenth of the loop's CPU time.
FAST := not notebook and not dask and not oracle and not slow
test-fast: $(VENV)/.test
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q tests rankkit -m "$(FAST)" --hypothesis-profile=fast

# pycodestyle, pyflakes, import order, bugbear and pyupgrade (pyproject.toml's [tool.ruff]).
lint: $(VENV)/.test
	$(VENV)/bin/ruff check .

# The library tests and doctests on the declared minimum versions, and every notebook
# executed there (its outputs are compared in `make test`, with the locked versions).
$(OLD)/.test: pyproject.toml $(OLDEST)
	$(PYTHON) -m venv $(OLD)
	$(OLD)/bin/python -m pip install --quiet --upgrade pip
	$(OLD)/bin/python -m pip install --quiet -c $(OLDEST) $(EDITABLE) ".[test,notebooks]"
	touch $@

test-oldest: $(OLD)/.test
	$(OLD)/bin/python -m pip list 2>/dev/null | grep -i -E '^(numpy|pandas|pyarrow|scipy|matplotlib) '
	$(OLD)/bin/python -m pytest -q tests rankkit
	$(OLD)/bin/python $(NBRUN) --output-dir build/oldest notebooks/*.ipynb

# The slim install (NumPy and array-api-compat alone, what a training loop needs): the metric
# functions and evaluate_scores work, and a name needing an extra says which (tests/slim_check.py).
SLIM ?= .venv-slim
.PHONY: test-slim
test-slim:
	rm -rf $(SLIM)
	$(PYTHON) -m venv $(SLIM)
	$(SLIM)/bin/python -m pip install --quiet -c $(LOCK) .
	$(SLIM)/bin/python -m pip list 2>/dev/null | grep -v -i -E '^(pip|setuptools) '
	cd tests && ../$(SLIM)/bin/python slim_check.py

# Restart & Run All, every notebook in place (then read the output diff before committing).
notebooks: $(VENV)/.notebooks
	$(PY) $(NBRUN) --inplace --ExecutePreprocessor.record_timing=False notebooks/*.ipynb

# Newest releases of every dependency into the lock; then `make notebooks`, read the diff.
lock:
	rm -rf .venv-lock
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/python -m pip install --quiet --upgrade pip
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 .venv-lock/bin/python -m pip install --quiet $(EDITABLE) ".[test,notebooks,docs]"
	head -2 $(LOCK) > $(LOCK).new
	.venv-lock/bin/python -m pip freeze --exclude-editable | grep -v '^rankkit' >> $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf .venv-lock
	rm -f $(VENV)/.test $(VENV)/.notebooks $(VENV)/.docs

bench: $(VENV)/.bench
	$(PY) benchmarks/bench_evaluate.py

clean:
	rm -rf $(VENV) $(OLD) $(SLIM) build

# Mutation testing of the metric kernels and the shared primitives (benchmarks/MUTATION.md):
# mutmut 3 copies the package to mutants/, makes one small change at a time in the functions
# named below, and runs on each mutant the tests of pyproject.toml's [tool.mutmut] that reach
# the changed function; a mutant that no test fails "survived". Then the score per file (it
# fails under MUTATION_MIN percent detected) and the survivors; the full log is in
# build/mutation.log. About 15 minutes on 2 cores. Then `.venv/bin/mutmut show NAME` prints a
# mutant's diff, `.venv/bin/mutmut run NAME` runs it again, `.venv/bin/mutmut browse` shows all.
.PHONY: mutation
MUTATION_MIN ?= 90
MUTATED := rankkit.ops.primitives.* rankkit.ops.pairs.* \
	$(foreach f,precision recall success average_precision reciprocal_rank fallout _top _relevant _hits \
	  _retrieved _tie_groups _ranks _expected_precisions _group_end_precisions _expected_first_relevant,\
	  rankkit.metrics.binary.x_$(f)__mutmut_*) \
	$(foreach f,auc gauc pnr pair_counts pooled_auc _ranked _rankings _pairs _mann_whitney _u_statistic _u_of_counts \
	  gauc_total _gauc_weights pnr_ratio pnr_total as_rows as_pair auc_unscored pnr_unscored,\
	  rankkit.metrics.pairwise.x_$(f)__mutmut_*) \
	$(foreach f,cumulative_gain dcg idcg ndcg rbp err _largest _linear _exp _check_exp_range _gain_function \
	  _span _top _ranked_gains _ideal_gains _discount_function _dcg _check_max_grade _query_scale _tied,\
	  rankkit.metrics.graded.x_$(f)__mutmut_*)

# The score of the mutants named by MUTATED, per file, from mutmut's records (mutants/**/*.meta):
# detected = killed (a test failed) or timed out (the mutant hangs).
define MUTATION_SCORE
import fnmatch, glob, json, sys
from collections import Counter
least, patterns = float(sys.argv[1]), sys.argv[2:]
status = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", None: "not checked",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout"}
rows, survivors = [], []
for meta in sorted(glob.glob("mutants/rankkit/**/*.py.meta", recursive=True)):
    c = Counter()
    for key, code in json.load(open(meta))["exit_code_by_key"].items():
        if any(fnmatch.fnmatchcase(key, p) for p in patterns):
            c[status.get(code, "other")] += 1
            if status.get(code, "other") not in ("killed", "timeout"):
                survivors.append(f"{key}: {status.get(code, 'other')}")
    if c:
        rows.append((meta[len("mutants/"):-len(".meta")], c))
rows.append(("overall", sum((c for _, c in rows), Counter())))
print(f"{'':30} {'detected':>20} {'killed':>7} {'timeout':>8} {'survived':>9} {'no tests':>9} {'other':>6}")
for name, c in rows:
    n, found = sum(c.values()), c["killed"] + c["timeout"]
    print(f"{name:30} {found:6} / {n:<5} {100 * found / n:5.1f}% {c['killed']:7} {c['timeout']:8} {c['survived']:9}"
          f" {c['no tests']:9} {c['not checked'] + c['other']:6}")
print("survivors (why each is harmless: benchmarks/MUTATION.md):", *survivors, sep="\n  ")
score = 100 * (c["killed"] + c["timeout"]) / max(n, 1)
sys.exit(0 if n and score >= least else f"mutation score {score:.1f}% is below {least:g}%")
endef
export MUTATION_SCORE

$(VENV)/.mutation: $(VENV)/.test
	$(PY) -m pip install --quiet -c $(LOCK) $(EDITABLE) ".[mutation]"
	touch $@

mutation: $(VENV)/.mutation
	rm -rf mutants
	mkdir -p build
	@echo "$(VENV)/bin/mutmut run <MUTATED: the kernels' functions> > build/mutation.log"
	@$(VENV)/bin/mutmut run $(foreach m,$(MUTATED),'$(m)') > build/mutation.log 2>&1 \
		|| (tail -n 40 build/mutation.log; exit 1)
	@grep -a -o "[0-9.]* mutations/second" build/mutation.log | tail -n 1
	@$(PY) -c "$$MUTATION_SCORE" $(MUTATION_MIN) $(foreach m,$(MUTATED),'$(m)')
