"""Saved from notebooks/05b_ddp_in_depth.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


def fit_alpha_beta(points, world_size):
    """(α, β) যা রিং-এর সূত্র t = 2(p−1)·α + 2(p−1)/p · n·β-কে মাপা (n বাইট, t সেকেন্ড) বিন্দুগুলোর সবচেয়ে কাছে আনে।"""
    p = world_size
    # প্রতিটি সারি তার মাপা সময় দিয়ে ভাগ: u·α + v·β ≈ 1, তাই প্রতিটি মাপের আপেক্ষিক ত্রুটি সমান গুরুত্ব পায়
    us = [2 * (p - 1) / t for n, t in points]
    vs = [2 * (p - 1) / p * n / t for n, t in points]
    suu, svv, suv = sum(u * u for u in us), sum(v * v for v in vs), sum(u * v for u, v in zip(us, vs))
    su, sv = sum(us), sum(vs)
    det = suu * svv - suv * suv                 # ন্যূনতম বর্গ: দুই অজানার দুটি সমীকরণ, সরাসরি সমাধান
    if det > 1e-12 * suu * svv:
        alpha, beta = (su * svv - sv * suv) / det, (sv * suu - su * suv) / det
        if alpha >= 0 and beta >= 0:
            return alpha, beta
    # একটি ঋণাত্মক এলে (সময় কখনও ঋণাত্মক নয়): শুধু α বা শুধু β নিয়ে যেটি ভালো মেলে
    only = [(su / suu, 0.0), (0.0, sv / svv if svv > 0 else 0.0)]
    return min(only, key=lambda ab: sum((u * ab[0] + v * ab[1] - 1.0) ** 2 for u, v in zip(us, vs)))
