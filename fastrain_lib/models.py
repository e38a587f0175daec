"""Small models the lessons train.

SimpleNN is the seeds' two-layer network (784 -> 128 -> 10), kept as it was except
that its width can change (lesson 03 varies it). SmallCNN is a small convolutional
network for the same 28x28 images.
"""

from __future__ import annotations

import torch
from torch import nn


class SimpleNN(nn.Module):
    """The seeds' SimpleNN: flatten a 28x28 image, one hidden ReLU layer, 10 classes."""

    def __init__(self, hidden: int = 128, inputs: int = 28 * 28, classes: int = 10):
        super().__init__()
        self.inputs = inputs
        self.fc1 = nn.Linear(inputs, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.reshape(-1, self.inputs)
        x = torch.relu(self.fc1(x))
        return self.fc2(x)


class SmallCNN(nn.Module):
    """Two convolution blocks and a linear classifier, for 1x28x28 images."""

    def __init__(self, channels: int = 16, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 28 -> 14
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 14 -> 7
        )
        self.classifier = nn.Linear(2 * channels * 7 * 7, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 3:  # a batch of 28x28 images without the channel axis
            x = x.unsqueeze(1)
        return self.classifier(self.features(x).flatten(1))


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
