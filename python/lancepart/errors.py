"""Errors raised by lancepart's Python API."""

from __future__ import annotations

import functools

from py4j.protocol import Py4JJavaError
from pyspark.errors import PySparkException


class LancepartError(Exception):
    """An operation failed in the JVM; the message is the JVM's."""


def jvm_errors(fn):
    """Re-raise a JVM exception from ``fn`` as LancepartError carrying the JVM message (pyspark
    converts some JVM exception classes, and Spark Connect every server error, to PySparkException;
    the rest arrive as Py4JJavaError)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except PySparkException as e:
            raise LancepartError(f"{type(e).__name__}: {e}") from None
        except Py4JJavaError as e:
            java = e.java_exception
            cause, message = java, java.getMessage()
            while cause.getCause() is not None and message is None:
                cause = cause.getCause()
                message = cause.getMessage()
            raise LancepartError(f"{cause.getClass().getSimpleName()}: {message}") from None

    return wrapper
