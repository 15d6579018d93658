# Two entry points for a fresh machine (JDK 17+, Maven 3.8+, Python 3.10+; make test also npm, for Azurite):
#   make demo   builds the plugin, installs the Python package in .venv, runs demo/demo.py
#   make test   checks the Scala formatting, builds the primary Spark line's jar, the other lines' classes,
#               the Python environments and the wheel, then runs side by side the Scala tests (SCALA_TEST_LINES
#               and the primary line), the Python unit and integration tests on the primary line (with the
#               differential suite against Iceberg, whose runtime jar it fetches), the interop suites
#               (NEWEST_SUITES) again under the newest pylance, and with the wheel a slice on each other line
#               pyspark ships (LINE_SUITES on 4.2, with the wheel in a fresh environment too on 3.5;
#               LINE_SUITES_4.0_2.13 on 4.0); pytest's per-test times go to target/pytest*.xml
#               (bench/test_durations.py summarizes them)
#   make test-quick   the inner loop (a few minutes): the Scala tests, the Python unit tests and
#               QUICK_SUITES (write, read, prune, MERGE and the other row-level commands, evolution,
#               crosscheck)
#   make format formats the Scala sources (scalafmt through Maven; the rules are in .scalafmt.conf)
#   make differential-sweep   the differential suite's random part over DIFF_SEEDS seeds (default 200)
# and the benchmarks against peers (the last run: 65 minutes on 2 cores, and the search benchmark 15-25 more):
#   make bench  also fetches the Iceberg runtime, writes bench/results/ and docs/benchmarks.md; then the
#               vector search benchmark (bench/search.py, settings in SEARCH_ARGS; 15-25 minutes more)
#   make bench-quick   the 1,000-partition scans of lancepart and Iceberg (a few minutes), into target/bench-quick
#   make bench-lines   the 1,000-partition full scan and MERGE workloads on each Spark line (BENCH_LINES),
#               lancepart and Iceberg in turn, into bench/results/lines.json and docs/benchmarks.md
#   make bench-streaming   streaming appends into 100 partitions, lancepart (both transaction modes) and
#               Iceberg in turn, into bench/results/streaming.json and docs/benchmarks.md
#   make bench-maintenance   MERGE and expire_snapshots after a day of writes (500,000 rows, 100 partitions),
#               lancepart and Iceberg in turn, into bench/results/maintenance.json and docs/benchmarks.md
#   make docs   builds the documentation site (mkdocs) into target/site
#   make wheel  builds target/wheel/lancepart-*.whl: the Python package with each line's plugin classes
VENV := .venv
PY := $(VENV)/bin/python
# The Spark lines, a Maven module each (jvm/spark-<line>_<scala>), each building its plugin jar into
# target/ (`make jar`). make test builds the primary line's and runs every suite with it; it builds
# the other lines' classes (the jars the wheel carries, which lack lance-core), runs the Scala
# suites on SCALA_TEST_LINES, and installs the wheel for a slice (LINE_SUITES, or LINE_SUITES_<line>
# where set) on the lines that pyspark ships (PYSPARK_LINES: pyspark 3.5 runs Scala 2.12)
PRIMARY_LINE := 4.1_2.13
OTHER_LINES := 4.0_2.13 4.2_2.13 3.5_2.12 3.5_2.13
PYSPARK_LINES := 4.0_2.13 4.2_2.13 3.5_2.12
# 3.5_2.12 compiles the sources of Spark 3.5 with Scala 2.12, 4.0 its own LineParsing; 4.2 compiles
# what 4.1 does and 3.5_2.13 what 3.5_2.12 does, and run no Scala suite (docs/testing.md)
SCALA_TEST_LINES := 4.0_2.13 3.5_2.12
VERSION := 0.1.0-SNAPSHOT
line_jar = target/lancepart-spark-$(1)-$(VERSION).jar
JAR := $(call line_jar,$(PRIMARY_LINE))
OTHER_BUILT := target/.other-lines
OTHER_JARS := target/.other-jars
empty :=
comma := ,
# lines' modules, as Maven's -pl takes them (comma-separated)
modules = $(subst $(empty) $(empty),$(comma),$(foreach line,$(1),jvm/spark-$(line)))
OTHER_MODULES := $(call modules,$(OTHER_LINES))
SOURCES := pom.xml $(shell find jvm -type f -not -path '*/target/*')
COMPILED := target/.compiled
MVN := mvn -q -B

# bench-lines: the lines it runs on, each with its Python environment and the Iceberg runtime of
# that line (Iceberg publishes none for Spark 4.2, which runs lancepart alone; 1.12.0 none for 4.0;
# on Spark 3.5 the session extensions of 1.10 and later fail MERGE and UPDATE on other tables)
BENCH_LINES := 3.5_2.12 4.0_2.13 $(PRIMARY_LINE) 4.2_2.13
ICEBERG_3.5_2.12 := 1.9.2
ICEBERG_4.0_2.13 := 1.11.0
ICEBERG_4.1_2.13 := 1.12.0
line_iceberg_jar = $(if $(ICEBERG_$(1)),target/bench/iceberg-spark-runtime-$(1)-$(ICEBERG_$(1)).jar)
# the primary line's, which the differential suites and `make bench` run beside lancepart
ICEBERG_JAR := $(call line_iceberg_jar,$(PRIMARY_LINE))
line_python = $(if $(filter $(1),$(PRIMARY_LINE)),$(PY),.venv-spark-$(1)/bin/python)
# The Azure Blob emulator (npm) the object-store tests start, installed once per machine, outside
# the checkout as Maven's and pip's downloads are (a fresh clone would take 23 CPU s to install it)
AZURITE_VERSION := 3.37.0
AZURITE_DIR := $(HOME)/.cache/lancepart/azurite-$(AZURITE_VERSION)
AZURITE := $(AZURITE_DIR)/.installed
export LANCEPART_AZURITE := $(AZURITE_DIR)/node_modules/.bin/azurite-blob
# The package's dependency ranges (python/pyproject.toml), tested at both ends: the development
# environment holds the oldest versions, with the primary line's pyspark; the newest have an
# environment of their own, where `make test` runs the interop suites again and
# test_interop_newest_pylance.py runs its side; test_wheel.py installs the wheel with the newest
# pylance in a fresh environment
PRIMARY_PYSPARK := 4.1.3
OLDEST_PYLANCE := 7.0.0
NEWEST_PYLANCE := 14.0.2
OLDEST_DEPS := pylance==$(OLDEST_PYLANCE) pyarrow==18.1.0 tqdm==4.66.0
NEWEST_DEPS := pylance==$(NEWEST_PYLANCE) pyarrow==26.0.1 tqdm==4.70.1
NEWEST_VENV := .venv-newest-pylance
# where an environment of python3 keeps its packages
SITE_PACKAGES := $(shell python3 -c 'import sys; print("lib/python%d.%d/site-packages" % sys.version_info[:2])')
# The suites `make test` runs again under the newest pylance: those where pylance writes tables
# Spark reads, reads what Spark wrote, or crosschecks Spark's answers (the rest run once)
NEWEST_SUITES := test_interop.py test_arrow_types.py test_plain_tables.py test_foreign_rewrite.py \
	test_metadata.py test_write_read.py test_errors.py test_evolution.py test_transforms.py
# The core slice `make test` runs on 3.5 and 4.2, the ends of the range of pyspark the package
# takes, each in an environment holding its pyspark: writes and reads, pruning, DELETE/UPDATE/MERGE,
# evolution, storage-partitioned joins, Arrow types (tables pylance wrote among them, crosscheck),
# the catalog and the session catalog (it leans on Spark's own commands), each slice's sessions
# with the wheel and the jars lancepart.packages resolves for its line; on 3.5 also the wheel
# installed into a fresh environment over that pyspark, its first and second session
# (test_wheel.py runs nowhere else: 65 CPU s a line, and the 4.2 slice's sessions already take
# 4.x's resolved jars from the cache). The interop suites' pylance side is the same on every line
# (test_interop.py runs on the primary line, twice)
LINE_SUITES := test_write_read.py test_pruning.py test_row_level.py test_evolution.py test_spj.py \
	test_arrow_types.py test_catalog.py test_session_catalog.py test_running_session.py
LINE_SUITES_3.5_2.12 := $(LINE_SUITES) test_wheel.py
# 4.0 compiles the shared sources and scala-spark4 as 4.1 and 4.2 do (only its LineParsing,
# scala-spark4.0, is its own), and its Scala suites drive them through Spark 4.0: its slice is
# what only its plugin jar in a pyspark session shows, Spark 4.0's Arrow vectors
# (18.1.0) beside lance-core's C data bridge (18.3.0) in writes and reads of every type
LINE_SUITES_4.0_2.13 := test_write_read.py test_arrow_types.py
PYSPARK_3.5_2.12 := 3.5.9
PYSPARK_4.0_2.13 := 4.0.5
PYSPARK_4.2_2.13 := 4.2.1
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

.PHONY: demo test test-quick pytest-first-pass pytest-newest-pass pytest-lines pytest-quick scala-tests scala-tests-lines format differential-sweep jar wheel bench bench-quick bench-lines bench-streaming bench-maintenance docs

demo: $(VENV)/.installed $(JAR)
	$(PY) demo/demo.py

# The formatting check, then the suites side by side once the jar is built (make -j 3; their output
# interleaves): the Scala tests and the newest-pylance pass beside the first pass, instead of before
# and after it
test:
	$(MVN) -N spotless:check
	$(MAKE) --no-print-directory -j 3 scala-tests scala-tests-lines pytest-first-pass pytest-newest-pass pytest-lines

test-quick:
	$(MVN) -N spotless:check
	$(MAKE) --no-print-directory -j 3 scala-tests pytest-quick

# Every suite but the wheel's (it needs every line's jar; the 3.5 slice runs it): the first
# pass starts once the primary line's is built, beside the other lines' build
pytest-first-pass: $(VENV)/.installed $(JAR) $(ICEBERG_JAR) $(AZURITE)
	LANCEPART_TEST_LONG_RUN=1 $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_WORKERS) --durations=25 \
		-o junit_family=xunit1 --junitxml=target/pytest.xml --ignore=integration-tests/test_wheel.py \
		python/tests integration-tests

pytest-newest-pass: $(NEWEST_VENV)/.installed $(JAR) $(ICEBERG_JAR)
	$(NEWEST_VENV)/bin/python -m pytest -q -p no:cacheprovider \
		-o junit_family=xunit1 --junitxml=target/pytest-newest.xml python/tests $(addprefix integration-tests/,$(NEWEST_SUITES))

pytest-lines: $(foreach line,$(PYSPARK_LINES),pytest-line-$(line))

pytest-line-%: .venv-spark-%/.installed wheel $(NEWEST_VENV)/.installed
	$(call install_wheel,$*)
	.venv-spark-$*/bin/python -m pytest -q -p no:cacheprovider \
		-o junit_family=xunit1 --junitxml=target/pytest-spark-$*.xml \
		$(addprefix integration-tests/,$(or $(LINE_SUITES_$*),$(LINE_SUITES)))

pytest-quick: $(VENV)/.installed $(JAR)
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_WORKERS) python/tests $(addprefix integration-tests/,$(QUICK_SUITES))

scala-tests: $(COMPILED)
	$(MVN) -pl jvm/spark-$(PRIMARY_LINE) scalatest:test

format:
	$(MVN) -N spotless:apply

differential-sweep: $(VENV)/.installed $(JAR) $(ICEBERG_JAR)
	LANCEPART_DIFF_SEEDS=$(DIFF_SEEDS) $(PY) -m pytest -q -p no:cacheprovider \
		integration-tests/test_differential_iceberg.py -k test_random_tables_same_as_iceberg

jar: $(JAR) $(OTHER_JARS)

# The package is staged under target/ so that the checkout's own package (installed editable
# in .venv) keeps using the jar Maven builds, which carries lance-core.
wheel: $(VENV)/.installed $(JAR) $(OTHER_BUILT)
	rm -rf target/wheel-src target/wheel
	cp -r python target/wheel-src
	rm -rf target/wheel-src/build target/wheel-src/*.egg-info
	mkdir -p target/wheel-src/lancepart/jars
	cp $(foreach line,$(PRIMARY_LINE) $(PYSPARK_LINES),jvm/spark-$(line)/target/lancepart-spark-$(line)-$(VERSION).jar) \
		target/wheel-src/lancepart/jars/
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

# The lines one after another (a Spark session each; the first to fail stops it), the other lines
# with the wheel as the slices of make test; BENCH_LINES_ARGS goes to each (bench/lines.py --help:
# bench-quick's 2,000,000 rows, 3 repeats)
bench-lines: $(VENV)/.installed $(foreach line,$(PYSPARK_LINES),.venv-spark-$(line)/.installed) $(JAR) wheel \
		$(foreach line,$(BENCH_LINES),$(call line_iceberg_jar,$(line)))
	$(foreach line,$(PYSPARK_LINES),$(call install_wheel,$(line)) &&) true
	$(foreach line,$(BENCH_LINES),$(call line_python,$(line)) bench/lines.py \
		$(addprefix --iceberg-jar ,$(call line_iceberg_jar,$(line))) $(BENCH_LINES_ARGS) &&) true

# Streaming appends (bench/streaming.py --help), lancepart and Iceberg in turn on the primary line
bench-streaming: $(VENV)/.installed $(JAR) $(ICEBERG_JAR)
	$(PY) bench/streaming.py --iceberg-jar $(ICEBERG_JAR) $(BENCH_STREAMING_ARGS)

# MERGE and expire_snapshots after a day of writes (bench/maintenance.py --help), in turn on the primary line
bench-maintenance: $(VENV)/.installed $(JAR) $(ICEBERG_JAR)
	$(PY) bench/maintenance.py --iceberg-jar $(ICEBERG_JAR) $(BENCH_MAINTENANCE_ARGS)

# A line's Iceberg runtime; the stem is <line>-<version>
# Azurite, the Azure Blob emulator the object-store tests start as a local process when no Docker
# engine answers (integration-tests/azure_server.py), from the npm registry
$(AZURITE):
	npm install --prefix $(AZURITE_DIR) --no-audit --no-fund --loglevel=error azurite@$(AZURITE_VERSION)
	touch $@

target/bench/iceberg-spark-runtime-%.jar: | $(COMPILED)
	$(MVN) -N dependency:copy -Dartifact=org.apache.iceberg:iceberg-spark-runtime-$(subst -,:,$*) -DoutputDirectory=target/bench

# An environment layered on the development environment: its own site-packages holds $(2), and adds
# the development environment's as a site directory after its own, so the test dependencies and pip
# are the same ones, and the package too unless the environment installs a wheel of its own (the
# other lines' slices: install_wheel); pip leaves the development environment's packages alone
# ("outside environment"). 3 s instead of 30 for a copy.
define layered_environment
	rm -rf $(1)
	python3 -m venv --without-pip $(1)
	echo "import site; site.addsitedir('$(CURDIR)/$(VENV)/$(SITE_PACKAGES)')" \
		> $(1)/$(SITE_PACKAGES)/development-environment.pth
	$(1)/bin/python -m pip install -q --no-compile $(2)
	touch $(1)/.installed
endef

# The newest versions of the package's dependencies (and the lance-namespace that pylance needs)
$(NEWEST_VENV)/.installed: python/pyproject.toml Makefile $(VENV)/.installed
	$(call layered_environment,$(NEWEST_VENV),$(NEWEST_DEPS))

# The wheel into line $(1)'s environment, over the checkout's package (editable in .venv): the slice
# and bench-lines run the line's jar as pip users have it, with lance-core from Maven (lancepart.packages)
install_wheel = .venv-spark-$(1)/bin/python -m pip install -q --no-deps --no-compile --force-reinstall target/wheel/lancepart-*.whl

# Each other Spark line's pyspark (kept: make would delete it as an intermediate file)
.PRECIOUS: .venv-spark-%/.installed
.venv-spark-%/.installed: python/pyproject.toml Makefile $(VENV)/.installed
	$(call layered_environment,.venv-spark-$*,pyspark==$(PYSPARK_$*))

$(VENV)/.installed-bench: $(VENV)/.installed
	$(PY) -m pip install -q -e 'python[bench]'
	touch $@

# Maven's JVMs take the client compiler alone and the serial collector (.mvn/jvm.config): the build
# took 96 CPU s instead of 174 (docs/testing.md); and a 240 MB code cache, which a Maven run that
# compiles several lines fills at the client compiler's default 48 MB.
# The classes and test classes, and every plugin of the build in the local repository: the Maven
# runs after it (the jar, the Scala tests, the Iceberg jar) then go side by side without two of them
# downloading into the same files of the local repository
$(COMPILED): $(SOURCES)
	mkdir -p target
	$(MVN) -pl jvm/spark-$(PRIMARY_LINE) test-compile dependency:resolve-plugins
	touch $@

# The shade step deflates lance-core's native libraries, 500 MB, for about 20 s on one core (the
# Scala tests run beside it)
$(JAR): $(COMPILED)
	$(MVN) -pl jvm/spark-$(PRIMARY_LINE) package -DskipTests

# The other lines' classes and their jars without lance-core (what the wheel carries), in one Maven
# run after the primary line's (which resolved the plugins): their shaded jars (OTHER_JARS) deflate
# lance-core's native libraries, about 34 CPU seconds each
$(OTHER_BUILT): $(SOURCES) | $(JAR)
	$(MVN) -pl $(OTHER_MODULES) compile jar:jar
	touch $@

$(OTHER_JARS): $(SOURCES) | $(OTHER_BUILT)
	$(MVN) -pl $(OTHER_MODULES) package -DskipTests
	touch $@

# The Scala suites on SCALA_TEST_LINES
scala-tests-lines: $(OTHER_BUILT)
	$(MVN) -pl $(call modules,$(SCALA_TEST_LINES)) test-compile scalatest:test

# --no-compile: Python compiles each module when first imported instead (an environment took 34 s
# instead of 48 s to make)
$(VENV)/.installed: python/pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --no-compile -e 'python[test]' pyspark[connect]==$(PRIMARY_PYSPARK) $(OLDEST_DEPS)
	touch $@
