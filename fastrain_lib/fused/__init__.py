"""Fused kernels (lesson 04), one idea per file: optimizers (for-loop / foreach / fused / Apex),
layernorm, elementwise (bias+GELU), triton_kernels, attention (SDPA), apex (is NVIDIA Apex here?),
ablation (the "3x faster" claim tested switch by switch).
"""
