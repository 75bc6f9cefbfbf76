"""Run budgets (QUEST-SPEC §5) and context-size counting.

Token budgets, as this loop reads them:
- `max_total_tokens` (inference, 256K) counts every token added to the context over the run,
  across sessions: the length the trajectory would have had without condensation.
- `max_session_response_tokens` (RL, 12,288) counts the tokens the policy generated in one
  session; tool responses do not count, so the RL context reaches the 16,384-token condensation
  threshold before this runs out, as in the paper's setting.
When either is spent, or `max_turns`, the loop asks once for a final answer and stops.

The condensation thresholds (RL 16,384 tokens, inference 80K) assume a model that reads more.
`within(window)` lowers the threshold to half a smaller model's context window, which leaves the
other half for the next turn: SmolLM2-135M reads 8,192 tokens and condenses by 4,096.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Protocol

MESSAGE_OVERHEAD = 4  # role and separator tokens a chat template adds per message
# The share of the model's context window the history may fill before it is condensed.
CONDENSE_SHARE = 0.5


@dataclass(frozen=True)
class Budgets:
    max_turns: int = 50
    max_total_tokens: int | None = None
    max_session_response_tokens: int | None = 12_288
    max_turn_tokens: int = 10_240  # handed to the policy (LLMPolicy's max_tokens)
    max_tool_chars: int = 12_000
    condense_at_tokens: int = 16_384
    max_invalid: int = 3

    @classmethod
    def rl(cls) -> Budgets:
        return cls()

    @classmethod
    def inference(cls) -> Budgets:
        return cls(
            max_turns=400,
            max_total_tokens=256_000,
            max_session_response_tokens=None,
            condense_at_tokens=80_000,
        )

    def within(self, window: int | None) -> Budgets:
        """These budgets for a model that reads `window` tokens (None: unknown, unchanged): the
        history condenses by CONDENSE_SHARE of the window at the latest."""
        if window is None:
            return self
        threshold = min(self.condense_at_tokens, int(window * CONDENSE_SHARE))
        return replace(self, condense_at_tokens=threshold)

    def to_json(self) -> dict[str, int | None]:
        return asdict(self)


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


class ApproxTokens:
    """About four characters a token, the usual figure for English under BPE tokenizers."""

    def count(self, text: str) -> int:
        return (len(text) + 3) // 4


def message_tokens(counter: TokenCounter, content: str) -> int:
    return counter.count(content) + MESSAGE_OVERHEAD
