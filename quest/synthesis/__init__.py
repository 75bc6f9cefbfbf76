"""Task synthesis (QUEST-SPEC §3): seeds, the offline knowledge-graph synthesizer and the
verification funnel every candidate goes through. `synthesize` runs a batch."""

from quest.synthesis.model import STAGES, BatchSpec, Candidate, Stage, SynthesisError
from quest.synthesis.runner import synthesize

__all__ = ["STAGES", "BatchSpec", "Candidate", "Stage", "SynthesisError", "synthesize"]
