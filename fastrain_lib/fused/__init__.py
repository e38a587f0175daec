"""Fused kernels (lesson 04), one idea per file: adamw (for-loop / foreach / fused, saved from the lesson),
optimizers (+ Apex), layernorm, elementwise (bias+GELU traffic), triton_kernels (saved from the lesson),
attention (SDPA), apex (is NVIDIA Apex here?). The "3x faster" ablation trains gpt.GPT, so it lives in
lessons/l04_fused_kernels/ablation.py.
"""
