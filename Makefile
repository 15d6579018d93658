# Two entry points for a fresh machine (JDK 17+, Maven 3.8+, Python 3.10+):
#   make demo   builds the plugin, installs the Python package in .venv, runs demo/demo.py
#   make test   builds, runs the Scala tests, then the Python unit and integration tests
VENV := .venv
PY := $(VENV)/bin/python
JAR := target/lancepart-spark-4.1_2.13-0.1.0-SNAPSHOT.jar
SOURCES := pom.xml $(shell find jvm -name '*.scala')
MVN := mvn -q -B

.PHONY: demo test jar

demo: $(VENV)/.installed $(JAR)
	$(PY) demo/demo.py

test: $(VENV)/.installed
	$(MVN) package
	$(PY) -m pytest -q -p no:cacheprovider python/tests integration-tests

jar: $(JAR)

$(JAR): $(SOURCES)
	$(MVN) package -DskipTests

$(VENV)/.installed: python/pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -e 'python[test]'
	touch $@
