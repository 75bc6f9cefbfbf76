"""Public deep-research benchmarks in their own formats and metrics: BrowseComp-Plus, the
Search-R1 / FlashRAG question-answering sets and FRAMES (issue 39)."""
