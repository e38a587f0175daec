"""Number formats: bits and limits of fp32/tf32/fp16/bf16 (from torch.finfo), how one number is
stored in each, and the share of values a format loses (underflow to 0, overflow to inf).

    from fastrain_lib.precision import formats
    formats.format_table()              # one dict per format: bits, max, smallest normal, eps, ...
    formats.describe_number(0.1)        # stored value, bit fields and rounding error in each format
    formats.underflow_share(grads, 2.0**16)   # share of nonzero gradients fp16 still loses at that scale
"""

from __future__ import annotations

import math
import struct

import torch

from fastrain_lib.precision.amp import PRECISIONS, STORAGE_DTYPES

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
