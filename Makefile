.PHONY: install test lint fmt typecheck bench clean

install:  ## a development install with the test tools
	pip install -e '.[test]'

test:  ## the whole suite (it runs ruff and mypy too)
	pytest

lint:
	ruff check vaultmem tests bench
	ruff format --check vaultmem tests bench

fmt:
	ruff format vaultmem tests bench
	ruff check --fix vaultmem tests bench

typecheck:
	mypy

bench:  ## figures for the README, on a 10,000-note synthetic vault
	python ../shared/bench/gen_vault.py /tmp/v10k --notes 10000
	python bench/index_bench.py /tmp/v10k --runs 5

clean:
	rm -rf .pytest_cache .mypy_cache .ruff_cache build dist *.egg-info
