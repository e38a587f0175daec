"""lessons/l01_gpu_vs_cpu"""
