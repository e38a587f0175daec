"""Lesson 02's fourth exercise: diagnose a slow training loop from a profile, and its check.

The given loop (slow_train_steps) has three problems a profile shows:
  1. every sample is decoded in the training process (num_workers=0): 'fastrain::load_sample'
     rows in the profile, and a large share of the time inside DataLoader next();
  2. loss.item() every step: one aten::_local_scalar_dense per step (on a GPU: a synchronization);
  3. accuracy counted in a Python loop over the batch: a few tiny ops per SAMPLE.
A fixed loop must give the same numbers (same weights, same mean loss and accuracy), lose
all three from the profile, and run measurably faster. Timing on a busy machine can say
nothing either way: then the check says so (a ⚠️, not a ❌) and asks for a rerun.

How much faster is derived from THIS machine, now (issue 39): the check times the course's own fix
(fast_train_steps) beside the answer and the slow loop, interleaved in every round (the order turns each
round), and asks the answer for a share (SHARE_OF_GAIN) of the gain the course's fix got in the same
rounds; when the course's fix itself gains less than MIN_GAIN here (one core, a busy machine), no speed-up
is asked, and the message says so. Every step is stamped with checking.clock, bound before any answer
runs (a patched time.perf_counter changes nothing). An answer clearly slower than the course's fix in
every round fails even on a busy machine (both ran in the same rounds); otherwise a busy machine gives ⚠️.
The library's own fix (diagnose.fast_train_steps, input_pipeline.train_epoch) is the answer: calling it is forbidden.
How it observes the technique: torch.profiler shows where samples were loaded (none in the training
process), the reads of one number per step and the ops per step; TimedSGD stamps every step.
"""

from __future__ import annotations

import math
import statistics

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t
from fastrain_lib.lessons import checking
from fastrain_lib.lessons.checking import CheckResult, as_number, call_student, check, describe, failed, not_done, passed
from fastrain_lib.lessons.l02_to_device import input_pipeline
from fastrain_lib.measure import noise

DIAG_BATCH = 32
DIAG_HIDDEN = 1024  # model width: a step that takes about as long as making its batch (measured here)
DIAG_ROUNDS = 2  # blur passes per sample in input_pipeline.Decoded
SHARE_OF_GAIN = 1 / 3  # the answer must reach this share of the gain the course's own fix got in the same rounds
MIN_GAIN = 0.10  # when the course's own fix gains less than 10% here, no speed-up is required
ROUNDS_DISAGREE = 1.5  # paired rounds whose speed-ups differ by more than this factor decide nothing
CLEARLY_SLOWER = 1 / ROUNDS_DISAGREE  # slower than the course's fix by this in EVERY round: not the machine's doing


class Unsure(CheckResult):
    """Neither ✅ nor ❌: the machine was too busy for the timing to decide. Falsy (not passed)."""

    def _repr_html_(self) -> str:
        return f'<div style="color:#8a6d00;font-size:1.1em">⚠️ {self.message}</div>'

    def __str__(self) -> str:
        return "⚠️ " + self.message


def diagnose_steps() -> int:
    """Steps the timing runs: enough that starting DataLoader workers does not decide it."""
    return config.by_mode(ci=16, lab=32, full=64)


def diagnose_dataset(steps: int | None = None, batch_size: int = DIAG_BATCH, rounds: int = DIAG_ROUNDS):
    """Digit-sized random images, decoded (input_pipeline.Decoded: per-sample CPU work) on every read."""
    n = 2 * (steps or diagnose_steps()) * batch_size  # twice what a loop uses: a shuffle picks other samples
    g = torch.Generator().manual_seed(7)
    base = TensorDataset(torch.rand(n, 1, 28, 28, generator=g), torch.randint(0, 10, (n,), generator=g))
    return input_pipeline.Decoded(base, rounds=rounds)


class TimedSGD(torch.optim.SGD):
    """SGD that notes the clock at every step(): steps/s of a loop, whoever wrote the loop."""

    def __init__(self, params, **kwargs):
        super().__init__(params, **kwargs)
        self.stamps: list[float] = []

    def step(self, closure=None):
        result = super().step(closure)
        self.stamps.append(checking.clock())  # bound before any answer ran: a patched time.perf_counter cannot help
        return result


def steady_steps_per_s(stamps: list[float], skip: int = 4) -> float:
    """Steps per second between the `skip`-th step and the last: DataLoader workers starting
    and their first prefetched batches are left out; the steady speed remains."""
    skip = min(skip, max(0, len(stamps) - 2))
    if len(stamps) < 2 or stamps[-1] <= stamps[skip]:
        return float("nan")
    return (len(stamps) - 1 - skip) / (stamps[-1] - stamps[skip])


def diagnose_model():
    """A fresh model and optimizer, the same every time (so two loops can be compared)."""
    from fastrain_lib.models import SimpleNN

    torch.manual_seed(0)
    model = SimpleNN(hidden=DIAG_HIDDEN)
    return model, TimedSGD(model.parameters(), lr=0.05, momentum=0.9)


def slow_train_steps(model, optimizer, dataset, batch_size, steps):
    """The slow loop of the exercise (correct, but slow): its mean loss and accuracy."""
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=0)
    criterion = nn.CrossEntropyLoss()
    total_loss, correct, seen = 0.0, 0, 0
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
        for guess, label in zip(outputs.argmax(dim=1), labels):
            correct += int(guess == label)
        seen += labels.shape[0]
    return {"mean_loss": total_loss / steps, "accuracy": correct / seen}


def fast_train_steps(model, optimizer, dataset, batch_size, steps):
    """The reference fix: workers load the samples, the loss stays a tensor, accuracy is one op."""
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=2)
    criterion = nn.CrossEntropyLoss()
    total_loss = torch.zeros(())
    correct = torch.zeros((), dtype=torch.long)
    seen = 0
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        optimizer.zero_grad()
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach()
        correct += (outputs.argmax(dim=1) == labels).sum()
        seen += labels.shape[0]
    return {"mean_loss": total_loss.item() / steps, "accuracy": correct.item() / seen}


# the course's own answers: calling one of them is not writing the fix (said in the exercise's task text)
FORBIDDEN = (fast_train_steps, input_pipeline.train_epoch)


def _run(fn, steps: int):
    """(result, problem, model) of one call of fn on a fresh model and the exercise's data."""
    model, optimizer = diagnose_model()
    dataset = diagnose_dataset(steps)
    before = [x.clone() for x in dataset.base.tensors]
    result, problem = call_student(fn, model, optimizer, dataset, DIAG_BATCH, steps, forbid=FORBIDDEN)
    if problem is None and not all(torch.equal(a, b) for a, b in zip(dataset.base.tensors, before)):
        problem = failed("mutated_input", "checking.mutated_input", name="dataset")  # the data given was written to
    return result, problem, model


def _judge_result(result, model, steps: int) -> CheckResult | None:
    ref_model, ref_opt = diagnose_model()
    want = slow_train_steps(ref_model, ref_opt, diagnose_dataset(steps), DIAG_BATCH, steps)
    if not isinstance(result, dict) or not {"mean_loss", "accuracy"} <= set(result):
        return failed("wrong_result", "lesson02.check.diag.wrong_result", got=describe(result))
    if not all(torch.allclose(a, b, rtol=1e-5, atol=1e-7) for a, b in zip(model.parameters(), ref_model.parameters())):
        return failed("wrong_weights", "lesson02.check.diag.wrong_weights", steps=steps)
    loss, accuracy = as_number(result["mean_loss"]), as_number(result["accuracy"])
    if loss is None or abs(loss - want["mean_loss"]) > 1e-4 * max(1.0, abs(want["mean_loss"])):
        return failed("wrong_loss", "lesson02.check.diag.wrong_loss", got=describe(result["mean_loss"]),
                      want=f"{want['mean_loss']:.4f}")
    if accuracy is None or abs(accuracy - want["accuracy"]) > 1e-6:
        return failed("wrong_accuracy", "lesson02.check.diag.wrong_accuracy", got=describe(result["accuracy"]),
                      want=f"{want['accuracy']:.4f}")
    return None


_OPS_PER_STEP: dict[int, float] = {}


def _reference_ops_per_step(steps: int) -> float:
    """Top-level aten ops per step of the reference fix (measured once per session: torch versions differ)."""
    if steps not in _OPS_PER_STEP:
        model, optimizer = diagnose_model()
        _, prof = input_pipeline.profile_loop(fast_train_steps, model, optimizer, diagnose_dataset(steps),
                                         DIAG_BATCH, steps)
        _OPS_PER_STEP[steps] = prof.ops / steps
    return _OPS_PER_STEP[steps]


def _judge_profile(fn, steps: int) -> CheckResult | None:
    model, optimizer = diagnose_model()
    dataset = diagnose_dataset(steps)
    try:
        with checking.forbid(*FORBIDDEN) as watch:
            _, prof = input_pipeline.profile_loop(fn, model, optimizer, dataset, DIAG_BATCH, steps)
    except Exception as exc:  # noqa: BLE001 - it ran once already; a second failure is still the answer's
        return not_done(exc)
    if watch.calls:  # the course's fix called only when not watched the first time
        return watch.failure()
    if prof.ops / steps > _reference_ops_per_step(steps) + DIAG_BATCH / 2:
        return failed("python_loop", "lesson02.check.diag.python_loop", ops=prof.ops / steps,
                      ref=_reference_ops_per_step(steps), batch=DIAG_BATCH)
    if prof.item_calls >= steps:  # one per step or more (a DataLoader reads one seed, the end two totals)
        return failed("item_every_step", "lesson02.check.diag.item_every_step", items=prof.item_calls, steps=steps)
    if prof.samples_here > 0:
        return failed("data_in_main", "lesson02.check.diag.data_in_main", samples=prof.samples_here,
                      share=prof.data_share)
    return None


def speed_need(reference_speedup: float) -> dict:
    """What the answer must reach, from what the course's own fix reached in the same rounds (a pure function):
    SHARE_OF_GAIN of its gain over the slow loop; nothing when that gain is below MIN_GAIN (nothing to gain here)."""
    ref = float(reference_speedup) if math.isfinite(reference_speedup) and reference_speedup > 0 else 1.0
    gain = ref - 1.0
    return {"reference": ref, "need": 1.0 + SHARE_OF_GAIN * max(gain, 0.0), "required": gain >= MIN_GAIN,
            "gain": SHARE_OF_GAIN}


def speed_outcome(speedup: float, need: dict, noisy: bool, ratios: list[float],
                  vs_reference: list[float] | None = None) -> str:
    """'ok' | 'ok_no_speed' | 'noisy' | 'not_faster' (a pure function of the measured numbers).

    ratios: the answer's steps/s ÷ the slow loop's, per round; vs_reference: the answer's ÷ the course's
    fix's, per round (measured in the same rounds). Clearly slower than the course's fix in every round is
    'not_faster' even on a busy machine; else a timing on a busy machine, or rounds that disagree, never is."""
    finite_ref = [r for r in (vs_reference or []) if math.isfinite(r) and r > 0]
    if finite_ref and len(finite_ref) >= 2 and max(finite_ref) < CLEARLY_SLOWER and speedup < need["need"]:
        return "not_faster"
    if not need["required"]:
        return "ok_no_speed"
    # the share asked, read either way: over the slow loop, or (paired in each round, so the machine's load
    # mostly cancels) against the course's fix: need ÷ reference of its speed
    if speedup >= need["need"] or (finite_ref and statistics.median(finite_ref) >= need["need"] / need["reference"]):
        return "ok"
    finite = [r for r in ratios if math.isfinite(r) and r > 0]
    disagree = len(finite) >= 2 and max(finite) / min(finite) > ROUNDS_DISAGREE
    return "noisy" if noisy or disagree else "not_faster"


def _rate(loop, steps: int) -> float:
    model, optimizer = diagnose_model()
    loop(model, optimizer, diagnose_dataset(steps), DIAG_BATCH, steps)
    return steady_steps_per_s(optimizer.stamps)


def _speedup(fn, steps: int, rounds: int = 3) -> dict:
    """Paired rounds of the slow loop, the course's fix and the answer (the order turns each round, so
    none always runs first): per round the answer's and the course's steady steps/s ÷ the slow loop's,
    their medians, and the noise information of the whole window (fastrain_lib.measure.noise)."""
    loops = {"slow": slow_train_steps, "reference": fast_train_steps, "answer": fn}
    order = list(loops)
    ratios, reference, vs_reference = [], [], []
    with noise.Window() as window:
        for i in range(rounds):
            turn = order[i % 3:] + order[:i % 3]
            rates = {name: _rate(loops[name], steps) for name in turn}
            slow = rates["slow"] if rates["slow"] > 0 else float("nan")
            ratios.append(rates["answer"] / slow)
            reference.append(rates["reference"] / slow)
            vs_reference.append(rates["answer"] / rates["reference"] if rates["reference"] > 0 else float("nan"))
    ratios = [r for r in ratios if math.isfinite(r)] or [0.0]  # drop NaN (a round too short to time)
    reference = [r for r in reference if math.isfinite(r)] or [1.0]
    spread, repeats = noise.from_times(ratios)
    # the slow loop needs one core, the fixed ones two (training + a worker): two cores must be free
    info = window.assess(threads=min(noise.cores(), 2), spread=spread, repeats=repeats)
    return {"speedup": statistics.median(ratios), "ratios": ratios, "reference": statistics.median(reference),
            "vs_reference": vs_reference, "noise": info}


@check
def check_fast_loop(fast_loop, *, steps: int | None = None) -> CheckResult:
    """See _check_fast_loop. Runs with one CPU thread for the training process (restored after):
    with as many OpenMP threads as cores, the DataLoader workers or any other program make the
    thread team wait (lesson 01, "why timings lie"), and both loops' timings would mostly measure that."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _check_fast_loop(fast_loop, steps=steps)
    finally:
        torch.set_num_threads(before)


def _check_fast_loop(fast_loop, *, steps: int | None = None) -> CheckResult:
    """fast_loop(model, optimizer, dataset, batch_size, steps) -> {'mean_loss', 'accuracy'}:
    the same numbers as slow_train_steps, none of its three problems in the profile, and a share of
    the speed-up the course's own fix reaches beside it (or, on a busy machine, an honest 'cannot tell')."""
    steps = steps or diagnose_steps()
    if fast_loop is None:
        return not_done()
    if not callable(fast_loop):
        return failed("not_callable", "checking.not_callable", kind=type(fast_loop).__name__)
    few = 4
    result, problem, model = _run(fast_loop, few)
    if problem is not None:
        return problem
    problem = _judge_result(result, model, few)  # (a failed CheckResult is falsy: no `or` here)
    if problem is None:  # the same input again, in another context: more steps, a fresh model and dataset
        result, problem, model = _run(fast_loop, few + 1)
        if problem is None:
            problem = _judge_result(result, model, few + 1)
    if problem is None:
        problem = _judge_profile(fast_loop, steps)
    if problem is not None:
        return problem
    timing = _speedup(fast_loop, steps)
    speedup, ratios, info = timing["speedup"], timing["ratios"], timing["noise"]
    need = speed_need(timing["reference"])
    why = t("lesson02.check.diag.expected", **need)  # what was expected, and why
    outcome = speed_outcome(speedup, need, noise.is_noisy(info), ratios, timing["vs_reference"])
    if outcome == "ok_no_speed":
        return passed("lesson02.check.diag.correct_no_speed", speedup=speedup, why=why, gain_min=MIN_GAIN)
    if outcome == "ok":
        return passed("lesson02.check.diag.correct", speedup=speedup, why=why)
    if outcome == "noisy":
        return Unsure(False, t("lesson02.check.diag.noisy", speedup=speedup, need=need["need"], why=why)
                      + " " + noise.sentence(info), "noisy")
    return failed("not_faster", "lesson02.check.diag.not_faster", speedup=speedup, need=need["need"], why=why,
                  rounds=", ".join(f"{r:.2f}" for r in ratios))
