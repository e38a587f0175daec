"""lessons/l03_mixed_precision"""
