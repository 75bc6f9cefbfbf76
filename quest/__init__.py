"""questweb's pure engine: rubric trees, agent, search, synthesis, rewards, training.

Nothing in this package imports Django, Channels, Celery, Ninja or the web app; it reaches the
world through small Protocols and returns plain dataclasses, so a GPU worker, a notebook, TRL
or verl can import it on its own.

Its packages form a stack, from the bottom: text, llm and the QUEST text protocol; rubric;
corpus; search (beside rewards); tools; agent; synthesis; training; loop; the command line
(quest.cli). A lower package never imports a higher one, not even inside a function: the
layers contract in pyproject.toml holds it.
"""

from __future__ import annotations

__version__ = "0.1.0"
