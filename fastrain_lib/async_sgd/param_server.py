"""Saved from notebooks/06_sync_vs_async_sgd.ipynb by `make sync`: code the lesson writes in its own cells
(marked #@save). Edit the notebook, then run `make sync`; never edit this file."""

from __future__ import annotations


import threading
import time

import torch

from fastrain_lib.core.i18n import pick


class Server:
    """প্যারামিটার সার্ভার (rank 0): ওজন theta আর তার সংস্করণ রাখে; কর্মীরা RPC দিয়ে pull আর push ডাকে।"""

    def __init__(self, theta, cfg):
        self.cfg, self.theta, self.version = cfg, theta.clone(), 0  # version = এ পর্যন্ত কতবার আপডেট হলো
        self.lock = threading.Condition()  # RPC কয়েকটি থ্রেডে একসাথে ডাকে: একবারে একজন
        self.pending = {}  # সিঙ্ক্রোনাস: এই রাউন্ডে কোন কর্মী কী গ্রেডিয়েন্ট পাঠাল
        self.start, self.late, self.finished, self.done = None, 0, set(), threading.Event()
        self.log, self.recorded, self.snapshots = [], [], [(0.0, 0, self.theta.clone())]  # মাপার জন্য

    def pull(self):
        with self.lock:
            self.start = self.start or time.perf_counter()  # প্রথম pull-এ ঘড়ি চালু
            return self.theta.clone(), self.version

    def apply(self, grad):
        self.theta = self.theta - self.cfg.lr * grad  # নতুন টেনসর: আগে টানা কপিগুলো যেমন ছিল তেমনই থাকে
        self.version += 1
        if self.version % self.cfg.snapshot_every == 0:
            self.snapshots.append((time.perf_counter() - self.start, self.version, self.theta.clone()))

    def push(self, worker, version_read, grad, index=None):
        """একটি গ্রেডিয়েন্ট নাও; কর্মীর থামার সময় হলে True ফেরত দাও।"""
        with self.lock:
            budget = self.cfg.workers * self.cfg.steps if self.cfg.mode == "async" else self.cfg.steps
            if self.cfg.mode == "async" and self.version >= budget:
                self.late += 1  # বাজেট শেষ হওয়ার পরে এসেছে: প্রয়োগ হয় না
                return True
            if self.cfg.record:
                self.recorded.append((worker, version_read, index, grad.clone()))
            # পুরোনোত্ব = প্রয়োগের মুহূর্তের সংস্করণ − কর্মী যে সংস্করণ পড়েছিল
            self.log.append((time.perf_counter() - self.start, worker, version_read, self.version))
            if self.cfg.mode == "async":
                self.apply(grad)  # অ্যাসিঙ্ক্রোনাস: আসামাত্র প্রয়োগ, কেউ অপেক্ষা করে না
                return self.version >= budget
            self.pending[worker] = grad  # সিঙ্ক্রোনাস: সবার গ্রেডিয়েন্ট এলে তাদের যোগফল একবারে
            round_version = self.version
            if len(self.pending) == self.cfg.workers:
                self.apply(sum(self.pending[w] for w in sorted(self.pending)))
                self.pending = {}
                self.lock.notify_all()  # অপেক্ষায় থাকা দ্রুত কর্মীদের জাগাও
            elif not self.lock.wait_for(lambda: self.version > round_version, timeout=self.cfg.rpc_timeout_s):
                raise TimeoutError(pick(bn=f"সিঙ্ক্রোনাস সার্ভার কর্মী {sorted(set(range(self.cfg.workers)) - set(self.pending))}-এর গ্রেডিয়েন্ট পায়নি",
                                        en=f"the synchronous server got no gradient from worker {sorted(set(range(self.cfg.workers)) - set(self.pending))}"))
            return self.version >= budget

    def finish(self, worker):
        with self.lock:
            self.finished.add(worker)
            if len(self.finished) == self.cfg.workers:
                self.done.set()


import os
import warnings

import torch.distributed.rpc as rpc

SERVER = "ps"
_server = None  # সার্ভার প্রসেসে Server বস্তুটি; নিচের তিনটি ফাংশন সেখানে চলে, কর্মীরা RPC দিয়ে ডাকে


def pull():
    return _server.pull()


def push(worker, version_read, grad, index=None):
    return _server.push(worker, version_read, grad, index)


def finish(worker):
    _server.finish(worker)


def work(w, cfg, problem):
    """একজন কর্মী: ওজন টানো (pull), নিজের batch-এ গ্রেডিয়েন্ট, পাঠাও (push) — সার্ভার থামতে বলা পর্যন্ত।"""
    generator = torch.Generator().manual_seed(cfg.seed * 1000 + w)
    shard = torch.arange(w, len(problem.x), cfg.workers)  # প্রতি W-তম নমুনা: কর্মীদের ডেটা আলাদা
    spent, pushes, stop = [0.0, 0.0, 0.0, 0.0], 0, False  # pull, গণনা, দেরি, push-এ কাটানো সেকেন্ড
    while not stop:
        ticks = [time.perf_counter()]
        theta, version = rpc.rpc_sync(SERVER, pull)  # সার্ভারের এখনকার ওজন আর তার সংস্করণ
        ticks.append(time.perf_counter())
        index = shard[torch.randint(len(shard), (cfg.batch_size,), generator=generator)]
        grad = problem.grad(theta, (problem.x[index], problem.y[index]))  # পড়া ওজনে, নিজের batch-এ
        ticks.append(time.perf_counter())
        if w == cfg.workers - 1 and cfg.straggler_ms > 0:
            time.sleep(cfg.straggler_ms / 1000)  # ধীর কর্মী: যেন তার মেশিন ব্যস্ত
        ticks.append(time.perf_counter())
        stop = rpc.rpc_async(SERVER, push, args=(w, version, grad, index if cfg.record else None)).wait()
        ticks.append(time.perf_counter())
        spent, pushes = [s + b - a for s, a, b in zip(spent, ticks, ticks[1:])], pushes + 1
    rpc.rpc_sync(SERVER, finish, args=(w,))
    return {"worker": w, "pushes": pushes, "pid": os.getpid(),
            **dict(zip(("pull_s", "compute_s", "delay_s", "push_s"), spent))}


def process(rank, world_size, cfg, problem, rpc_port):
    """প্রতিটি প্রসেস এটা চালায় (পাঠ ০৫-এর launch দিয়ে): rank 0 সার্ভার, বাকিরা কর্মী।"""
    global _server
    warnings.filterwarnings("ignore", message=".*as a ProcessGroup.*")  # RPC-র নিজের gloo ব্যবহার, আমাদের নয়
    if rank == 0:
        _server = Server(problem.initial_theta(), cfg)
    options = rpc.TensorPipeRpcBackendOptions(init_method=f"tcp://127.0.0.1:{rpc_port}", rpc_timeout=cfg.rpc_timeout_s,
                                              num_worker_threads=max(8, 2 * cfg.workers + 2))
    rpc.init_rpc(SERVER if rank == 0 else f"worker{rank - 1}", rank=rank, world_size=world_size,
                 rpc_backend_options=options)  # সবাই যোগ দেওয়া পর্যন্ত অপেক্ষা করে
    try:
        if rank > 0:
            return work(rank - 1, cfg, problem)
        if not _server.done.wait(timeout=cfg.timeout_s):
            raise TimeoutError(pick(bn=f"সার্ভার {cfg.timeout_s:.0f} সেকেন্ডেও সব কর্মীর শেষের খবর পায়নি",
                                    en=f"the server heard no end from every worker within {cfg.timeout_s:.0f} s"))
        with _server.lock:  # numpy, টেনসর নয়: queue-তে পাঠানো টেনসর এই প্রসেসের সাথে মুছে যায়
            return {"log": list(_server.log), "version": _server.version, "late": _server.late,
                    "snapshots": [(s, v, th.numpy()) for s, v, th in _server.snapshots], "theta": _server.theta.numpy(),
                    "recorded": [(w, v, None if i is None else i.numpy(), g.numpy()) for w, v, i, g in _server.recorded],
                    "train_time_s": _server.log[-1][0] if _server.log else 0.0}
    finally:
        rpc.shutdown(graceful=True, timeout=cfg.rpc_timeout_s)  # সবাই শেষ করা পর্যন্ত অপেক্ষা, তারপর বন্ধ
