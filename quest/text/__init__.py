"""Reading English, one layer at the bottom of the engine, on well-kept libraries: what a reader
of a Markdown answer sees (quest.text.visible: markdown-it-py and lexbor), sentences
(quest.text.sentences: Punkt), how values are written (quest.text.values: anyascii, text2num),
folding (quest.text.fold: accents, case, punctuation), words (quest.text.words: one stopword
list, number words, Snowball stems) and other names of a country (quest.text.aliases: pycountry,
countryinfo). Every package above reads text through it; what is hand-written here is data."""
