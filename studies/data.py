"""The named datasets a study reads: the real images and volumes that
datasets/real/ exports from Debian packages into the dataset cache (datasets/README.md).
A study never downloads anything; a missing dataset is one line saying how to get it."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import numpy as np

from .common import ROOT, StudyError

CACHE_ENV = "SPLINEBENCH_DATASETS_DIR"


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or ROOT / ".cache" / "datasets")


def load_image(name: str) -> np.ndarray:
    """A real dataset as float32, shape (H, W) or (H, W, C)."""
    path = cache_dir() / f"{name}.npy"
    if not path.is_file():
        raise StudyError(f"dataset '{name}' not in {cache_dir()}: export it with "
                         "`/usr/bin/python3 datasets/real/export_real.py` (needs the Debian package that ships it: "
                         "datasets/README.md)")
    return np.load(path).astype(np.float32)


def short_host() -> str:
    return socket.gethostname().split(".")[0]
