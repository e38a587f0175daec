"""lessons/l04_fused_kernels"""
