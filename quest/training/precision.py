"""Which precision a training run computes in: bf16 autocast where the hardware computes bf16
(a GPU that has it, or a CPU with AVX512-BF16 or AMX), after a parity check on the model itself.

`precision: auto` (the default) measures the loss of a fixed text under float32 and under bf16
autocast before training; bf16 is used when the two agree within PARITY (relative), float32
otherwise, and the run's PRECISION_FILE says which was chosen and why. The weights and the
optimiser stay in float32 either way (autocast computes the matrix products in bf16), so a
checkpoint is the same. `bf16` forces it (parity still measured and recorded), `fp32` turns it off.
The rollouts' sampling runs under the same autocast.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PARITY = 0.01  # largest relative difference of the two losses that bf16 may show
PRECISION_FILE = "precision.json"
# A fixed text the parity loss is measured on: ordinary English prose, the kind a research
# session holds (any text would do; this one is the project's own).
SAMPLE = (
    "The capital of Australia is Canberra, a planned city chosen in 1908 as a compromise "
    "between Sydney and Melbourne. According to the census, about 460,000 people live there. "
    "The question asked for the capital and its population, so the answer names Canberra and "
    "cites the page that states the figure; a claim no visited page supports is left out."
)


@dataclass(frozen=True)
class Precision:
    use: str  # "bf16" | "fp32"
    why: str
    device: str  # "cuda" | "cpu"
    loss_fp32: float | None = None
    loss_bf16: float | None = None

    @property
    def bf16(self) -> bool:
        return self.use == "bf16"

    def autocast(self) -> AbstractContextManager[Any]:
        """The context the model computes in: bf16 autocast on its device, or nothing."""
        if not self.bf16:
            return nullcontext()
        import torch

        return torch.autocast(self.device, dtype=torch.bfloat16)

    def write(self, directory: Path) -> None:
        text = json.dumps(asdict(self), indent=2) + "\n"
        (directory / PRECISION_FILE).write_text(text, encoding="utf-8")


def bf16_hardware() -> str | None:
    """ "cuda" or "cpu" where bf16 is computed natively, else None."""
    import torch

    if torch.cuda.is_available():
        return "cuda" if torch.cuda.is_bf16_supported() else None
    return "cpu" if _cpu_flags() & {"avx512_bf16", "amx_bf16"} else None


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def parity_losses(model: Any, tokenizer: Any, device: str) -> tuple[float, float]:
    """The loss of SAMPLE in float32 and under bf16 autocast, without gradients."""
    import torch

    ids = tokenizer(SAMPLE, return_tensors="pt")["input_ids"].to(model.device)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            fp32 = float(model(input_ids=ids, labels=ids).loss)
            with torch.autocast(device, dtype=torch.bfloat16):
                bf16 = float(model(input_ids=ids, labels=ids).loss)
    finally:
        model.train(was_training)
    return fp32, bf16


def choose(asked: str, model: Any, tokenizer: Any) -> Precision:
    """The precision a run of `asked` (auto | bf16 | fp32) computes in (see the module)."""
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if asked == "fp32":
        return Precision("fp32", "asked for", device)
    hardware = bf16_hardware()
    if asked == "auto" and hardware is None:
        return Precision("fp32", f"this {device} does not compute bf16 natively", device)
    fp32, bf16 = parity_losses(model, tokenizer, device)
    drift = abs(bf16 - fp32) / max(abs(fp32), 1e-6)
    measured = f"the losses differ by {drift:.2%} (fp32 {fp32:.4f}, bf16 {bf16:.4f})"
    if asked == "bf16":
        return Precision("bf16", f"asked for; {measured}", device, fp32, bf16)
    if drift > PARITY:
        return Precision("fp32", f"{measured}, over {PARITY:.0%}", device, fp32, bf16)
    return Precision("bf16", f"{measured}, within {PARITY:.0%}", device, fp32, bf16)
