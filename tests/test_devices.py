"""The ``device`` setting (auto | cpu | cuda) and device-free checkpoints.

Checkpoints written on a GPU must load on a CPU and the reverse. Without a
GPU, a GPU's checkpoint is made by tagging every tensor ``cuda:0`` while
saving (what ``torch.save`` records for a tensor on a GPU): ``torch.load``
without a map location refuses such a file on this machine, so each test
below fails if the loaders or ``save_checkpoint`` stop mapping to the CPU.
Tests that need a GPU skip without one.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import torch
import torch.serialization

from trappola.agents.model_io.checkpoint_format import load_policy
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.cli.main import main as cli_main
from trappola.train.devices import resolve_device
from trappola.train.rllib.config import RLlibConfig
from trappola.train.rllib.selfplay import learner_settings
from trappola.train.run.checkpoint import build_metadata, load_model, save_checkpoint
from trappola.train.sb3.batched_vec_env import TorchActor
from trappola.train.sb3.config import TrainConfig

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
needs_no_cuda = pytest.mark.skipif(CUDA, reason="checks the refusal on a machine without a GPU")


@pytest.fixture(scope="module")
def tiny_model():
    from sb3_contrib import MaskablePPO

    from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    model = MaskablePPO(
        "MlpPolicy",
        BatchedSelfPlayVecEnv(4, pool={"random": 1.0}, seed=0),
        n_steps=8,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=[16, 8], vf=[16])),
    )
    model.learn(32)  # an optimizer state to save as well (the network is SB3's default: tanh)
    return model


def _meta():
    return build_metadata(TrainConfig(net_arch=[16, 8], device="cpu").to_dict(), 0, 32)


def _tags(path) -> dict[str, set[str]]:
    """The device each torch entry of a checkpoint zip names for its tensors."""
    tags = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            if name.endswith(".pth"):
                seen = set()

                def record(storage, location, seen=seen):
                    seen.add(location)
                    return storage

                torch.load(io.BytesIO(zf.read(name)), map_location=record, weights_only=True)
                tags[name] = seen
    return tags


@pytest.fixture()
def as_if_on_gpu(monkeypatch, tiny_model):
    """While active, ``torch.save`` writes the model's own tensors (weights
    and optimizer state) as a GPU's; copies of them are written as they are."""
    policy = tiny_model.policy
    tensors = list(policy.state_dict().values())
    tensors += [t for s in policy.optimizer.state.values() for t in s.values() if torch.is_tensor(t)]
    on_gpu = {t.untyped_storage().data_ptr() for t in tensors}
    real = torch.serialization.location_tag

    def tag(storage):
        return "cuda:0" if storage.data_ptr() in on_gpu else real(storage)

    monkeypatch.setattr(torch.serialization, "location_tag", tag)


def _state(model) -> dict:
    return {k: v.detach().cpu().clone() for k, v in model.policy.state_dict().items()}


def test_config_device_default_and_choices():
    assert TrainConfig().device == "auto" and RLlibConfig().device == "auto"
    assert TrainConfig(device="cpu").device == "cpu"
    with pytest.raises(ValueError, match="device"):
        TrainConfig(device="gpu")
    assert resolve_device("auto") == ("cuda" if CUDA else "cpu")
    assert resolve_device("cpu") == "cpu"


@needs_no_cuda
def test_cuda_refused_without_a_gpu_before_anything_runs(tmp_path, capsys):
    for cls in (TrainConfig, RLlibConfig):
        with pytest.raises(ValueError, match="no CUDA GPU"):
            cls(device="cuda")
    assert cli_main(["exploit", "--target", "random", "--device", "cuda", "--minutes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no CUDA GPU" in err
    out = tmp_path / "runs"
    assert cli_main(["train", f"out_dir={out}", "device=cuda"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err and not out.exists()


def test_rllib_learner_on_the_gpu_only_for_cuda():
    assert learner_settings("cpu") == {"num_learners": 0, "num_gpus_per_learner": 0}
    assert learner_settings("cuda") == {"num_learners": 0, "num_gpus_per_learner": 1}


@needs_no_cuda
def test_gpu_checkpoint_loads_and_plays_on_the_cpu(tiny_model, tmp_path, as_if_on_gpu):
    # a checkpoint as the GPU wrote it before checkpoints were made device-free
    path = tmp_path / "gpu.zip"
    save_checkpoint(tiny_model, path, _meta())  # model.device is cpu: saved as is, tags and all
    tags = _tags(path)
    assert tags["policy.pth"] == {"cuda:0"} and tags["policy.optimizer.pth"] == {"cuda:0"}
    with zipfile.ZipFile(path) as zf, pytest.raises(RuntimeError, match="CUDA"):
        torch.load(io.BytesIO(zf.read("policy.pth")), weights_only=True)
    model, _ = load_model(path, device="cpu")
    assert model.device.type == "cpu"
    for key, value in _state(tiny_model).items():
        assert torch.equal(model.policy.state_dict()[key], value)
    policy, _ = load_policy(path)  # the player's loader
    obs = np.random.default_rng(0).random((5, 347), dtype=np.float32)
    np.testing.assert_allclose(
        policy.logits(obs), NumpyPolicy.from_sb3(tiny_model.policy, "tanh").logits(obs), rtol=1e-6
    )


def test_a_model_on_a_gpu_saves_cpu_tensors(tiny_model, tmp_path, monkeypatch, as_if_on_gpu):
    monkeypatch.setattr(tiny_model, "device", torch.device("cuda"))
    path = save_checkpoint(tiny_model, tmp_path / "m.zip", _meta())
    tags = _tags(path)
    assert {"policy.pth", "policy.optimizer.pth"} <= set(tags)
    assert all(t <= {"cpu"} for t in tags.values()), tags
    with zipfile.ZipFile(path) as zf:  # any plain torch.load reads it, no map location needed
        state = torch.load(io.BytesIO(zf.read("policy.pth")), weights_only=True)
    for key, value in _state(tiny_model).items():
        assert torch.equal(state[key], value)
    model, _ = load_model(path, device="cpu")
    assert model.policy.optimizer.state_dict()["state"]  # the optimizer state came through


@needs_cuda
def test_cpu_checkpoint_trains_and_plays_on_the_gpu(tiny_model, tmp_path):
    path = save_checkpoint(tiny_model, tmp_path / "cpu.zip", _meta())
    model, _ = load_model(path, device="cuda")
    assert model.device.type == "cuda"
    back = save_checkpoint(model, tmp_path / "back.zip", _meta())
    assert all(t <= {"cpu"} for t in _tags(back).values())
    obs = np.random.default_rng(0).random((5, 347), dtype=np.float32)
    policy = NumpyPolicy.from_sb3(tiny_model.policy, "tanh")
    on_gpu = TorchActor(policy, "cuda").logits(obs)
    np.testing.assert_allclose(on_gpu, TorchActor(policy).logits(obs), rtol=1e-4, atol=1e-5)
