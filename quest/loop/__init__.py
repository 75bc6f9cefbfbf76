"""The whole QUEST recipe on one machine, resumable: `python -m quest loop` (quest.cli.loop)."""
