"""Relation words: the groups of words that name one relation of a fact (population, area,
capital …). Answers and pages say a relation in different words ("inhabitants", "people"); a
value is bound to the group of its relation word, both in the answer's claims
(quest.rubric.binding) and on a cited page (quest.rubric.support)."""

from __future__ import annotations

# One group a line; the first word names the group.
RELATION_GROUPS = (
    "population populations inhabitants inhabitant residents resident people live lives living "
    "populated",
    "area areas square km2 sq covers cover covering kilometres kilometers hectares",
    "capital capitals",
    "currency currencies",
    "largest biggest populous",
    "border borders bordering bordered neighbour neighbours neighbouring neighbor neighbors "
    "neighboring adjacent",
    "elevation altitude height high highest tall tallest",
    "length long longest",
    "language languages spoken",
    "zone zones timezone",
    "latitude longitude",
    "calling dialling telephone",
    "domain domains",
    "discovered discovery discover discovering discoverer discoverers identified isolated "
    "detected synthesized synthesised described observed",
    "state statehood admitted admission union",
    # "atomic" is no cue: it names both the atomic number and the atomic weight.
    "protons proton",
    "weight weights mass masses",
    "holidays holiday",
    "subdivisions subdivision provinces regions divisions",
    "airports airfields",
    "founded established founding",
    "born birth died death",
    "isotopes isotope",
)
RELATIONS = {word: group.split()[0] for group in RELATION_GROUPS for word in group.split()}
