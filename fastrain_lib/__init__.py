"""fastrain_lib — the small library behind the fastrain course.

One folder per lesson (lessons/lNN_<topic>/) and one per topic (core, measure, ui, fused,
precision, distributed, async_sgd), one idea per module, imports pointing down only.
docs/architecture.md has the tree, the direction of the arrows and where a new lesson's parts go.
Importing the package is cheap: modules are imported where they are used.
"""

__version__ = "0.1.0"
