"""The deterministic research core shared by the scripted policy and the rule condenser: reading
a question, reading tool outputs, keeping a notebook, sorting facts and writing a report."""

from __future__ import annotations

from quest.agent.research.notebook import Notebook
from quest.agent.research.question import Question
from quest.agent.research.report import write_report

__all__ = ["Notebook", "Question", "write_report"]
