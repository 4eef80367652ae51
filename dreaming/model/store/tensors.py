"""A streaming safetensors writer and a cheap integrity check for model folders.

Writing tensor by tensor keeps conversion memory near one tensor instead of the
whole float32 model (6.7 GB for the 1.5B), and the header alone tells whether a
file was truncated, so a damaged folder is caught before mlx maps it.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from dreaming.errors import ModelError
from dreaming.model.base import one_line

_DTYPES = {"float32": ("F32", 4), "bfloat16": ("BF16", 2)}


def to_dtype_bytes(array: np.ndarray[Any, Any], dtype: str) -> bytes:
    values = np.ascontiguousarray(array, dtype=np.float32)
    if dtype == "float32":
        return values.tobytes()
    # numpy has no bfloat16: round float32 to its upper 16 bits, to nearest even.
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16).tobytes()


class SafetensorsWriter:
    """Declare every tensor's shape first, then stream the data in the same order."""

    def __init__(self, path: Path, shapes: dict[str, tuple[int, ...]], dtype: str) -> None:
        self.code, self.itemsize = _DTYPES[dtype]
        self.dtype = dtype
        header: dict[str, Any] = {"__metadata__": {"format": "mlx"}}
        offset = 0
        self.sizes: dict[str, int] = {}
        for name, shape in shapes.items():
            size = int(np.prod(shape, dtype=np.int64)) * self.itemsize
            header[name] = {
                "dtype": self.code,
                "shape": list(shape),
                "data_offsets": [offset, offset + size],
            }
            self.sizes[name] = size
            offset += size
        raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
        raw += b" " * (-len(raw) % 8)
        self.order = list(shapes)
        self.file: BinaryIO = path.open("wb")
        self.file.write(struct.pack("<Q", len(raw)))
        self.file.write(raw)

    def write(self, name: str, array: np.ndarray[Any, Any]) -> None:
        expected = self.order.pop(0)
        if name != expected:
            raise ValueError(f"tensor {name} written out of order (expected {expected})")
        data = to_dtype_bytes(array, self.dtype)
        if len(data) != self.sizes[name]:
            raise ValueError(f"tensor {name}: {len(data)} bytes, header says {self.sizes[name]}")
        self.file.write(data)

    def close(self, *, check: bool = True) -> None:
        self.file.close()
        if check and self.order:
            raise ValueError(f"{len(self.order)} declared tensors were never written")


def read_header(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError("shorter than a safetensors header")
        (length,) = struct.unpack("<Q", head)
        if length > 100_000_000:
            raise ValueError("header length is implausible")
        header = json.loads(f.read(length).decode("utf-8"))
    if not isinstance(header, dict):
        raise ValueError("header is not a JSON object")
    header["__header_bytes__"] = 8 + length
    return header


def check_mlx_folder(folder: Path, repair_hint: str) -> None:
    """Raise ModelError naming `folder` if it cannot be a complete mlx-lm model folder."""

    def broken(why: str) -> ModelError:
        return ModelError(f"model folder {folder} is damaged ({why}); {repair_hint}")

    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise broken("no config.json") from None
    except (OSError, ValueError) as e:
        raise broken(f"config.json unreadable: {one_line(e)}") from None
    if not isinstance(config, dict) or "model_type" not in config:
        raise broken("config.json has no model_type")
    if not any((folder / n).is_file() for n in ("tokenizer.json", "tokenizer.model")):
        raise broken("no tokenizer.json")
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise broken("no .safetensors weights")
    for path in files:
        try:
            header = read_header(path)
        except (OSError, ValueError) as e:
            raise broken(f"{path.name}: {one_line(e)}") from None
        end = max(
            (int(v["data_offsets"][1]) for k, v in header.items() if not k.startswith("__")),
            default=0,
        )
        expected = int(header["__header_bytes__"]) + end
        actual = path.stat().st_size
        if actual != expected:
            raise broken(f"{path.name} is {actual} bytes, its header says {expected}: truncated")
