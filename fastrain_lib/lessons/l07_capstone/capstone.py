"""The capstone: a tiny character-level GPT learns to write Bengali, with every switch of the course.

    from fastrain_lib.lessons.l07_capstone import capstone
    result = capstone.run(device="cpu", precision="bf16", optimizer="fused", norm="torch",
                          compile=False, grad_accum=1, processes=1, checkpoint_dir="ckpt")
    result.tokens_per_s, result.mfu, result.val_curve, result.samples

What it glues together (each piece is a module of its own):
- model_data                the corpus once per session, the GPT, windows cut on the device, samples
- fused.optimizers          AdamW as for-loop / foreach / fused / Apex
- train.train               precision, compile, gradient accumulation, checkpoint/resume
- distributed.launch        N processes with DistributedDataParallel (gloo on CPUs, NCCL on GPUs)
- runs                      a fresh folder per run and its log (earlier runs are told as earlier)
- verdicts                  what a run measured in words, which switch helped here, the recipe

Efficiency is reported as MFU (model FLOPs utilisation, PaLM appendix B): achieved
tokens/s × training FLOPs per token ÷ the device's peak FLOP/s, the peak being the course's
single hardware.peak (datasheet for a known GPU, measured matmul for a CPU). An MFU above
100% means a wrong peak: it is flagged, never shown as a number.

Honest numbers: a Result's speed comes only from steps trained in that call. A run resumed
from a finished checkpoint trains nothing and says so (with the date it finished); the
lesson gives every run a fresh folder (new_run_dir) and resumes only on purpose.
"""

from __future__ import annotations

import functools
import math
import os
import statistics
from dataclasses import dataclass, field

import torch

from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.core import config
from fastrain_lib import corpus as corpus_mod
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.l07_capstone import runs
from fastrain_lib.lessons.l07_capstone.model_data import build_model, device_batches, load_corpus, sample, val_loss
from fastrain_lib.fused import optimizers
from fastrain_lib.gpt import flops_per_token

# Model and run sizes per mode. lab: recognisable Bengali on a 2-core CPU in under 10 minutes.
SIZES = {
    "ci": {"n_layer": 1, "n_head": 2, "n_embd": 32, "block_size": 32, "batch_size": 8, "steps": 8, "eval_every": 4,
           "eval_batches": 2, "sample_chars": 40, "lr": 3e-3},
    "lab": {"n_layer": 2, "n_head": 4, "n_embd": 96, "block_size": 64, "batch_size": 32, "steps": 600,
            "eval_every": 150, "eval_batches": 8, "sample_chars": 160, "lr": 3e-3},
    "full": {"n_layer": 6, "n_head": 6, "n_embd": 384, "block_size": 256, "batch_size": 64, "steps": 3000,
             "eval_every": 250, "eval_batches": 20, "sample_chars": 300, "lr": 1e-3},
}


def sizes(**overrides) -> dict:
    """The model/run sizes of the current mode, with `overrides` applied."""
    cfg = dict(config.by_mode(ci=SIZES["ci"], lab=SIZES["lab"], full=SIZES["full"]))
    unknown = set(overrides) - set(cfg)
    if unknown:
        raise ValueError(t("capstone.bad_option", names=", ".join(sorted(unknown)), allowed=", ".join(cfg)))
    cfg.update(overrides)
    return cfg


def training_bytes(cfg: dict, vocab_size: int, precision: str = "fp32") -> int:
    """An upper estimate of the memory one training step of the capstone GPT needs.

    Weights, gradients and AdamW's two moments: 16 bytes per parameter (+2 for autocast's
    16-bit weight copies). Activations per layer: s·b·h·34 bytes in a 16-bit format (Korthikanti
    et al. 2022, arXiv:2205.05198, table 2, without the 5·a·s/h score term that
    scaled_dot_product_attention's fused kernels do not store), twice that in fp32. Logits:
    b·s·V floats, kept about three times (logits, softmax, their gradient)."""
    L, h, s, b = cfg["n_layer"], cfg["n_embd"], cfg["block_size"], cfg["batch_size"]
    params = 12 * L * h * h + (vocab_size + s) * h
    per_param = 18 if precision in ("fp16", "bf16") else 16
    act_bytes = 1 if precision in ("fp16", "bf16") else 2
    return int(per_param * params + L * s * b * h * 34 * act_bytes + 3 * 4 * b * s * vocab_size)


def fit_batch(cfg: dict, f: hardware.Facts, precision: str = "fp32", vocab_size: int = 200) -> dict:
    """cfg with the largest batch (halving from cfg's) whose training step fits the device's memory
    as reported (hardware.fits: 80% of it). A 4 GB laptop GPU gets a smaller batch than a T4."""
    sizes = [cfg["batch_size"] >> k for k in range(cfg["batch_size"].bit_length()) if cfg["batch_size"] >> k]
    batch = hardware.largest_fitting(sizes, lambda b: training_bytes({**cfg, "batch_size": b}, vocab_size,
                                                                     precision), f)
    return {**cfg, "batch_size": batch}


# --- peak FLOP/s and MFU ---------------------------------------------------------------------------


def peak_flops(device: str, precision: str = "fp32", threads: int | None = None) -> hardware.Peak:
    """The peak this run's MFU divides by: hardware.peak, the course's single answer. On a CPU, measured
    with `threads`, the threads the training runs with (threads_beside_load): a peak measured with every
    thread beside a busy core reads low while the training used the free ones (issue 38)."""
    kind = torch.device(device).type
    if kind == "cuda":
        return hardware.peak(device, precision)
    # hardware.peak's own matmul (measured_peak), with the threads given (default: torch's, as hardware.peak)
    return _peak_with_threads(kind, precision, int(threads or torch.get_num_threads()))


# The noise window of each CPU peak measured here, by (device type, precision, threads), for the MFU line
PEAK_NOISE: dict[tuple, dict] = {}


@functools.lru_cache(maxsize=16)
def _peak_with_threads(device_type: str, precision: str, threads: int) -> hardware.Peak:
    """hardware.measured_peak's matmul, measured with `threads` threads (its own cache holds the peak of
    torch's current thread count only), beside a noise window."""
    with bench.torch_threads(threads), noise.Window() as window:
        pk = hardware.measured_peak.__wrapped__(device_type, precision)
    PEAK_NOISE[(device_type, precision, threads)] = window.assess(threads=threads)
    return pk


def peak_noise(device: str, precision: str, threads: int | None) -> dict:
    """The noise information of the peak a CPU run divided by ({} when unknown or on a GPU's datasheet)."""
    if torch.device(device).type == "cuda":
        return {}
    return PEAK_NOISE.get((torch.device(device).type, precision, int(threads or torch.get_num_threads())), {})


def run_peak(device: str, precision: str, processes: int = 1, threads: int | None = None) -> hardware.Peak:
    """The peak of a run in `processes` processes: one device's peak × the devices they really
    use (hardware.peak_for_processes: min(processes, GPUs) on CUDA; 1 on a CPU, whose measured
    peak already used all its cores, which the processes share). threads: see peak_flops."""
    dev = torch.device(device)
    return hardware.peak_for_processes(peak_flops(device, precision, threads if processes == 1 else None), processes,
                                       hardware.facts(dev), tensors_on_cuda=dev.type == "cuda")


def mfu(tokens_per_s: float, flops_per_token: float, peak) -> float:
    """Model FLOPs utilisation (PaLM, appendix B): tokens/s × FLOPs per token ÷ peak FLOP/s.
    NaN when it cannot be known (no peak, nothing measured); above 1 it is flagged by mfu_text."""
    value = hardware.mfu(tokens_per_s * flops_per_token, peak)
    return math.nan if value is None else value


def mfu_text(value: float | None) -> str:
    """'12.3%'; a flag, never a number, above 100%; 'unknown' when nothing was measured."""
    return hardware.mfu_text(None if value is None or math.isnan(value) else value)


# --- one run --------------------------------------------------------------------------------------
@dataclass
class Result:
    settings: dict
    steps: int
    losses: list[float]  # training loss per step
    val_curve: list[tuple[int, float]]  # (step, validation loss)
    samples: list[tuple[int, str, float]]  # (step, generated text, share of real words)
    median_step_s: float
    tokens_per_s: float
    flops_per_token: float
    mfu: float
    peak: hardware.Peak
    memory_bytes: int | None
    memory_kind: str  # "cuda_peak" or "cpu_rss"
    compile_s: float | None = None
    resumed_from: int | None = None
    params: int = 0
    step_times_s: list[float] = field(default_factory=list)  # only the steps trained (and timed) in this call
    measured_steps: int = 0  # steps trained in this call; 0 = nothing was measured now
    finished_earlier: str | None = None  # the date the run in checkpoint_dir had finished, when nothing was left
    run_dir: str | None = None
    noise: dict = field(default_factory=dict)  # fastrain_lib.measure.noise: other load on the machine while it ran
    peak_noise: dict = field(default_factory=dict)  # the same for the peak its MFU divides by (a CPU's measured matmul)

    @property
    def mfu_ok(self) -> bool:
        """False when the MFU cannot be shown: nothing measured now, no known peak, or above 100%."""
        return hardware.mfu_ok(None if math.isnan(self.mfu) else self.mfu)

    def record(self) -> bench.Record:
        """A bench.Record of this run (for saving, comparing, and reference/)."""
        if not self.measured_steps:
            raise ValueError(t("capstone.nothing_measured", date=self.finished_earlier or "?"))
        times = self.step_times_s[1:] or self.step_times_s
        q = quartiles(times)
        return bench.Record(
            name=f"capstone {self.settings.get('precision')} {self.settings.get('optimizer')} x{self.settings.get('processes', 1)}",
            median_s=self.median_step_s, iqr_s=q[2] - q[0], times_s=list(times), params=dict(self.settings),
            metrics={"tokens_per_s": self.tokens_per_s, "mfu": self.mfu if self.mfu_ok else None,
                     "mfu_shown": self.mfu_ok, "peak_flops": self.peak.flops,
                     "peak_kind": self.peak.kind, "flops_per_token": self.flops_per_token,
                     "final_val_loss": self.val_curve[-1][1] if self.val_curve else None,
                     "memory_bytes": self.memory_bytes, "compile_s": self.compile_s, "params": self.params},
            meta=bench.meta(), noise=dict(self.noise))


def quartiles(values):
    return statistics.quantiles(values, n=4) if len(values) >= 2 else [0.0, 0.0, 0.0]


def optimizer_factory(impl: str, lr: float):
    """params -> AdamW in implementation `impl` (a partial, so DDP workers can pickle it)."""
    if impl not in optimizers.OPTIMIZER_IMPLS:
        raise ValueError(t("capstone.bad_optimizer", impl=impl, allowed=", ".join(optimizers.OPTIMIZER_IMPLS)))
    return functools.partial(optimizers.make_optimizer, impl=impl, lr=lr)


def _dedupe(entries: list) -> list:
    """One entry per step, the latest wins (a resumed run measures again after its checkpoint)."""
    by_step = {int(e[0]): tuple(e) for e in entries}
    return [by_step[k] for k in sorted(by_step)]


def _memory(device: torch.device, history) -> tuple[int | None, str]:
    if device.type == "cuda":
        return history.peak_memory_bytes, "cuda_peak"
    try:
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss, "cpu_rss"
    except ImportError:
        return None, "cpu_rss"


def run(*, device: str | None = None, precision: str = "fp32", optimizer: str = "fused", norm: str = "torch",
        compile: bool = False, grad_accum: int = 1, processes: int = 1, steps: int | None = None,
        checkpoint_dir=None, resume: bool = False, seed: int = 0, progress: bool = True, stop_at: int | None = None,
        threads: int | None = None, **size_overrides) -> Result:
    """Train the capstone GPT with the given switches and measure it.

    processes > 1 runs DistributedDataParallel in that many processes (each with its own
    batches; tokens/s counts all of them). Every `eval_every` steps (= checkpoint_every)
    the validation loss is measured and a Bengali sample generated; with checkpoint_dir
    a checkpoint is saved there too, and resume=True continues from the newest one.
    stop_at=k stops after step k as if the machine were switched off (for the resume demo).
    threads: torch's CPU threads for a one-process CPU run; by default as many of torch's threads as
    fit beside the other work running now (noise.threads_that_fit), since a thread team larger than
    the free cores waits at every step."""
    device = str(hardware.check_device(device or hardware.best_device()))
    cfg = sizes(**size_overrides)
    if steps is not None:
        cfg["steps"] = steps
    if "batch_size" not in size_overrides:  # a batch the student chose is kept; the mode's must fit
        cfg = fit_batch(cfg, hardware.facts(device), precision, load_corpus().vocab_size)
    if processes < 1:
        raise ValueError(t("capstone.bad_processes", n=processes))
    if processes == 1 and device == "cpu":
        threads = threads or threads_beside_load(progress)
    settings = {"device": device, "precision": precision, "optimizer": optimizer, "norm": norm, "compile": compile,
                "grad_accum": grad_accum, "processes": processes, "steps": cfg["steps"], "threads": threads,
                "model": {k: cfg[k] for k in ("n_layer", "n_head", "n_embd", "block_size", "batch_size")}}
    if processes > 1:
        if checkpoint_dir is not None:
            raise ValueError(t("capstone.ddp_no_checkpoint"))
        return _run_ddp(settings, cfg, seed)
    wanted = torch.get_num_threads()
    with bench.torch_threads(threads), noise.Window() as window:  # the other load while it trains: result.noise
        out = train_one(settings, cfg, seed=seed, progress=progress, checkpoint_dir=checkpoint_dir, resume=resume,
                        stop_at=stop_at)
    result = _finish(settings, cfg, out, world_size=1)
    if result.measured_steps:
        spread, repeats = noise.from_times(result.step_times_s[1:])
        result.noise = window.assess(threads=threads or wanted, spread=spread, repeats=repeats, threads_wanted=wanted)
    if checkpoint_dir is not None:
        result.run_dir = str(checkpoint_dir)
        runs.log_finish(checkpoint_dir, result)
    return result


def threads_beside_load(tell: bool = True) -> int:
    """torch's threads that fit beside the other work running now; said when fewer than torch's own."""
    wanted = torch.get_num_threads()
    threads = noise.threads_that_fit(wanted)
    if tell and threads < wanted:
        print(t("capstone.fewer_threads", threads=threads, wanted=wanted))
    return threads


class Stopped(Exception):
    """Raised by stop_at: the run was 'switched off' after a step (resume demo)."""


def train_one(settings: dict, cfg: dict, *, seed: int = 0, progress: bool = False, checkpoint_dir=None,
              resume: bool = False, stop_at: int | None = None, ddp_rank: int | None = None) -> dict:
    """The training itself (in this process; also what each DDP rank runs). Returns plain data."""
    from fastrain_lib import train

    data = load_corpus()
    dev = torch.device(settings["device"])
    if dev.type == "cuda" and ddp_rank is not None:
        dev = torch.device(hardware.device_for_rank(ddp_rank, True, hardware.facts(dev)))  # GPU rank % count
    model = build_model(data.vocab_size, cfg, settings["norm"], seed).to(dev)
    net = model
    if ddp_rank is not None:
        from torch.nn.parallel import DistributedDataParallel

        # the GPT in DDP, as lesson 05's distributed/ddp.py train_worker wraps its SimpleNN (named in lesson 07's prose)
        net = DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    batches = device_batches(data, "train", cfg, seed=seed + 1000 * (ddp_rank or 0), device=dev)

    log = {"val_curve": [], "samples": []}
    if checkpoint_dir is not None and resume:
        log.update(runs.read_log(checkpoint_dir))
    log.setdefault("started", runs.now())
    lead = ddp_rank in (None, 0)

    def on_step(step, history):
        if (step % cfg["eval_every"] == 0 or step == cfg["steps"]) and lead:
            loss = val_loss(model, data, cfg, dev, settings["precision"])
            text = sample(model, data, cfg["sample_chars"], device=dev, seed=seed)
            log["val_curve"].append((step, loss))
            log["samples"].append((step, text, corpus_mod.word_share(text, data.words())))
            if checkpoint_dir is not None:  # saved with the checkpoint, so a resumed run keeps its curve
                runs.write_log(checkpoint_dir, log)
        if stop_at is not None and step >= stop_at:
            raise Stopped(step)

    if lead and not log["val_curve"]:
        log["val_curve"].append((0, val_loss(model, data, cfg, dev, settings["precision"])))
    optimizer = optimizer_factory(settings["optimizer"], cfg["lr"])
    history = train.train(net, batches, steps=cfg["steps"], device=dev, precision=settings["precision"],
                          optimizer=optimizer, compile=settings["compile"], grad_accum=settings["grad_accum"],
                          seed=seed, progress=progress and lead, checkpoint_dir=checkpoint_dir,
                          # also without a folder: train's timing windows end at these steps, so the
                          # validation loss and sample of step k come from the model after step k
                          checkpoint_every=cfg["eval_every"], resume=resume,
                          on_step=on_step, clip_grad=1.0)
    log.update({key: _dedupe(log[key]) for key in ("val_curve", "samples")})
    return {"history": history.to_dict(), "log": log, "flops_per_token": flops_per_token(model, cfg["block_size"]),
            "params": sum(p.numel() for p in model.parameters()), "memory": _memory(dev, history)}


def ddp_worker(rank: int, world_size: int, settings: dict, cfg: dict, seed: int) -> dict | None:
    """One DDP rank: train_one wraps the GPT in DDP itself (lesson 05's worker trains SimpleNN). Rank 0
    returns its full result; the others only their step times (the slowest rank sets the pace)."""
    out = train_one(settings, cfg, seed=seed, ddp_rank=rank)
    if rank == 0 or "history" not in out:
        return out
    return {"history": {"step_times_s": out["history"]["step_times_s"]}}


def _run_ddp(settings: dict, cfg: dict, seed: int) -> Result:
    from fastrain_lib.distributed import launch

    n = settings["processes"]
    timeout = config.by_mode(ci=300.0, lab=1800.0, full=7200.0)  # ci: CI's 2 busy cores
    results = launch(ddp_worker, n, args=(settings, cfg, seed), timeout_s=timeout,
                     tensors_on_cuda=str(settings["device"]).startswith("cuda"))
    return _finish(settings, cfg, results[0], world_size=n)


def _finish(settings: dict, cfg: dict, out: dict, world_size: int) -> Result:
    from fastrain_lib.train import History

    history = History.from_dict(out["history"])
    tokens_per_step = cfg["batch_size"] * cfg["block_size"] * settings["grad_accum"] * world_size
    # A resumed history starts with the earlier session's step times: never report those as now.
    times_now = history.step_times_s[history.resumed_from or 0:]
    timed = times_now[1:] if len(times_now) >= 3 else times_now  # the first step warms up (or compiles)
    median = statistics.median(timed) if timed else math.nan
    tokens_per_s = tokens_per_step / median if median > 0 else math.nan
    finished_earlier = None
    if not times_now:
        finished_earlier = out["log"].get("finished") or out["log"].get("started") or "?"
    compile_s = history.compile_s if times_now else None
    if history.resumed_from and settings.get("compile") and times_now:
        compile_s = times_now[0]  # compiled again in this session (its first step, timed alone), not the old one
    peak = run_peak(settings["device"], settings["precision"], world_size, settings.get("threads"))
    memory, memory_kind = out["memory"]
    return Result(settings=settings, steps=history.steps, losses=history.losses,
                  val_curve=[tuple(v) for v in out["log"]["val_curve"]],
                  samples=[tuple(s) for s in out["log"]["samples"]], median_step_s=median,
                  tokens_per_s=tokens_per_s, flops_per_token=out["flops_per_token"],
                  mfu=mfu(tokens_per_s, out["flops_per_token"], peak), peak=peak, memory_bytes=memory,
                  memory_kind=memory_kind, compile_s=compile_s,
                  resumed_from=history.resumed_from, params=out["params"], step_times_s=list(times_now),
                  measured_steps=len(times_now), finished_earlier=finished_earlier,
                  peak_noise=peak_noise(settings["device"], settings["precision"], settings.get("threads"))
                  if world_size == 1 else {})


def switch_result(switch: dict, times: list[float], window, cfg: dict, net, *, device: str,
                  threads: int | None) -> Result:
    """A Result of one switch set timed by the lesson's loop (saved.time_switch, each step on its own):
    tokens/s at the median step time without the first (warm-up or compile), MFU, and the other load
    measured beside it (`window`, a noise.Window), so switch_effects can compare the spread of the times."""
    settings = {"device": device, "precision": switch.get("precision", "fp32"),
                "optimizer": "fused" if switch.get("fused") else "forloop", "norm": "torch",
                "compile": bool(switch.get("compile")), "grad_accum": 1, "processes": 1, "steps": len(times),
                "time_window": 1, "threads": threads,
                "model": {k: cfg[k] for k in ("n_layer", "n_head", "n_embd", "block_size", "batch_size")}}
    timed = times[1:] if len(times) >= 3 else times
    median = statistics.median(timed)
    tokens_per_s = cfg["batch_size"] * cfg["block_size"] / median if median > 0 else math.nan
    flops, peak = flops_per_token(net, cfg["block_size"]), run_peak(device, settings["precision"], threads=threads)
    spread, repeats = noise.from_times(times[1:])
    return Result(settings=settings, steps=len(times), losses=[], val_curve=[], samples=[], median_step_s=median,
                  tokens_per_s=tokens_per_s, flops_per_token=flops, mfu=mfu(tokens_per_s, flops, peak), peak=peak,
                  memory_bytes=None, memory_kind="cuda_peak" if device.startswith("cuda") else "cpu_rss",
                  compile_s=times[0] if settings["compile"] else None, params=sum(p.numel() for p in net.parameters()),
                  step_times_s=list(times), measured_steps=len(times),
                  peak_noise=peak_noise(device, settings["precision"], threads),
                  noise=window.assess(threads=threads or torch.get_num_threads(), spread=spread, repeats=repeats))
