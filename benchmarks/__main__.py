"""`python -m benchmarks`: see benchmarks/__init__.py."""

import sys

from .suite import main

sys.exit(main())
