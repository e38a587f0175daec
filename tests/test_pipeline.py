"""Pipeline over processes: the same weights as one process, a timeline, the bubble formula;
and the model split across a list of devices."""

import itertools

import numpy as np
import pytest
import torch

from fastrain_lib.distributed import launch, model_split, pipeline
from fastrain_lib.distributed import launcher as L

CFG = {"micro_batches": 4, "steps": 2, "width": 32, "batch": 16, "layers_per_stage": 1}
# a whole launch's limit: CI runs this on 2 cores beside another test worker and the loaded-lesson
# test's background hog, where starting and importing torch in each rank alone can take a minute
LOADED_TIMEOUT_S = 300


def _close(results, reference):
    for r in results:
        for got, want in zip(r["params"], reference[r["stage"]]):
            np.testing.assert_allclose(got, want, atol=1e-5)


def test_pipeline_matches_one_process_and_records_a_timeline():
    results = launch(pipeline.pipeline_worker, 2, args=(CFG,), timeout_s=LOADED_TIMEOUT_S)
    _close(results, pipeline.reference_step(2, CFG))
    events = pipeline.gather_events(results)
    assert sorted((e["stage"], e["kind"]) for e in events) == sorted(
        [(k, kind) for k in range(2) for kind in "FB" for _ in range(4)])
    f0 = {e["micro"]: e for e in events if e["stage"] == 0 and e["kind"] == "F"}
    f1 = {e["micro"]: e for e in events if e["stage"] == 1 and e["kind"] == "F"}
    assert all(f1[m]["start"] >= f0[m]["end"] - 5e-3 for m in range(4))  # allow barrier skew
    share = pipeline.idle_share(events, 2)
    assert 0.0 <= share < 1.0
    assert L.pids_alive(L.LAST_PIDS) == []


def test_hybrid_two_stages_two_replicas():
    cfg = {**CFG, "replicas": 2, "micro_batches": 2}
    results = launch(pipeline.pipeline_worker, 4, args=(cfg,), timeout_s=LOADED_TIMEOUT_S)
    assert [(r["replica"], r["stage"]) for r in results] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert results[0]["groups"] == [[0, 2], [1, 3]]
    assert results[0]["param_hash"] == results[2]["param_hash"]  # same stage, both replicas
    assert results[0]["param_hash"] != results[1]["param_hash"]
    _close(results, pipeline.reference_step(2, cfg))
    assert any(e["kind"] == "A" for e in results[0]["events"])
    from fastrain_lib.lessons.l05_data_vs_model_parallel import panel as lesson05

    fig = lesson05.layout_figure(results)  # the process-group drawing of the lesson
    assert len(fig.axes[0].patches) == 4


def test_bubble_formula_and_ideal_schedule():
    assert pipeline.bubble_fraction(4, 1) == pytest.approx(3 / 4)
    assert pipeline.bubble_fraction(2, 4) == pytest.approx(1 / 5)
    for k, m in [(2, 1), (2, 4), (4, 8), (3, 5)]:
        # with equal forward and backward times the paper schedule has exactly GPipe's bubble
        events = pipeline.ideal_schedule(k, m, forward=1.0, backward=1.0)
        assert pipeline.idle_share(events, k) == pytest.approx(pipeline.bubble_fraction(k, m))


def test_split_model_matches_the_whole_model():
    full = model_split.mlp(16, 4, inputs=8, seed=3)
    x = torch.randn(5, 8)
    split = model_split.split_sequential(full, ["cpu", "cpu", "cpu"])
    assert len(split.parts) == 3
    torch.testing.assert_close(split(x), full(x))
    events = model_split.timeline_step(split, x, torch.randint(0, 10, (5,)))
    assert [(e["stage"], e["kind"]) for e in events] == [(0, "F"), (1, "F"), (2, "F"), (2, "B"), (1, "B"), (0, "B")]
    assert all(b["start"] >= a["end"] for a, b in itertools.pairwise(events))  # one part at a time
    with pytest.raises(ValueError):
        model_split.split_sequential(full, [])
    seeds = model_split.seeds_model_parallel(["cpu", "cpu"])
    assert seeds(torch.randn(3, 128)).shape == (3, 10)
