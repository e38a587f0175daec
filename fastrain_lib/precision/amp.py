"""Number formats and the helpers of mixed-precision (AMP) training.

    from fastrain_lib.precision import amp as precision
    precision.check_precision("cpu", "fp16")          # a clear Bengali error if it cannot run here
    with precision.autocast("cpu", "bf16"):           # torch.amp.autocast, or nothing for fp32/tf32
        loss = loss_fn(model(x), y)
    scaler = precision.make_scaler("cpu", "fp16")     # GradScaler, enabled only for fp16

The four modes every lesson uses:
  fp32 - plain float32, TF32 switched off (the strict baseline)
  tf32 - float32 tensors, but CUDA matmuls/convolutions may use TF32 tensor cores
         (Ampere and newer; on other hardware the setting changes nothing)
  fp16 - autocast to float16, with loss scaling (GradScaler): fp16's small range needs it
  bf16 - autocast to bfloat16, no loss scaling: bf16 has float32's 8 exponent bits

Besides these: the table of number formats (from torch.finfo), how one number is stored in
each format, the share of gradients that underflow in fp16, the bytes autograd saves for
backward (activation memory), and which ops autocast runs in low precision.
"""

from __future__ import annotations

import contextlib
import functools
import math
import struct
import warnings

import torch
from torch.nn import functional as F

from fastrain_lib.measure import hardware
from fastrain_lib.core.i18n import t

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
# The dtype autocast uses for each low-precision mode (fp32 and tf32 keep float32 tensors).
AUTOCAST_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
# The storage dtype of each format (tf32 is not a storage format: it lives inside the matmul unit).
STORAGE_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


# ---------------------------------------------------------------------------------------
# Can this mode run here?
# ---------------------------------------------------------------------------------------

def _device_type(device) -> str:
    return torch.device(device).type


@functools.cache
def _autocast_works(device_type: str, dtype: torch.dtype) -> bool:
    """Run one tiny matmul under autocast and see whether it really came out in `dtype`.

    Older PyTorch versions only warn ("CPU Autocast only supports bfloat16") and quietly run
    in float32; trying it is the only reliable test."""
    try:
        a = torch.ones(4, 4, device=device_type)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.amp.autocast(device_type, dtype=dtype):
                out = a @ a
        return out.dtype == dtype
    except Exception:  # noqa: BLE001 - any failure means "not here"
        return False


@functools.cache
def _scaler_works(device_type: str) -> bool:
    """GradScaler for this device type exists (torch.amp.GradScaler('cpu') needs torch >= 2.3)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = torch.amp.GradScaler(device_type)
        return scaler.is_enabled()
    except Exception:  # noqa: BLE001 - any failure means "not here"
        return False


def check_precision(device, mode: str) -> str:
    """Return `mode` if it can run on `device`; otherwise raise ValueError with a Bengali
    message that says why and what to choose instead."""
    if mode not in PRECISIONS:
        raise ValueError(t("precision.unknown", mode=mode, allowed=", ".join(PRECISIONS)))
    device_type = _device_type(device)
    if mode in ("fp32", "tf32"):
        return mode
    if device_type in ("cuda", "mps"):
        # The hardware module decides: bf16 needs bf16 tensor cores (sm80+) — torch.cuda.is_bf16_supported()
        # says True on a T4 through emulation; on a Mac only what a real training-step probe proved.
        facts = hardware.facts(device)
        if mode not in hardware.fast_formats(facts):
            if device_type == "cuda" and mode == "bf16":
                major, minor = facts.capability or (0, 0)
                raise ValueError(t("precision.no_bf16_gpu", gpu=facts.name, cc=f"{major}.{minor}"))
            raise ValueError(t("precision.no_autocast", mode=mode, device=device_type, torch=torch.__version__))
    if not _autocast_works(device_type, AUTOCAST_DTYPES[mode]):
        raise ValueError(t("precision.no_autocast", mode=mode, device=device_type, torch=torch.__version__))
    if mode == "fp16" and not _scaler_works(device_type):
        raise ValueError(t("precision.no_scaler", device=device_type, torch=torch.__version__))
    return mode


def supported(device) -> list[str]:
    """The modes that can run on `device` here."""
    ok = []
    for mode in PRECISIONS:
        try:
            ok.append(check_precision(device, mode))
        except ValueError:
            pass
    return ok


def autocast(device, mode: str):
    """torch.amp.autocast for fp16/bf16; a do-nothing context for fp32/tf32."""
    if mode in AUTOCAST_DTYPES:
        return torch.amp.autocast(_device_type(device), dtype=AUTOCAST_DTYPES[mode])
    return contextlib.nullcontext()


def make_scaler(device, mode: str, **options) -> torch.amp.GradScaler:
    """A GradScaler that is active only for fp16 (bf16 and fp32 need no loss scaling);
    a disabled scaler passes everything through, so one loop serves every mode.
    `options` go to GradScaler (init_scale, growth_interval, ...)."""
    return torch.amp.GradScaler(_device_type(device), enabled=(mode == "fp16"), **options)


@contextlib.contextmanager
def tf32(enabled: bool):
    """Allow (or forbid) TF32 in CUDA matmuls and cuDNN convolutions inside the block, and
    put the old settings back afterwards. PyTorch's default since 1.12: matmuls without
    TF32, cuDNN with TF32."""
    old = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = enabled
    torch.backends.cudnn.allow_tf32 = enabled
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = old


# ---------------------------------------------------------------------------------------
# Number formats
# ---------------------------------------------------------------------------------------

# TF32 has no torch dtype (it exists only inside tensor cores): 1 sign, 8 exponent and 10
# mantissa bits by definition (NVIDIA A100 whitepaper). Its numbers are computed below from
# that definition; the other three come from torch.finfo.
TF32_MANTISSA_BITS = 10


def format_info(mode: str) -> dict:
    """Bits and limits of one format: sign/exponent/mantissa bits, largest value, smallest
    normal and subnormal, machine epsilon."""
    if mode == "tf32":
        f32 = torch.finfo(torch.float32)
        mantissa, exponent = TF32_MANTISSA_BITS, 8
        eps = 2.0**-mantissa
        smallest_normal = f32.smallest_normal
        largest = (2 - eps) * 2.0**127
        bits = 19
    else:
        f = torch.finfo(STORAGE_DTYPES[mode])
        mantissa = round(-math.log2(f.eps))  # stored fraction bits
        exponent = f.bits - 1 - mantissa
        eps, smallest_normal, largest, bits = f.eps, f.smallest_normal, f.max, f.bits
    return {
        "name": mode, "bits": bits, "sign": 1, "exponent": exponent, "mantissa": mantissa,
        "max": largest, "smallest_normal": smallest_normal,
        "smallest_subnormal": smallest_normal * 2.0**-mantissa, "eps": eps,
        "decimal_digits": mantissa * math.log10(2),
    }


def format_table() -> list[dict]:
    return [format_info(mode) for mode in PRECISIONS]


def _round_tf32(x: float) -> float:
    """Round a float32 to TF32's 10 mantissa bits (round to nearest, ties to even)."""
    (word,) = struct.unpack("<I", struct.pack("<f", x))
    drop = 23 - TF32_MANTISSA_BITS
    if (word >> 23) & 0xFF == 0xFF:  # inf / nan stay as they are
        return x
    half = 1 << (drop - 1)
    lsb = (word >> drop) & 1
    word = ((word + half - 1 + lsb) >> drop) << drop
    return struct.unpack("<f", struct.pack("<I", word & 0xFFFFFFFF))[0]


def store(x: float, mode: str) -> float:
    """The value a format really stores for the number x (rounded to nearest)."""
    as_f32 = torch.tensor(x, dtype=torch.float64).to(torch.float32).item()
    if mode == "tf32":
        return _round_tf32(torch.tensor(x, dtype=torch.float64).to(torch.float32).item())
    if mode == "fp32":
        return as_f32
    return torch.tensor(x, dtype=torch.float64).to(STORAGE_DTYPES[mode]).item()


def bit_fields(x: float, mode: str) -> tuple[str, str, str]:
    """(sign, exponent, mantissa) bit strings of x as stored in `mode`."""
    info = format_info(mode)
    if mode in ("fp16", "bf16"):
        word = torch.tensor([x], dtype=STORAGE_DTYPES[mode]).view(torch.int16).item() & 0xFFFF
        total = 16
    else:  # fp32 and tf32 (tf32 = the top 19 bits of a float32)
        (word,) = struct.unpack("<I", struct.pack("<f", store(x, mode)))
        total = 32
    bits = format(word, f"0{total}b")
    e_end = 1 + info["exponent"]
    return bits[0], bits[1:e_end], bits[e_end:e_end + info["mantissa"]]


def describe_number(x: float) -> list[dict]:
    """How each format stores x: the stored value, its bits and the relative rounding error."""
    rows = []
    for mode in PRECISIONS:
        stored = store(x, mode)
        if math.isinf(stored) and not math.isinf(x):
            error = math.inf
        elif x == 0:
            error = 0.0 if stored == 0 else math.inf
        else:
            error = abs(stored - x) / abs(x)
        rows.append({"name": mode, "stored": stored, "bits": bit_fields(x, mode), "rel_error": error})
    return rows


# ---------------------------------------------------------------------------------------
# Loss scaling: which gradients fp16 loses
# ---------------------------------------------------------------------------------------

def underflow_share(values: torch.Tensor, scale: float = 1.0, dtype: torch.dtype = torch.float16) -> float:
    """Share of the nonzero entries of `values` that become 0 when multiplied by `scale`
    and stored in `dtype` (fp16 by default): the gradients that loss scaling must rescue."""
    values = values.detach().flatten().double()
    nonzero = values[values != 0]
    if nonzero.numel() == 0:
        return 0.0
    lost = (nonzero * scale).to(dtype) == 0
    return lost.double().mean().item()


def overflow_share(values: torch.Tensor, scale: float = 1.0, dtype: torch.dtype = torch.float16) -> float:
    """Share of entries that become inf when multiplied by `scale` and stored in `dtype`."""
    values = values.detach().flatten().double()
    if values.numel() == 0:
        return 0.0
    return torch.isinf((values * scale).to(dtype)).double().mean().item()


def real_gradients(model: torch.nn.Module, inputs: torch.Tensor, targets: torch.Tensor, loss_fn=None) -> torch.Tensor:
    """All parameter gradients of one float32 forward/backward pass, as one flat tensor."""
    loss_fn = loss_fn or F.cross_entropy
    model.zero_grad(set_to_none=True)
    loss_fn(model(inputs), targets).backward()
    grads = torch.cat([p.grad.detach().flatten() for p in model.parameters() if p.grad is not None])
    model.zero_grad(set_to_none=True)
    return grads


def inject_overflow(model: torch.nn.Module, at_backward: set[int] | list[int]):
    """Make the gradient of the model's first parameter inf on the given backward passes
    (counted from 0): an overflow as GradScaler sees it. Returns the hook handle;
    call handle.remove() when done."""
    at_backward = set(at_backward)
    calls = {"n": 0}

    def hook(grad):
        n = calls["n"]
        calls["n"] += 1
        if n in at_backward:
            return torch.full_like(grad, math.inf)
        return grad

    return next(model.parameters()).register_hook(hook)


# ---------------------------------------------------------------------------------------
# Memory: bytes autograd saves for backward
# ---------------------------------------------------------------------------------------

def saved_tensor_bytes(model: torch.nn.Module, inputs: torch.Tensor, targets: torch.Tensor | None = None,
                       *, device="cpu", mode: str = "fp32", loss_fn=None) -> dict:
    """Bytes of the tensors autograd keeps for the backward pass during one forward pass
    (counted with torch.autograd.graph.saved_tensors_hooks; each tensor once; the
    model's own parameters excluded, they exist anyway). Exact and the same on every
    hardware: it depends on shapes and dtypes only."""
    loss_fn = loss_fn or (lambda out, y: F.cross_entropy(out.flatten(0, -2), y.flatten()))
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen, by_dtype = set(), {}

    def pack(tensor):
        # count the tensor's own bytes (a slice of a big dataset is not the whole dataset), each tensor once
        key = (tensor.data_ptr(), tuple(tensor.shape), tensor.dtype)
        if tensor.untyped_storage().data_ptr() not in params and key not in seen:
            seen.add(key)
            name = str(tensor.dtype).replace("torch.", "")
            by_dtype[name] = by_dtype.get(name, 0) + tensor.numel() * tensor.element_size()
        return tensor

    inputs = inputs.to(device)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor), autocast(device, mode):
        out = model(inputs)
        if targets is not None:
            loss_fn(out, targets.to(device))
    return {"bytes": sum(by_dtype.values()), "by_dtype": by_dtype}


# ---------------------------------------------------------------------------------------
# Which ops run in low precision under autocast
# ---------------------------------------------------------------------------------------

def autocast_dtypes(device="cpu", mode: str = "bf16") -> list[tuple[str, str]]:
    """Run a few typical ops under autocast and report the dtype each one produced."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(8, 8, generator=g).to(device)
    w = torch.randn(8, 8, generator=g).to(device)
    y = torch.zeros(8, dtype=torch.long, device=device)
    ops = {
        "a @ b (matmul)": lambda: a @ w,
        "F.linear": lambda: F.linear(a, w),
        "torch.relu": lambda: torch.relu(a @ w),
        "a + b": lambda: a + w,
        "softmax": lambda: torch.softmax(a @ w, dim=-1),
        "layer_norm": lambda: F.layer_norm(a @ w, (8,)),
        "cross_entropy": lambda: F.cross_entropy(a @ w, y),
        "sum": lambda: (a @ w).sum(),
    }
    rows = []
    with autocast(device, mode):
        for name, op in ops.items():
            rows.append((name, str(op().dtype).replace("torch.", "")))
    return rows


# ---------------------------------------------------------------------------------------
# Regions that must stay fp32: a hand-written softmax + cross-entropy over large logits
# ---------------------------------------------------------------------------------------

def naive_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Softmax and cross-entropy written by hand, the way a first version often looks: exp,
    sum, divide, log — no max subtraction. In float32 it is right for logits up to about 88;
    in fp16 exp(x) is inf from x ≈ 11.1 on, and the loss becomes nan."""
    e = torch.exp(logits)
    probs = e / e.sum(-1, keepdim=True)
    return -torch.log(probs[torch.arange(targets.numel(), device=targets.device), targets]).mean()


@functools.cache
def fp32_cross_entropy(device_type: str):
    """naive_cross_entropy as an autograd Function whose forward and backward always run in
    float32, even inside autocast: torch.amp.custom_fwd(cast_inputs=torch.float32) casts the
    inputs and switches autocast off inside; custom_bwd runs backward the same way."""

    class Fp32CrossEntropy(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type=device_type, cast_inputs=torch.float32)
        def forward(ctx, logits, targets):
            e = torch.exp(logits - logits.max(-1, keepdim=True).values)  # the stable form, in fp32
            probs = e / e.sum(-1, keepdim=True)
            ctx.save_for_backward(probs, targets)
            rows = torch.arange(targets.numel(), device=targets.device)
            return -torch.log(probs[rows, targets]).mean()

        @staticmethod
        @torch.amp.custom_bwd(device_type=device_type)
        def backward(ctx, grad):
            probs, targets = ctx.saved_tensors
            g = probs.clone()
            g[torch.arange(targets.numel(), device=targets.device), targets] -= 1
            return g * (grad / targets.numel()), None

    return Fp32CrossEntropy


def large_logits(device="cpu", batch: int = 64, classes: int = 1000, spread: float = 30.0, seed: int = 0):
    """Features, a linear head and targets whose logits reach about ±spread (a confident or
    badly scaled classifier over many classes)."""
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(batch, 64, generator=g)
    w = torch.randn(classes, 64, generator=g)
    w = w * (spread / (h @ w.T).abs().max())
    y = torch.randint(0, classes, (batch,), generator=g)
    return h.to(device), w.to(device), y.to(device)


def fp32_region_rows(device="cpu", modes=("fp16", "bf16")) -> list[dict]:
    """The same loss over large logits, computed four ways, against a float64 reference:
    plain fp32; inside autocast; inside autocast but in an autocast(enabled=False) region on
    .float() logits; and through fp32_cross_entropy (custom_fwd). Each row: how, mode, the
    loss, its error, whether it is finite, and the dtype exp() produced there."""
    device = torch.device(device)
    h, w, y = large_logits(device)
    ref = F.cross_entropy((h.double() @ w.double().T), y).item()
    rows = [{"how": "fp32", "mode": "fp32", "loss": naive_cross_entropy(h @ w.T, y).item(), "exp_dtype": "float32"}]
    for mode in modes:
        with autocast(device, mode):
            logits = h @ w.T
            exp_dtype = str(torch.exp(logits).dtype).replace("torch.", "")
            inside = naive_cross_entropy(logits, y)
            with torch.autocast(device.type, enabled=False):
                region = naive_cross_entropy(logits.float(), y)
            custom = fp32_cross_entropy(device.type).apply(logits, y)
        rows += [{"how": "autocast", "mode": mode, "loss": inside.item(), "exp_dtype": exp_dtype},
                 {"how": "enabled=False", "mode": mode, "loss": region.item(), "exp_dtype": "float32"},
                 {"how": "custom_fwd", "mode": mode, "loss": custom.item(), "exp_dtype": "float32"}]
    for row in rows:
        row["finite"] = math.isfinite(row["loss"])
        row["error"] = abs(row["loss"] - ref) if row["finite"] else math.inf
        row["reference"] = ref
    return rows
