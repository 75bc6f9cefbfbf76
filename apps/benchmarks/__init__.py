"""Public deep-research benchmarks (issue 39): BrowseComp-Plus, the Search-R1 / FlashRAG QA sets
and FRAMES, run by the engine (quest.bench) as jobs, with their results beside published ones."""
