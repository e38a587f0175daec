"""The capstone: a tiny character-level GPT learns to write Bengali, with every switch of the course.

    from fastrain_lib.lessons.l07_capstone import capstone
    result = capstone.run(device="cpu", precision="bf16", optimizer="fused", norm="torch",
                          compile=False, grad_accum=1, processes=1, checkpoint_dir="ckpt")
    result.tokens_per_s, result.mfu, result.val_curve, result.samples

What it glues together (each piece is a module of its own):
- corpus.build()            the Bengali text and its character vocabulary
- gpt.GPT                   the model (LayerNorm implementation pluggable)
- optimizers.make_optimizer      AdamW as for-loop / foreach / fused / Apex
- train.train               precision, compile, gradient accumulation, checkpoint/resume
- distributed.launch        N processes with DistributedDataParallel (gloo on CPUs, NCCL on GPUs)

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
import itertools
import json
import math
import os
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from fastrain_lib.measure import bench, hardware, noise
from fastrain_lib.core import config
from fastrain_lib import corpus as corpus_mod
from fastrain_lib.core.i18n import t

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


@functools.lru_cache(maxsize=1)
def load_corpus() -> corpus_mod.Corpus:
    """The corpus, built once per session (a few hundred ms)."""
    return corpus_mod.build()


# --- peak FLOP/s and MFU ---------------------------------------------------------------------------
# One peak for every MFU in the course: hardware.peak (datasheet for a known GPU, measured for a CPU).
Peak = hardware.Peak


def peak_flops(device: str, precision: str = "fp32") -> Peak:
    """The peak this run's MFU divides by: hardware.peak, the course's single answer."""
    return hardware.peak(device, precision)


def run_peak(device: str, precision: str, processes: int = 1) -> Peak:
    """The peak of a run in `processes` processes: one device's peak × the devices they really
    use (hardware.peak_for_processes: min(processes, GPUs) on CUDA; 1 on a CPU, whose measured
    peak already used all its cores, which the processes share)."""
    dev = torch.device(device)
    return hardware.peak_for_processes(peak_flops(device, precision), processes, hardware.facts(dev),
                                       tensors_on_cuda=dev.type == "cuda")


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
    peak: Peak
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

    @property
    def mfu_ok(self) -> bool:
        """False when the MFU cannot be shown: nothing measured now, no known peak, or above 100%."""
        return hardware.mfu_ok(None if math.isnan(self.mfu) else self.mfu)

    def record(self) -> bench.Record:
        """A bench.Record of this run (for saving, comparing, and reference/)."""
        if not self.measured_steps:
            raise ValueError(t("capstone.nothing_measured", date=self.finished_earlier or "?"))
        times = self.step_times_s[1:] or self.step_times_s
        q = _quartiles(times)
        return bench.Record(
            name=f"capstone {self.settings.get('precision')} {self.settings.get('optimizer')} x{self.settings.get('processes', 1)}",
            median_s=self.median_step_s, iqr_s=q[2] - q[0], times_s=list(times), params=dict(self.settings),
            metrics={"tokens_per_s": self.tokens_per_s, "mfu": self.mfu if self.mfu_ok else None,
                     "mfu_shown": self.mfu_ok, "peak_flops": self.peak.flops,
                     "peak_kind": self.peak.kind, "flops_per_token": self.flops_per_token,
                     "final_val_loss": self.val_curve[-1][1] if self.val_curve else None,
                     "memory_bytes": self.memory_bytes, "compile_s": self.compile_s, "params": self.params},
            meta=bench.meta(), noise=dict(self.noise))


def _quartiles(values):
    return statistics.quantiles(values, n=4) if len(values) >= 2 else [0.0, 0.0, 0.0]


def build_model(vocab_size: int, cfg: dict, norm: str = "torch", seed: int = 0):
    from fastrain_lib.gpt import GPT

    torch.manual_seed(seed)
    return GPT(vocab_size, cfg["block_size"], cfg["n_layer"], cfg["n_head"], cfg["n_embd"], norm=norm)


class DeviceWindows:
    """Endless random training windows, cut on the device itself.

    The whole token tensor is moved to the device once; each batch is one index tensor of
    window starts (drawn on the device) and one gather, so no step stacks a Python list on
    the CPU and copies it over (pageable memory, where non_blocking does nothing). Iterating
    again gives the same batches (train.train replays them when it resumes)."""

    def __init__(self, tokens: torch.Tensor, starts, batch_size: int, block_size: int, *, seed: int = 0,
                 device="cpu"):
        self.device = torch.device(device)
        self.tokens = tokens.to(self.device)
        self.starts = torch.as_tensor(starts, dtype=torch.long).to(self.device)
        self.offsets = torch.arange(block_size, device=self.device)
        self.batch_size, self.seed = batch_size, seed

    def __iter__(self):
        generator = torch.Generator(device=self.device).manual_seed(self.seed)
        while True:
            pick = torch.randint(len(self.starts), (self.batch_size,), generator=generator, device=self.device)
            index = self.starts[pick].unsqueeze(1) + self.offsets  # (batch, block) positions in the text
            yield self.tokens[index], self.tokens[index + 1]  # y is x shifted by one character


def device_batches(data: corpus_mod.Corpus, split: str, cfg: dict, *, seed: int, device) -> DeviceWindows:
    """Training or validation windows of the corpus, kept on `device` (see DeviceWindows)."""
    tokens = {"train": data.train, "val": data.val}[split]
    starts = corpus_mod.boundaries(tokens, data.chars, cfg["block_size"])
    if len(starts) == 0:
        raise ValueError(t("corpus.too_small", split=split, n=len(tokens), block=cfg["block_size"]))
    return DeviceWindows(tokens, starts, cfg["batch_size"], cfg["block_size"], seed=seed, device=device)


@torch.no_grad()
def val_loss(model, data: corpus_mod.Corpus, cfg: dict, device, precision: str = "fp32") -> float:
    """Mean cross-entropy on a fixed set of validation windows (the same ones every time)."""
    from fastrain_lib import train

    windows = device_batches(data, "val", cfg, seed=1234, device=device)
    batches = list(itertools.islice(iter(windows), cfg["eval_batches"]))
    return train.evaluate(model, batches, device=device, precision=precision)["loss"]


def sample(model, data: corpus_mod.Corpus, n_chars: int, *, device="cpu", seed: int = 0, temperature: float = 0.8,
           prompt: str | None = None) -> str:
    """Generate Bengali from a whole-word prompt; dangling marks are tidied before display."""
    prompt = prompt or data.prompt(seed)
    idx = data.encode(prompt).unsqueeze(0).to(device)
    generator = torch.Generator(device=torch.device(device).type).manual_seed(seed)
    out = model.generate(idx, n_chars, temperature=temperature, top_k=None, generator=generator)
    return corpus_mod.tidy(data.decode(out[0].tolist()))


def _optimizer_factory(impl: str, lr: float):
    """params -> AdamW in implementation `impl` (a partial, so DDP workers can pickle it)."""
    from fastrain_lib.fused import optimizers

    if impl not in optimizers.OPTIMIZER_IMPLS:
        raise ValueError(t("capstone.bad_optimizer", impl=impl, allowed=", ".join(optimizers.OPTIMIZER_IMPLS)))
    return functools.partial(_make_opt, impl=impl, lr=lr)


def _make_opt(params, impl: str, lr: float):
    from fastrain_lib.fused import optimizers

    return optimizers.make_optimizer(params, impl, lr=lr, weight_decay=0.0)


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


def _log_path(checkpoint_dir) -> Path | None:
    return Path(checkpoint_dir) / "capstone_log.json" if checkpoint_dir else None


def run(*, device: str | None = None, precision: str = "fp32", optimizer: str = "fused", norm: str = "torch",
        compile: bool = False, grad_accum: int = 1, processes: int = 1, steps: int | None = None,
        checkpoint_dir=None, resume: bool = False, seed: int = 0, progress: bool = True, stop_at: int | None = None,
        time_window: int = 4, **size_overrides) -> Result:
    """Train the capstone GPT with the given switches and measure it.

    processes > 1 runs DistributedDataParallel in that many processes (each with its own
    batches; tokens/s counts all of them). Every `eval_every` steps (= checkpoint_every)
    the validation loss is measured and a Bengali sample generated; with checkpoint_dir
    a checkpoint is saved there too, and resume=True continues from the newest one.
    stop_at=k stops after step k as if the machine were switched off (for the resume demo).
    time_window: steps timed together between two device waits (train.train); 1 gives each
    step its own time, which a comparison needs to tell a difference from the noise."""
    device = str(hardware.check_device(device or hardware.best_device()))
    cfg = sizes(**size_overrides)
    if steps is not None:
        cfg["steps"] = steps
    if "batch_size" not in size_overrides:  # a batch the student chose is kept; the mode's must fit
        cfg = fit_batch(cfg, hardware.facts(device), precision, load_corpus().vocab_size)
    if processes < 1:
        raise ValueError(t("capstone.bad_processes", n=processes))
    settings = {"device": device, "precision": precision, "optimizer": optimizer, "norm": norm, "compile": compile,
                "grad_accum": grad_accum, "processes": processes, "steps": cfg["steps"], "time_window": time_window,
                "model": {k: cfg[k] for k in ("n_layer", "n_head", "n_embd", "block_size", "batch_size")}}
    if processes > 1:
        if checkpoint_dir is not None:
            raise ValueError(t("capstone.ddp_no_checkpoint"))
        return _run_ddp(settings, cfg, seed)
    out = train_one(settings, cfg, seed=seed, progress=progress, checkpoint_dir=checkpoint_dir, resume=resume,
                    stop_at=stop_at)
    result = _finish(settings, cfg, out, world_size=1)
    if checkpoint_dir is not None:
        result.run_dir = str(checkpoint_dir)
        _log_finish(checkpoint_dir, result)
    return result


def _now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _read_log(checkpoint_dir) -> dict:
    path = _log_path(checkpoint_dir)
    if path is None or not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # a log cut short by a crash: the checkpoints still hold the training state


def _write_log(checkpoint_dir, log: dict) -> None:
    path = _log_path(checkpoint_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)  # never a half-written log


def _log_finish(checkpoint_dir, result: Result) -> None:
    """Record when the run finished and what was measured then (a later look at the folder reads it)."""
    log = _read_log(checkpoint_dir)
    if result.measured_steps:
        log["finished"] = _now()
        log["measured"] = {"tokens_per_s": result.tokens_per_s, "mfu": result.mfu if result.mfu_ok else None,
                           "steps": result.steps, "measured_steps": result.measured_steps,
                           "device": result.settings["device"], "precision": result.settings["precision"]}
        _write_log(checkpoint_dir, log)


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
        from torch.nn.parallel import DistributedDataParallel as DDP

        net = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    batches = device_batches(data, "train", cfg, seed=seed + 1000 * (ddp_rank or 0), device=dev)

    log = {"val_curve": [], "samples": []}
    if checkpoint_dir is not None and resume:
        log.update(_read_log(checkpoint_dir))
    log.setdefault("started", _now())
    lead = ddp_rank in (None, 0)

    def on_step(step, history):
        if (step % cfg["eval_every"] == 0 or step == cfg["steps"]) and lead:
            loss = val_loss(model, data, cfg, dev, settings["precision"])
            text = sample(model, data, cfg["sample_chars"], device=dev, seed=seed)
            log["val_curve"].append((step, loss))
            log["samples"].append((step, text, corpus_mod.word_share(text, data.words())))
            if checkpoint_dir is not None:  # saved with the checkpoint, so a resumed run keeps its curve
                _write_log(checkpoint_dir, log)
        if stop_at is not None and step >= stop_at:
            raise Stopped(step)

    if lead and not log["val_curve"]:
        log["val_curve"].append((0, val_loss(model, data, cfg, dev, settings["precision"])))
    optimizer = _optimizer_factory(settings["optimizer"], cfg["lr"])
    history = train.train(net, batches, steps=cfg["steps"], device=dev, precision=settings["precision"],
                          optimizer=optimizer, compile=settings["compile"], grad_accum=settings["grad_accum"],
                          seed=seed, progress=progress and lead, checkpoint_dir=checkpoint_dir,
                          # also without a folder: train's timing windows end at these steps, so the
                          # validation loss and sample of step k come from the model after step k
                          checkpoint_every=cfg["eval_every"], resume=resume,
                          on_step=on_step, clip_grad=1.0, time_window=settings.get("time_window", 4))
    log.update({key: _dedupe(log[key]) for key in ("val_curve", "samples")})
    from fastrain_lib.gpt import flops_per_token

    return {"history": history.to_dict(), "log": log, "flops_per_token": flops_per_token(model, cfg["block_size"]),
            "params": sum(p.numel() for p in model.parameters()), "memory": _memory(dev, history)}


def ddp_worker(rank: int, world_size: int, settings: dict, cfg: dict, seed: int) -> dict | None:
    """One DDP rank: the course's one DDP worker (distributed.ddp.train_worker) running train_one."""
    from fastrain_lib.distributed.ddp import train_worker

    return train_worker(rank, world_size, task="fastrain_lib.lessons.l07_capstone.capstone:train_one", task_args=(settings, cfg),
                        task_kwargs={"seed": seed})


def _run_ddp(settings: dict, cfg: dict, seed: int) -> Result:
    from fastrain_lib.distributed import launch

    n = settings["processes"]
    timeout = config.by_mode(ci=120.0, lab=1800.0, full=7200.0)
    results = launch(ddp_worker, n, args=(settings, cfg, seed), timeout_s=timeout,
                     tensors_on_cuda=str(settings["device"]).startswith("cuda"))
    return _finish(settings, cfg, results[0], world_size=n)


def _finish(settings: dict, cfg: dict, out: dict, world_size: int) -> Result:
    from fastrain_lib.train import History

    history = History.from_dict(out["history"])
    device = torch.device(settings["device"])
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
    peak = run_peak(settings["device"], settings["precision"], world_size)
    memory, memory_kind = out["memory"]
    return Result(settings=settings, steps=history.steps, losses=history.losses,
                  val_curve=[tuple(v) for v in out["log"]["val_curve"]],
                  samples=[tuple(s) for s in out["log"]["samples"]], median_step_s=median,
                  tokens_per_s=tokens_per_s, flops_per_token=out["flops_per_token"],
                  mfu=mfu(tokens_per_s, out["flops_per_token"], peak), peak=peak, memory_bytes=memory,
                  memory_kind=memory_kind, compile_s=compile_s,
                  resumed_from=history.resumed_from, params=out["params"], step_times_s=list(times_now),
                  measured_steps=len(times_now), finished_earlier=finished_earlier)


# --- runs on disk: a fresh folder per run, earlier runs reported as earlier -------------------------
RUN_PREFIX = "run-"


def new_run_dir(parent, keep: int = 3) -> Path:
    """A new, empty folder for one capstone run under `parent` (named by the UTC time), so a
    notebook executed again never mistakes the previous run's checkpoints for its own.
    Only the newest `keep` earlier runs are kept (checkpoints take disk space)."""
    import datetime
    import shutil

    parent = Path(parent)
    parent.mkdir(parents=True, exist_ok=True)
    for old in run_dirs(parent)[:-keep] if keep > 0 else run_dirs(parent):
        shutil.rmtree(old, ignore_errors=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    for n in itertools.count(1):
        folder = parent / f"{RUN_PREFIX}{stamp}{'' if n == 1 else f'-{n}'}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue  # two runs in the same second


def run_dirs(parent) -> list[Path]:
    """The run folders under `parent`, oldest first."""
    parent = Path(parent)
    if not parent.is_dir():
        return []
    return sorted(p for p in parent.iterdir() if p.is_dir() and p.name.startswith(RUN_PREFIX))


def earlier_run(folder) -> dict | None:
    """What a run folder holds: when it started and finished, its steps, what it measured then."""
    from fastrain_lib import checkpoint

    log = _read_log(folder)
    ckpts = checkpoint.list_checkpoints(folder)
    if not log and not ckpts:
        return None
    step = int(checkpoint.PATTERN.match(ckpts[0].name).group(1)) if ckpts else 0
    return {"folder": str(folder), "started": log.get("started"), "finished": log.get("finished"),
            "checkpoint_step": step, "measured": log.get("measured")}


def describe_earlier(info: dict) -> str:
    """One line on an earlier run found on disk, labelled with its date: never as this run's result."""
    measured = info.get("measured")
    if info.get("finished") and measured:
        return t("capstone.earlier_finished", date=_date(info["finished"]), folder=Path(info["folder"]).name,
                 steps=measured["steps"], tokens=f"{measured['tokens_per_s']:,.0f}",
                 device=measured["device"], precision=measured["precision"])
    return t("capstone.earlier_unfinished", date=_date(info.get("started")), folder=info["folder"],
             step=info["checkpoint_step"])


def _date(iso: str | None) -> str:
    return (iso or "?").replace("T", " ")[:16] + (" UTC" if iso else "")


def report_lines(result: Result) -> list[str]:
    """What this call of run() trained and measured, in words: an earlier finished run is said to be one."""
    if not result.measured_steps:
        return [t("capstone.report_nothing_new", date=_date(result.finished_earlier), steps=result.steps)]
    lines = []
    if result.resumed_from:
        lines.append(t("capstone.report_resumed", start=result.resumed_from, end=result.steps,
                       n=result.measured_steps))
    else:
        lines.append(t("capstone.report_fresh", n=result.measured_steps))
    lines.append(t("capstone.report_speed", tokens=f"{result.tokens_per_s:,.0f}", mfu=mfu_text(result.mfu),
                   peak=result.peak.label))
    return lines


# --- reference/ results (read through fastrain_lib.measure.reference: one series per run file) ------------
def reference_runs(folder: Path | None = None) -> list[tuple[str, list[bench.Record]]]:
    """[(run label: hardware · date · mode, that run's records)] for every reference/*.json, one per file."""
    from fastrain_lib.measure import reference

    return [(run.label, run.records) for run in reference.runs(folder)]


def speedup(records: list[bench.Record], faster: str, slower: str) -> float | None:
    """median(slower) / median(faster) for two record names of the same machine, or None."""
    by_name = {r.name: r for r in records}
    if faster in by_name and slower in by_name and by_name[faster].median_s > 0:
        return by_name[slower].median_s / by_name[faster].median_s
    return None


def as_dict(result: Result) -> dict:
    return asdict(result)


def _ratio(records, faster: str, slower: str) -> str:
    value = speedup(records, faster, slower)
    return f"×{value:.2f}" if value else "—"


def evidence_row(label: str, records: list[bench.Record]) -> tuple:
    """One machine's measured speed-ups: AMP, fused optimizer, LayerNorm, compile, 2 DDP processes."""
    amp = max((speedup(records, f"amp {m}", "amp fp32") or 0.0, m) for m in ("bf16", "fp16"))  # autocast modes
    ddp = {r.name: r for r in records}.get("ddp x2")
    return (label,
            f"×{amp[0]:.2f} ({amp[1]})" if amp[0] else "—",
            _ratio(records, "adamw fused", "adamw forloop"),
            _ratio(records, "layernorm torch", "layernorm naive"),
            _ratio(records, "gpt step compiled", "gpt step eager"),
            f"{100 * ddp.metrics['scaling_efficiency']:.0f}%" if ddp and "scaling_efficiency" in ddp.metrics else "—")


def evidence_headers() -> list[str]:
    return [t("lesson07.ev_machine"), t("lesson07.ev_amp"), t("lesson07.ev_optim"), t("lesson07.ev_layernorm"),
            t("lesson07.ev_compile"), t("lesson07.ev_ddp")]


def compare(variants: dict[str, dict], steps: int | None = None, **common) -> dict[str, Result]:
    """Run the capstone briefly once per variant ({name: settings}) with the same sizes; every
    step timed on its own, so switch_effects can compare the spread of the step times."""
    steps = steps or config.by_mode(ci=4, lab=60, full=100)
    results = {}
    for name, settings in variants.items():
        with noise.Window() as window:  # other work on the machine while this variant ran
            result = run(steps=steps, eval_every=steps, progress=False, time_window=1, **{**common, **settings})
        spread, repeats = noise.from_times(result.step_times_s[1:])
        result.noise = window.assess(threads=torch.get_num_threads(), spread=spread, repeats=repeats)
        results[name] = result
    return results


def here_row(results: dict[str, Result]) -> tuple:
    """The evidence row of this machine from compare() results keyed fp32 / bf16 (or fp16) / fused / compile."""
    def ratio(fast: str, base: str = "fp32") -> str:
        if fast in results and base in results and results[base].tokens_per_s > 0:
            return f"×{results[fast].tokens_per_s / results[base].tokens_per_s:.2f}"
        return "—"

    amp = next((m for m in ("bf16", "fp16") if m in results), None)
    return (t("lesson07.here"), f"{ratio(amp)} ({amp})" if amp else "—", ratio("fused"), "—", ratio("compile"), "—")


# --- the recipe of this machine: which switch helped here, beyond the noise -------------------------
SWITCH_NAMES = {"bf16": "bf16 (AMP)", "fp16": "fp16 + GradScaler (AMP)", "fused": "fused AdamW",
                "compile": "torch.compile"}


def _spread(times: list[float]) -> list[float]:
    """Quartiles of the step times without the first (warm-up) step where there are enough."""
    return _quartiles(times[1:] if len(times) >= 4 else times)


def switch_effects(results: dict[str, Result], base: str = "fp32") -> list[dict]:
    """Each switch's measured effect against the baseline run, largest speed-up first.

    speedup = tokens/s with the switch ÷ tokens/s without it; verdict "faster"/"slower" only when
    the interquartile ranges of the step times do not overlap, else "noise" (too close to call).
    "busy" overrides both: other programs took cores while the switch's run or the baseline ran
    (noise.Window, reason "load"), so the two were timed on different machines in effect — a
    burst during one run makes any factor, 0.4× or 2.5×, and no verdict can be read from it."""
    ref = results[base]
    q_ref = _spread(ref.step_times_s)
    effects = []
    for name, r in results.items():
        if name == base or not (r.tokens_per_s > 0 and ref.tokens_per_s > 0):
            continue
        q = _spread(r.step_times_s)
        verdict = "faster" if q[2] < q_ref[0] else "slower" if q[0] > q_ref[2] else "noise"
        busy = [info for info in (r.noise, ref.noise) if _busy(info)]
        if busy:
            verdict = "busy"
        effects.append({"switch": name, "name": SWITCH_NAMES.get(name, name), "speedup": r.tokens_per_s / ref.tokens_per_s,
                        "verdict": verdict, "tokens": r.tokens_per_s, "base": ref.tokens_per_s,
                        "other_cores": max((_other_cores(info) for info in busy), default=0.0),
                        "cores": max((info.get("cores") or 0 for info in busy), default=0)})
    return sorted(effects, key=lambda e: -e["speedup"])


def _busy(info: dict | None) -> bool:
    """Other work needed cores that this run's threads were using (noise's "load" reason)."""
    return bool(info) and "load" in info.get("reasons", ())


def _other_cores(info: dict) -> float:
    return (info.get("other_cores") or 0.0) + (info.get("steal_cores") or 0.0)


def recipe_verdicts(effects: list[dict], f: hardware.Facts) -> list[tuple[str, dict]]:
    """(catalog key, values) sentences for the # VERDICT cell: the switch to turn on first here,
    with its numbers; the others; and why a switch slowed training where a hardware fact says why."""
    lines = []
    winners = [e for e in effects if e["verdict"] == "faster"]
    close = [e for e in effects if e["verdict"] == "noise"]  # "the best, within the noise": never a slower one
    if winners:
        lines.append(("lesson07.verdict_best", winners[0]))
    elif close:
        lines.append(("lesson07.verdict_none", close[0]))
    for e in effects:
        if winners and e is winners[0]:
            continue
        key = {"faster": "lesson07.verdict_also", "slower": "lesson07.verdict_slower",
               "busy": "lesson07.verdict_busy"}.get(e["verdict"])
        if key is None:
            if not winners and close and e is close[0]:
                continue  # already said by verdict_none
            key = "lesson07.verdict_noise"
        lines.append((key, e))
        if e["verdict"] == "slower" and e["switch"] in ("bf16", "fp16") and e["switch"] not in hardware.fast_formats(f):
            lines.append(("lesson07.why_no_fast_format", {"fmt": e["switch"], "device": f.name or f.device_type}))
    return lines


# --- why a switch slowed training here: measured with torch.profiler, not guessed ----------------------
def op_times(settings: dict, steps: int | None = None, seed: int = 0) -> dict[str, float]:
    """Milliseconds per training step of each top-level operator (launches.op_ms_per_call: forward,
    backward and optimizer) for a compare() variant's settings, on the same model sizes."""
    from fastrain_lib import train
    from fastrain_lib.measure import launches

    steps = steps or config.by_mode(ci=2, lab=4, full=4)
    data = load_corpus()
    cfg = sizes(**settings.get("model", {}))
    dev = torch.device(settings.get("device", "cpu"))
    model = build_model(data.vocab_size, cfg, settings.get("norm", "torch"), seed).to(dev)
    batches = device_batches(data, "train", cfg, seed=seed + 1, device=dev)
    optimizer = _optimizer_factory(settings.get("optimizer", "forloop"), cfg["lr"])(model.parameters())  # one, kept

    def one_step():
        train.train(model, batches, steps=1, device=dev, precision=settings.get("precision", "fp32"),
                    optimizer=optimizer, progress=False, clip_grad=1.0, time_window=1)

    return launches.op_ms_per_call(one_step, steps)


def measured_whys(effects: list[dict], results: dict[str, Result], base: str = "fp32", profile=op_times) -> list:
    """(catalog key, values) for each switch that measurably slowed training: which operator's time
    grew most, profiled now on both variants (and what the matrix multiplies did meanwhile)."""
    lines = []
    slower = [e for e in effects if e["verdict"] == "slower"]
    if not slower:
        return lines
    from fastrain_lib.measure.launches import profile_pair, why_slower

    for e in slower:
        before, after = profile_pair(profile, results[base].settings, results[e["switch"]].settings)
        lines.append(why_slower(before, after, e["name"]))
    return lines


def compare_rows(results: dict[str, Result], base: str = "fp32") -> list[tuple]:
    """The table under the comparison chart: each variant's settings, median step time, tokens/s
    and speed-up over `base`, all measured in this call (the numbers the recipe is computed from)."""
    ref = results.get(base)
    rows = []
    for name, r in results.items():
        ratio = r.tokens_per_s / ref.tokens_per_s if ref and ref.tokens_per_s > 0 else math.nan
        rows.append((name, f"{r.settings.get('precision')} + {r.settings.get('optimizer')}",
                     f"{r.median_step_s * 1e3:.1f}", f"{r.tokens_per_s:,.0f}", f"×{ratio:.2f}"))
    return rows


def compare_headers() -> list[str]:
    return [t("lesson07.cmp_switch"), t("lesson07.cmp_settings"), t("lesson07.step_ms"), t("lesson07.tokens_per_s"),
            t("lesson07.cmp_speedup")]


def recipe_steps(effects: list[dict], machine: str) -> list[tuple[str, dict]]:
    """(catalog key, values) lines of the closing recipe of *this* machine, from switch_effects:
    the switches that measurably helped, largest speed-up first, numbered; then those that did
    not (slower, or within the noise) with their measured factor; then those measured while the
    machine was busy, which get no verdict at all: "keep fp32" is never said when a switch could
    not be judged (under load, a ×2.5 gain was once called noise beside that advice). Nothing
    here is typed in."""
    winners = [e for e in effects if e["verdict"] == "faster"]
    busy = [e for e in effects if e["verdict"] == "busy"]
    lines = [("lesson07.recipe_head", {"machine": machine})]
    lines += [("lesson07.recipe_step", {**e, "n": n}) for n, e in enumerate(winners, 1)]
    if not winners and not busy:
        lines.append(("lesson07.recipe_nothing", {}))
    rest = [e for e in effects if e["verdict"] in ("slower", "noise")]
    if rest:
        why = {"slower": t("lesson07.recipe_slower"), "noise": t("lesson07.recipe_noise")}
        names = ", ".join(f"{e['name']} ×{e['speedup']:.2f} ({why[e['verdict']]})" for e in rest)
        lines.append(("lesson07.recipe_skip", {"names": names}))
    if busy:
        names = ", ".join(f"{e['name']} ×{e['speedup']:.2f}" for e in busy)
        worst = max(busy, key=lambda e: e["other_cores"])
        lines.append(("lesson07.recipe_busy", {"names": names, "other": worst["other_cores"], "cores": worst["cores"]}))
    return lines
