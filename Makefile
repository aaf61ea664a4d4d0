# The two commands: `make demo` and `make test`. Each sets up .venv on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
OUT    ?= build/notebooks

.PHONY: demo test bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.notebooks: $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[notebooks]"
	touch $@

$(VENV)/.test: $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

$(VENV)/.bench: $(VENV)/.test
	$(PY) -m pip install --quiet -e ".[bench]"
	touch $@

demo: $(VENV)/.notebooks
	$(PY) -m jupyter nbconvert --log-level=ERROR --to html --execute --output-dir $(OUT) notebooks/*.ipynb
	$(PY) -m rankkit evaluate data/example.qrels data/example.run -m nDCG@10 -m AP -m RR -m P@10 -m R@100
	@echo
	@echo "Rendered notebooks: $(abspath $(OUT))"

test: $(VENV)/.test
	$(PY) -m pytest -q

bench: $(VENV)/.bench
	$(PY) benchmarks/bench_evaluate.py

clean:
	rm -rf $(VENV) build
