"""fastrain's benchmark suite: measures, on the machine it runs on, every speed-up the course claims.

    python -m benchmarks                      # every family, sizes from FASTRAIN_MODE (lab by default)
    python -m benchmarks --only matmul,copy   # some families
    python -m benchmarks --mode full --out reference/
    python -m benchmarks --list

Each run writes two files named after the hardware and the date:
    <hardware>_<YYYYmmdd-HHMM>_<mode>.json   records (fastrain_lib.bench format) + run provenance
    <hardware>_<YYYYmmdd-HHMM>_<mode>.log    the raw log of the run
`reference/` holds only such files (tests/test_benchmarks.py validates every one of them).

One small module per measurement family; each has `run(ctx) -> list[bench.Record]` and may
raise `Skip(reason)` when its ingredients are missing here (e.g. no second GPU, Apex not built).
"""

# name -> module, in the order the suite runs them: cheap and independent first, the ones
# that compile (slow on a CPU) last, so a run cut short still has the rest.
FAMILIES = {
    "matmul": "benchmarks.matmul",
    "copy": "benchmarks.copy",
    "optim": "benchmarks.optim",
    "layernorm": "benchmarks.layernorm",
    "amp": "benchmarks.amp",
    "capstone": "benchmarks.capstone",
    "ddp": "benchmarks.ddp",
    "ablation": "benchmarks.ablation",
    "compile": "benchmarks.compile",
}
