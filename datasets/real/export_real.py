#!/usr/bin/python3
"""Export the real datasets that Debian packages ship into splinebench's dataset cache.

Run with the system Python (/usr/bin/python3), where python3-skimage, python3-imageio and
python3-nibabel install; the project venv does not see them. For every dataset below it
writes, into the cache folder,

    <name>.npy   float32, C order (last axis contiguous; channels, if any, innermost)
    <name>.json  the manifest: shape, grid extents, channels, axes, source file, Debian
                 package and version, licence, value range, sha256 of the .npy

The cache folder is $SPLINEBENCH_DATASETS_DIR if set, else .cache/datasets under the
repository (git-ignored). Values are the source's own numbers converted to float32
(every source is 8- or 16-bit integer, so the conversion is exact); nothing is rescaled.

A dataset whose package or file is missing is skipped with one line naming the package
to install; the exit status is 0 unless a present source fails to export. A dataset
whose manifest already matches its source (path, size, modification time) is left as is
unless --force is given.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:  # python3-skimage and the others pull in python3-numpy; without it, every dataset skips
    import numpy as np
except ImportError:
    np = None

REPO = Path(__file__).resolve().parents[2]
FORMAT = 1  # manifest format; bump when the layout of a manifest or .npy changes

SKIMAGE_LICENCE = ("scikit-image sample data; licence as stated in skimage/data/_fetchers.py: {}")

# name: (package, module, path inside the module, reader, axes, description, licence)
DATASETS = {
    "camera": ("python3-skimage", "skimage", "data/camera.png", "png", ["y", "x"],
               "Cameraman, grey, 512x512 (skimage.data.camera)",
               SKIMAGE_LICENCE.format("CC0 by the photographer (Lav Varshney)")),
    "astronaut": ("python3-skimage", "skimage", "data/astronaut.png", "png", ["y", "x", "rgb"],
                  "Astronaut Eileen Collins, RGB, 512x512 (skimage.data.astronaut)",
                  SKIMAGE_LICENCE.format("NASA, no known copyright restrictions, public domain")),
    "moon": ("python3-skimage", "skimage", "data/moon.png", "png", ["y", "x"],
             "Surface of the moon, grey, low contrast, 512x512 (skimage.data.moon)",
             SKIMAGE_LICENCE.format("none stated for this image; the package is BSD-3-Clause "
                                    "(Debian copyright)")),
    "coins": ("python3-skimage", "skimage", "data/coins.png", "png", ["y", "x"],
              "Greek coins from Pompeii, grey, 303x384 (skimage.data.coins)",
              SKIMAGE_LICENCE.format("Brooklyn Museum Collection, no known copyright restrictions")),
    "brick": ("python3-skimage", "skimage", "data/brick.png", "png", ["y", "x"],
              "Brick wall texture, grey, 512x512 (skimage.data.brick)",
              SKIMAGE_LICENCE.format("CC0Textures, Creative Commons CC0")),
    "grass": ("python3-skimage", "skimage", "data/grass.png", "png", ["y", "x"],
              "Grass texture, grey, 512x512 (skimage.data.grass)",
              SKIMAGE_LICENCE.format("CC0Textures, Creative Commons CC0")),
    "gravel": ("python3-skimage", "skimage", "data/gravel.png", "png", ["y", "x"],
               "Gravel texture, grey, 512x512 (skimage.data.gravel)",
               SKIMAGE_LICENCE.format("CC0Textures, Creative Commons CC0")),
    "stent": ("python3-imageio", "imageio", "resources/images/stent.npz", "npz", ["z", "y", "x"],
              "CT of a stented abdominal aorta, int16, 256x128x128 (imageio standard image)",
              "imageio standard image; the package is BSD-2-Clause (Debian copyright, Files: *); "
              "no separate data licence stated"),
    "mri_anatomical": ("python3-nibabel", "nibabel", "tests/data/anatomical.nii", "nifti", ["k", "j", "i"],
                       "Anatomical MRI, 3-D, 33x41x25 voxels as (i, j, k), stored (k, j, i)",
                       "nibabel test data; the package is Expat/MIT (Debian copyright, Files: *); "
                       "no separate data licence stated"),
    "mri_4d": ("python3-nibabel", "nibabel", "tests/data/example4d.nii.gz", "nifti", ["t", "k", "j", "i"],
               "Functional MRI, 4-D, 128x96x24 voxels x 2 volumes as (i, j, k, t), stored (t, k, j, i)",
               "nibabel test data; the package is Expat/MIT (Debian copyright, Files: *); "
               "no separate data licence stated"),
}


def cache_dir() -> Path:
    env = os.environ.get("SPLINEBENCH_DATASETS_DIR")
    return Path(env) if env else REPO / ".cache" / "datasets"


class Missing(Exception):
    """The package or file a dataset comes from is not installed."""


def module_dir(package: str, module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise Missing(f"install {package} (apt-get install {package})")
    return Path(list(spec.submodule_search_locations)[0])


def package_version(package: str, module: str) -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             capture_output=True, text=True, check=False)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    mod = __import__(module)
    return "python module " + str(getattr(mod, "__version__", "unknown"))


def read_png(path: Path) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError as e:
        raise Missing("install python3-pil (apt-get install python3-pil)") from e
    with Image.open(path) as im:
        a = np.asarray(im)
    if a.ndim == 3 and a.shape[2] == 4:  # an RGBA file: keep the colour
        a = a[:, :, :3]
    return a


def read_npz(path: Path) -> np.ndarray:
    with np.load(path) as z:
        return z[z.files[0]]


def read_nifti(path: Path) -> np.ndarray:
    try:
        import nibabel
    except ImportError as e:
        raise Missing("install python3-nibabel (apt-get install python3-nibabel)") from e
    a = np.asanyarray(nibabel.load(str(path)).dataobj)
    # nibabel indexes (i, j, k[, t]) with i varying fastest in the file; reversed, the
    # file's contiguous axis stays the contiguous (last) one.
    return np.ascontiguousarray(a.transpose(tuple(reversed(range(a.ndim)))))


READERS = {"png": read_png, "npz": read_npz, "nifti": read_nifti}


def write_atomically(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def export(name: str, out: Path, force: bool) -> str:
    package, module, rel, reader, axes, description, licence = DATASETS[name]
    if np is None:
        raise Missing(f"install python3-numpy and {package} (apt-get install python3-numpy {package})")
    source = module_dir(package, module) / rel
    if not source.is_file():
        raise Missing(f"{source} not found: install {package} (apt-get install {package})")
    stat = source.stat()
    manifest_path = out / f"{name}.json"
    if not force and manifest_path.is_file() and (out / f"{name}.npy").is_file():
        try:
            old = json.loads(manifest_path.read_text())
            if (old.get("format") == FORMAT and old.get("source") == str(source)
                    and old.get("source_bytes") == stat.st_size
                    and old.get("source_mtime_ns") == stat.st_mtime_ns):
                return "up to date"
        except (OSError, ValueError):
            pass
    raw = READERS[reader](source)
    if not np.issubdtype(raw.dtype, np.integer) or np.abs(raw).max() >= 2 ** 24:
        raise RuntimeError(f"{name}: {raw.dtype} values are not exact in float32")
    data = np.ascontiguousarray(raw.astype(np.float32))
    if data.ndim != len(axes):
        raise RuntimeError(f"{name}: {data.ndim} axes read, {len(axes)} expected ({axes})")
    channels = data.shape[-1] if axes[-1] == "rgb" else 1
    grid = list(data.shape[:-1] if channels > 1 else data.shape)
    npy_path = out / f"{name}.npy"
    write_atomically(npy_path, lambda f: np.save(f, data))
    manifest = {
        "format": FORMAT,
        "name": name,
        "description": description,
        "file": npy_path.name,
        "dtype": "float32",
        "shape": list(data.shape),
        "grid": grid,
        "channels": channels,
        "axes": axes,
        "source": str(source),
        "source_dtype": str(raw.dtype),
        "source_bytes": stat.st_size,
        "source_mtime_ns": stat.st_mtime_ns,
        "package": package,
        "package_version": package_version(package, module),
        "licence": licence,
        "value_range": [float(data.min()), float(data.max())],
        "sha256": hashlib.sha256(npy_path.read_bytes()).hexdigest(),
    }
    write_atomically(manifest_path, lambda f: f.write((json.dumps(manifest, indent=2) + "\n").encode()))
    return "written"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help=f"datasets to export (default: all of {', '.join(DATASETS)})")
    p.add_argument("--out", type=Path, help="cache folder (default: $SPLINEBENCH_DATASETS_DIR or .cache/datasets)")
    p.add_argument("--force", action="store_true", help="export even when the manifest is up to date")
    p.add_argument("--quiet", action="store_true", help="print only skipped datasets and errors")
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in DATASETS]
    if unknown:
        p.error(f"unknown dataset(s) {', '.join(unknown)} (known: {', '.join(DATASETS)})")
    out = args.out or cache_dir()
    out.mkdir(parents=True, exist_ok=True)
    failed = False
    for name in args.names or DATASETS:
        try:
            what = export(name, out, args.force)
            if not args.quiet:
                print(f"{name}: {what} ({out / (name + '.npy')})")
        except Missing as e:
            print(f"splinebench datasets: {name} skipped: {e}")
        except Exception as e:  # a present source that cannot be exported is an error
            print(f"splinebench datasets: {name} failed: {e}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
