"""The problems lesson 06 trains: a real model and real data, the parameters as one flat vector.

    problem = make_problem("digits")          # the Bengali digits; "blobs" for tests
    problem.loss_and_grad(theta, x, y), problem.evaluate(theta)

The simulator (simulator.py), Hogwild (hogwild.py), the parameter server and local SGD all
train these, so every method of the lesson sees the same data and the same initial weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call

from fastrain_lib.core import config
from fastrain_lib.core.i18n import t



@dataclass
class Problem:
    """A model and its data. The parameters live in one flat vector `theta` so that the
    server can keep copies ("the parameters worker 3 read at time 7.5") cheaply."""

    model: nn.Module
    x: torch.Tensor  # training inputs
    y: torch.Tensor  # training labels
    x_eval: torch.Tensor  # a fixed evaluation set: loss/accuracy after every update
    y_eval: torch.Tensor
    name: str = ""
    shapes: list = field(default_factory=list)  # (name, shape) of every parameter

    def __post_init__(self):
        self.shapes = [(n, p.shape) for n, p in self.model.named_parameters()]

    def initial_theta(self) -> torch.Tensor:
        return torch.cat([p.detach().reshape(-1) for p in self.model.parameters()]).clone()

    def unflatten(self, theta: torch.Tensor) -> dict:
        """{parameter name: view of theta with the parameter's shape}."""
        params, start = {}, 0
        for name, shape in self.shapes:
            size = math.prod(shape)
            params[name] = theta[start:start + size].view(shape)
            start += size
        return params

    def loss(self, theta: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(functional_call(self.model, self.unflatten(theta), (x,)), y)

    def grad(self, theta: torch.Tensor, batch) -> torch.Tensor:
        """The gradient of the mean loss of `batch` = (x, y) at parameters `theta`."""
        x, y = batch
        theta = theta.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(self.loss(theta, x, y), theta)
        return g

    @torch.no_grad()
    def evaluate(self, theta: torch.Tensor) -> tuple[float, float]:
        """(loss, accuracy) on the evaluation set."""
        logits = functional_call(self.model, self.unflatten(theta), (self.x_eval,))
        loss = F.cross_entropy(logits, self.y_eval).item()
        accuracy = (logits.argmax(1) == self.y_eval).float().mean().item()
        return loss, accuracy


def _model(inputs: int, hidden: int, classes: int = 10) -> nn.Module:
    # hidden = 0: softmax regression (one linear layer) -- small, fast, and its loss is convex
    if hidden:
        from fastrain_lib.models import SimpleNN
        return SimpleNN(hidden=hidden, inputs=inputs, classes=classes)
    return nn.Sequential(nn.Flatten(), nn.Linear(inputs, classes))


def make_problem(kind: str = "digits", n: int | None = None, *, hidden: int = 0, seed: int = 0,
                 n_eval: int | None = None) -> Problem:
    """A real classification problem.

    kind "digits": the Bengali digits (fastrain_lib.data), 28x28 images, 10 classes.
    kind "blobs":  10 Gaussian clouds in 20 dimensions (no files, instant; for tests).
    hidden = 0 gives softmax regression, hidden > 0 the seeds' SimpleNN with that width."""
    n = n or config.by_mode(ci=1000, lab=4000, full=20000)
    n_eval = n_eval or config.by_mode(ci=300, lab=1000, full=2000)
    if kind == "digits":
        from fastrain_lib.data import bengali_digits
        train = bengali_digits(train=True, size=n, seed=seed)
        test = bengali_digits(train=False, size=n_eval, seed=seed)
        x, y, x_eval, y_eval = train.images, train.labels, test.images, test.labels
        inputs = 28 * 28
    elif kind == "blobs":
        g = torch.Generator().manual_seed(seed)
        centres = 0.5 * torch.randn(10, 20, generator=g)  # overlapping clouds: not too easy
        labels = torch.randint(0, 10, (n + n_eval,), generator=g)
        points = centres[labels] + torch.randn(n + n_eval, 20, generator=g)
        x, y, x_eval, y_eval = points[:n], labels[:n], points[n:], labels[n:]
        inputs = 20
    else:
        raise ValueError(t("async_sgd.bad_problem", kind=kind))
    torch.manual_seed(seed)  # the same initial weights for every mode
    return Problem(_model(inputs, hidden), x, y, x_eval, y_eval, name=kind)


class BatchStream:
    """One shared, seeded stream of batches: reshuffle every epoch, hand out batches in the
    order workers ask for them. Sync mode therefore sees batches k*W .. k*W+W-1 in step k."""

    def __init__(self, problem: Problem, batch_size: int, seed: int = 0):
        self.problem, self.batch_size = problem, batch_size
        self.generator = torch.Generator().manual_seed(seed)
        self.order, self.position = torch.empty(0, dtype=torch.long), 0

    def next(self):
        n = len(self.problem.x)
        if self.position + self.batch_size > len(self.order):
            self.order = torch.randperm(n, generator=self.generator)  # a new epoch
            self.position = 0
        index = self.order[self.position:self.position + self.batch_size]
        self.position += self.batch_size
        return self.problem.x[index], self.problem.y[index]
