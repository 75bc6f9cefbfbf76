"""Reading English, one layer at the bottom of the engine, on well-kept libraries: what a reader
of a Markdown answer sees (quest.text.visible, markdown-it-py and lexbor), and how values are
written (quest.text.values). Every package above reads text through it."""
