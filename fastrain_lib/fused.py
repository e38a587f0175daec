"""Fused kernels (lesson 04), gathered in one name for the notebooks: each idea lives in its own module.

    apex_status()                         what NVIDIA Apex is installed, in plain words  (apex_status.py)
    make_optimizer(params, "foreach")     Adam/AdamW: forloop | foreach | fused | apex   (optimizers.py)
    make_layernorm(dim, "naive")          LayerNorm: torch | naive | naive_compiled | apex (layernorm.py)
    bias_gelu(x, b), memory_traffic(fn)   an elementwise chain and the bytes it moves   (elementwise.py)
    count_launches(fn)                    operator calls (CPU) / CUDA kernels (GPU)     (launches.py)
    ablation(device)                      the "3x" test on a tiny GPT                   (ablation.py)
"""

from __future__ import annotations

from . import hardware  # noqa: F401 - kept as fused.hardware for older code
from .ablation import (  # noqa: F401
                       ABLATION_EXPERIMENT,
                       ABLATION_STAGES,
                       CLAIMED_SPEEDUP,
                       ablation,
                       ablation_stages,
                       amp_dtype_for,
                       device_peak,
                       hardware_label,
                       reference_ablations,
                       token_batches,
                       training_step,
)
from .apex_status import APEX_STATES, ApexStatus, apex_status  # noqa: F401
from .elementwise import GELU_C, bias_gelu, bias_gelu_reference, fused_bytes, memory_traffic  # noqa: F401
from .launches import (  # noqa: F401
                       LaunchCount,
                       compiled_code,
                       count_generated_kernels,
                       count_launches,
                       kernel_excerpt,
                       optimizer_step_launches,
)
from .layernorm import NORM_IMPLS, NaiveLayerNorm, make_layernorm  # noqa: F401
from .optimizers import OPTIMIZER_IMPLS, NaiveAdam, adam_step_reference, make_optimizer  # noqa: F401
