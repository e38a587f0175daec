"""Lesson 04's measurements that are more than one call: a cold and a warm torch.compile, and the
reference/ ablations one series per run."""

from __future__ import annotations

import torch

from fastrain_lib.measure import bench, launches


def compile_cold_and_warm(fn, *args):
    """(result, Inductor's code, cold seconds, warm seconds) for torch.compile(fn)(*args).

    Cold: an empty Inductor cache (a fresh TORCHINDUCTOR_CACHE_DIR and in-memory caches cleared),
    as on a student's first run. Warm: compiled again with that cache filled — what a second run
    of the notebook would see. Measuring with a warm cache and calling it the first compile
    would make compiling look cheaper than it is."""
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="fastrain-inductor-")
    try:
        try:
            from torch._inductor.runtime.cache_dir_utils import temporary_cache_dir
        except ImportError:  # older torch: point the cache somewhere empty by hand
            import contextlib
            import os

            @contextlib.contextmanager
            def temporary_cache_dir(path):
                old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = path
                try:
                    yield
                finally:
                    if old is None:
                        os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
                    else:
                        os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
        with temporary_cache_dir(directory):
            torch.compiler.reset()
            result, code, cold = launches.compiled_code(fn, *args)
            torch.compiler.reset()
            _, _, warm = launches.compiled_code(fn, *args)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return result, code, cold, warm


def reference_ablation_runs(directory=None) -> tuple[dict[str, list[bench.Record]], bool]:
    """Ablation results in reference/, one series per run (fastrain_lib.measure.reference: two runs on the
    same machine and day stay two series), labelled with hardware, date and mode; and whether
    reference/ holds any GPU results."""
    from fastrain_lib.measure import reference

    found = reference.ablations(directory)
    return found, reference.has_gpu_results(directory)
