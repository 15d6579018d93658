# Two entry points for a fresh machine (JDK 17+, Maven 3.8+, Python 3.10+):
#   make demo   builds the plugin, installs the Python package in .venv, runs demo/demo.py
#   make test   checks the Scala formatting, builds the jar, the Python environments and the wheel, then
#               runs side by side the Scala tests, the Python unit and integration tests (with the
#               differential suite against Iceberg, whose runtime jar it fetches, and the wheel installed
#               into a fresh environment) and the interop suites (NEWEST_SUITES) again under the newest
#               pylance; pytest's per-test times go to target/pytest*.xml (bench/test_durations.py
#               summarizes them)
#   make test-quick   the inner loop (a few minutes): the Scala tests, the Python unit tests and
#               QUICK_SUITES (write, read, prune, MERGE and the other row-level commands, evolution,
#               crosscheck)
#   make format formats the Scala sources (scalafmt through Maven; the rules are in .scalafmt.conf)
#   make differential-sweep   the differential suite's random part over DIFF_SEEDS seeds (default 200)
# and the benchmarks against peers (the last run: 65 minutes on 2 cores, and the search benchmark 15-25 more):
#   make bench  also fetches the Iceberg runtime, writes bench/results/ and docs/benchmarks.md; then the
#               vector search benchmark (bench/search.py, settings in SEARCH_ARGS; 15-25 minutes more)
#   make bench-quick   the 1,000-partition scans of lancepart and Iceberg (a few minutes), into target/bench-quick
#   make docs   builds the documentation site (mkdocs) into target/site
#   make wheel  builds target/wheel/lancepart-*.whl: the Python package with the plugin's classes
VENV := .venv
PY := $(VENV)/bin/python
JAR := target/lancepart-spark-4.1_2.13-0.1.0-SNAPSHOT.jar
SOURCES := pom.xml $(shell find jvm -type f)
COMPILED := target/.compiled
MVN := mvn -q -B

ICEBERG_JAR := target/bench/iceberg-spark-runtime-4.1_2.13-1.12.0.jar
# The package takes pylance 7 to 14: the development environment has the oldest; the newest has an
# environment of its own, where `make test` runs the interop suites again and
# test_interop_newest_pylance.py runs its side; test_wheel.py installs the wheel with it in a fresh
# environment
OLDEST_PYLANCE := 7.0.0
NEWEST_PYLANCE := 14.0.2
NEWEST_VENV := .venv-newest-pylance
# where an environment of python3 keeps its packages
SITE_PACKAGES := $(shell python3 -c 'import sys; print("lib/python%d.%d/site-packages" % sys.version_info[:2])')
# The suites `make test` runs again under the newest pylance: those where pylance writes tables
# Spark reads, reads what Spark wrote, or crosschecks Spark's answers (the rest run once)
NEWEST_SUITES := test_interop.py test_arrow_types.py test_plain_tables.py test_foreign_rewrite.py \
	test_catalog.py test_metadata.py test_write_read.py test_errors.py test_evolution.py test_transforms.py
# The end-to-end slice `make test-quick` runs
QUICK_SUITES := test_write_read.py test_pruning.py test_row_level.py test_evolution.py test_schema_evolution.py \
	test_interop.py
DIFF_SEEDS := 200
# Two pytest workers, each with its own Spark session, one test module at a time, the slowest
# modules first (integration-tests/conftest.py orders them): on 2 cores the first pass takes 1.3x
# less time than with one; the newest-pylance pass, about a minute, takes less with one
# (docs/testing.md)
PYTEST_WORKERS := -n 2 --dist loadfile --no-loadscope-reorder
# LANCEPART_TEST_LONG_RUN=1 on make test's first pass (integration-tests/jvm_options.py): every
# JVM maps an archive of the classes of a Spark session with the plugin

.PHONY: demo test test-quick pytest-first-pass pytest-newest-pass pytest-quick scala-tests format differential-sweep jar wheel bench bench-quick docs

demo: $(VENV)/.installed $(JAR)
	$(PY) demo/demo.py

# The formatting check, then the suites side by side once the jar is built (make -j 3; their output
# interleaves): the Scala tests and the newest-pylance pass beside the first pass, instead of before
# and after it
test:
	$(MVN) spotless:check
	$(MAKE) --no-print-directory -j 3 scala-tests pytest-first-pass pytest-newest-pass

test-quick:
	$(MVN) spotless:check
	$(MAKE) --no-print-directory -j 3 scala-tests pytest-quick

pytest-first-pass: $(VENV)/.installed $(JAR) $(ICEBERG_JAR) wheel
	LANCEPART_TEST_LONG_RUN=1 $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_WORKERS) --durations=25 \
		-o junit_family=xunit1 --junitxml=target/pytest.xml python/tests integration-tests

pytest-newest-pass: $(NEWEST_VENV)/.installed $(JAR) $(ICEBERG_JAR)
	$(NEWEST_VENV)/bin/python -m pytest -q -p no:cacheprovider \
		-o junit_family=xunit1 --junitxml=target/pytest-newest.xml python/tests $(addprefix integration-tests/,$(NEWEST_SUITES))

pytest-quick: $(VENV)/.installed $(JAR)
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_WORKERS) python/tests $(addprefix integration-tests/,$(QUICK_SUITES))

scala-tests: $(COMPILED)
	$(MVN) scalatest:test

format:
	$(MVN) spotless:apply

differential-sweep: $(VENV)/.installed $(JAR) $(ICEBERG_JAR)
	LANCEPART_DIFF_SEEDS=$(DIFF_SEEDS) $(PY) -m pytest -q -p no:cacheprovider \
		integration-tests/test_differential_iceberg.py -k test_random_tables_same_as_iceberg

jar: $(JAR)

# The package is staged under target/ so that the checkout's own package (installed editable
# in .venv) keeps using the jar Maven builds, which carries lance-core.
wheel: $(VENV)/.installed $(JAR)
	rm -rf target/wheel-src target/wheel
	cp -r python target/wheel-src
	rm -rf target/wheel-src/build target/wheel-src/*.egg-info
	mkdir -p target/wheel-src/lancepart/jars
	cp target/original-$(notdir $(JAR)) target/wheel-src/lancepart/jars/$(notdir $(JAR))
	$(PY) -m pip wheel -q --no-deps -w target/wheel target/wheel-src

docs: $(VENV)/.installed
	$(PY) -m mkdocs build --strict

bench: $(VENV)/.installed-bench $(JAR) $(ICEBERG_JAR)
	$(PY) bench/run.py --iceberg-jar $(ICEBERG_JAR) $(BENCH_ARGS)
	$(PY) bench/search.py $(SEARCH_ARGS)

bench-quick: $(VENV)/.installed-bench $(JAR) $(ICEBERG_JAR)
	$(PY) bench/run.py --iceberg-jar $(ICEBERG_JAR) --output target/bench-quick --variants 1000 --rows 2000000 \
		--planning-sizes '' --join-rows 0 --no-merge --compaction-partitions 0 \
		--systems lancepart,iceberg $(BENCH_ARGS)

$(ICEBERG_JAR): | $(COMPILED)
	$(MVN) dependency:copy -Dartifact=org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0 -DoutputDirectory=target/bench

# The newest pylance's environment is the development environment with that pylance (and the
# lance-namespace it needs) in front: its site-packages adds the development environment's as a site
# directory after its own, so the package, the test dependencies and pip are the same ones; pip leaves
# the development environment's pylance alone ("outside environment"). 3 s instead of 30 for a copy.
$(NEWEST_VENV)/.installed: python/pyproject.toml $(VENV)/.installed
	rm -rf $(NEWEST_VENV)
	python3 -m venv --without-pip $(NEWEST_VENV)
	echo "import site; site.addsitedir('$(CURDIR)/$(VENV)/$(SITE_PACKAGES)')" \
		> $(NEWEST_VENV)/$(SITE_PACKAGES)/development-environment.pth
	$(NEWEST_VENV)/bin/python -m pip install -q --no-compile pylance==$(NEWEST_PYLANCE)
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed
	$(PY) -m pip install -q -e 'python[bench]'
	touch $@

# Maven's JVMs take the client compiler alone and the serial collector (.mvn/jvm.config): the build
# took 96 CPU s instead of 174 (docs/testing.md).
# The classes and test classes, and every plugin of the build in the local repository: the Maven
# runs after it (the jar, the Scala tests, the Iceberg jar) then go side by side without two of them
# downloading into the same files of the local repository
$(COMPILED): $(SOURCES)
	$(MVN) test-compile dependency:resolve-plugins
	touch $@

# The shade step deflates lance-core's native libraries, 500 MB, for about 20 s on one core (the
# Scala tests run beside it)
$(JAR): $(COMPILED)
	$(MVN) package -DskipTests

# --no-compile: Python compiles each module when first imported instead (an environment took 34 s
# instead of 48 s to make)
$(VENV)/.installed: python/pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --no-compile -e 'python[test]' pylance==$(OLDEST_PYLANCE)
	touch $@
