"""fastrain_lib — the small library behind the fastrain course.

Each module holds one idea (see README.bn.md, "লাইব্রেরি"):
config, i18n, hardware, bench, plots, widgets, progress, authoring, ...
Importing the package is cheap: modules are imported where they are used.
"""

__version__ = "0.1.0"
