"""Lesson 05's DDP worker (its cell, saved as distributed/ddp.py): identical weights on every rank,
disjoint data shards, one checkpoint writer; main() joins the group itself, started both by our
launcher (join_group=False: only torchrun's environment) and by torchrun."""

import json
import math
import os
import sys
from pathlib import Path

import pytest
import torch
from _processes import run_group

from fastrain_lib.distributed import ddp, launch
from fastrain_lib.distributed import launcher as L

TORCHRUN = Path(sys.executable).parent / "torchrun"


def _torchrun(*args: str) -> tuple[int, str]:
    """`torchrun --standalone --nproc_per_node=2 *args` from the repository root, 150 s at most; on a
    timeout torchrun and its workers are killed as a group, never left behind. (exit code, output)"""
    return run_group([str(TORCHRUN), "--standalone", "--nproc_per_node=2", *args],
                     env={**os.environ, "OMP_NUM_THREADS": "1"}, cwd=Path(__file__).resolve().parents[1], timeout_s=150)


def test_two_ranks_stay_identical_and_only_rank0_saves(tmp_path):
    path = tmp_path / "model.pt"
    cfg = ddp.make_cfg(steps=6, batch_size=16, hidden=32, data_size=256, save_path=str(path))
    r0, r1 = launch(ddp.train_worker, 2, args=(cfg,), timeout_s=120)
    assert r0["param_hashes"] == r1["param_hashes"]  # bit-identical after every step
    assert len(r0["param_hashes"]) == 6 and len(set(r0["param_hashes"])) == 6  # and they do change
    assert not set(r0["first_indices"]) & set(r1["first_indices"])  # each rank its own shard
    assert r0["global_batch"] == 32 and r0["saved"] and not r1["saved"]
    assert all(math.isfinite(x) for x in r0["losses"] + r1["losses"])
    state = torch.load(path, weights_only=True)
    assert set(state) == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}
    assert state["fc1.weight"].shape == (32, 784)
    assert L.pids_alive(L.LAST_PIDS) == []


def test_make_cfg_rejects_typos():
    with pytest.raises(ValueError, match="steps"):
        ddp.make_cfg(stpes=3)
    assert ddp.make_cfg(scale_lr=True)["scale_lr"] is True


def test_hash_sees_a_one_bit_change():
    model = torch.nn.Linear(4, 2)
    before = ddp.parameter_hash(model)
    with torch.no_grad():
        model.bias[0] = torch.nextafter(model.bias[0], torch.tensor(1e9))
    assert ddp.parameter_hash(model) != before


def test_torchrun_starts_the_same_worker(tmp_path):
    out = tmp_path / "out"
    returncode, output = _torchrun("-m", "fastrain_lib.distributed.ddp", "--steps", "4", "--batch-size", "8",
                                   "--hidden", "16", "--data-size", "128", "--out", str(out))
    assert returncode == 0, output[-3000:]
    r0 = json.loads((out / "rank0.json").read_text())
    r1 = json.loads((out / "rank1.json").read_text())
    assert r0["world_size"] == r1["world_size"] == 2
    assert r0["param_hash"] == r1["param_hash"] and r0["backend"] == "gloo"
    assert "DDP" in output


def test_a_worker_with_less_than_one_batch_per_process_says_so_instead_of_spinning():
    # 8 samples over 4 processes leave 2 per process: no full batch of 4, an empty epoch.
    # Before the check the step loop never ended (a notebook cell hung until its timeout).
    from fastrain_lib.distributed import ddp

    with pytest.raises(ValueError, match="8"):
        ddp.train_worker(0, 4, cfg={"device": "cpu", "data_size": 8, "batch_size": 4})


def test_main_joins_the_group_itself_under_the_launcher_as_under_torchrun():
    # the lesson's run: launch only sets RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; main() calls
    # init_process_group and destroy_process_group itself (the same code torchrun runs)
    cfg = ddp.make_cfg(steps=3, batch_size=16, hidden=16, data_size=128)
    r0, r1 = launch(ddp.main, 2, args=(cfg,), join_group=False, threads=1, timeout_s=120)
    assert r0["param_hashes"] == r1["param_hashes"] and r0["backend"] == "gloo"
    assert not set(r0["first_indices"]) & set(r1["first_indices"])  # each rank its own shard
    assert r0["checksum"] == r1["checksum"] and math.isfinite(r0["losses"][-1])
    assert L.pids_alive(L.LAST_PIDS) == []


def test_a_failing_main_is_surfaced_with_its_rank_and_traceback():
    # join_group=False: the error happens before main() ever joins the group; the launcher still
    # names the rank, brings its traceback back and leaves no process behind
    with pytest.raises(L.WorkerError) as caught:
        launch(ddp.main, 2, args=({"stpes": 3},), join_group=False, threads=1, timeout_s=60)
    assert caught.value.kind == "error" and "stpes" in str(caught.value)
    assert L.pids_alive(L.LAST_PIDS) == []


LEAK_PROBE = """
import os, sys
from pathlib import Path
from fastrain_lib.distributed import ddp
ddp.main({"steps": 2, "batch_size": 8, "hidden": 16, "data_size": 64, "warmup_steps": 0})
names = sorted(open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))
Path(sys.argv[1], "rank" + os.environ["RANK"]).write_text(",".join(names))  # one file each: ranks share stdout
os._exit(0)  # the same way out as ddp.py's program: Python's own shutdown could abort here too
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process's threads from /proc (Linux)")
def test_why_the_torchrun_program_leaves_with_os_exit(tmp_path):
    """ddp.py's torchrun program ends with os._exit(0) because DDP keeps the gloo group (and its threads)
    alive after destroy_process_group; at Python's own shutdown one of those threads sometimes aborted the
    process (CI: rank 0 'terminate called without an active exception' after training finished; 5 of
    about 200 runs here, three at a time on 2 cores). This test sees the threads still there; when a torch
    release frees the group, it fails, and the os._exit line (notebook 05's last #@save cell) can go."""
    probe = tmp_path / "probe.py"
    probe.write_text(LEAK_PROBE, encoding="utf-8")
    returncode, output = _torchrun(str(probe), str(tmp_path))
    assert returncode == 0, output[-3000:]
    for rank in (0, 1):
        names = (tmp_path / f"rank{rank}").read_text()
        assert "pt_gloo_runloop" in names.split(","), (
            f"rank {rank}: no gloo thread is left after ddp.main() ({names}): torch now frees the group, so the "
            "os._exit(0) at the end of fastrain_lib/distributed/ddp.py (notebook 05) is no longer needed")
