"""The one map from the course's precision names to torch dtypes (measure/ and precision/ both use it)."""

from __future__ import annotations

import torch

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
# The dtype autocast uses for each low-precision mode (fp32 and tf32 keep float32 tensors).
AUTOCAST_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
# The storage dtype of each format (tf32 is not a storage format: it lives inside the matmul unit).
STORAGE_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
