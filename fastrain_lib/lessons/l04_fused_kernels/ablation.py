"""The "Apex + AMP = 3x faster" claim, tested: a tiny GPT trained stage by stage, each stage
adding one feature (TF32, AMP, fused AdamW, Apex LayerNorm, torch.compile) — lesson 04.

Every step is precision.step.amp_step (the one AMP training step, written in lesson 03); the
optimizers are lesson 04's AdamW cell (fused.optimizers). The MFU of every stage divides by
hardware.peak (the one peak of the course). It lives in lesson 04's package, not in fused/, because
it trains gpt.GPT, a layer above the techniques.
"""

from __future__ import annotations

import contextlib
import warnings

import torch
import torch.nn.functional as F

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.fused.apex import apex_status
from fastrain_lib.fused.optimizers import make_optimizer
from fastrain_lib.gpt import GPT, flops_per_token, num_params
from fastrain_lib.measure import bench, hardware, noise, reference
from fastrain_lib.precision import amp as prec
from fastrain_lib.precision.step import amp_step

ABLATION_EXPERIMENT = reference.ABLATION_EXPERIMENT  # params["experiment"] of every ablation Record
CLAIMED_SPEEDUP = 3.0  # the source material: "Apex + AMP: up to 3x faster Transformer training"
ABLATION_STAGES = ("fp32", "tf32", "amp", "fused_adamw", "apex_layernorm", "compile")


def ablation_stages(device: str | torch.device, include_compile: bool = True) -> list[dict]:
    """The cumulative settings of each stage that applies on `device`, in order.

    tf32 only on a CUDA GPU with TF32 tensor cores (Ampere, 8.0+: on a T4 or V100 it would measure
    fp32 again; left_out_stages says so); the Apex stage only where Apex's LayerNorm kernel is built."""
    device = torch.device(device)
    facts = hardware.facts(device)
    settings = {"stage": "fp32", "tf32": False, "precision": "fp32", "optimizer": "foreach", "norm": "torch", "compile": False}
    stages = [dict(settings)]
    if device.type == "cuda" and hardware.has_tf32(facts):
        settings.update(stage="tf32", tf32=True)
        stages.append(dict(settings))
    precision = hardware.amp_format(facts)
    if precision != "fp32":  # a Mac where no AMP step worked has no AMP stage
        settings.update(stage="amp", precision=precision)
        stages.append(dict(settings))
    settings.update(stage="fused_adamw", optimizer="fused")
    stages.append(dict(settings))
    if device.type == "cuda" and apex_status().fused_layer_norm:
        settings.update(stage="apex_layernorm", norm="apex")
        stages.append(dict(settings))
    if include_compile:
        settings.update(stage="compile", compile=True)
        stages.append(dict(settings))
    return stages


# the one setting each stage switches on (its stacked settings also carry every earlier switch)
SWITCHES = {"tf32": ("tf32",), "amp": ("precision",), "fused_adamw": ("optimizer",), "apex_layernorm": ("norm",),
            "compile": ("compile",)}


def alone_settings(plan: list[dict]) -> list[dict]:
    """For each stacked stage after the first, the baseline with only that stage's switch on
    (params['alone'] = True); left out where that is the stacked setting itself (the first switch)."""
    base, out = plan[0], []
    for stacked in plan[1:]:
        stage = stacked["stage"]
        single = dict(base, stage=stage, **{k: stacked[k] for k in SWITCHES.get(stage, ())})
        if any(single[k] != stacked[k] for k in stacked if k != "stage"):
            out.append(dict(single, alone=True))
    return out


def left_out_stages(device: str | torch.device) -> list[str]:
    """One sentence per stage the ablation leaves out on `device` for a reason the student should
    hear: today the tf32 stage on a CUDA GPU without TF32 tensor cores (T4, V100: capability < 8.0),
    where allow_tf32 changes nothing and the row would only re-measure fp32."""
    device = torch.device(device)
    facts = hardware.facts(device)
    if device.type != "cuda" or hardware.has_tf32(facts):
        return []
    if hardware.force_t4_policy():
        return [t("fused.no_tf32_forced", env=hardware.FORCE_T4_ENV)]
    major, minor = facts.capability or (0, 0)
    return [t("fused.no_tf32", gpu=facts.name or "GPU", cc=f"{major}.{minor}")]


def device_peak(device: str | torch.device, matmul_size: int | None = None) -> tuple[float | None, str]:
    """(peak TFLOP/s or None when unknown, where it comes from) for the ablation's MFU.

    hardware.peak in the AMP stage's format: a GPU's datasheet tensor-core peak, a CPU's best
    measured matmul (fp32 or bf16, the better). `matmul_size` is no longer used (kept for callers)."""
    device = torch.device(device)
    pk = hardware.peak(device, hardware.amp_format(hardware.facts(device)))
    return pk.tflops, pk.label


def training_bytes(n_layer: int, n_embd: int, block_size: int, batch_size: int, vocab_size: int,
                   bytes_per_value: int = 4) -> int:
    """A generous estimate of the memory one fp32 training step of the tiny GPT needs: weights,
    gradients and Adam's two moments (16 bytes per parameter) plus about 16 saved activations of
    batch × block × n_embd per layer (with fused attention; GPT-2 small at 16×1024 comes to ~11 GB,
    which nearly fills a 16 GB T4)."""
    params = 12 * n_layer * n_embd**2 + (vocab_size + block_size) * n_embd
    activations = 16 * batch_size * block_size * n_embd * n_layer * bytes_per_value
    return 16 * params + activations


def _shown_mfu(tflops: float, peak_tflops: float | None) -> float | None:
    """MFU when the peak is known and the value possible (at most 100%), else None."""
    value = hardware.mfu(tflops * 1e12, peak_tflops * 1e12 if peak_tflops else None)
    return value if hardware.mfu_ok(value) else None


def gpt_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The tiny GPT's loss: cross-entropy over every position, in float32 (the loss_fn of amp_step)."""
    return F.cross_entropy(logits.float().flatten(0, -2), targets.flatten())


def training_step(model, optimizer, x, y, *, precision: str = "fp32", scaler=None) -> torch.Tensor:
    """One training step of the tiny GPT in `precision` (fp32, tf32, bf16, fp16): precision.step.amp_step
    (the one AMP step, lesson 03's cell) with gpt_loss and the precision's autocast dtype. Used by the
    ablation, the lesson 04 panel and benchmarks/steps.py. `scaler`: make_scaler(device, precision),
    kept across steps (fp16 needs its scale to carry over); None makes one for this step."""
    if scaler is None:
        scaler = prec.make_scaler(x.device, precision)
    return amp_step(model, optimizer, scaler, x, y, gpt_loss, dtype=prec.AUTOCAST_DTYPES.get(precision))


def token_batches(n: int, batch_size: int, block_size: int, vocab_size: int, device, seed: int = 0) -> list:
    """n random (x, y) batches of token ids (y = x shifted by one): same data for every stage."""
    gen = torch.Generator().manual_seed(seed)
    data = torch.randint(0, vocab_size, (n, batch_size, block_size + 1), generator=gen)
    return [(d[:, :-1].to(device), d[:, 1:].to(device)) for d in data]


def _run_stage(model, optimizer, batches, device, precision: str, compile: bool, warmup: int, steps: int,
               threads: int | None = None) -> dict:
    """Warm one stage up, then time `steps` training steps one by one (each synchronised).

    Uncompiled: `warmup` steps. Compiled: bench.warm_until_compiled — until two steps in a row compile
    nothing new (a recompile on the 2nd or 3rd call would otherwise land in the timed steps and make
    compiling look slow), as benchmarks/steps.py does. All steps use batches of one shape."""
    stepper = torch.compile(model) if compile else model
    scaler = prec.make_scaler(device, precision)  # active only for fp16
    losses, position = [], [0]

    def step():
        x, y = batches[position[0] % len(batches)]
        position[0] += 1
        losses.append(training_step(stepper, optimizer, x, y, precision=precision, scaler=scaler))

    # fp32 is the strict baseline (TF32 off), tf32 switches it on; both restored afterwards
    setting = prec.tf32(precision == "tf32") if precision in ("fp32", "tf32") else contextlib.nullcontext()
    # on a CPU, train with the threads that fit beside the other work now (as bench.measure times): a thread
    # more than the free cores makes every step wait for a busy core (issue 38); the record keeps both counts
    wanted = torch.get_num_threads()
    if threads is None:
        threads = noise.free_threads(wanted) if torch.device(device).type == "cpu" else wanted
    with setting, bench.torch_threads(threads):
        if compile:
            warm = bench.warm_until_compiled(step, device=device)
            first_step_s = warm["compile_s"]
        else:
            first_step_s = bench.time_once(step, device) if warmup else None
            for _ in range(max(warmup - 1, 0)):
                step()
            warm = {"compile_s": 0.0, "compiles": 0, "recompiles": 0, "warmup_calls": warmup}
        before = bench.graphs_compiled()
        with noise.Window() as window:  # what else ran on the machine while the steps were timed
            times = [bench.time_once(step, device) for _ in range(steps)]
        recompiles_timed = bench.graphs_compiled() - before
    median = sorted(times)[len(times) // 2]
    quartiles = torch.tensor(times).quantile(torch.tensor([0.25, 0.75])) if len(times) > 1 else torch.zeros(2)
    info = window.assess(threads=threads, spread=float(quartiles[1] - quartiles[0]) / median
                         if median > 0 else None, repeats=len(times), threads_wanted=wanted)
    if recompiles_timed:  # a compile inside the timed steps: the record says so (noise reason "recompile")
        info["recompiles"] = recompiles_timed
        info["verdict"], info["reasons"] = noise.verdict(info)
    return dict(warm, times=times, first_step_s=first_step_s, recompiles_timed=recompiles_timed, noise=info,
                loss_first=float(losses[0]), loss_last=float(losses[-1]))


def ablation(device: str | torch.device | None = None, *, n_layer: int | None = None, n_head: int | None = None,
             n_embd: int | None = None, block_size: int | None = None, vocab_size: int = 96,
             batch_size: int | None = None, steps: int | None = None, warmup: int = 2,
             include_compile: bool = True, stages: list[str] | None = None, seed: int = 0,
             peak: tuple[float | None, str] | None = None, alone: bool = False,
             show_progress: bool = False) -> list[bench.Record]:
    """Test "Apex + AMP = 3x faster": train a tiny GPT stage by stage, each stage adding one feature.

    Stages (cumulative; those that do not apply on `device` are skipped):
      fp32            float32, TF32 off, AdamW foreach (PyTorch's default), nn.LayerNorm, eager
      tf32            + TF32 matmuls (CUDA GPUs with TF32 tensor cores, 8.0+; left_out_stages says why not)
      amp             + autocast: bf16, or fp16 + GradScaler where bf16 is not fast (T4, V100)
      fused_adamw     + torch.optim.AdamW(fused=True)
      apex_layernorm  + apex FusedLayerNorm (only where Apex's CUDA extension is built)
      compile         + torch.compile(model) (compile time goes to metrics['compile_s'], not the step time)

    alone=True also measures each switch by itself on the fp32 baseline (records with params['alone']
    True, after the stacked ones; a switch whose alone setting is its stacked one is not measured twice):
    a switch stacked on a slow stage (bf16 on a CPU without bf16 units) hides its own effect.

    Sizes default by run mode (config.by_mode). `stages` picks a subset by name.
    `peak` = (TFLOP/s, label) overrides device_peak(device) for MFU; an MFU above 100% is stored as
    None with metrics['mfu_flagged'] = the impossible value (a wrong peak or FLOP count, never shown).

    Returns one bench.Record per stage: name "ablation:<stage>", median_s/iqr_s/times_s = seconds
    per training step (after `warmup` steps; the compile stage warms up until nothing recompiles,
    bench.warm_until_compiled, and params['warmup'] says how many calls that took); params = the
    stage's settings, model and batch sizes, experiment=ABLATION_EXPERIMENT; metrics = tokens_per_s,
    speedup (vs the first stage), tflops (achieved), mfu (fraction of peak, None if unknown),
    peak_tflops, first_step_s (first warm-up step; the compile stage: the calls that compiled),
    compile_s/compiles/recompiles/recompiles_timed (compile stage), loss_first, loss_last;
    meta = hardware report."""
    device = hardware.check_device(device or hardware.best_device())
    n_layer = n_layer or config.by_mode(ci=1, lab=2, full=12)
    n_embd = n_embd or config.by_mode(ci=32, lab=128, full=768)
    n_head = n_head or config.by_mode(ci=2, lab=4, full=12)
    block_size = block_size or config.by_mode(ci=16, lab=64, full=1024)
    if batch_size is None and config.mode() == "full":  # the largest batch that fits this device's memory
        batch_size = hardware.largest_fitting(
            (2, 4, 8, 16), lambda b: training_bytes(n_layer, n_embd, block_size, b, vocab_size), hardware.facts(device))
    batch_size = batch_size or config.by_mode(ci=4, lab=16)
    steps = steps or config.by_mode(ci=6, lab=10, full=50)
    plan = ablation_stages(device, include_compile)
    if stages is not None:
        unknown = set(stages) - set(ABLATION_STAGES)
        if unknown:
            raise ValueError(t("fused.bad_stage", stage=", ".join(sorted(unknown)),
                               allowed=", ".join(ABLATION_STAGES)))
        plan = [s for s in plan if s["stage"] in stages]
    if alone and plan:
        plan = plan + alone_settings(plan)
    peak_tflops, peak_label = peak if peak is not None else device_peak(device)
    batches = token_batches(warmup + steps, batch_size, block_size, vocab_size, device, seed)
    records = []
    if show_progress:  # a lab PC takes tens of seconds: a progress bar per stage (quiet in ci mode)
        from fastrain_lib.ui.progress import progress

        plan = progress(plan, "fused.progress_ablation", total=len(plan))
    sizes = {"n_layer": n_layer, "n_head": n_head, "n_embd": n_embd, "block_size": block_size,
             "vocab_size": vocab_size, "batch_size": batch_size, "steps": steps, "warmup": warmup, "seed": seed}
    for settings in plan:
        records.append(_stage_record(settings, device, sizes, batches, (peak_tflops, peak_label)))
    return _with_speedups(records)


def _stage_record(settings: dict, device, sizes: dict, batches, peak: tuple[float | None, str],
                  threads: int | None = None) -> bench.Record:
    """One stage of the ablation trained and timed (the same initial weights in every stage): its Record."""
    peak_tflops, peak_label = peak
    torch.manual_seed(sizes["seed"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # apex fallbacks are explained in the lesson
        model = GPT(sizes["vocab_size"], sizes["block_size"], sizes["n_layer"], sizes["n_head"], sizes["n_embd"],
                    norm=settings["norm"]).to(device)
        optimizer = make_optimizer(model.parameters(), settings["optimizer"], lr=1e-3)
    fpt = flops_per_token(model, sizes["block_size"])
    precision = "tf32" if settings["tf32"] and settings["precision"] == "fp32" else settings["precision"]
    run = _run_stage(model, optimizer, batches, device, precision, settings["compile"], sizes["warmup"],
                     sizes["steps"], threads=threads)
    times = run["times"]
    median = float(torch.tensor(times).median())
    q = torch.tensor(times).quantile(torch.tensor([0.25, 0.75]))
    tokens_per_step = sizes["batch_size"] * sizes["block_size"]
    tokens_per_s = tokens_per_step / median
    tflops = tokens_per_s * fpt / 1e12
    params = dict(settings, experiment=ABLATION_EXPERIMENT, device=str(device),
                  **{k: v for k, v in sizes.items() if k not in ("warmup", "seed")}, warmup=run["warmup_calls"],
                  tokens_per_step=tokens_per_step, n_params=num_params(model), flops_per_token=fpt,
                  peak_source=peak_label, claimed_speedup=CLAIMED_SPEEDUP)
    metrics = {"tokens_per_s": tokens_per_s, "tflops": tflops, "peak_tflops": peak_tflops,
               "mfu": _shown_mfu(tflops, peak_tflops),
               "first_step_s": run["first_step_s"], "loss_first": run["loss_first"], "loss_last": run["loss_last"]}
    if metrics["mfu"] is None and peak_tflops:
        metrics["mfu_flagged"] = tflops / peak_tflops
    if settings["compile"]:
        # compile_s: the warm-up calls that compiled (bench.warm_until_compiled), never the timed steps
        metrics.update(compile_s=run["compile_s"], compiles=run["compiles"], recompiles=run["recompiles"],
                       recompiles_timed=run["recompiles_timed"])
    name = f"ablation:alone:{settings['stage']}" if settings.get("alone") else f"ablation:{settings['stage']}"
    return bench.Record(name=name, median_s=median, iqr_s=float(q[1] - q[0]), times_s=times, params=params,
                        metrics=metrics, meta=bench.meta(), noise=run["noise"])


def _with_speedups(records: list[bench.Record]) -> list[bench.Record]:
    """metrics['speedup'] of every record: the first (fp32) stage's step time over its own."""
    base = records[0].median_s if records else 1.0
    for record in records:
        record.metrics["speedup"] = base / record.median_s
    return records


def remeasure_noisy(records: list[bench.Record], device: str | torch.device, *, warmup: int = 2,
                    seed: int = 0) -> list[bench.Record]:
    """Issue 38: each noisy stage trained and timed once more with 1 thread (bench.remeasure_noisy prints
    how many and how many are still noisy); quiet stages stay as they were; the speedups are recomputed.
    The compile stage is kept as measured: a new thread count recompiles its graph, tens of seconds on a
    CPU, and on a lab PC's CPU that stage is off anyway (hardware.run_optional). `warmup` and `seed` as
    given to ablation()."""
    device = torch.device(device)

    def again(record: bench.Record) -> bench.Record:
        p = record.params
        settings = {k: p[k] for k in ("stage", "tf32", "precision", "optimizer", "norm", "compile")}
        if p.get("alone"):
            settings["alone"] = True
        sizes = {k: p[k] for k in ("n_layer", "n_head", "n_embd", "block_size", "vocab_size", "batch_size", "steps")}
        sizes.update(warmup=warmup, seed=seed)
        batches = token_batches(warmup + sizes["steps"], sizes["batch_size"], sizes["block_size"],
                                sizes["vocab_size"], device, seed)
        return _stage_record(settings, device, sizes, batches, (record.metrics.get("peak_tflops"), p["peak_source"]),
                             threads=1)

    eager = [i for i, r in enumerate(records) if not r.params.get("compile")]
    again_eager = bench.remeasure_noisy([records[i] for i in eager], again)
    merged = list(records)
    for i, record in zip(eager, again_eager):
        merged[i] = record
    return _with_speedups(merged)


def stage_op_times(record: bench.Record, calls: int | None = None) -> dict[str, float]:
    """Milliseconds per training step of each top-level operator (launches.op_ms_per_call) for the
    stage `record` measured: the same model sizes, optimizer and precision, rebuilt and profiled now
    (eager: a compiled stage's kernels are not profiled one by one on a CPU), with the threads its steps
    were timed with: beside a busy core the timing used fewer than torch's own, and a profile with a
    thread more than the free cores waits for the busy one (measured: 219.6 ms of operators per fp32
    step that was timed at 22.5 ms), so the two would not be the same step."""
    from fastrain_lib.measure.launches import op_ms_per_call

    p = record.params
    device = torch.device(p.get("device", "cpu"))
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # apex fallbacks are explained in the lesson
        model = GPT(p["vocab_size"], p["block_size"], p["n_layer"], p["n_head"], p["n_embd"], norm=p["norm"]).to(device)
        optimizer = make_optimizer(model.parameters(), p["optimizer"], lr=1e-3)
    (x, y), = token_batches(1, p["batch_size"], p["block_size"], p["vocab_size"], device)
    precision = p.get("precision", "fp32")
    scaler = prec.make_scaler(device, precision)
    with bench.torch_threads((record.noise or {}).get("threads")):
        return op_ms_per_call(lambda: training_step(model, optimizer, x, y, precision=precision, scaler=scaler),
                              calls or config.by_mode(ci=2, lab=2, full=4))


def hardware_label(record: bench.Record) -> str:
    """A short name of the machine a record ran on: the GPU if it used one, else the CPU."""
    meta = record.meta or {}
    if reference.used_gpu(record) and meta.get("gpu_name"):
        return meta["gpu_name"]
    return reference.hardware_name(meta)


def reference_ablations(directory=None) -> dict[str, list[bench.Record]]:
    """Ablation results in reference/, one series per run file: {hardware · date · mode: records}."""
    return reference.ablations(directory)
