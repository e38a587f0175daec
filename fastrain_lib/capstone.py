"""The capstone: a tiny character-level GPT learns to write Bengali, with every switch of the course.

    from fastrain_lib import capstone
    result = capstone.run(device="cpu", precision="bf16", optimizer="fused", norm="torch",
                          compile=False, grad_accum=1, processes=1, checkpoint_dir="ckpt")
    result.tokens_per_s, result.mfu, result.val_curve, result.samples

What it glues together (each piece is a module of its own):
- corpus.build()            the Bengali text and its character vocabulary
- gpt.GPT                   the model (LayerNorm implementation pluggable)
- fused.make_optimizer      AdamW as for-loop / foreach / fused / Apex
- train.train               precision, compile, gradient accumulation, checkpoint/resume
- distributed.launch        N processes with DistributedDataParallel (gloo on CPUs, NCCL on GPUs)

Efficiency is reported as MFU (model FLOPs utilisation, PaLM appendix B): achieved
tokens/s × training FLOPs per token ÷ the device's peak FLOP/s. The peak is the
datasheet figure for a known GPU (labelled "datasheet") and, for a CPU, the best matmul
speed measured here with bench.matmul (labelled "measured") — a CPU has no honest datasheet
number for PyTorch.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from . import bench, config, hardware
from . import corpus as corpus_mod
from .i18n import t

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


@functools.lru_cache(maxsize=1)
def load_corpus() -> corpus_mod.Corpus:
    """The corpus, built once per session (a few hundred ms)."""
    return corpus_mod.build()


# --- peak FLOP/s and MFU ------------------------------------------------------------------------
@dataclass(frozen=True)
class Peak:
    flops: float  # FLOP/s
    kind: str  # "datasheet" or "measured"
    label: str  # what to print beside the number (Bengali/English from the catalog)


def peak_flops(device: str, precision: str = "fp32") -> Peak:
    """The device's peak FLOP/s for this precision: datasheet for a known GPU, measured otherwise."""
    device = torch.device(device)
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        sheet = hardware.datasheet_for(name)
        if sheet is not None:
            tflops = {"fp16": sheet.tflops_fp16, "bf16": sheet.tflops_fp16,
                      "tf32": sheet.tflops_tf32 or sheet.tflops_fp32}.get(precision, sheet.tflops_fp32)
            return Peak(tflops * 1e12, "datasheet", t("capstone.peak_datasheet", name=sheet.name, source=sheet.source))
    return measured_peak(device.type, precision)


@functools.lru_cache(maxsize=8)
def measured_peak(device_type: str, precision: str = "fp32") -> Peak:
    """The best matmul speed measured here, in float32 and (for fp16/bf16) in that format too.

    Taking the better of the two matters on a CPU: a format the CPU has no hardware for
    (fp16 on most CPUs) multiplies matrices far slower than fp32, and dividing by that
    would give an MFU above 100%."""
    dtypes = [torch.float32] + [d for m, d in (("bf16", torch.bfloat16), ("fp16", torch.float16)) if m == precision]
    best, best_dtype = 0.0, torch.float32
    for dtype in dtypes:
        for size in config.by_mode(ci=(256, 512), lab=(256, 512, 1024), full=(1024, 2048, 4096)):
            gflops = bench.matmul(size, device=device_type, dtype=dtype).metrics["gflops"]
            if gflops * 1e9 > best:
                best, best_dtype = gflops * 1e9, dtype
    return Peak(best, "measured", t("capstone.peak_measured", dtype=str(best_dtype).replace("torch.", "")))


def mfu(tokens_per_s: float, flops_per_token: float, peak: float) -> float:
    """Model FLOPs utilisation: the share of the peak that went into the model's own FLOPs."""
    return tokens_per_s * flops_per_token / peak if peak > 0 else math.nan


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
    step_times_s: list[float] = field(default_factory=list)

    def record(self) -> bench.Record:
        """A bench.Record of this run (for saving, comparing, and reference/)."""
        times = self.step_times_s[1:] or self.step_times_s
        q = _quartiles(times)
        return bench.Record(
            name=f"capstone {self.settings.get('precision')} {self.settings.get('optimizer')} x{self.settings.get('processes', 1)}",
            median_s=self.median_step_s, iqr_s=q[2] - q[0], times_s=list(times), params=dict(self.settings),
            metrics={"tokens_per_s": self.tokens_per_s, "mfu": self.mfu, "peak_flops": self.peak.flops,
                     "peak_kind": self.peak.kind, "flops_per_token": self.flops_per_token,
                     "final_val_loss": self.val_curve[-1][1] if self.val_curve else None,
                     "memory_bytes": self.memory_bytes, "compile_s": self.compile_s, "params": self.params},
            meta=bench.meta())


def _quartiles(values):
    import statistics

    return statistics.quantiles(values, n=4) if len(values) >= 2 else [0.0, 0.0, 0.0]


def build_model(vocab_size: int, cfg: dict, norm: str = "torch", seed: int = 0):
    from .gpt import GPT

    torch.manual_seed(seed)
    return GPT(vocab_size, cfg["block_size"], cfg["n_layer"], cfg["n_head"], cfg["n_embd"], norm=norm)


@torch.no_grad()
def val_loss(model, data: corpus_mod.Corpus, cfg: dict, device, precision: str = "fp32") -> float:
    """Mean cross-entropy on a fixed set of validation windows (the same ones every time)."""
    from . import train

    batches = itertools.islice(iter(data.batches("val", cfg["batch_size"], cfg["block_size"], seed=1234)),
                               cfg["eval_batches"])
    return train.evaluate(model, list(batches), device=device, precision=precision)["loss"]


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
    from . import fused

    if impl not in fused.OPTIMIZER_IMPLS:
        raise ValueError(t("capstone.bad_optimizer", impl=impl, allowed=", ".join(fused.OPTIMIZER_IMPLS)))
    return functools.partial(_make_opt, impl=impl, lr=lr)


def _make_opt(params, impl: str, lr: float):
    from . import fused

    return fused.make_optimizer(params, impl, lr=lr, weight_decay=0.0)


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
        **size_overrides) -> Result:
    """Train the capstone GPT with the given switches and measure it.

    processes > 1 runs DistributedDataParallel in that many processes (each with its own
    batches; tokens/s counts all of them). Every `eval_every` steps (= checkpoint_every)
    the validation loss is measured and a Bengali sample generated; with checkpoint_dir
    a checkpoint is saved there too, and resume=True continues from the newest one.
    stop_at=k stops after step k as if the machine were switched off (for the resume demo)."""
    device = str(hardware.check_device(device or hardware.best_device()))
    cfg = sizes(**size_overrides)
    if steps is not None:
        cfg["steps"] = steps
    if processes < 1:
        raise ValueError(t("capstone.bad_processes", n=processes))
    settings = {"device": device, "precision": precision, "optimizer": optimizer, "norm": norm, "compile": compile,
                "grad_accum": grad_accum, "processes": processes, "steps": cfg["steps"],
                "model": {k: cfg[k] for k in ("n_layer", "n_head", "n_embd", "block_size", "batch_size")}}
    if processes > 1:
        if checkpoint_dir is not None:
            raise ValueError(t("capstone.ddp_no_checkpoint"))
        return _run_ddp(settings, cfg, seed)
    out = train_one(settings, cfg, seed=seed, progress=progress, checkpoint_dir=checkpoint_dir, resume=resume,
                    stop_at=stop_at)
    return _finish(settings, cfg, out, world_size=1)


class Stopped(Exception):
    """Raised by stop_at: the run was 'switched off' after a step (resume demo)."""


def train_one(settings: dict, cfg: dict, *, seed: int = 0, progress: bool = False, checkpoint_dir=None,
              resume: bool = False, stop_at: int | None = None, ddp_rank: int | None = None) -> dict:
    """The training itself (in this process; also what each DDP rank runs). Returns plain data."""
    from . import train

    data = load_corpus()
    dev = torch.device(settings["device"])
    if dev.type == "cuda" and ddp_rank is not None:
        dev = torch.device("cuda", ddp_rank % torch.cuda.device_count())
    model = build_model(data.vocab_size, cfg, settings["norm"], seed).to(dev)
    net = model
    if ddp_rank is not None:
        from torch.nn.parallel import DistributedDataParallel as DDP

        net = DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    batches = data.batches("train", cfg["batch_size"], cfg["block_size"], seed=seed + 1000 * (ddp_rank or 0))

    log = {"val_curve": [], "samples": []}
    log_file = _log_path(checkpoint_dir)
    if resume and log_file is not None and log_file.exists():
        log = json.loads(log_file.read_text(encoding="utf-8"))
    lead = ddp_rank in (None, 0)

    def on_step(step, history):
        if (step % cfg["eval_every"] == 0 or step == cfg["steps"]) and lead:
            loss = val_loss(model, data, cfg, dev, settings["precision"])
            text = sample(model, data, cfg["sample_chars"], device=dev, seed=seed)
            log["val_curve"].append((step, loss))
            log["samples"].append((step, text, corpus_mod.word_share(text, data.words())))
            if log_file is not None:  # saved with the checkpoint, so a resumed run keeps its curve
                log_file.parent.mkdir(parents=True, exist_ok=True)
                log_file.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
        if stop_at is not None and step >= stop_at:
            raise Stopped(step)

    if lead and not resume and not log["val_curve"]:
        log["val_curve"].append((0, val_loss(model, data, cfg, dev, settings["precision"])))
    optimizer = _optimizer_factory(settings["optimizer"], cfg["lr"])
    history = train.train(net, batches, steps=cfg["steps"], device=dev, precision=settings["precision"],
                          optimizer=optimizer, compile=settings["compile"], grad_accum=settings["grad_accum"],
                          seed=seed, progress=progress and lead, checkpoint_dir=checkpoint_dir,
                          checkpoint_every=cfg["eval_every"] if checkpoint_dir else None, resume=resume,
                          on_step=on_step, clip_grad=1.0)
    log = {key: _dedupe(value) for key, value in log.items()}
    from .gpt import flops_per_token

    return {"history": history.to_dict(), "log": log, "flops_per_token": flops_per_token(model, cfg["block_size"]),
            "params": sum(p.numel() for p in model.parameters()), "memory": _memory(dev, history)}


def ddp_worker(rank: int, world_size: int, settings: dict, cfg: dict, seed: int) -> dict | None:
    """One DDP rank (runs in its own process, started by distributed.launch)."""
    out = train_one(settings, cfg, seed=seed, ddp_rank=rank)
    return out if rank == 0 else {"history": {"step_times_s": out["history"]["step_times_s"]}}


def _run_ddp(settings: dict, cfg: dict, seed: int) -> Result:
    from .distributed import launch

    n = settings["processes"]
    timeout = config.by_mode(ci=120.0, lab=1800.0, full=7200.0)
    results = launch(ddp_worker, n, args=(settings, cfg, seed), timeout_s=timeout)
    return _finish(settings, cfg, results[0], world_size=n)


def _finish(settings: dict, cfg: dict, out: dict, world_size: int) -> Result:
    from .train import History

    history = History.from_dict(out["history"])
    device = torch.device(settings["device"])
    tokens_per_step = cfg["batch_size"] * cfg["block_size"] * settings["grad_accum"] * world_size
    median = history.median_step_s()
    tokens_per_s = tokens_per_step / median if median and median > 0 else math.nan
    peak = peak_flops(settings["device"], settings["precision"])
    if device.type == "cuda":  # each process has its own GPU: the peak grows with them
        peak = Peak(peak.flops * world_size, peak.kind, peak.label)
    memory, memory_kind = out["memory"]
    return Result(settings=settings, steps=history.steps, losses=history.losses,
                  val_curve=[tuple(v) for v in out["log"]["val_curve"]],
                  samples=[tuple(s) for s in out["log"]["samples"]], median_step_s=median,
                  tokens_per_s=tokens_per_s, flops_per_token=out["flops_per_token"],
                  mfu=mfu(tokens_per_s, out["flops_per_token"], peak.flops), peak=peak, memory_bytes=memory,
                  memory_kind=memory_kind, compile_s=history.compile_s, resumed_from=history.resumed_from,
                  params=out["params"], step_times_s=history.step_times_s)


# --- reference/ results -----------------------------------------------------------------------------
def hardware_label(meta: dict) -> str:
    """'NVIDIA H100 80GB HBM3' or 'AMD EPYC (2 cores)': what a reference record ran on."""
    if meta.get("gpu_name"):
        return meta["gpu_name"] + (f" ×{meta['gpu_count']}" if meta.get("gpu_count", 1) > 1 else "")
    return f"{meta.get('cpu_name', '?')} ({meta.get('cpu_cores', '?')} {t('hw.cores')})"


def reference_records(family: str | None = None, folder: Path | None = None) -> list[bench.Record]:
    """Every record in reference/*.json (of one benchmark family), newest files last."""
    folder = folder or config.reference_dir()
    if folder is None:
        return []
    records = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            found = bench.load_records(path)
        except ValueError:
            continue  # tests/test_benchmarks.py reports broken files; a lesson just skips them
        records += [r for r in found if family is None or r.params.get("family") == family]
    return records


def speedup(records: list[bench.Record], faster: str, slower: str) -> float | None:
    """median(slower) / median(faster) for two record names of the same machine, or None."""
    by_name = {r.name: r for r in records}
    if faster in by_name and slower in by_name and by_name[faster].median_s > 0:
        return by_name[slower].median_s / by_name[faster].median_s
    return None


def as_dict(result: Result) -> dict:
    return asdict(result)


def reference_runs(folder: Path | None = None) -> list[tuple[str, list[bench.Record]]]:
    """[(hardware + date label, records of that run file)] for every reference/*.json."""
    folder = folder or config.reference_dir()
    runs = []
    for path in sorted(Path(folder).glob("*.json")) if folder else []:
        try:
            records = bench.load_records(path)
        except ValueError:
            continue
        if records:
            meta = records[0].meta
            runs.append((f"{hardware_label(meta)}, {str(meta.get('date', '?'))[:10]}", records))
    return runs


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
    """Run the capstone briefly once per variant ({name: settings}) with the same sizes."""
    steps = steps or config.by_mode(ci=4, lab=30, full=100)
    return {name: run(steps=steps, eval_every=steps, progress=False, **{**common, **settings})
            for name, settings in variants.items()}


def here_row(results: dict[str, Result]) -> tuple:
    """The evidence row of this machine from compare() results keyed fp32 / bf16 (or fp16) / fused / compile."""
    def ratio(fast: str, base: str = "fp32") -> str:
        if fast in results and base in results and results[base].tokens_per_s > 0:
            return f"×{results[fast].tokens_per_s / results[base].tokens_per_s:.2f}"
        return "—"

    amp = next((m for m in ("bf16", "fp16") if m in results), None)
    return (t("lesson07.here"), f"{ratio(amp)} ({amp})" if amp else "—", ratio("fused"), "—", ratio("compile"), "—")
