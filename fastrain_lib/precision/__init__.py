"""Mixed precision (lesson 03): number formats, autocast/GradScaler helpers, fp32 regions, and
step.py - the one AMP training step, saved from lesson 03's own cell (make sync).
"""
