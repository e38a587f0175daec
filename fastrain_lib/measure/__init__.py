"""Measuring that tells the truth: timing on torch.utils.benchmark with noise verdicts (bench,
noise), hardware facts -> decisions (hardware, probe, peaks, datasheet), roofline and regimes,
launch counting and profiles (launches), reference/ results (reference), training memory (memory).
"""
