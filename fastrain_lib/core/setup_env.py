"""Temporary: the setup cell moved to fastrain_lib/setup_env.py (issue 37); removed once every notebook imports it from there."""
from fastrain_lib.setup_env import *  # noqa: F401,F403
from fastrain_lib.setup_env import prepare  # noqa: F401
