"""questweb's pure engine: rubric trees, agent, search, synthesis, rewards, training.

Nothing in this package imports Django, Channels, Celery, Ninja or the web app; it reaches the
world through small Protocols and returns plain dataclasses, so a GPU worker, a notebook, TRL
or verl can import it on its own.
"""

from __future__ import annotations

__version__ = "0.1.0"
