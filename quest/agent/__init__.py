"""The QUEST research agent (QUEST-SPEC §5): the loop that acts on the text protocol
(quest.protocol), with its budgets and context condenser, the policies (scripted and LLM) and
the trajectories they leave for training.
"""

from __future__ import annotations

from quest.agent.budgets import ApproxTokens, Budgets, TokenCounter
from quest.agent.condenser import Condenser, LLMCondenser, RuleCondenser
from quest.agent.events import EVENT_TYPES, EventSink, FanOut, JsonlSink, ListSink, NullSink
from quest.agent.loop import RunResult, Usage, run_agent
from quest.agent.policies import LLMPolicy, Policy, PolicyTurn
from quest.agent.scripted import ScriptedPolicy
from quest.agent.state import (
    DRState,
    Fact,
    Query,
    Source,
    StateError,
    parse_state,
    render_state_block,
)
from quest.agent.trajectory import Segment, Trajectory
from quest.protocol.turns import Turn, parse_turn

__all__ = [
    "EVENT_TYPES",
    "ApproxTokens",
    "Budgets",
    "Condenser",
    "DRState",
    "EventSink",
    "Fact",
    "FanOut",
    "JsonlSink",
    "LLMCondenser",
    "LLMPolicy",
    "ListSink",
    "NullSink",
    "Policy",
    "PolicyTurn",
    "Query",
    "RuleCondenser",
    "RunResult",
    "ScriptedPolicy",
    "Segment",
    "Source",
    "StateError",
    "TokenCounter",
    "Trajectory",
    "Turn",
    "Usage",
    "parse_state",
    "parse_turn",
    "render_state_block",
    "run_agent",
]
