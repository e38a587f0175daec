"""Only one thing lives here; everything else is in pyproject.toml.

reference/ (results that the benchmark scripts measured on named hardware) sits at the top of the
repository, outside the package, where the benchmarks write it and contributors find it. An installed
course (Colab: pip install "fastrain_lib @ git+...") must show those results too (issue 25), so
building the wheel copies them into the package as fastrain_lib/reference_runs/, which
config.reference_dir() reads when there is no checkout. An editable install (make install) reads
reference/ in place and copies nothing.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

REFERENCE = Path(__file__).resolve().parent / "reference"
SHIPPED = ("*.json", "README.md")  # results and how to read them; the .log files stay in the repository


class BuildPyWithReference(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False) or not REFERENCE.is_dir():
            return
        target = Path(self.build_lib) / "fastrain_lib" / "reference_runs"
        target.mkdir(parents=True, exist_ok=True)
        for pattern in SHIPPED:
            for path in sorted(REFERENCE.glob(pattern)):
                shutil.copy2(path, target / path.name)


setup(cmdclass={"build_py": BuildPyWithReference})
