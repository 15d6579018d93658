"""lancepart: Lance Partitioned Namespaces as Spark tables.

``spark_session``/``configure`` register the catalog (``register_catalog`` adds one to a running
session; ``plugin_conf`` gives the settings that load the plugin), ``Admin`` wraps the JVM's admin operations,
``crosscheck`` compares Spark's answer with an independent pylance read (``table_uri`` gives
what pylance needs to open a table's files), ``search`` finds a table's rows nearest to a vector
(``crosscheck_search`` compares it with pylance's search), ``text_search`` those best matching a text.
"""

from lancepart.admin import Admin
from lancepart.crosscheck import CrosscheckError, crosscheck, crosscheck_search, table_uri
from lancepart.errors import LancepartError
from lancepart.jar import UnsupportedSparkError, jar_path, plugin_conf
from lancepart.packages import PackageResolutionError
from lancepart.search import search, text_search
from lancepart.session import configure, register_catalog, spark_session

__all__ = [
    "Admin",
    "CrosscheckError",
    "LancepartError",
    "PackageResolutionError",
    "UnsupportedSparkError",
    "configure",
    "crosscheck",
    "crosscheck_search",
    "jar_path",
    "plugin_conf",
    "register_catalog",
    "search",
    "spark_session",
    "table_uri",
    "text_search",
]
