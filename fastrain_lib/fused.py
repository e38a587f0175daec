"""Fused kernels: optimizer and LayerNorm variants, NVIDIA Apex detection, kernel counting,
and the ablation that tests "Apex + AMP = 3x faster Transformer training" (lesson 04).

    apex_status()                         what NVIDIA Apex is installed, in plain words
    make_optimizer(params, "foreach")     Adam/AdamW: forloop | foreach | fused | apex
    make_layernorm(dim, "naive")          LayerNorm: torch | naive | naive_compiled | apex
    count_launches(fn)                    operator calls (CPU) / CUDA kernels (GPU) of one call
    ablation(device)                      the "3x" test on a tiny GPT -> list[bench.Record]
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from . import bench, config, hardware
from .i18n import t

APEX_STATES = ("missing", "wrong_package", "no_extensions", "ok")


@dataclass(frozen=True)
class ApexStatus:
    state: str  # one of APEX_STATES
    fused_adam: bool  # apex.optimizers.FusedAdam can run its CUDA kernel
    fused_layer_norm: bool  # apex.normalization.FusedLayerNorm can run its CUDA kernel

    @property
    def message(self) -> str:
        """What we found and what to do next, in the course language."""
        return t(f"apex.{self.state}")

    def __str__(self) -> str:
        return self.message


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
        return True
    except Exception:  # noqa: BLE001 -- ImportError, or a broken binary raising OSError/RuntimeError
        return False


def apex_status() -> ApexStatus:
    """Tell apart: no apex; PyPI's unrelated 'apex'; NVIDIA Apex without its CUDA
    extensions; NVIDIA Apex with fused kernels. Never imports the unrelated package."""
    spec = importlib.util.find_spec("apex")
    if spec is None:
        return ApexStatus("missing", False, False)
    locations = [Path(p) for p in (spec.submodule_search_locations or [])]
    # NVIDIA Apex is a package with optimizers/ and normalization/; PyPI's apex (a 2013
    # Pyramid web toolkit) has neither.
    if not any((loc / "optimizers").is_dir() and (loc / "normalization").is_dir() for loc in locations):
        return ApexStatus("wrong_package", False, False)
    # The compiled extensions are top-level modules that a --cpp_ext/--cuda_ext build installs.
    fused_adam = _importable("amp_C")
    fused_ln = _importable("fused_layer_norm_cuda")
    if not (fused_adam or fused_ln):
        return ApexStatus("no_extensions", False, False)
    return ApexStatus("ok", fused_adam, fused_ln)


# ---------------------------------------------------------------------------
# Lesson 04: Adam variants, LayerNorm variants, counting kernels, the "3x" ablation.
# ---------------------------------------------------------------------------

OPTIMIZER_IMPLS = ("forloop", "foreach", "fused", "apex")
NORM_IMPLS = ("torch", "naive", "naive_compiled", "apex")


# --- Adam ------------------------------------------------------------------


class NaiveAdam(torch.optim.Optimizer):
    """Adam/AdamW written out as in the paper, one parameter tensor at a time.

    For reading, not for speed: every line below is one (or two) separate operator
    calls per parameter tensor, which is exactly what the fused versions avoid.
    Matches torch.optim.Adam (adamw=False) / AdamW (adamw=True) within float tolerance."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, adamw=False):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "adamw": adamw})

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if not state:  # first step: the two running averages start at zero
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t_ = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                if group["weight_decay"]:
                    if group["adamw"]:  # AdamW: shrink the weights directly (decoupled)
                        p.mul_(1 - group["lr"] * group["weight_decay"])
                    else:  # Adam: L2 penalty added to the gradient
                        grad = grad + group["weight_decay"] * p
                m.mul_(beta1).add_(grad, alpha=1 - beta1)  # m = b1*m + (1-b1)*g
                v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)  # v = b2*v + (1-b2)*g*g
                m_hat = m / (1 - beta1**t_)  # bias correction: m and v started at zero
                v_hat = v / (1 - beta2**t_)
                p.sub_(group["lr"] * m_hat / (v_hat.sqrt() + group["eps"]))  # eps outside the sqrt
        return loss


def adam_step_reference(params, grads, exp_avgs, exp_avg_sqs, step: int, lr=1e-3, betas=(0.9, 0.999),
                        eps=1e-8):
    """One Adam step on lists of tensors, in place, the textbook way (step counts from 1)."""
    beta1, beta2 = betas
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, exp_avgs, exp_avg_sqs):
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v / (1 - beta2**step)).sqrt().add_(eps)
            p.sub_(lr * (m / (1 - beta1**step)) / denom)
    return params


def _cuda_params(params) -> bool:
    return all(p.is_cuda for p in params)


def make_optimizer(params, impl: str = "fused", *, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                   weight_decay: float = 0.0, adamw: bool = True) -> torch.optim.Optimizer:
    """Adam (adamw=False) or AdamW (default) in one of four implementations:

    forloop  torch.optim.AdamW(foreach=False): a few operator calls per parameter tensor
    foreach  torch.optim.AdamW(foreach=True): one call per operation for all tensors (PyTorch's default)
    fused    torch.optim.AdamW(fused=True): the whole update in one kernel (CUDA, and CPU on recent torch)
    apex     apex.optimizers.FusedAdam where NVIDIA Apex is built and the parameters are on a GPU;
             otherwise a Bengali warning and the native fused optimizer instead."""
    if impl not in OPTIMIZER_IMPLS:
        raise ValueError(t("fused.bad_impl", impl=impl, allowed=", ".join(OPTIMIZER_IMPLS)))
    params = list(params)
    if impl == "apex":
        status = apex_status()
        if status.fused_adam and _cuda_params(params):
            from apex.optimizers import FusedAdam

            # adam_w_mode defaults to True in Apex: say which one we want, always.
            return FusedAdam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, adam_w_mode=adamw)
        warnings.warn(t("fused.apex_adam_fallback", status=status.message), stacklevel=2)
        impl = "fused"
    cls = torch.optim.AdamW if adamw else torch.optim.Adam
    options = {"forloop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[impl]
    return cls(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, **options)


# --- LayerNorm -------------------------------------------------------------


class NaiveLayerNorm(nn.Module):
    """LayerNorm from its definition: mean, variance, normalise, scale and shift.

    Each line is a separate operator (and in backward several more), so eager PyTorch
    reads and writes the activations many times; nn.LayerNorm does it in one kernel."""

    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)  # biased variance, as LayerNorm uses
        x_hat = (x - mean) / torch.sqrt(var + self.eps)  # eps inside the sqrt, unlike Adam
        return x_hat * self.weight + self.bias


def make_layernorm(dim: int, impl: str = "torch", eps: float = 1e-5) -> nn.Module:
    """A LayerNorm over the last `dim` features:

    torch           nn.LayerNorm (on CUDA one fused kernel, itself ported from Apex)
    naive           NaiveLayerNorm (many small operators)
    naive_compiled  NaiveLayerNorm under torch.compile (Inductor fuses it; first call compiles)
    apex            apex.normalization.FusedLayerNorm where built, else a warning and nn.LayerNorm.
                    Note: FusedLayerNorm silently uses F.layer_norm for CPU tensors."""
    if impl not in NORM_IMPLS:
        raise ValueError(t("fused.bad_norm", impl=impl, allowed=", ".join(NORM_IMPLS)))
    if impl == "naive":
        return NaiveLayerNorm(dim, eps)
    if impl == "naive_compiled":
        return torch.compile(NaiveLayerNorm(dim, eps))
    if impl == "apex":
        status = apex_status()
        if status.fused_layer_norm:
            from apex.normalization import FusedLayerNorm

            return FusedLayerNorm(dim, eps=eps)
        warnings.warn(t("fused.apex_ln_fallback", status=status.message), stacklevel=2)
    return nn.LayerNorm(dim, eps=eps)


# --- an elementwise chain: bias + GELU ---------------------------------------

GELU_C = math.sqrt(2.0 / math.pi)  # 0.7978845608...


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """bias add + GELU (tanh form), written as the separate elementwise operators it is made of.

    Eager PyTorch runs each line as its own kernel: every one reads its inputs from
    memory and writes a full-size result back. Same maths as F.gelu(x + bias, approximate="tanh")."""
    z = x + bias
    cube = z * z * z
    inner = (z + 0.044715 * cube) * GELU_C
    return 0.5 * z * (1.0 + torch.tanh(inner))


def bias_gelu_reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The same function through PyTorch's own GELU kernel (two operators: add, gelu)."""
    return F.gelu(x + bias, approximate="tanh")


def fused_bytes(x: torch.Tensor, bias: torch.Tensor) -> int:
    """Bytes a perfectly fused bias+GELU must move: read x and bias once, write y once."""
    return 2 * x.numel() * x.element_size() + bias.numel() * bias.element_size()


def memory_traffic(fn, *args) -> tuple[int, int]:
    """Run fn(*args) and return (operator calls, bytes read + written by those operators).

    Counts every aten operator's tensor inputs and outputs once, as if nothing stayed in
    a cache: an upper bound on what an unfused chain moves, and exact for elementwise ops."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    totals = {"calls": 0, "bytes": 0}

    def nbytes(values) -> int:
        return sum(v.numel() * v.element_size() for v in tree_leaves(values) if isinstance(v, torch.Tensor))

    class Tally(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            totals["calls"] += 1
            totals["bytes"] += nbytes((args, kwargs)) + nbytes(out)
            return out

    with Tally():
        fn(*args)
    return totals["calls"], totals["bytes"]


# --- counting kernels with torch.profiler ------------------------------------


@dataclass(frozen=True)
class LaunchCount:
    """What one call of a function launched.

    ops      top-level aten operator calls (what Python asked PyTorch to do; same on every machine);
             a torch.compile'd graph counts as one call on a CPU
    kernels  CUDA kernels that ran on the GPU (None when profiling a CPU-only run)
    names    ops by name, e.g. {'aten::add_': 8, ...}"""

    ops: int
    kernels: int | None
    names: dict

    @property
    def launches(self) -> int:
        """GPU kernels when any ran on a GPU, else operator calls (each one a CPU 'kernel')."""
        return self.kernels if self.kernels else self.ops


def count_launches(fn, *, warmup: int = 1, cuda: bool | None = None) -> LaunchCount:
    """Profile one call of fn() and count its operator calls (and CUDA kernels on a GPU).

    warmup calls run first and are not counted (the first Adam step also creates its state).
    The counts are deterministic: run it twice, get the same numbers."""
    from torch.profiler import ProfilerActivity, profile

    # Kineto prints start/stop lines straight to the terminal; level 6 keeps it quiet.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    if cuda is None:
        cuda = torch.cuda.is_available()
    for _ in range(warmup):
        fn()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        fn()
        if cuda:
            torch.cuda.synchronize()
    names = Counter()
    kernels = 0
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            kernels += 1
        elif event.name.startswith("## Call CompiledFxGraph"):
            # torch.compile on a CPU: Inductor's C++ kernels are not profiled one by one, so a
            # compiled graph counts as one call (count_generated_kernels tells how many it holds).
            names["compiled graph"] += 1
        elif event.name.startswith("aten::"):
            parent = event.cpu_parent
            # Count only calls made from Python/autograd, not the aten calls nested inside them.
            if parent is None or not parent.name.startswith("aten::"):
                names[event.name] += 1
    return LaunchCount(ops=sum(names.values()), kernels=kernels if cuda else None, names=dict(names))


def optimizer_step_launches(impl: str, n_tensors: int, numel: int = 256, device="cpu",
                            warmup: int = 1) -> LaunchCount:
    """Launches of one AdamW step (after a warm-up step) over `n_tensors` parameter tensors."""
    params = [nn.Parameter(bench.fresh_random(numel, device=device, seed=i)) for i in range(n_tensors)]
    for i, p in enumerate(params):
        p.grad = bench.fresh_random(numel, device=device, seed=1000 + i)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the apex fallback warning: shown once in the lesson instead
        opt = make_optimizer(params, impl)
    return count_launches(opt.step, warmup=warmup)


# --- torch.compile: show what Inductor generated ------------------------------


def compiled_code(fn, *args) -> tuple[object, str, float]:
    """Compile fn with torch.compile, run it once on args; return (result, generated code, compile seconds).

    The code is the Python module Inductor wrote (C++ loops on a CPU, Triton kernels on a GPU)."""
    from torch._inductor.utils import run_and_get_code

    compiled = torch.compile(fn)
    start = time.perf_counter()
    result, codes = run_and_get_code(compiled, *args)
    if any(isinstance(a, torch.Tensor) and a.is_cuda for a in args):
        torch.cuda.synchronize()
    return result, "\n".join(codes), time.perf_counter() - start


def kernel_excerpt(code: str, max_lines: int = 60) -> str:
    """The interesting part of Inductor's output: the generated kernel(s) and the call() that runs them."""
    lines = code.splitlines()
    keep, inside = [], False
    for line in lines:
        starts = ("async_compile.cpp" in line or "async_compile.triton(" in line or "@triton.jit" in line)
        if starts:
            inside = True
        if inside:
            keep.append(line)
        if inside and not starts and line.lstrip().startswith("'''"):  # the closing quotes: ''') or ''', device_str=...
            inside = False
            keep.append("")
    call = [i for i, line in enumerate(lines) if line.strip().startswith("def call(")]
    if call:
        start = call[0]
        end = next((i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("return")), start + 20)
        keep += lines[start:end + 1]
    keep = keep or lines
    # Inductor's error-flag and include boilerplate says nothing about the fusion: leave it out.
    noise = ("inductor_cpu_integer_div_error", "#include", "omp_get_thread_num", "assert_size_stride")
    keep = [line for line in keep if not any(word in line for word in noise)]
    if len(keep) > max_lines:
        keep = keep[:max_lines] + [f"# ... ({len(keep) - max_lines} more lines)"]
    return "\n".join(keep)


def count_generated_kernels(code: str) -> int:
    """How many kernels Inductor generated (C++ 'kernel' functions or Triton kernels)."""
    return code.count("async_compile.cpp") + code.count("async_compile.triton(")


# --- the "3x faster" claim, tested: an ablation on a tiny GPT ------------------

ABLATION_EXPERIMENT = "lesson04_ablation"  # params["experiment"] of every ablation Record
CLAIMED_SPEEDUP = 3.0  # the source material: "Apex + AMP: up to 3x faster Transformer training"
ABLATION_STAGES = ("fp32", "tf32", "amp", "fused_adamw", "apex_layernorm", "compile")


def amp_dtype_for(device: torch.device) -> torch.dtype:
    """bf16 where it is fast (Ampere+ GPUs; CPUs run it too), fp16 (+ GradScaler) on older GPUs."""
    if device.type == "cuda" and not hardware.gpu_info(device.index or 0).get("bf16_fast", False):
        return torch.float16
    return torch.bfloat16


def ablation_stages(device: str | torch.device, include_compile: bool = True) -> list[dict]:
    """The cumulative settings of each stage that applies on `device`, in order.

    tf32 only exists on CUDA; the Apex stage only where Apex's LayerNorm kernel is built."""
    device = torch.device(device)
    settings = {"stage": "fp32", "tf32": False, "precision": "fp32", "optimizer": "foreach", "norm": "torch", "compile": False}
    stages = [dict(settings)]
    if device.type == "cuda":
        settings.update(stage="tf32", tf32=True)
        stages.append(dict(settings))
    precision = {torch.bfloat16: "bf16", torch.float16: "fp16"}[amp_dtype_for(device)]
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


def device_peak(device: str | torch.device, matmul_size: int | None = None) -> tuple[float | None, str]:
    """(peak TFLOP/s, where it comes from) for MFU.

    GPUs: the datasheet's dense fp16/bf16 tensor-core peak (labelled datasheet).
    CPUs: measured now, a float32 matrix multiply through bench.matmul (labelled measured)."""
    device = torch.device(device)
    if device.type == "cuda":
        peak = hardware.datasheet_for(torch.cuda.get_device_name(device.index or 0))
        if peak is None:
            return None, t("fused.peak_unknown")
        return float(peak.tflops_fp16), t("fused.peak_datasheet", source=peak.source)
    size = matmul_size or config.by_mode(ci=512, lab=1024, full=2048)
    record = bench.matmul(size, device=str(device))
    return record.metrics["gflops"] / 1e3, t("fused.peak_measured", size=size)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def training_step(model: nn.Module, optimizer: torch.optim.Optimizer, x, y, *, precision: str = "fp32",
                  scaler: torch.amp.GradScaler | None = None) -> torch.Tensor:
    """One plain training step (forward, loss, backward, optimizer step): what count_launches profiles.

    The timed ablation uses fastrain_lib.train.train, which does the same with more switches."""
    dtype = {"fp32": None, "tf32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    with torch.autocast(x.device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
        logits = model(x)
        loss = F.cross_entropy(logits.float().flatten(0, -2), y.flatten())
    if scaler is not None:  # fp16: scale the loss so small gradients survive
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def token_batches(n: int, batch_size: int, block_size: int, vocab_size: int, device, seed: int = 0) -> list:
    """n random (x, y) batches of token ids (y = x shifted by one): same data for every stage."""
    gen = torch.Generator().manual_seed(seed)
    data = torch.randint(0, vocab_size, (n, batch_size, block_size + 1), generator=gen)
    return [(d[:, :-1].to(device), d[:, 1:].to(device)) for d in data]


def ablation(device: str | torch.device | None = None, *, n_layer: int | None = None, n_head: int | None = None,
             n_embd: int | None = None, block_size: int | None = None, vocab_size: int = 96,
             batch_size: int | None = None, steps: int | None = None, warmup: int = 2,
             include_compile: bool = True, stages: list[str] | None = None, seed: int = 0,
             peak: tuple[float | None, str] | None = None) -> list[bench.Record]:
    """Test "Apex + AMP = 3x faster": train a tiny GPT stage by stage, each stage adding one feature.

    Stages (cumulative; those that do not apply on `device` are skipped):
      fp32            float32, TF32 off, AdamW foreach (PyTorch's default), nn.LayerNorm, eager
      tf32            + TF32 matmuls (CUDA only)
      amp             + autocast: bf16, or fp16 + GradScaler where bf16 is not fast (T4, V100)
      fused_adamw     + torch.optim.AdamW(fused=True)
      apex_layernorm  + apex FusedLayerNorm (only where Apex's CUDA extension is built)
      compile         + torch.compile(model) (compile time goes to metrics['compile_s'], not the step time)

    Sizes default by run mode (config.by_mode). `stages` picks a subset by name.
    `peak` = (TFLOP/s, label) overrides device_peak(device) for MFU.

    Returns one bench.Record per stage: name "ablation:<stage>", median_s/iqr_s/times_s = seconds
    per training step (after `warmup` steps); params = the stage's settings, model and batch sizes,
    experiment=ABLATION_EXPERIMENT; metrics = tokens_per_s, speedup (vs the first stage),
    tflops (achieved), mfu (fraction of peak, None if unknown), peak_tflops, first_step_s,
    compile_s (compile stage), loss_first, loss_last; meta = hardware report."""
    device = hardware.check_device(device or hardware.best_device())
    n_layer = n_layer or config.by_mode(ci=1, lab=2, full=12)
    n_embd = n_embd or config.by_mode(ci=32, lab=128, full=768)
    n_head = n_head or config.by_mode(ci=2, lab=4, full=12)
    block_size = block_size or config.by_mode(ci=16, lab=64, full=1024)
    batch_size = batch_size or config.by_mode(ci=4, lab=16, full=16)
    steps = steps or config.by_mode(ci=6, lab=10, full=50)
    plan = ablation_stages(device, include_compile)
    if stages is not None:
        unknown = set(stages) - set(ABLATION_STAGES)
        if unknown:
            raise ValueError(t("fused.bad_stage", stage=", ".join(sorted(unknown)),
                               allowed=", ".join(ABLATION_STAGES)))
        plan = [s for s in plan if s["stage"] in stages]
    peak_tflops, peak_label = peak if peak is not None else device_peak(device)
    batches = token_batches(warmup + steps, batch_size, block_size, vocab_size, device, seed)
    tokens_per_step = batch_size * block_size
    from .gpt import GPT, flops_per_token, num_params
    from .train import train

    records = []
    for settings in plan:
        torch.manual_seed(seed)  # the same initial weights in every stage
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # apex fallbacks are explained in the lesson
            model = GPT(vocab_size, block_size, n_layer, n_head, n_embd, norm=settings["norm"]).to(device)
            optimizer = make_optimizer(model.parameters(), settings["optimizer"], lr=1e-3)
        fpt = flops_per_token(model, block_size)
        precision = "tf32" if settings["tf32"] and settings["precision"] == "fp32" else settings["precision"]
        # Same batches, same seed in every stage; the first `warmup` steps are not timed.
        history = train(model, batches, steps=len(batches), device=device, precision=precision,
                        optimizer=optimizer, compile=settings["compile"], progress=False,
                        skip_nonfinite=False, seed=seed)
        times = history.step_times_s[warmup:]
        median = float(torch.tensor(times).median())
        q = torch.tensor(times).quantile(torch.tensor([0.25, 0.75]))
        tokens_per_s = tokens_per_step / median
        tflops = tokens_per_s * fpt / 1e12
        params = dict(settings, experiment=ABLATION_EXPERIMENT, device=str(device), n_layer=n_layer,
                      n_head=n_head, n_embd=n_embd, block_size=block_size, vocab_size=vocab_size,
                      batch_size=batch_size, steps=steps, warmup=warmup, tokens_per_step=tokens_per_step,
                      n_params=num_params(model), flops_per_token=fpt, peak_source=peak_label,
                      claimed_speedup=CLAIMED_SPEEDUP)
        metrics = {"tokens_per_s": tokens_per_s, "tflops": tflops, "peak_tflops": peak_tflops,
                   "mfu": (tflops / peak_tflops) if peak_tflops else None,
                   "first_step_s": history.step_times_s[0], "loss_first": history.losses[0],
                   "loss_last": history.losses[-1]}
        if settings["compile"]:
            # The first step traced and compiled; its extra time is the compile cost.
            metrics["compile_s"] = max(history.step_times_s[0] - median, 0.0)
        records.append(bench.Record(name=f"ablation:{settings['stage']}", median_s=median,
                                    iqr_s=float(q[1] - q[0]), times_s=times, params=params,
                                    metrics=metrics, meta=bench.meta()))
    base = records[0].median_s if records else 1.0
    for record in records:
        record.metrics["speedup"] = base / record.median_s
    return records


def hardware_label(record: bench.Record) -> str:
    """A short name of the machine a record ran on: the GPU if it used one, else the CPU."""
    meta = record.meta or {}
    if str(record.params.get("device", "")).startswith("cuda") and meta.get("gpu_name"):
        return meta["gpu_name"]
    return meta.get("cpu_name", "?")


def reference_ablations(directory=None) -> dict[str, list[bench.Record]]:
    """Ablation results shipped in reference/ (produced by benchmarks/ on named hardware),
    grouped by hardware label. Empty when there are none; malformed files are skipped."""
    directory = directory or config.reference_dir()
    found: dict[str, list[bench.Record]] = {}
    if directory is None:
        return found
    for path in sorted(Path(directory).rglob("*.json")):
        try:
            records = bench.load_records(path)
        except (ValueError, OSError):
            continue
        for record in records:
            if record.params.get("experiment") == ABLATION_EXPERIMENT:
                label = f"{hardware_label(record)} ({str(record.meta.get('date', '?'))[:10]})"
                found.setdefault(label, []).append(record)
    return found
