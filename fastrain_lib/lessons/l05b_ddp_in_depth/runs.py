"""Lesson 05b's runs: the workloads by run mode and every measurement in real processes (or the
threads of one), cached per setting so that the panel and the notebook's cells share one run."""

from __future__ import annotations

from fastrain_lib.core import config
from fastrain_lib.distributed import WorkerError, cost_model, dataparallel, measured, overlap, ring
from fastrain_lib.lessons.l05b_ddp_in_depth import saved
from fastrain_lib.core.i18n import t
from fastrain_lib.measure import hardware, noise, reference, rerun


# ---------------------------------------------------------------- sizes by run mode


def compare_cfg(**overrides) -> dict:
    """The DataParallel-vs-DDP workload for this run mode (an MLP, one global batch)."""
    base = {"width": config.by_mode(ci=128, lab=512), "depth": 4, "batch": config.by_mode(ci=128, lab=512),
            "replicas": 2, "steps": config.by_mode(ci=8, lab=12), "warmup": 2}
    return dataparallel.make_cfg(**{**base, **overrides})


def overlap_cfg(**overrides) -> dict:
    base = {"width": config.by_mode(ci=256, lab=512), "depth": config.by_mode(ci=4, lab=8),
            "batch": config.by_mode(ci=32, lab=64), "steps": config.by_mode(ci=3, lab=8), "warmup": 1,
            "bucket_caps_mb": config.by_mode(ci=[0.1, 25.0], lab=[0.25, 1.0, 4.0, 25.0, 1000.0]),
            "micro_batches": 4}
    return overlap.make_cfg(**{**base, **overrides})


def allreduce_sizes() -> list[int]:
    """Message sizes for the α–β fit (bytes): 4 KB to 16 MB (ci: to 4 MB)."""
    return config.by_mode(ci=[4_096, 65_536, 1_048_576, 4_194_304],
                          lab=[4_096, 32_768, 262_144, 1_048_576, 4_194_304, 16_777_216])


def held_out_size() -> int:
    """A size between the measured ones, left out of the fit to test its prediction."""
    return config.by_mode(ci=262_144, lab=2_097_152)


# ---------------------------------------------------------------- cached runs

_CACHE: dict[tuple, object] = {}
_MADE_IN: dict[tuple, tuple | None] = {}  # (cell source, execution count) of the cell that measured each run
_RERUN: set[tuple] = set()               # runs measured a second time (one rerun each, then the result stays)


def _cell_now() -> tuple | None:
    """(source, execution count) of the notebook cell running now (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    inputs = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    return (inputs[-1], getattr(shell, "execution_count", None)) if inputs else None


def has_noisy(value) -> bool:
    """Whether a cached run (a result dict, rank dicts, or a tuple with noise information) was noisy."""
    if isinstance(value, dict):
        return noise.is_noisy(value) or noise.is_noisy(value.get("noise"))
    if isinstance(value, (list, tuple)):
        return any(has_noisy(v) for v in value if isinstance(v, (dict, list, tuple)))
    return False


def _cached(key: tuple, make, cores_needed: int = 1):
    """The run for `key`, measured once and shared (the panel and the notebook's cells). A noisy run
    asked for again by the cell that measured it (the student ran the cell once more, as its verdict
    offered) is measured once more when `cores_needed` cores are free (rerun.cores_ready: it waits for
    them, and says why nothing is measured when they stay taken; the student may then try again)."""
    cell, made = _cell_now(), _MADE_IN.get(key)
    again = (key in _CACHE and key not in _RERUN and cell is not None and made is not None
             and made[0] == cell[0] and made[1] != cell[1] and has_noisy(_CACHE[key]))  # the same cell, run again
    if again:
        again = rerun.cores_ready(cores_needed)
        if again:
            _RERUN.add(key)
    if key not in _CACHE or again:
        _CACHE[key] = make()
        _MADE_IN[key] = cell
    return _CACHE[key]


def measured_once(name: str, cfg: dict, processes: int, launch_it):
    """A measurement the notebook's cell starts itself (launch_it(): measured.launch's (results, noise)), kept
    per cfg as the runs above are: the same cell run again after a noisy run measures anew, once, after
    waiting for `processes` free cores (what the verdict's offer says)."""
    return _cached((name,) + _key(cfg), launch_it, processes)


def _launch(fn, processes: int, **kwargs) -> list[dict]:
    """launch() inside a noise window; every rank's result dict carries the run's noise verdict."""
    results, info = measured.launch(fn, processes, **kwargs)
    for r in results:
        r["noise"] = info
    return results


def noise_of(results) -> dict:
    """The noise information a run's results carry (a dict, or a list of rank dicts): the noisiest."""
    items = results if isinstance(results, list) else [results]
    infos = [r.get("noise") or {} for r in items if isinstance(r, dict)]
    return next((i for i in infos if noise.is_noisy(i)), infos[0] if infos else {})


def _key(cfg: dict) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in cfg.items()))


def dp_run(cfg: dict) -> dict:
    """DataParallel (one process; real nn.DataParallel on >= 2 GPUs, threads otherwise) and the
    two one-device baselines, in a fresh process with one torch thread per op."""
    key = _key({k: v for k, v in cfg.items() if k != "bucket_cap_mb"})  # DataParallel has no buckets
    return _cached(("dp",) + key, lambda: _launch(dataparallel.dp_worker, 1, args=(cfg,), threads=1,
                                                 cores_used=cfg["replicas"],
                                                 timeout_s=300)[0], cfg["replicas"])


def ddp_run(cfg: dict) -> list[dict]:
    """DDP with cfg['replicas'] processes on the same model and global batch (one thread each)."""
    on_gpu = dataparallel.plan(cfg["replicas"], dataparallel.facts_here()).kind == "torch"
    return _cached(("ddp",) + _key(cfg), lambda: _launch(saved.ddp_worker, cfg["replicas"], args=(cfg,),
                                                        threads=1, timeout_s=300, tensors_on_cuda=on_gpu), cfg["replicas"])


def _allreduce_run(processes: int) -> tuple[list[tuple[int, float]], dict]:
    """(points, noise information): measured (bytes, seconds) of all-reduces on `processes` real
    processes, the fit's sizes and the held-out one, in one launch (cached)."""
    sizes = sorted(set(allreduce_sizes()) | {held_out_size()})

    def run():
        with noise.Window() as window:
            points = cost_model.measure_allreduce(processes, sizes, repeats=config.by_mode(ci=5, lab=9))
        return points, window.assess(threads=processes)
    return _cached(("allreduce", processes, tuple(sizes)), run, processes)


def allreduce_points(processes: int) -> list[tuple[int, float]]:
    return _allreduce_run(processes)[0]


def allreduce_noise(processes: int) -> dict:
    """The noise information of the all-reduce run behind fit_for(processes)."""
    return _allreduce_run(processes)[1]


def fit_for(processes: int) -> cost_model.Fit:
    """α and β fitted on every measured size except the held-out one."""
    held = held_out_size()
    return cost_model.fit([pt for pt in allreduce_points(processes) if pt[0] != held], processes)


def reference_fits(folder=None) -> list[tuple]:
    """Rows for the α–β table from reference/: the suite's allreduce family (benchmarks/allreduce.py), measured
    quietly on named hardware with this lesson's fit, one row per run and process count, in the table's columns
    (p with the run's label, α µs, 1/β GB/s, max fit error, noise verdict). On a busy PC, whose own rows are
    noisy, these are the numbers a student can still reason with; none while reference/ has no such run."""
    rows = []
    for run in reference.runs(folder, family="allreduce"):
        for r in run.records:
            m, gbs = r.metrics, r.metrics.get("bandwidth_gbs")
            rows.append((t("reference.row", what=r.params.get("processes", "?"), run=run.label),
                         f"{m['alpha_s'] * 1e6:.1f}", "∞" if gbs is None else f"{gbs:.2f}", f"{m['max_fit_error']:.0%}",
                         t("noise.noisy_word") if r.noisy else t("noise.quiet_word")))
    return rows


def held_out_point(processes: int) -> tuple[int, float]:
    held = held_out_size()
    return next(pt for pt in allreduce_points(processes) if pt[0] == held)


def _zero_job(cfg: dict) -> tuple[tuple, dict]:
    """(cache key, lesson 05c's zero cfg) for the same MLP, global batch and steps as `cfg`."""
    zcfg = {"width": cfg["width"], "depth": cfg["depth"], "batch": cfg["batch"], "seed": cfg["seed"], "lr": cfg["lr"],
            "steps": config.by_mode(ci=4, lab=cfg["steps"] + 1)}  # ci: 2 timed steps (FSDP's are slow on a CPU)
    return ("zero",) + _key({**zcfg, "p": cfg["replicas"]}), zcfg


def zero_rows(cfg: dict) -> tuple[list[dict], str | None]:
    """(rows, None): ZeRO-1/2/3 and DDP measured by lesson 05c's fastrain_lib.distributed.zero on the same
    MLP and global batch; ([], the error) where its worker failed: the rank's own last traceback line."""
    from fastrain_lib.distributed import zero

    key, zcfg = _zero_job(cfg)
    on_cuda = hardware.gpu_per_process(cfg["replicas"], hardware.node_facts())
    try:  # every rank returns a list (one dict per strategy), so the noise stays beside the results
        results, _ = _cached(key, lambda: measured.launch(zero.zero_worker, cfg["replicas"], threads=1,
                                                          args=(("ddp", "zero1", "zero2", "zero3"), zcfg),
                                                          timeout_s=300, tensors_on_cuda=on_cuda), cfg["replicas"])
        return zero.table(results), None
    except WorkerError as exc:  # the rank's own exception (its traceback's last line), else the launcher's sentence
        lines = (exc.tracebacks.get(exc.rank) or str(exc)).strip().splitlines()
        return [], (lines[-1] if exc.tracebacks.get(exc.rank) else lines[0])
    except (AttributeError, TypeError, KeyError) as exc:  # lesson 05c's table changed its shape
        return [], f"{type(exc).__name__}: {exc}"


def zero_noise(cfg: dict) -> dict:
    """The noise information of zero_rows(cfg)'s run ({} where there was none)."""
    return _CACHE.get(_zero_job(cfg)[0], (None, {}))[1]


def comm_run(processes: int, nbytes: int) -> list[dict]:
    """gloo's all-reduce, lesson 05's Python ring and its central parameter server (ring.compare_worker),
    each timed on a tensor of `nbytes` in `processes` real processes (cached)."""
    numel = max(1, int(nbytes) // cost_model.FLOAT_BYTES)
    return _cached(("ring", processes, numel),
                   lambda: _launch(ring.compare_worker, processes, args=([numel], config.by_mode(ci=5, lab=9)),
                                   threads=1, timeout_s=300), processes)
