import pytest

from fastrain_lib.core import config


def test_defaults(monkeypatch):
    monkeypatch.delenv("FASTRAIN_MODE", raising=False)
    monkeypatch.delenv("FASTRAIN_LANG", raising=False)
    assert config.mode() == "lab"
    assert config.lang() == "bn"


@pytest.mark.parametrize("value", ["ci", "lab", "full", " CI "])
def test_known_modes(monkeypatch, value):
    monkeypatch.setenv("FASTRAIN_MODE", value)
    assert config.mode() == value.strip().lower()


def test_unknown_mode_names_allowed_values(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "fast")
    with pytest.raises(config.ConfigError) as err:
        config.mode()
    message = str(err.value)
    for allowed in config.MODES:
        assert allowed in message
    assert "চেনা মান নয়" in message and "not a known value" in message


def test_unknown_language(monkeypatch):
    monkeypatch.setenv("FASTRAIN_LANG", "fr")
    with pytest.raises(config.ConfigError, match="bn, en"):
        config.lang()


def test_by_mode(monkeypatch):
    monkeypatch.setenv("FASTRAIN_MODE", "ci")
    assert config.by_mode(ci=1, lab=2, full=3) == 1
    monkeypatch.setenv("FASTRAIN_MODE", "full")
    assert config.by_mode(ci=1, lab=2, full=3) == 3
    assert config.by_mode(ci=1, lab=2) == 2  # full falls back to lab


def test_dirs_are_overridable(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTRAIN_DATA", str(tmp_path / "d"))
    monkeypatch.setenv("FASTRAIN_RESULTS", str(tmp_path / "r"))
    assert config.data_dir() == tmp_path / "d" and (tmp_path / "d").is_dir()
    assert config.results_dir() == tmp_path / "r" and (tmp_path / "r").is_dir()
