"""fastrain's benchmark suite: measures, on the machine it runs on, every speed-up the course claims.

    python -m benchmarks                      # every family, sizes from FASTRAIN_MODE (lab by default)
    python -m benchmarks --only matmul,copy   # some families
    python -m benchmarks --mode full --out reference/
    python -m benchmarks --list
    python -m benchmarks --check FILE...      # is a file fit for reference/?
    python -m benchmarks --compare A.json B.json   # do two runs agree within 25% on every headline figure?

Each run writes two files named after the hardware and the date:
    <hardware>_<YYYYmmdd-HHMM>_<mode>.json   records (fastrain_lib.measure.bench format) + run provenance
    <hardware>_<YYYYmmdd-HHMM>_<mode>.log    the raw log of the run
`reference/` holds only such files of quiet runs (tests/test_benchmarks.py validates every one
of them). Every record carries its noise verdict; a run with any noisy record is kept in
results/benchmarks/ with "-noisy" in its name and never written into reference/ (exit code 3).
The ceilings (matmul peak per format, memory bandwidth) are measured first and every figure is
also given as a share of them; compared variants are measured interleaved in rounds.

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
    "allreduce": "benchmarks.allreduce",
    "zero": "benchmarks.zero",
    "ablation": "benchmarks.ablation",
    "compile": "benchmarks.compile",
}
