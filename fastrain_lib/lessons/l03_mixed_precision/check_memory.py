"""Lesson 03's exercise checks, tasks 4 and 5: the bytes of a model trained with Adam (fp32 or
mixed precision with master weights), and which layout fits a GPU's memory."""

from __future__ import annotations

import math
import random

import torch
from torch.nn import functional as F

from fastrain_lib.core.i18n import t
from fastrain_lib.lessons.checking import (
    CheckResult,
    call_student,
    check,
    describe,
    failed,
    not_done,
    passed,
    snapshot,
    unchanged,
)
from fastrain_lib.lessons.l03_mixed_precision.observe import forbidden, fresh_str, number
from fastrain_lib.models import SimpleNN
from fastrain_lib.precision import amp

# ---------------------------------------------------------------------------------------
# Task: memory of a model + Adam, by formula and measured
# ---------------------------------------------------------------------------------------

MEMORY_KEYS = ("weights", "grads", "optimizer", "master", "total")


def reference_adam_bytes(n_params, precision):
    """Bytes of weights, gradients, Adam's moments and master weights (Ultra-Scale Playbook)."""
    per = {"fp32": (4, 4, 8, 0), "amp": (2, 2, 8, 4)}[precision]
    parts = dict(zip(MEMORY_KEYS, [n_params * b for b in per]))
    parts["total"] = sum(parts.values())
    return parts


def _read_parts(value) -> dict | None:
    """The answer as {key: float} with the five keys, or None."""
    try:
        if not isinstance(value, dict):
            return None
        out = {}
        for key in MEMORY_KEYS:
            if key not in value:
                return None
            value_of_key = number(value[key])
            if value_of_key is None:
                return None
            out[key] = value_of_key
        return out
    except Exception:  # noqa: BLE001 - an odd mapping
        return None


def _same_parts(got: dict, want: dict, rel: float = 1e-9) -> bool:
    return all(math.isclose(got[k], want[k], rel_tol=rel, abs_tol=1e-9) for k in MEMORY_KEYS)


def _adam_patterns(n, precision) -> dict:
    """What typical wrong answers give (code -> (dict, message key))."""
    ok = reference_adam_bytes(n, precision)

    def with_(**per):
        parts = {k: ok[k] for k in MEMORY_KEYS[:-1]}
        parts.update({k: n * v for k, v in per.items()})
        parts["total"] = sum(parts.values())
        return parts

    out = {"bits_not_bytes": ({k: 8 * v for k, v in ok.items()}, "lesson03.check.mem_bits_not_bytes"),
           "gigabytes": ({k: v / 1e9 for k, v in ok.items()}, "lesson03.check.mem_gigabytes"),
           "gibibytes": ({k: v / 2**30 for k, v in ok.items()}, "lesson03.check.mem_gibibytes"),
           "no_optimizer_state": (with_(optimizer=0), "lesson03.check.mem_no_optimizer_state"),
           "one_moment": (with_(optimizer=4), "lesson03.check.mem_one_moment")}
    if precision == "amp":
        out.update({"amp_halved_state": (with_(optimizer=4, master=0), "lesson03.check.mem_amp_halved_state"),
                    "no_master": (with_(master=0), "lesson03.check.mem_no_master"),
                    "fp32_grads_variant": (with_(grads=6), "lesson03.check.mem_fp32_grads_variant"),
                    "amp_moments_16bit": (with_(optimizer=4), "lesson03.check.mem_amp_moments_16bit")})
    else:
        out["fp32_has_master"] = (with_(master=4), "lesson03.check.mem_fp32_has_master")
    return out


ADAM_CASES = [(1, "fp32"), (7, "amp"), (1_000_003, "fp32"), (1_000_003, "amp"), (1_500_000_000, "amp"),
              (1_500_000_000, "fp32")]
ADAM_SEED = 2804
# the Bengali/English name of each part, for "which term is wrong"
TERM_KEYS = {"weights": "lesson03.check.mem_term_weights", "grads": "lesson03.check.mem_term_grads",
             "optimizer": "lesson03.check.mem_term_optimizer", "master": "lesson03.check.mem_term_master",
             "total": "lesson03.check.mem_term_total"}


def adam_cases(seed: int = ADAM_SEED, extra: int = 6) -> list:
    """The hand-written cases, then `extra` drawn by a seeded generator: odd and round sizes from
    a few parameters to billions, both precisions in a shuffled order."""
    rng = random.Random(seed)
    drawn = [(rng.choice([rng.randint(2, 999), rng.randint(10**4, 10**7) | 1, rng.randint(1, 9) * 10**rng.randint(6, 10)]),
              rng.choice(["fp32", "amp"])) for _ in range(extra)]
    return ADAM_CASES + drawn


def _forbidden():
    """What the memory answers (tasks 4 and 5) may not call — the lesson's one policy: the course's
    memory module (training_bytes is the answer) and the check's own reference answers, in any thread."""
    from fastrain_lib.measure import memory

    return forbidden(modules=[memory], functions=[reference_adam_bytes, reference_predict_fit])


def _measured_cases():
    """(n, precision, measured bytes) on a small real model after one Adam step: fp32 + Adam,
    and a bf16 model with fp32 master weights (memory.MasterWeightsAdam)."""
    from fastrain_lib.measure import memory

    out = []
    for precision in ("fp32", "amp"):
        torch.manual_seed(0)
        model = SimpleNN(hidden=12)
        dtype = torch.float32
        if precision == "amp":
            dtype = torch.bfloat16
            model = model.to(dtype)
            opt = memory.MasterWeightsAdam(model, lr=1e-3)
        else:
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, y = torch.rand(4, 1, 28, 28, dtype=dtype), torch.randint(0, 10, (4,))
        F.cross_entropy(model(x).float(), y).backward()
        opt.step()
        out.append((sum(p.numel() for p in model.parameters()), precision, memory.measured_bytes(model, opt)))
    return out


@check
def check_adam_bytes(adam_bytes) -> CheckResult:
    """adam_bytes(n_params, precision) -> {'weights','grads','optimizer','master','total'} in bytes,
    precision 'fp32' or 'amp'; checked against the formula and a measurement on a small model."""
    if adam_bytes is None:
        return not_done()
    for n, prec in adam_cases():
        with _forbidden() as seen:  # an equal string, not the interned literal: `precision is "amp"` fails
            value, problem = call_student(adam_bytes, n, fresh_str(prec))
        if seen.calls:
            return failed("used_library", "lesson03.check.mem_used_library", name=seen.calls[0])
        if problem is not None:
            return problem
        got = _read_parts(value)
        if got is None:
            return failed("not_a_dict", "lesson03.check.mem_not_a_dict", got=describe(value))
        want = reference_adam_bytes(n, prec)
        if _same_parts(got, want):
            continue
        parts_ok = all(math.isclose(got[k], want[k], rel_tol=1e-9) for k in MEMORY_KEYS[:-1])
        if parts_ok:
            return failed("total_not_sum", "lesson03.check.mem_total_not_sum")
        for code, (pattern, key) in _adam_patterns(n, prec).items():
            if _same_parts(got, pattern):
                return failed(code, key)
        key = next(k for k in MEMORY_KEYS if not math.isclose(got[k], want[k], rel_tol=1e-9, abs_tol=1e-9))
        return failed("wrong_value", "lesson03.check.mem_wrong_value", term=t(TERM_KEYS[key]), key=key, n=n,
                      precision=prec, got=f"{got[key]:.6g}", per=f"{got[key] / max(n, 1):.3g}",
                      want=f"{want[key] / max(n, 1):g}")
    for n, prec, measured in _measured_cases():
        with _forbidden() as seen:
            value, problem = call_student(adam_bytes, n, fresh_str(prec))
        if seen.calls:
            return failed("used_library", "lesson03.check.mem_used_library", name=seen.calls[0])
        got = _read_parts(value) if problem is None else None
        if got is None:
            return problem or failed("not_a_dict", "lesson03.check.mem_not_a_dict", got=describe(value))
        for key in MEMORY_KEYS:  # Adam's one-number 'step' per tensor: a few bytes more than the formula
            if not math.isclose(got[key], measured[key], rel_tol=0.01, abs_tol=64):
                return failed("measured_differs", "lesson03.check.mem_measured_differs", term=t(TERM_KEYS[key]), n=n,
                              precision=prec, got=f"{got[key]:.0f}", measured=measured[key])
    return passed("lesson03.check.mem_ok")


# ---------------------------------------------------------------------------------------
# Task: which layout fits a GPU (a 16 GB T4)?
# ---------------------------------------------------------------------------------------

T4_BYTES = 16 * 10**9  # "16 GB GDDR6" (NVIDIA T4 datasheet); the driver reports a little less


def reference_predict_fit(n_params, activation_bytes, memory_bytes):
    """{'fp32': fits?, 'amp': fits?}: weights + grads + Adam state (+ master) + that precision's activations."""
    return {p: reference_adam_bytes(n_params, p)["total"] + activation_bytes[p] <= memory_bytes for p in ("fp32", "amp")}


def _fit_cases():
    """(n, activations, memory): three T4 scenarios, one smaller card, and one built from a
    measurement of a small model (memory between its measured AMP and fp32 needs)."""
    from fastrain_lib.measure import memory

    cases = [
        (350_000_000, {"fp32": 12 * 10**9, "amp": 6 * 10**9}, T4_BYTES),
        (1_200_000_000, {"fp32": 2 * 10**9, "amp": 10**9}, T4_BYTES),
        (100_000_000, {"fp32": 9 * 10**9, "amp": 4_500_000_000}, T4_BYTES),
        (500_000_000, {"fp32": 10**9, "amp": 500_000_000}, 8 * 10**9),
        (2_500_000_000, {"fp32": 10**9, "amp": 500_000_000}, T4_BYTES),
    ]
    torch.manual_seed(0)
    model = SimpleNN(hidden=64)
    n = sum(p.numel() for p in model.parameters())
    g = torch.Generator().manual_seed(2)
    x, y = torch.rand(256, 1, 28, 28, generator=g), torch.randint(0, 10, (256,), generator=g)
    act = {"fp32": amp.saved_tensor_bytes(model, x, y, mode="fp32")["bytes"],
           "amp": amp.saved_tensor_bytes(model, x, y, mode="bf16")["bytes"]}
    opt = torch.optim.Adam(model.parameters())
    F.cross_entropy(model(x), y).backward()
    opt.step()
    state = memory.measured_bytes(model, opt)["total"]  # measured: 16 bytes/parameter (+ Adam's step counters)
    need = {p: state + act[p] for p in act}
    if need["amp"] < need["fp32"]:
        cases.append((n, act, (need["amp"] + need["fp32"]) // 2))
    return cases + generated_fit_cases()


FIT_SEED = 2805


def generated_fit_cases(seed: int = FIT_SEED, extra: int = 8) -> list:
    """Cases drawn by a seeded generator: amp activations a random share (0.55-0.9) of fp32's, never
    a fixed ratio such as 1/2; where the memory lies is drawn too, by kind: exactly on the `<=`
    boundary of one precision (to the byte), between the amp need and what "amp = fp32 / 2" would
    need, between the two needs, or a card size from 4 to 80 GB."""
    rng = random.Random(seed)
    out = []
    for i in range(extra):
        n = rng.randint(10**6, 10**9)
        fp32 = rng.randint(10**8, 2 * 10**10)
        act = {"fp32": fp32, "amp": int(fp32 * rng.uniform(0.55, 0.9))}
        need = {p: 16 * n + act[p] for p in act}
        kind = i % 4
        if kind == 0:
            mem = need[rng.choice(["fp32", "amp"])]
        elif kind == 1:
            mem = rng.randint(16 * n + fp32 // 2 + 1, need["amp"] - 1)
        elif kind == 2:
            mem = rng.randint(need["amp"], need["fp32"] - 1)
        else:
            mem = rng.choice([4, 8, 16, 24, 40, 80]) * 10**9
        out.append((n, act, mem))
    return out


# the typical wrong answers of task 5 (code -> message key); _fit_patterns gives what each answers
FIT_MISTAKES = {"ignored_activations": "lesson03.check.fit_ignored_activations",
               "halved_fp32_activations": "lesson03.check.fit_halved_fp32_activations",
               "strict_boundary": "lesson03.check.fit_strict_boundary",
                "amp_halved_state": "lesson03.check.fit_amp_halved_state",
                "no_optimizer_state": "lesson03.check.fit_no_optimizer_state",
                "same_activations": "lesson03.check.fit_same_activations",
                "always_fits": "lesson03.check.fit_always_fits"}


def _fit_patterns(n, act, mem) -> dict:
    def fits(per_param, use_act=True, amp_act="amp"):
        return {"fp32": per_param["fp32"] * n + (act["fp32"] if use_act else 0) <= mem,
                "amp": per_param["amp"] * n + (act[amp_act] if use_act else 0) <= mem}

    full = {"fp32": 16, "amp": 16}
    return {"ignored_activations": fits(full, use_act=False),
            "halved_fp32_activations": {"fp32": 16 * n + act["fp32"] <= mem, "amp": 16 * n + act["fp32"] / 2 <= mem},
            "strict_boundary": {p: 16 * n + act[p] < mem for p in ("fp32", "amp")},
            "amp_halved_state": fits({"fp32": 16, "amp": 8}),
            "no_optimizer_state": fits({"fp32": 8, "amp": 8}),
            "same_activations": fits({"fp32": 16, "amp": 16}, amp_act="fp32"),
            "always_fits": {"fp32": True, "amp": True}}


def _as_bool(value):
    try:
        if isinstance(value, bool):
            return value
        if isinstance(value, torch.Tensor) and value.dtype == torch.bool and value.numel() == 1:
            return bool(value.item())
        import numpy as np

        if isinstance(value, np.bool_):
            return bool(value)
    except Exception:  # noqa: BLE001
        return None
    return None


@check
def check_predict_fit(predict_fit) -> CheckResult:
    """predict_fit(n_params, activation_bytes, memory_bytes) -> {'fp32': bool, 'amp': bool}."""
    if predict_fit is None:
        return not_done()
    cases = _fit_cases()
    n, act, mem = cases[0]  # one input again, in another context: keys in another order, a fresh dict, last
    cases.append((n, dict(reversed(list(act.items()))), mem))
    answers = []
    for n, act, mem in cases:
        given = {fresh_str(p): v for p, v in act.items()}  # keys equal to 'fp32'/'amp', not the interned literals
        saved = snapshot(given)
        with _forbidden() as seen:
            value, problem = call_student(predict_fit, n, given, mem)
        if seen.calls:
            return failed("used_library", "lesson03.check.mem_used_library", name=seen.calls[0])
        if problem is not None:
            return problem
        if not unchanged(given, saved):
            return failed("mutated_input", "lesson03.check.fit_mutated_input")
        try:
            got = {p: _as_bool(value[p]) for p in ("fp32", "amp")} if isinstance(value, dict) else None
        except Exception:  # noqa: BLE001
            got = None
        if got is None or None in got.values():
            return failed("not_bools", "lesson03.check.fit_not_bools", got=describe(value))
        answers.append(got)
    wrong = [i for i, (case, got) in enumerate(zip(cases, answers)) if got != reference_predict_fit(*case)]
    if not wrong:
        return passed("lesson03.check.fit_ok")
    for code, key in FIT_MISTAKES.items():
        if all(answers[i] == _fit_patterns(*cases[i])[code] for i in range(len(cases))):
            return failed(code, key)
    n, act, mem = cases[wrong[0]]
    return failed("wrong_prediction", "lesson03.check.fit_wrong", n=n, fp32=act["fp32"], amp=act["amp"], mem=mem)
