"""`python -m fastrain_lib lab` (and test, demo, bench, gpu-check): the course's commands without make."""

import sys

from fastrain_lib.cli.main import main

sys.exit(main())
