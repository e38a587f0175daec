"""The multi-process checks on a PC whose only start method is spawn (Windows, issue 41).

check_ranks.run asked for "forkserver" by name, so on Windows every check of lessons 05 and 05c (scatter-reduce,
average_gradients, train_ddp, the column/row MLP) said ❌ "could not make sense of your answer (ValueError:
cannot find context for 'forkserver')" to a correct answer. Run here in a fresh Python with spawn as the only
start method (tests/fakewindows), on a worker module of its own (spawn imports the worker by name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WORKER = '''
import torch
import torch.distributed as dist


def total(rank, world_size):
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    return [rank, world_size, t.item()]
'''

MAIN = '''
import json, multiprocessing
import probe_worker
from fastrain_lib.lessons import check_ranks
try:
    print(json.dumps({"methods": multiprocessing.get_all_start_methods(), "results": check_ranks.run(probe_worker.total, 3)}))
finally:
    check_ranks.shutdown()
'''


@pytest.mark.slow
def test_check_ranks_runs_where_spawn_is_the_only_start_method(tmp_path):
    (tmp_path / "probe_worker.py").write_text(WORKER, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "fakewindows"), str(tmp_path)]),
           "FAKEWINDOWS": "spawn", "FASTRAIN_MODE": "ci"}
    done = subprocess.run([sys.executable, "-c", MAIN], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["methods"] == ["spawn"]
    assert found["results"] == [[0, 3, 6.0], [1, 3, 6.0], [2, 3, 6.0]]
